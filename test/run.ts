// Runs every test file (test/**/*.test.ts) with uvu and closes with one line `N passed, N failed`
// for CI. Usage: node test/run.ts [pattern]   (pattern: a regular expression on the file path)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pattern = process.argv[2] ?? '\\.test\\.ts$';
const uvu = fileURLToPath(new URL('../node_modules/uvu/bin.js', import.meta.url));
// Tests never see this machine's docfix setup: a private configuration and data folder for the
// whole run (tests make their own inside), and no address, key or profile from the environment, so
// nothing depends on the user's config, the default port or a daemon already running.
const isolated = mkdtempSync(join(tmpdir(), 'docfix-test-run-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DOCFIX_TEST: '1',
  DOCFIX_CONFIG_DIR: join(isolated, 'config'),
  DOCFIX_DATA_DIR: join(isolated, 'data'),
};
for (const name of [
  'DOCFIX_URL',
  'DOCFIX_API_KEY',
  'DOCFIX_PROFILE',
  'DOCFIX_PORT',
  'DOCFIX_HOST',
  'DOCFIX_DATABASE_URL',
  'DOCFIX_BLOBS',
  'DOCFIX_LOCAL_PAGES',
  'DOCFIX_LOCAL_UPLOAD_MB',
  'DOCFIX_LOCAL_CORRECTIONS_PER_DAY',
  'DOCFIX_LOCAL_RATE_PER_MINUTE',
  'DOCFIX_LOCAL_RATE_BURST',
])
  delete env[name];
const child = spawn(process.execPath, [uvu, 'test', pattern], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env,
});
let out = '';
child.stdout.on('data', (chunk: Buffer) => {
  out += chunk.toString();
  process.stdout.write(chunk);
});
child.on('close', (code) => {
  // uvu's summary reads "Total: N", "Passed: N", "Skipped: N"; ANSI colours are stripped first.
  const plain = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  let failed = total - passed - skipped;
  if (code !== 0 && failed === 0) failed = 1; // a crash before the summary still fails
  // On a line of its own: a test may leave a terminal sequence (cursor show) without a newline.
  console.log(`\n${passed} passed, ${failed} failed`);
  rmSync(isolated, { recursive: true, force: true });
  process.exit(code === 0 && failed === 0 ? 0 : 1);
});
