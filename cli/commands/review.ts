// review: the full-screen review of a document on a terminal (cli/tui/review/). Given a PDF file, it
// uploads it first (as fix does) and suggests exporting beside it. A document that is not there
// stops it with one line before the screen opens. Without a terminal it fails fast (exit 2) and
// names the commands that do the same steps one at a time.
import { Option, type Command } from 'commander';
import { appendFileSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ApiClient } from '../../src/api-client.ts';
import { DocfixError, EXIT } from '../../src/errors.ts';
import type { DocumentOut } from '../../src/schemas.ts';
import { matchFlags, type MatchFlags } from '../text-match.ts';
import {
  c,
  CliExit,
  dispatch,
  getClient,
  globalOptions,
  info,
  intArg,
  success,
  withSpinner,
  type GlobalOptions,
} from '../context.ts';
import {
  checkInputFile,
  checkUploadSize,
  LANG_HELP,
  passwordSource,
  promptSecret,
  readPassword,
  resolveDocumentId,
  uploadLimit,
  type PasswordSource,
} from '../shared.ts';

export interface ReviewOptions {
  globals: GlobalOptions;
  /** A document id (or a unique prefix), or a PDF file to upload. */
  document: string;
  page?: number;
  find?: string;
  /** For a PDF file that needs one. */
  password?: PasswordSource;
  /** The matching rule of the / search and --find (cli/text-match.ts), as `search` takes it. */
  match?: MatchFlags;
  /** The language scanned pages are recognised in (default: the page's own). */
  lang?: string;
}

/** What to use instead when there is no terminal. */
export const NON_INTERACTIVE = [
  'docfix upload FILE.pdf (prints DOC)',
  'docfix search DOC TEXT',
  'docfix ocr DOC --page N --find TEXT',
  'docfix crop DOC --page N --box x0,y0,x1,y1 --dpi 600',
  'docfix propose DOC --find OLD --replace NEW',
  'docfix apply DOC --find OLD --replace NEW --yes',
  'docfix undo DOC / docfix redo DOC',
  'docfix export DOC -o FILE',
];

export function register(program: Command): void {
  program
    .command('review')
    .description(
      'Review a document on a full screen: find, look closely, confirm, correct, step back, export',
    )
    .argument('<document>', 'a PDF file (uploaded first), or a document id or a unique prefix of it')
    .addOption(
      new Option('-p, --page <index>', 'only this page (0 for the first page)').argParser(intArg('--page')),
    )
    .option('--find <text>', 'search for this text at once')
    .option('-i, --ignore-case', 'the / search and --find match whatever the case (as `docfix search -i`)')
    .option('-w, --word', 'the / search and --find match whole words only (as `docfix search -w`)')
    .option('--password [-]', 'the PDF file needs a password: prompt for it, or read it from stdin with "-"')
    .option('--password-file <file>', 'read the PDF password from a file')
    .option('--lang <code>', LANG_HELP)
    .addHelpText(
      'after',
      `
Keys: / search · j/k or arrows move · g page · +/- zoom · Enter propose · y/n apply or skip
      u/r undo/redo · e export · ? all keys · q quit

A PDF file is uploaded first; export then suggests FILE-fixed.pdf beside it (for a document id,
NAME-fixed.pdf in the current folder). A refusal shows what to try; --verbose adds the engine's advice.
Needs a terminal; without one it exits 2 (use the commands it names).

Examples:
  $ docfix review memo.pdf
  $ docfix review 3f2a
  $ docfix review 3f2a --page 0 --find Jonh`,
    )
    .action(async (document: string, o: ReviewFlags, cmd: Command) => {
      const password = passwordSource(o.password, o.passwordFile);
      const options: ReviewOptions = {
        globals: globalOptions(cmd),
        document,
        ...(o.page !== undefined ? { page: o.page } : {}),
        ...(o.find ? { find: o.find } : {}),
        ...(password ? { password } : {}),
        match: matchFlags(o),
        ...(o.lang ? { lang: o.lang } : {}),
      };
      await dispatch('review', options, runReview);
    });
}

interface ReviewFlags {
  page?: number;
  find?: string;
  ignoreCase?: boolean;
  word?: boolean;
  password?: string | boolean;
  passwordFile?: string;
  lang?: string;
}

