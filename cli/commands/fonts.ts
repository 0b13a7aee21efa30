// docfix fonts: the faces tier 4 may draw a missing character with, and where each comes from
// (GET /v1/fonts): bundled with docfix, found by fontconfig on the daemon's machine, or in a folder
// of its own (`daemon serve --font-dir`, DOCFIX_FONT_DIRS). Restricted-licence faces are listed, marked: they are never embedded.
import type { Command } from 'commander';
import {
  c,
  dispatch,
  getClient,
  globalOptions,
  info,
  printJson,
  table,
  type GlobalOptions,
} from '../context.ts';

export interface FontsOptions {
  globals: GlobalOptions;
}

export function register(program: Command): void {
  program
    .command('fonts')
    .description('List the faces corrections may draw a missing letter with, and where each comes from')
    .addHelpText(
      'after',
      `
The daemon uses the bundled faces first, then the fonts of its machine that a page's font names:
fontconfig's (unless "daemon serve --no-system-fonts" or DOCFIX_SYSTEM_FONTS=0) and those in its
font folders ("daemon serve --font-dir DIR" or DOCFIX_FONT_DIRS).

Examples:
  $ docfix fonts
  $ docfix fonts --json`,
    )
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('fonts', { globals: globalOptions(cmd) } satisfies FontsOptions, runFonts);
    });
}

const ORIGIN_LABEL = { bundled: 'bundled', system: 'system', font_dirs: 'font folder' } as const;

export async function runFonts(o: FontsOptions): Promise<void> {
  const client = await getClient(o.globals);
  const listing = await client.call('fonts');
  if (o.globals.json) return printJson(listing);
  table(
    listing.faces.map((f) => [
      f.postscript_name,
      `${f.family} ${f.style}`,
      ORIGIN_LABEL[f.origin],
      f.embedding === 'allowed' ? 'yes' : `no (${f.embedding.replace('_', ' ')})`,
      f.origin === 'bundled' ? '' : f.file,
    ]),
    ['POSTSCRIPT NAME', 'FACE', 'FROM', 'EMBEDDABLE', 'FILE'],
  );
  const count = (origin: keyof typeof ORIGIN_LABEL) =>
    listing.faces.filter((f) => f.origin === origin).length;
  info(
    c.dim(
      `${count('bundled')} bundled; ${count('system')} from fontconfig${listing.system_fonts ? '' : ' (off: --no-system-fonts or DOCFIX_SYSTEM_FONTS=0)'}; ${count('font_dirs')} from font folders${listing.font_dirs.length ? ` (${listing.font_dirs.join(', ')})` : ' (none: --font-dir or DOCFIX_FONT_DIRS)'}`,
    ),
  );
}
