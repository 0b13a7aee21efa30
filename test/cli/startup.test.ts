// Start-up (issue 30, item 9): `docfix help`, `docfix --help`, `docfix` alone and `docfix --version`
// load no package at all (the help page is printed from its generated rows, cli/help-page.ts), and a
// command's own help loads the command tree and nothing heavy. A module hook (node --import) records every module the
// process resolves; the heavy ones (the engine's WASM, the TUI, OCR, the HTTP client and its
// schemas, the configuration store) must not be among them. Time is measured by `npm run bench`
// (cli.help_ms), never asserted here.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCFIX, ROOT } from './helpers.ts';

/** Packages that only the commands using them may load. */
const HEAVY = [
  'mupdf',
  'ink',
  'react',
  'tesseract.js',
  '@hyzyla/pdfium',
  'undici',
  '@sinclair/typebox',
  'conf',
  'ajv',
  'pngjs',
  'pixelmatch',
  'fastify',
  '@noble/ed25519',
];

let dir = '';
let hook = '';

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-startup-'));
  hook = join(dir, 'record-modules.mjs');
  // Every resolved URL, one a line, to the file named by RECORD_MODULES.
  await writeFile(
    hook,
    `import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(process.env.RECORD_MODULES, resolved.url + '\\n');
    return resolved;
  },
});
`,
  );
});

test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The packages (under node_modules) a `docfix ARGS` run resolved, and its output. */
async function loadedPackages(args: string[], name: string) {
  const record = join(dir, `${name}.txt`);
  await writeFile(record, '');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, DOCFIX, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, RECORD_MODULES: record, NO_COLOR: '1' },
  });
  const urls = (await readFile(record, 'utf8')).split('\n').filter(Boolean);
  const packages = new Set(
    urls.flatMap((url) => {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return m ? [m[1]] : [];
    }),
  );
  return { run, urls, packages };
}

for (const [name, args] of [
  ['help', ['help']],
  ['dash-help', ['--help']],
  ['h', ['-h']],
  ['bare', []],
] as const) {
  test(`docfix ${args.join(' ') || '(no arguments)'} prints the help page without loading the command tree`, async () => {
    const { run, urls, packages } = await loadedPackages([...args], name);
    assert.is(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: docfix/);
    assert.ok(
      urls.some((u) => u.includes('/cli/help-page.')),
      'the hook recorded the help page',
    );
    assert.equal([...packages], [], 'no package at all (not even commander)');
    assert.not.ok(
      urls.some((u) => u.includes('/cli/main.')),
      'the command tree is not loaded',
    );
  });
}

test('docfix upload --help loads the command tree and nothing heavy', async () => {
  const { run, urls, packages } = await loadedPackages(['upload', '--help'], 'upload-help');
  assert.is(run.status, 0, run.stderr);
  assert.match(run.stdout, /^Usage: docfix upload/);
  assert.ok(packages.has('commander'), 'the hook saw the command tree being loaded');
  assert.ok(
    urls.some((u) => u.includes('/cli/main.')),
    'the hook recorded the CLI itself',
  );
  const heavy = HEAVY.filter((p) => packages.has(p));
  assert.equal(heavy, [], `loaded: ${[...packages].join(', ')}`);
});

test('docfix --version prints the package version and loads no package at all', async () => {
  const { run, urls, packages } = await loadedPackages(['--version'], 'version');
  assert.is(run.status, 0, run.stderr);
  const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.is(run.stdout, `${manifest.version}\n`);
  assert.equal([...packages], []);
  assert.not.ok(
    urls.some((u) => u.includes('/cli/')),
    'the CLI is not loaded for the version',
  );
});

test('a command that talks to a daemon still loads the client (the hook sees it)', async () => {
  // No daemon and no autostart: the client is loaded, then the connection fails (exit 3).
  const { run, packages } = await loadedPackages(
    ['health', '--no-autostart', '--url', 'http://127.0.0.1:9'],
    'health',
  );
  assert.is(run.status, 3, run.stderr);
  assert.ok(packages.has('undici'), 'the API client loads undici when it is needed');
});

test.run();