export function noTerminalMessage(): string {
  return `review needs a terminal (stdin and stdout); without one, use:\n${NON_INTERACTIVE.map((c) => `  ${c}`).join('\n')}`;
}

export async function runReview(o: ReviewOptions): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY || o.globals.json) {
    info(noTerminalMessage());
    throw new CliExit(EXIT.usage);
  }
  const client = await getClient(o.globals);
  const opened = await openDocument(client, o);
  const documentId = opened.document.document_id;
  const { initialState } = await import('../tui/review/review-workflow.ts');
  const { detectGraphics, probeSixel } = await import('../tui/review/terminal-graphics.ts');
  const { startReview } = await import('../tui/review/review-app.ts');
  const colour = o.globals.color && process.env.TERM !== 'dumb';
  let graphics = detectGraphics(process.env, colour);
  if (graphics === 'blocks' && !process.env.DOCFIX_GRAPHICS && !process.env.TMUX) {
    if (await probeSixel(process.stdin, process.stdout)) graphics = 'sixel';
  }
  const logFile = process.env.DOCFIX_REVIEW_LOG;
  const final = await startReview({
    client,
    documentId,
    initial: initialState({
      documentRef: documentId,
      ...(opened.file ? { exportPath: exportBeside(opened.file) } : {}),
      verbose: o.globals.verbose,
      page: o.page,
      find: o.find,
      columns: process.stdout.columns || 80,
      rows: process.stdout.rows || 24,
      colour,
      graphics,
    }),
    verbose: o.globals.verbose,
    ...(o.match ? { match: o.match } : {}),
    ...(o.lang ? { lang: o.lang } : {}),
    ...(logFile ? { log: (line: string) => appendFileSync(logFile, `${line}\n`) } : {}),
  });
  const standing = final.corrections.length;
  success(`${standing} correction${standing === 1 ? '' : 's'} standing on ${documentId}`);
  if (final.exportState?.status === 'done') success(`Exported ${final.exportState.path}`);
  else if (standing > 0)
    info(
      c.dim(
        `  export them with: docfix export ${documentId} -o ${exportBeside(opened.file ?? final.doc?.name ?? 'document.pdf')}`,
      ),
    );
}

/** Whether the argument names a file to upload rather than a document id. */
export function isFileArgument(given: string): boolean {
  return existsSync(given) || /\.pdf$/i.test(given) || given.includes('/');
}

/** `dir/memo.pdf` → `dir/memo-fixed.pdf`: the corrected file goes beside the one reviewed. */
export function exportBeside(file: string): string {
  const stem = basename(file).replace(/\.pdf$/i, '') || 'document';
  return join(dirname(file), `${stem}-fixed.pdf`);
}

/**
 * The document to review: a file is uploaded (asking for its password on the terminal when it needs
 * one and none was given); an id must name a document, else one line says so before any screen.
 */
async function openDocument(
  client: ApiClient,
  o: ReviewOptions,
): Promise<{ document: DocumentOut; file?: string }> {
  if (isFileArgument(o.document)) {
    const document = await uploadFile(client, o.document, o.password);
    success(`Uploaded ${basename(o.document)} as ${document.document_id}`);
    return { document, file: o.document };
  }
  const id = await resolveDocumentId(client, o.document);
  try {
    return { document: await client.call('getDocument', { params: { document_id: id } }) };
  } catch (error) {
    if (error instanceof DocfixError && error.code === 'not_found' && !error.extra.route_missing)
      throw new DocfixError(
        'not_found',
        `no document "${o.document}": give a PDF file, or a document id (docfix ls lists them)`,
      );
    throw error;
  }
}

async function uploadFile(client: ApiClient, file: string, source?: PasswordSource): Promise<DocumentOut> {
  const { size } = await checkInputFile(file);
  checkUploadSize(file, size, await uploadLimit(client));
  let password = await readPassword(source);
  for (;;) {
    const send = client.call('uploadDocument', {
      multipart: { file: { path: file }, ...(password !== undefined ? { password } : {}) },
      retry: true,
    });
    try {
      return await withSpinner(`Uploading ${basename(file)}`, send);
    } catch (error) {
      const needsPassword =
        error instanceof DocfixError &&
        (error.code === 'password_required' || error.code === 'password_protected');
      if (!needsPassword || password !== undefined) throw error;
      password = await promptSecret(`${basename(file)} needs a password: `);
    }
  }
}
