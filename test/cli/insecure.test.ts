// The CLI never sends an API key in clear to another machine unless told --insecure: the refusal
// comes before any connection. Proven with a listener on every interface, reached through this
// machine's own non-loopback address: a refused run must not reach it, an --insecure run does.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTransport, isLoopbackHost } from '../../cli/context.ts';
import { DOCFIX, runNode } from './helpers.ts';

let dir = '';
let server: Server;
let port = 0;
let connections = 0;
const sockets = new Set<Socket>();
let env: NodeJS.ProcessEnv = {};

/** This machine's first non-loopback IPv4 address (a CI machine has one: its network interface). */
function ownAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  throw new Error('this machine has no non-loopback IPv4 address to test with');
}

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-insecure-'));
  env = {
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_DATA_DIR: join(dir, 'data'),
    DOCFIX_URL: '',
    DOCFIX_API_KEY: '',
    DOCFIX_PROFILE: '',
  };
  server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  port = (server.address() as { port: number }).port;
});

test.after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

test('loopback hosts are this machine; names and other addresses are not', () => {
  for (const host of [
    '127.0.0.1',
    '127.8.9.10',
    '[::1]',
    'localhost',
    'LOCALHOST.',
    'a.localhost',
    '[::ffff:7f00:1]',
  ])
    assert.ok(isLoopbackHost(host), host);
  for (const host of [
    '10.255.255.1',
    '[::ffff:a00:1]',
    'example.org',
    '192.168.1.2',
    'localhost.example.org',
  ])
    assert.not.ok(isLoopbackHost(host), host);
});

test('checkTransport: a key over http to another machine is refused; https, loopback, no key or --insecure pass', () => {
  const remote = { url: 'http://10.255.255.1:9', apiKey: 'k', source: 'flag' as const };
  assert.throws(
    () => checkTransport(remote, {}),
    /refusing to send the API key over plain HTTP to 10\.255\.255\.1:9/,
  );
  checkTransport(remote, { insecure: true });
  checkTransport({ ...remote, url: 'https://10.255.255.1:9' }, {});
  checkTransport({ ...remote, url: 'http://127.0.0.1:7341' }, {});
  checkTransport({ ...remote, apiKey: undefined }, {});
});

test('docfix with a key and http:// to a non-loopback address: exit 3, a clear message, no connection made', async () => {
  const url = `http://${ownAddress()}:${port}`;
  connections = 0;
  const refused = await runNode(DOCFIX, ['--url', url, '--api-key', 'k-123', 'ls', '--json'], env);
  assert.is(refused.code, 3, refused.stderr);
  assert.is(refused.stdout, '');
  assert.match(refused.stderr, /refusing to send the API key over plain HTTP/);
  assert.match(refused.stderr, /--insecure/);
  assert.is(connections, 0, 'nothing reached the listener');

  // The same through DOCFIX_URL/DOCFIX_API_KEY, and to an address nothing routes to.
  const viaEnv = await runNode(DOCFIX, ['ls'], {
    ...env,
    DOCFIX_URL: 'http://10.255.255.1:9',
    DOCFIX_API_KEY: 'k-123',
  });
  assert.is(viaEnv.code, 3, viaEnv.stderr);
  assert.match(viaEnv.stderr, /refusing to send the API key over plain HTTP to 10\.255\.255\.1:9/);

  // --insecure sends it: the listener sees the request (so the check above could have seen one).
  const insecure = await runNode(
    DOCFIX,
    ['--url', url, '--api-key', 'k-123', '--insecure', 'ls', '--json'],
    env,
  );
  assert.ok(connections > 0, 'the --insecure run connected');
  assert.is(insecure.code, 3, 'the listener answered 401: an authentication failure');
});

test.run();
