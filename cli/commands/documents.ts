// Documents: upload, ls, show, rm, classify, search, attest.
import { Option, type Command } from 'commander';
import { basename } from 'node:path';
import type { PageInfo } from '../../src/schemas.ts';
import {
  c,
  dispatch,
  getClient,
  globalOptions,
  info,
  intArg,
  print,
  printJson,
  progressBar,
  success,
  table,
  UsageError,
  withSpinner,
  type GlobalOptions,
} from '../context.ts';
import { formatBox, toPoints } from '../page-box.ts';
import {
  addMatchFlags,
  elsewhere,
  matchFlags,
  MATCH_RULE_HELP,
  pageList,
  ruleName,
  SEARCH_LIMIT_MAX,
  searchText,
  type MatchFlags,
} from '../text-match.ts';
import { parsePageRanges } from '../../src/page-ranges.ts';
import type { SearchHit, SearchOut } from '../../src/schemas.ts';
import {
  checkInputFile,
  checkUploadSize,
  confirm,
  docLine,
  passwordSource,
  readPassword,
  resolveDocumentId,
  uploadLimit,
  type PasswordSource,
} from '../shared.ts';

export interface UploadOptions {
  globals: GlobalOptions;
  file: string;
  password?: PasswordSource;
}
export interface ListOptions {
  globals: GlobalOptions;
  limit: number;
}
export interface DocOptions {
  globals: GlobalOptions;
  document: string;
}
export interface RemoveOptions extends DocOptions {
  yes: boolean;
}
export interface SearchOptions extends DocOptions {
  text: string;
  flags: MatchFlags;
  /** Only these pages: "3-7,10" (0-based), checked by parsePageRanges. */
  pages?: string;
  /** At most this many matches listed (1..500). */
  limit: number;
  /** Print only the number of matches. */
  count: boolean;
}

