// The deployment's HTTPS path (docs/deploy.md): a self-signed certificate for localhost/127.0.0.1
// made here with openssl, `daemon serve --tls-cert --tls-key` on a free port over a private data
// dir, then the CLI against https://localhost:PORT trusting the certificate through
// NODE_EXTRA_CA_CERTS — and refusing it without that trust.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DAEMON, DOCFIX, readyUrl, ROOT, runNode } from '../cli/helpers.ts';

let dir = '';
let daemon: ChildProcess | undefined;
let url = '';
let cert = '';
let env: NodeJS.ProcessEnv = {};

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-tls-'));
  cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.error || made.status !== 0)
    throw new Error(`openssl could not make a certificate (install openssl): ${made.error ?? made.stderr}`);
  // Private folders only: no machine configuration, no default data dir.
  env = {
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    XDG_DATA_HOME: join(dir, 'xdg-data'),
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_DATA_DIR: join(dir, 'data'),
    DOCFIX_URL: '',
    DOCFIX_API_KEY: '',
    DOCFIX_PROFILE: '',
  };
  const args = [
    'serve',
    '--port',
    '0',
    '--data-dir',
    join(dir, 'data'),
    '--tls-cert',
    cert,
    '--tls-key',
    key,
  ];
  daemon = spawn(process.execPath, [DAEMON, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = await readyUrl(daemon);
  assert.match(listening, /^https:\/\/127\.0\.0\.1:\d+$/, 'the ready line says https://');
  url = listening.replace('127.0.0.1', 'localhost');
});

test.after(async () => {
  if (daemon && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon!.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

test('GET /healthz answers 200 over HTTPS with the certificate trusted', async () => {
  const ca = await readFile(cert);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  assert.is(status, 200);
});

test('the CLI works against https://localhost:PORT with NODE_EXTRA_CA_CERTS and a key made on the server', async () => {
  const made = await runNode(
    DAEMON,
    ['keys', 'create', '--data-dir', join(dir, 'data'), '--tenant', 'team', '--plan', 'business', '--json'],
    env,
  );
  assert.is(made.code, 0, made.stderr);
  const apiKey = (JSON.parse(made.stdout) as { api_key: string }).api_key;
  const trusted = { ...env, NODE_EXTRA_CA_CERTS: cert, DOCFIX_API_KEY: apiKey };
  const health = await runNode(DOCFIX, ['--url', url, '--no-autostart', 'health', '--json'], trusted);
  assert.is(health.code, 0, health.stderr);
  const listed = await runNode(DOCFIX, ['--url', url, '--no-autostart', 'ls', '--json'], trusted);
  assert.is(listed.code, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout), [], 'a new tenant has no documents');

  // Without the trust: a connection error (exit 3) naming the certificate problem, nothing on stdout.
  const untrusted = await runNode(DOCFIX, ['--url', url, '--no-autostart', 'ls', '--json'], {
    ...env,
    DOCFIX_API_KEY: apiKey,
  });
  assert.is(untrusted.code, 3, untrusted.stderr);
  assert.is(untrusted.stdout, '');
  assert.match(untrusted.stderr, /certificate/i);
});

test.run();
