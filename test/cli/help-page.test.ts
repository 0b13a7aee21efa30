// The top-level help page printed without the command tree (cli/help-page.ts) is commander's own page
// for the tree, at every terminal width, and its rows file is current (regenerate with
// `node scripts/completions.ts`).
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { helpPage } from '../../cli/help-page.ts';
import { buildProgram } from '../../cli/main.ts';
import { helpPageRowsSource } from '../../scripts/completions.ts';
import { DOCFIX, ROOT } from './helpers.ts';

/** Commander's page for the whole tree at `width` columns, as `outputHelp` writes it. */
function commanderPage(width: number): string {
  let out = '';
  const program = buildProgram();
  program.configureOutput({ writeOut: (text) => (out += text), getOutHelpWidth: () => width });
  program.outputHelp();
  return out;
}

test('cli/help-page-rows.ts is what the command tree generates', async () => {
  const file = await readFile(join(ROOT, 'cli/help-page-rows.ts'), 'utf8');
  assert.is(file, await helpPageRowsSource(), 'stale: run node scripts/completions.ts');
});

for (const width of [30, 60, 80, 100, 120, 160, 240]) {
  test(`the page at ${width} columns is commander's page`, () => {
    const page = helpPage(width);
    assert.is(page, commanderPage(width));
    assert.match(page, /\n {2}upload \[options\] <file> +Upload a PDF/);
  });
}

test('docfix help, docfix --help, docfix -h and docfix alone print the page at 80 columns', () => {
  const expected = commanderPage(80);
  for (const args of [['help'], ['--help'], ['-h'], []]) {
    const run = spawnSync(process.execPath, [DOCFIX, ...args], { cwd: ROOT, encoding: 'utf8' });
    assert.is(run.status, 0, run.stderr);
    assert.is(run.stdout, expected, `docfix ${args.join(' ')}`);
    assert.is(run.stderr, '');
  }
});

test('a reader that stops early is not an error', () => {
  const run = spawnSync('sh', ['-c', `"${process.execPath}" "${DOCFIX}" help | head -n 1`], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.is(run.status, 0);
  assert.is(run.stdout, 'Usage: docfix [options] [command]\n');
  assert.is(run.stderr, '');
});

test.run();