export function register(program: Command): void {
  program
    .command('upload')
    .description('Upload a PDF; prints the new document')
    .argument('<file>', 'the PDF file')
    .option('--password [-]', 'the PDF needs a password: prompt for it, or read it from stdin with "-"')
    .option('--password-file <file>', 'read the PDF password from a file')
    .addHelpText(
      'after',
      `
Examples:
  $ docfix upload invoice.pdf
  $ docfix upload locked.pdf --password            # asks for the password
  $ echo "$PDF_PASSWORD" | docfix upload locked.pdf --password -`,
    )
    .action(async (file: string, o: { password?: string | boolean; passwordFile?: string }, cmd: Command) => {
      const password = passwordSource(o.password, o.passwordFile);
      const options: UploadOptions = { globals: globalOptions(cmd), file, ...(password ? { password } : {}) };
      await dispatch('upload', options, runUpload);
    });

  program
    .command('ls')
    .alias('list')
    .description('List documents, newest first')
    .addOption(
      new Option('-L, --limit <n>', 'how many (at most 200)').default(50).argParser(intArg('--limit', 1)),
    )
    .addHelpText('after', '\nExamples:\n  $ docfix ls\n  $ docfix ls --limit 5 --json')
    .action(async (o: { limit: number }, cmd: Command) => {
      if (o.limit > 200) throw new UsageError('--limit is at most 200');
      await dispatch('ls', { globals: globalOptions(cmd), limit: o.limit } satisfies ListOptions, runList);
    });

  program
    .command('show')
    .description('Show a document and its pages')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addHelpText('after', '\nExamples:\n  $ docfix show 3f2a\n  $ docfix show 3f2a --json')
    .action(async (document: string, _o: unknown, cmd: Command) => {
      await dispatch('show', { globals: globalOptions(cmd), document } satisfies DocOptions, runShow);
    });

  program
    .command('rm')
    .alias('delete')
    .description('Delete a document, its revisions and every file made from it')
    .argument('<document>', 'document id, or a unique prefix of it')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  $ docfix rm 3f2a\n  $ docfix rm 3f2a --yes')
    .action(async (document: string, o: { yes?: boolean }, cmd: Command) => {
      const options: RemoveOptions = { globals: globalOptions(cmd), document, yes: Boolean(o.yes) };
      await dispatch('rm', options, runRemove);
    });

  program
    .command('classify')
    .description('Classify every page (text, scanned, …)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addHelpText('after', '\nExamples:\n  $ docfix classify 3f2a')
    .action(async (document: string, _o: unknown, cmd: Command) => {
      await dispatch('classify', { globals: globalOptions(cmd), document } satisfies DocOptions, runClassify);
    });

  const search = program
    .command('search')
    .description("Search the text layer of a document's pages (what a correction's --find can target)")
    .argument('<document>', 'document id, or a unique prefix of it')
    .argument('<text>', 'the text to find (at most 200 characters)');
  addMatchFlags(search)
    .addOption(
      new Option('-p, --page <index>', 'only this page (0 for the first)').argParser(intArg('--page')),
    )
    .option('--pages <list>', 'only these pages, e.g. 3-7,10 (0 for the first)')
    .addOption(
      new Option('-L, --limit <n>', `list at most this many matches (at most ${SEARCH_LIMIT_MAX})`)
        .default(SEARCH_LIMIT_MAX)
        .argParser(intArg('--limit', 1)),
    )
    .option('-c, --count', 'print only the number of matches')
    .addHelpText(
      'after',
      `
Each match is listed with its number (MATCH: as --match of propose/apply counts in the document, or
with --page N on that page; with --pages, within those pages), its page, the text
as the page has it, its box in points (x0,y0,x1,y1 from the page's top-left, as --box takes it) and
the rest of its line around it. A count line ends the list on stderr; --json prints the API's answer.
${MATCH_RULE_HELP}

Examples:
  $ docfix search 3f2a "Jonh Smith"
  $ docfix search 3f2a anybody --ignore-case --word --pages 3-7,10
  $ docfix search 3f2a the --count`,
    )
    .action(async (document: string, text: string, o: Record<string, unknown>, cmd: Command) => {
      await dispatch('search', searchOptions(document, text, o, cmd), runSearch);
    });

  program
    .command('attest')
    .description('Record that you are authorised to correct a document (needed before any correction)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .addHelpText('after', '\nExamples:\n  $ docfix attest 3f2a')
    .action(async (document: string, _o: unknown, cmd: Command) => {
      await dispatch('attest', { globals: globalOptions(cmd), document } satisfies DocOptions, runAttest);
    });
}

export async function runUpload(o: UploadOptions): Promise<void> {
  const { size } = await checkInputFile(o.file);
  const password = await readPassword(o.password);
  const client = await getClient(o.globals);
  checkUploadSize(o.file, size, await uploadLimit(client));
  const bar = progressBar(`Uploading ${basename(o.file)}`);
  let doc;
  try {
    doc = await client.call('uploadDocument', {
      multipart: { file: { path: o.file }, ...(password !== undefined ? { password } : {}) },
      // The bar ends (100%, newline) once the file is sent; the spinner then shows the daemon reading it.
      onProgress: ({ sent }) => {
        bar.update(Math.min(sent, size), size);
        if (sent >= size) bar.finish();
      },
      retry: true,
    });
  } finally {
    bar.stop(); // clears a bar cut short; nothing after finish
  }
  if (o.globals.json) return printJson(doc);
  success(`Uploaded ${basename(o.file)}: ${doc.page_count} page${doc.page_count === 1 ? '' : 's'}`);
  print(doc.document_id);
  for (const concern of doc.concerns ?? []) info(`${c.yellow('!')} ${concern}`);
}

export async function runList(o: ListOptions): Promise<void> {
  const client = await getClient(o.globals);
  const docs = await client.call('listDocuments', { query: { limit: o.limit } });
  if (o.globals.json) return printJson(docs);
  if (docs.length === 0) {
    info('No documents. Upload one with: docfix upload FILE');
    return;
  }
  table(docs.map(docLine), ['ID', 'NAME', 'PAGES', 'STATE', 'VERSION', 'CREATED']);
}

function pageRows(pages: PageInfo[]): string[][] {
  return pages.map((p) => [
    String(p.index),
    p.kind,
    `${Math.round(p.width_pt)}×${Math.round(p.height_pt)} pt`,
    p.rotation ? `${p.rotation}°` : '-',
    String(p.char_count),
    String(p.image_count),
    `${Math.round(p.confidence * 100) / 100}`,
  ]);
}
const PAGE_HEADERS = ['PAGE', 'KIND', 'SIZE', 'ROTATION', 'CHARS', 'IMAGES', 'CONFIDENCE'];

export async function runShow(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const doc = await client.call('getDocument', { params: { document_id: id } });
  if (o.globals.json) return printJson(doc);
  print(`${c.bold(doc.filename_hint || doc.document_id)}`);
  const facts: [string, string][] = [
    ['id', doc.document_id],
    ['state', doc.state],
    ['pages', String(doc.page_count)],
    ['original sha256', doc.original_sha256],
    ['corrected', doc.head_revision_id ? `yes (revision ${doc.head_revision_id})` : 'no'],
    ['created', doc.created_at],
  ];
  if (doc.protected) facts.push(['protected', doc.unlocked ? 'yes (unlocked)' : 'yes']);
  if (doc.watermarked) facts.push(['watermarked', 'yes']);
  for (const [k, v] of facts) print(`${c.dim(`${k}:`.padEnd(17))}${v}`);
  for (const concern of doc.concerns ?? []) print(`${c.yellow('!')} ${concern}`);
  if (doc.pages?.length) {
    print();
    table(pageRows(doc.pages), PAGE_HEADERS);
  }
}

export async function runRemove(o: RemoveOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  if (!o.yes) {
    if (!process.stdin.isTTY) throw new UsageError('--yes is required to delete when not interactive');
    if (!(await confirm(`Delete document ${id} and every file made from it?`))) {
      info('Nothing deleted.');
      return;
    }
  }
  await client.call('deleteDocument', { params: { document_id: id } });
  if (o.globals.json) return printJson({ deleted: id });
  success(`Deleted ${id}`);
}

export async function runClassify(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const pages = await withSpinner(
    'Classifying pages',
    client.call('classifyDocument', { params: { document_id: id }, retry: true }),
  );
  if (o.globals.json) return printJson(pages);
  table(pageRows(pages), PAGE_HEADERS);
}

function searchOptions(
  document: string,
  text: string,
  o: Record<string, unknown>,
  cmd: Command,
): SearchOptions {
  if (text.length > 200) throw new UsageError('search text is at most 200 characters');
  if ((o.limit as number) > SEARCH_LIMIT_MAX) throw new UsageError(`--limit is at most ${SEARCH_LIMIT_MAX}`);
  if (o.page !== undefined && o.pages !== undefined) throw new UsageError('give --page or --pages, not both');
  const pages = o.page !== undefined ? String(o.page) : (o.pages as string | undefined);
  if (pages !== undefined) {
    const parsed = parsePageRanges(pages);
    if ('problem' in parsed) throw new UsageError(`--pages: ${parsed.problem}`);
  }
  return {
    globals: globalOptions(cmd),
    document,
    text,
    flags: matchFlags(o),
    ...(pages !== undefined ? { pages } : {}),
    limit: o.limit as number,
    count: Boolean(o.count),
  };
}

/** The hit in its line: the rest of the line around it, the hit highlighted on a terminal. */
function inContext(m: SearchHit): string {
  const before = (m.before ?? '').trimStart();
  const after = (m.after ?? '').trimEnd();
  const head = before.length > 30 ? `…${before.slice(-30)}` : before;
  const tail = after.length > 30 ? `${after.slice(0, 30)}…` : after;
  return `${head}${c.bold(c.red(m.text))}${tail}`;
}

/** The closing line: how many matches on how many pages (stderr). */
function countLine(r: SearchOut, o: SearchOptions): string {
  const matches = r.matches ?? [];
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word === 'match' ? 'es' : 's'}`;
  const rule = c.dim(`(${ruleName(o.flags)})`);
  if (r.total !== undefined) {
    const pages = r.pages_matched ?? [];
    return `${s(r.total, 'match')} on ${s(pages.length, 'page')} ${rule}`;
  }
  const pages = new Set(matches.map((m) => m.page_index)).size;
  return `${c.yellow('!')} the first ${s(matches.length, 'match')} (on ${s(pages, 'page')}) shown ${rule}; there are more: narrow with --pages, or count them all with --count`;
}

export async function runSearch(o: SearchOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const extra = { ...(o.pages !== undefined ? { pages: o.pages } : {}) };
  const result = await withSpinner(
    'Searching',
    searchText(
      client,
      id,
      o.text,
      o.flags,
      o.count ? { ...extra, limit: 1, count: true } : { ...extra, limit: o.limit },
    ),
  );
  if (o.globals.json) return printJson(result);
  const scanned = result.pages_needing_recognition ?? [];
  const scannedNote = () => {
    if (scanned.length)
      info(
        `${c.yellow('!')} pages ${pageList(scanned)} are scanned and were not searched (try: docfix ocr DOC --page N --find TEXT)`,
      );
  };
  if (o.count) {
    print(String(result.total ?? result.matches?.length ?? 0));
    return scannedNote();
  }
  const matches = result.matches ?? [];
  if (matches.length > 0)
    table(
      matches.map((m, i) => [
        String(i),
        String(m.page_index),
        m.text,
        formatBox(m.box ?? toPoints(m.box_render)),
        inContext(m),
      ]),
      ['MATCH', 'PAGE', 'TEXT', 'BOX (pt)', 'CONTEXT'],
    );
  scannedNote();
  if (matches.length > 0) return info(countLine(result, o));
  info(`No match for "${o.text}" ${c.dim(`(${ruleName(o.flags)})`)}`);
  // Where it is under a looser rule or on other pages, as a correction's not-found error says.
  const narrowed = o.pages !== undefined ? { pages: o.pages, flag: '--pages' as const } : undefined;
  for (const line of await elsewhere(client, id, o.text, o.flags, narrowed)) info(`  ${line}`);
}

export async function runAttest(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const att = await client.call('createAttestation', { body: { document_id: id } });
  if (o.globals.json) return printJson(att);
  info(c.dim(att.statement_text));
  success(`Attested (${att.statement_version})`);
  print(att.attestation_id);
}
