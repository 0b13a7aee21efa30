// A real daemon process: the ready line, the default key written to the CLI configuration on first
// start, keys and tenants changed by another process while it runs, start/stop/status, and a
// graceful stop on SIGTERM.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const BIN = new URL('../../bin/docfix-daemon.js', import.meta.url).pathname;
const exec = promisify(execFile);

let dir = '';
let env: NodeJS.ProcessEnv = {};
let child: ChildProcess | null = null;
let url = '';

async function admin(...args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await exec(process.execPath, [BIN, ...args], { env });
    return { stdout, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; code: number };
    return { stdout: e.stdout, code: e.code };
  }
}

function usage(key: string, method = 'GET', path = '/v1/usage') {
  return fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: method === 'POST' ? JSON.stringify({ document_id: 'doc_none' }) : undefined,
  });
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-server-'));
  env = { ...process.env, DOCFIX_CONFIG_DIR: join(dir, 'config'), DOCFIX_DATA_DIR: join(dir, 'data') };
  child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', join(dir, 'data')], { env });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^docfix daemon listening on (http:\/\/\S+)$/m.exec(out);
      if (match) resolve(match[1]);
    });
    child!.on('exit', (code) => reject(new Error(`daemon exited with ${code}`)));
    setTimeout(() => reject(new Error(`no ready line: ${out}`)), 20_000);
  });
});

test.after(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

test('prints the ready line and answers /healthz', async () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await fetch(`${url}/healthz`);
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { ok: boolean }).ok, true);
});

test('first start made a default key and wrote it to the CLI configuration', async () => {
  const config = JSON.parse(await readFile(join(dir, 'config', 'config.json'), 'utf8'));
  assert.is(config.local.url, url);
  assert.is(config.local.data_dir, join(dir, 'data'));
  const res = await usage(config.local.api_key);
  assert.is(res.status, 200);
  // The owner's own daemon: the local plan, no hosted limits (issue 30).
  assert.is(((await res.json()) as { plan: string }).plan, 'local');
});

test('keys created and revoked by another process count at once', async () => {
  const created = await admin(
    'keys',
    'create',
    '--data-dir',
    join(dir, 'data'),
    '--tenant',
    'acme',
    '--json',
  );
  assert.is(created.code, 0);
  const key = JSON.parse(created.stdout);
  assert.equal(Object.keys(key).sort(), ['api_key', 'key_id', 'tenant_id']);
  assert.is((await usage(key.api_key)).status, 200);

  const listed = JSON.parse((await admin('keys', 'list', '--data-dir', join(dir, 'data'), '--json')).stdout);
  assert.ok(listed.some((k: { key_id: string }) => k.key_id === key.key_id));
  assert.not.ok(JSON.stringify(listed).includes(key.api_key.split('.')[1]), 'list never shows secrets');

  await admin('tenants', 'set', 'acme', '--data-dir', join(dir, 'data'), '--suspended', 'true');
  const suspended = await usage(key.api_key, 'POST', '/v1/attestations');
  assert.is(suspended.status, 403);
  assert.is(((await suspended.json()) as { error: string }).error, 'account_suspended');

  assert.is((await admin('keys', 'revoke', key.key_id, '--data-dir', join(dir, 'data'))).code, 0);
  const revoked = await usage(key.api_key);
  assert.is(revoked.status, 401);
  assert.is(((await revoked.json()) as { error: string }).error, 'invalid_api_key');
});

test('a signing key rotated by the admin command is published at once, the old one kept', async () => {
  const before = (await (await fetch(`${url}/.well-known/docfix-certificate-key`)).json()) as {
    key_id: string;
  };
  const rotated = await admin('signing-key', 'rotate', '--data-dir', join(dir, 'data'), '--json');
  assert.is(rotated.code, 0);
  const after = (await (await fetch(`${url}/.well-known/docfix-certificate-key`)).json()) as {
    key_id: string;
    previous: { key_id: string }[];
  };
  assert.is.not(after.key_id, before.key_id);
  assert.ok(after.previous.some((k) => k.key_id === before.key_id));
});

test('bad admin usage exits 2 with a message', async () => {
  assert.is(
    (await admin('tenants', 'set', 'x', '--data-dir', join(dir, 'data'), '--plan', 'platinum')).code,
    2,
  );
  assert.is((await admin('keys', 'revoke', 'key_nope', '--data-dir', join(dir, 'data'))).code, 2);
});

test('status sees it; SIGTERM stops it cleanly and removes the pid file', async () => {
  const status = await admin('status', '--data-dir', join(dir, 'data'), '--json');
  assert.is(status.code, 0);
  assert.is(JSON.parse(status.stdout).url, url);
  assert.ok(existsSync(join(dir, 'data', 'daemon.pid')));
  const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
  child!.kill('SIGTERM');
  assert.is(await exited, 0);
  assert.not.ok(existsSync(join(dir, 'data', 'daemon.pid')));
  assert.is((await admin('status', '--data-dir', join(dir, 'data'))).code, 1);
});

test('start runs a background daemon that stop stops', async () => {
  const data = join(dir, 'bg');
  const started = await admin('start', '--port', '0', '--data-dir', data, '--json');
  assert.is(started.code, 0, started.stdout);
  const info = JSON.parse(started.stdout);
  assert.is(info.running, true);
  assert.is((await fetch(`${info.url}/healthz`)).status, 200);
  const again = JSON.parse((await admin('start', '--port', '0', '--data-dir', data, '--json')).stdout);
  assert.is(again.started, false, 'a second start finds the first');
  const stopped = await admin('stop', '--data-dir', data, '--json');
  assert.is(JSON.parse(stopped.stdout).stopped, true);
  assert.is((await admin('status', '--data-dir', data)).code, 1);
});

test.run();
