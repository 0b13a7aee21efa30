// Runs every test file (test/**/*.test.ts) with uvu and closes with one line `N passed, N failed`
// for CI. Usage: node test/run.ts [pattern]   (pattern: a regular expression on the path under test/)
//
// Each file runs in its own uvu process, in two lanes at once (DOCFIX_TEST_LANES; 1 runs them one
// after the other): most files wait on daemons, terminals and renderers more than they compute, and
// one process a file keeps one file's workers, daemons and folders from another's. A file's output
// is printed whole when it ends, with its time; the slowest files are listed at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const testDir = join(root, 'test');
const pattern = new RegExp(process.argv[2] ?? '\\.test\\.ts$', 'i');
const uvu = fileURLToPath(new URL('../node_modules/uvu/bin.js', import.meta.url));
/** The longest one file may take (the slowest, the scanned-page corpus, takes about 3.5 min). */
const FILE_LIMIT_MIN = 12;
/** How much of a failing file's output is repeated at the end. */
const FAILURE_LINES = 60;
const lanes = Math.max(1, Number(process.env.DOCFIX_TEST_LANES) || Math.min(2, availableParallelism()));

// Files known to take longest start first, so the two lanes end together; then the rest, larger first.
const SLOW_FIRST = [
  'cli/review.test.ts',
  'src/corrections/corpus.test.ts',
  'src/corrections/scan/scan-corpus.test.ts',
  'src/corrections/derived.test.ts',
  'daemon/postgres.test.ts',
  'daemon/crash.test.ts',
];

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (name.endsWith('.test.ts')) found.push(relative(testDir, path));
  }
  return found;
}

const files = testFiles(testDir)
  .filter((f) => pattern.test(f) && /\.test\.ts$/.test(f))
  .sort((a, b) => {
    const rank = (f: string) => (SLOW_FIRST.includes(f) ? SLOW_FIRST.indexOf(f) : SLOW_FIRST.length);
    return rank(a) - rank(b) || statSync(join(testDir, b)).size - statSync(join(testDir, a)).size;
  });

// Tests never see this machine's docfix setup: a private configuration and data folder for each
// file (tests make their own inside), and no address, key or profile from the environment, so
// nothing depends on the user's config, the default port or a daemon already running.
const isolated = mkdtempSync(join(tmpdir(), 'docfix-test-run-'));
const base: NodeJS.ProcessEnv = { ...process.env, DOCFIX_TEST: '1' };
for (const name of [
  'DOCFIX_URL',
  'DOCFIX_API_KEY',
  'DOCFIX_PROFILE',
  'DOCFIX_PORT',
  'DOCFIX_HOST',
  'DOCFIX_DATABASE_URL',
  'DOCFIX_BLOBS',
  'DOCFIX_FONT_DIRS',
])
  delete base[name];
// Nor the machine's fonts: tier 4 looks past the bundle only in the tests that mean it to (they set
// DOCFIX_SYSTEM_FONTS and DOCFIX_FONT_DIRS themselves).
base.DOCFIX_SYSTEM_FONTS = '0';
// The local plan's limits come from the daemon's environment; a test sets them where it means to.
for (const name of Object.keys(base)) if (name.startsWith('DOCFIX_LOCAL_')) delete base[name];

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  seconds: number;
  /** The file's output, colours stripped. */
  plain: string;
}

function runFile(file: string, index: number): Promise<FileResult> {
  const started = Date.now();
  const own = join(isolated, String(index));
  const env = { ...base, DOCFIX_CONFIG_DIR: join(own, 'config'), DOCFIX_DATA_DIR: join(own, 'data') };
  const exact = `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [uvu, 'test', exact], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    // A file that hangs is ended and counted failed, so a run always finishes with its counts.
    const limit = setTimeout(() => {
      out += `\n[${file}: still running after ${FILE_LIMIT_MIN} min; ended]\n`;
      child.kill('SIGKILL');
    }, FILE_LIMIT_MIN * 60_000);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('close', (code) => {
      clearTimeout(limit);
      // uvu's summary reads "Total: N", "Passed: N", "Skipped: N"; ANSI colours are stripped first.
      const plain = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      let failed = total - passed - skipped;
      if (code !== 0 && failed === 0) failed = 1; // a crash before the summary still fails
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(
        `${out}\n[${file}: ${passed} passed, ${failed} failed, ${seconds.toFixed(1)} s]\n`,
      );
      resolve({ file, passed, failed, seconds, plain });
    });
  });
}

const results: FileResult[] = [];
let next = 0;
async function lane(): Promise<void> {
  while (next < files.length) {
    const index = next++;
    results.push(await runFile(files[index], index));
  }
}
await Promise.all(Array.from({ length: lanes }, lane));
rmSync(isolated, { recursive: true, force: true });

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0) + (files.length === 0 ? 1 : 0);
const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 8);
console.log(`\nslowest files (${lanes} lane${lanes === 1 ? '' : 's'}):`);
for (const r of slowest) console.log(`  ${r.seconds.toFixed(1).padStart(6)} s  ${r.file}`);
// A failing file's output again at the end, its last lines: CI keeps only the tail of a long run,
// where a failure printed minutes earlier would be out of sight.
for (const r of results.filter((x) => x.failed > 0)) {
  const tail = r.plain.trimEnd().split('\n').slice(-FAILURE_LINES).join('\n');
  console.log(`\nfailed: ${r.file} (its last ${FAILURE_LINES} lines of output at most)\n${tail}`);
}
for (const r of results.filter((x) => x.failed > 0)) console.log(`failed: ${r.file}`);
// On a line of its own: a test may leave a terminal sequence (cursor show) without a newline.
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
