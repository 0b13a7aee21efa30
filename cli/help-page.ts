// `docfix help` (and `docfix`, `--help`, `-h`) without loading the command tree: the top-level help
// page laid out from its rows (cli/help-page-rows.ts, written from the tree by
// `node scripts/completions.ts`) with the same layout rules as commander's own help, so the page is
// the same text at every terminal width (test/cli/help-page.test.ts compares the two). Loading
// commander and 33 command modules took most of the 170 ms `docfix help` needed; this takes none.
import { HELP_PAGE_ROWS } from './help-page-rows.ts';

/** A help row: the term (`upload [options] <file>`) and its description. */
export type HelpRow = readonly [term: string, description: string];

/** What the top-level page shows, in order (the shape written into cli/help-page-rows.ts). */
export interface HelpPageRows {
  usage: string;
  description: string;
  /** Headed lists: `Options:`, then each command group. */
  sections: readonly (readonly [heading: string, rows: readonly HelpRow[]])[];
  /** The text added after the page (examples), as commander prints it. */
  after: string;
}

/** Commander's rule: below this many columns a description is not wrapped. */
const MIN_WIDTH_TO_WRAP = 40;
const ITEM_INDENT = 2;
const SPACER = 2;

/** Wraps `text` at whitespace to `width` columns, keeping its own line breaks. */
function boxWrap(text: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return text;
  const lines: string[] = [];
  for (const line of text.split(/\r\n|\n/)) {
    const chunks = line.match(/\s*\S+/g);
    if (!chunks) {
      lines.push('');
      continue;
    }
    let current = chunks[0];
    for (const chunk of chunks.slice(1)) {
      if (current.length + chunk.length <= width) current += chunk;
      else {
        lines.push(current);
        current = chunk.trimStart();
      }
    }
    lines.push(current);
  }
  return lines.join('\n');
}

/** One row: the term padded to the page's term column, the description wrapped beside it. */
function formatRow([term, description]: HelpRow, termWidth: number, width: number): string {
  const indent = ' '.repeat(ITEM_INDENT);
  if (!description) return indent + term;
  const remaining = width - termWidth - SPACER - ITEM_INDENT;
  const preformatted = /\n[^\S\r\n]/.test(description);
  const text =
    remaining < MIN_WIDTH_TO_WRAP || preformatted
      ? description
      : boxWrap(description, remaining).replace(/\n/g, `\n${' '.repeat(termWidth + SPACER)}`);
  return indent + term.padEnd(termWidth) + ' '.repeat(SPACER) + text.replace(/\n/g, `\n${indent}`);
}

/** The whole page for a terminal `width` columns wide (80 when the output is not a terminal). */
export function helpPage(width = 80, rows: HelpPageRows = HELP_PAGE_ROWS): string {
  const termWidth = Math.max(0, ...rows.sections.flatMap(([, items]) => items.map(([term]) => term.length)));
  const out = [`Usage: ${rows.usage}`, ''];
  if (rows.description) out.push(boxWrap(rows.description, width), '');
  for (const [heading, items] of rows.sections) {
    if (!items.length) continue;
    out.push(heading, ...items.map((row) => formatRow(row, termWidth, width)), '');
  }
  // The last section's blank line ends the page; commander writes the text after it with a newline.
  return `${out.join('\n')}${rows.after ? `${rows.after}\n` : ''}`;
}

/** Prints the page to stdout at the terminal's width, as commander would. */
export function printHelpPage(): void {
  // A reader that stops early (docfix help | head) is not an error (as in cli/main.ts).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(helpPage(process.stdout.isTTY ? (process.stdout.columns ?? 80) : 80));
}
