// review: the full-screen review of a document on a terminal (cli/tui/review/). Without a terminal it
// fails fast (exit 2) and names the commands that do the same steps one at a time.
import { Option, type Command } from 'commander';
import { appendFileSync } from 'node:fs';
import { EXIT } from '../../src/errors.ts';
import {
  CliExit,
  dispatch,
  getClient,
  globalOptions,
  info,
  intArg,
  success,
  type GlobalOptions,
} from '../context.ts';
import { resolveDocumentId } from '../shared.ts';

export interface ReviewOptions {
  globals: GlobalOptions;
  document: string;
  page?: number;
  find?: string;
}

/** What to use instead when there is no terminal. */
export const NON_INTERACTIVE = [
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
    .argument('<document>', 'document id, or a unique prefix of it')
    .addOption(
      new Option('-p, --page <index>', 'only this page (0 for the first page)').argParser(intArg('--page')),
    )
    .option('--find <text>', 'search for this text at once')
    .addHelpText(
      'after',
      `
Keys: / search · j/k or arrows move · g page · +/- zoom · Enter propose · y/n apply or skip
      u/r undo/redo · e export · ? all keys · q quit

Needs a terminal; without one it exits 2 (use the commands it names).

Examples:
  $ docfix review 3f2a
  $ docfix review 3f2a --page 0 --find Jonh`,
    )
    .action(async (document: string, o: { page?: number; find?: string }, cmd: Command) => {
      const options: ReviewOptions = {
        globals: globalOptions(cmd),
        document,
        ...(o.page !== undefined ? { page: o.page } : {}),
        ...(o.find ? { find: o.find } : {}),
      };
      await dispatch('review', options, runReview);
    });
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
  const documentId = await resolveDocumentId(client, o.document);
  const { initialState } = await import('../tui/review/review-state.ts');
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
      page: o.page,
      find: o.find,
      columns: process.stdout.columns || 80,
      rows: process.stdout.rows || 24,
      colour,
      graphics,
    }),
    ...(logFile ? { log: (line: string) => appendFileSync(logFile, `${line}\n`) } : {}),
  });
  const standing = final.corrections.length;
  success(`${standing} correction${standing === 1 ? '' : 's'} standing on ${documentId}`);
  if (final.exportState?.status === 'done') success(`Exported ${final.exportState.path}`);
}
