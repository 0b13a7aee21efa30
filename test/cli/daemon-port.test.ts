// DOCFIX_PORT (issue 30, item 10): `docfix daemon start` listens where DOCFIX_PORT says and prints
// that address; the CLI's autostart follows it too, even when the configuration remembers another
// address. Ports are free ones found by the test; data and configuration are temporary.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCFIX, ownDaemonEnv, runNode } from './helpers.ts';

let dir = '';
let env: NodeJS.ProcessEnv = {};

/** A port nothing listens on right now (the kernel's pick for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-port-'));
  env = ownDaemonEnv(dir);
});

test.after(async () => {
  await runNode(DOCFIX, ['daemon', 'stop'], env);
  await rm(dir, { recursive: true, force: true });
});

test('DOCFIX_PORT=N docfix daemon start listens on N and says so', async () => {
  const port = await freePort();
  const started = await runNode(DOCFIX, ['daemon', 'start'], { ...env, DOCFIX_PORT: String(port) });
  assert.is(started.code, 0, started.stderr);
  assert.match(started.stdout, new RegExp(`started on http://127\\.0\\.0\\.1:${port} `));
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.is(health.status, 200);
  const stopped = await runNode(DOCFIX, ['daemon', 'stop'], env);
  assert.is(stopped.code, 0, stopped.stderr);
});

test('autostart follows DOCFIX_PORT rather than the address the configuration remembers', async () => {
  const port = await freePort();
  const r = await runNode(DOCFIX, ['health', '--json'], { ...env, DOCFIX_PORT: String(port) });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`Starting the local docfix daemon on http://127\\.0\\.0\\.1:${port}`));
  assert.is(JSON.parse(r.stdout).ok, true);
  const status = await runNode(DOCFIX, ['daemon', 'status', '--json'], env);
  assert.is(JSON.parse(status.stdout).url, `http://127.0.0.1:${port}`);
});

test.run();
