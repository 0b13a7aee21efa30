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

  program
    .command('search')
    .description("Search the text layer of a document's pages")
    .argument('<document>', 'document id, or a unique prefix of it')
    .argument('<text>', 'the text to find (at most 200 characters)')
    .addHelpText('after', '\nExamples:\n  $ docfix search 3f2a "Jonh Smith"')
    .action(async (document: string, text: string, _o: unknown, cmd: Command) => {
      if (text.length > 200) throw new UsageError('search text is at most 200 characters');
      await dispatch(
        'search',
        { globals: globalOptions(cmd), document, text } satisfies SearchOptions,
        runSearch,
      );
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

export async function runSearch(o: SearchOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const result = await client.call('searchDocument', { params: { document_id: id }, query: { q: o.text } });
  if (o.globals.json) return printJson(result);
  const matches = result.matches ?? [];
  if (matches.length === 0) info(`No match for "${o.text}".`);
  else
    table(
      matches.map((m, i) => [
        String(i),
        String(m.page_index),
        m.text,
        m.box_render.join(','),
        m.confidence.toFixed(0),
      ]),
      ['MATCH', 'PAGE', 'TEXT', 'BOX (300 dpi px)', 'CONFIDENCE'],
    );
  if (result.pages_needing_recognition?.length) {
    info(
      `${c.yellow('!')} pages ${result.pages_needing_recognition.join(', ')} are scanned and were not searched (try: docfix ocr)`,
    );
  }
  if (result.truncated) info(`${c.yellow('!')} more matches than shown`);
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
