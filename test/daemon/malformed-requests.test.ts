// No 500 for a malformed request (issue 31): each case goes through a real server socket — several
// never become a request fastify can inject (bad URLs, huge or stalled headers, a slow body) — and
// must answer a 4xx with a documented code in the service's error shape.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from '../../daemon/app.ts';
import { sharedEngine } from './harness.ts';

let dataDir = '';
let app: FastifyInstance;
let port = 0;
let auth = '';
let tenantId = '';

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'docfix-malformed-'));
  app = await build({
    config: {
      dataDir,
      host: '127.0.0.1',
      rateLimit: { perMinute: 1_000_000, burst: 1_000_000 },
      headersTimeoutMs: 300,
      uploadIdleTimeoutMs: 400,
    },
    engine: sharedEngine(),
  });
  const tenant = await app.docfix.tenants.setTenant('malformed', { plan: 'business' });
  const key = await app.docfix.tenants.createKey(tenant.tenant_id);
  tenantId = tenant.tenant_id;
  auth = `Bearer ${key.api_key}`;
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

test.after(async () => {
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  head: string;
  body: any;
  /** Every byte the server sent (interim answers such as 103 included). */
  text: string;
}

/**
 * Sends `parts` on a fresh socket (a number in the list pauses that many milliseconds) and reads
 * until the server closes the connection; the last answer on it is parsed.
 */
async function raw(parts: (string | Buffer | number)[]): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve());
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  for (const part of parts) {
    if (socket.destroyed || socket.writableEnded) break;
    if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
    else socket.write(part);
  }
  // A server that never answers fails the test instead of hanging it.
  const guard = setTimeout(() => socket.destroy(), 20_000);
  await closed;
  clearTimeout(guard);
  const text = Buffer.concat(chunks).toString('utf8');
  const at = text.lastIndexOf('HTTP/1.1 ');
  const final = text.slice(at);
  const split = final.indexOf('\r\n\r\n');
  const head = final.slice(0, split);
  const payload = final.slice(split + 4);
  let body: any = null;
  try {
    body = JSON.parse(payload);
  } catch {
    body = payload;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, body, text };
}

function request(method: string, path: string, headers: Record<string, string | number>, body = ''): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '' || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

function assertInvalidRequest(answer: RawAnswer, what: string): void {
  assert.is(answer.status, 422, `${what}: ${answer.head}\n${JSON.stringify(answer.body)}`);
  assert.is(answer.body.error, 'invalid_request', what);
  assert.type(answer.body.message, 'string', what);
  assert.ok(Array.isArray(answer.body.problems) && answer.body.problems.length > 0, what);
}

const PART_HEAD = (boundary: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;

test('multipart without a boundary, with a wrong one, or cut short: 422 invalid_request', async () => {
  const body = `${PART_HEAD('b0undary')}%PDF-1.4 not much\r\n--b0undary--\r\n`;
  const cases: [string, string, string][] = [
    ['no boundary', 'multipart/form-data', body],
    ['a wrong boundary', 'multipart/form-data; boundary=other', body],
    ['cut short', 'multipart/form-data; boundary=b0undary', `${PART_HEAD('b0undary')}%PDF-1.4 not m`],
  ];
  for (const [what, type, payload] of cases) {
    const answer = await raw([
      request('POST', '/v1/documents', { authorization: auth, 'content-type': type }, payload),
    ]);
    assertInvalidRequest(answer, what);
    assert.not.ok(answer.text.includes('103 Early Hints'), `${what}: no job was opened`);
  }
  assert.equal(await readdir(join(dataDir, 'tmp')).catch(() => []), [], 'no temp file left');
});

test('a lone UTF-16 surrogate in find or replacement: 422 invalid_request naming the field', async () => {
  for (const field of ['find', 'replacement']) {
    const edit = {
      target: { method: 'text_layer', find: field === 'find' ? '\ud800' : 'word', match_index: 0 },
      replacement: field === 'replacement' ? 'a\udfffb' : 'other',
      page_index: 0,
    };
    // JSON.stringify escapes a lone surrogate as \ud800: the body is valid JSON, the string no text.
    const body = JSON.stringify(edit);
    const answer = await raw([
      request(
        'POST',
        '/v1/documents/doc_none/edits:propose',
        { authorization: auth, 'content-type': 'application/json' },
        body,
      ),
    ]);
    assertInvalidRequest(answer, field);
    assert.ok(answer.body.problems[0].field.endsWith(field), JSON.stringify(answer.body));
  }
});

test('an id over 100 characters: 404 not_found; a malformed percent-encoding: 422', async () => {
  const long = await raw([request('GET', `/v1/documents/doc_${'x'.repeat(120)}`, { authorization: auth })]);
  assert.is(long.status, 404, long.head);
  assert.is(long.body.detail.error, 'not_found');
  assert.type(long.body.detail.message, 'string');
  const bad = await raw([request('GET', '/v1/documents/%ZZ', { authorization: auth })]);
  assertInvalidRequest(bad, '%ZZ');
  assert.is(bad.body.problems[0].field, 'url');
});

test('huge headers and stalled headers: 422 invalid_request in the service shape', async () => {
  const huge = await raw([request('GET', '/healthz', { 'x-big': 'a'.repeat(40_000) })]);
  assertInvalidRequest(huge, 'huge headers');
  assert.is(huge.body.problems[0].field, 'headers');
  // Headers that never end: the server answers once its headers timeout passes, and closes.
  const stalled = await raw(['GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: 1\r\n']);
  assertInvalidRequest(stalled, 'stalled headers');
  assert.is(stalled.body.problems[0].field, 'headers');
});

test('a JSON body over the limit: 422 invalid_request', async () => {
  const body = JSON.stringify({ document_id: 'x'.repeat(1024 * 1024 + 10) });
  const answer = await raw([
    request('POST', '/v1/attestations', { authorization: auth, 'content-type': 'application/json' }, body),
  ]);
  assertInvalidRequest(answer, 'body too large');
});

test('an upload body that stalls: 422 after the idle timeout; no job, no record, no temp file', async () => {
  const boundary = 'sl0w';
  const total = PART_HEAD(boundary).length + 100_000;
  const parts: (string | number)[] = [
    request(
      'POST',
      '/v1/documents',
      {
        authorization: auth,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': total,
      },
      '',
    )
      // The server itself closes the connection: the client does not ask it to.
      .replace(/Content-Length: 0\r\n/, '')
      .replace('Connection: close\r\n', ''),
    PART_HEAD(boundary),
    '%PDF-1.4\n',
  ];
  // Then a byte every 50 ms: far below 64 KiB per idle period.
  for (let i = 0; i < 200; i++) parts.push(50, 'x');
  const answer = await raw(parts);
  assertInvalidRequest(answer, 'slow body');
  assert.match(answer.body.message, /stalled/);
  assert.match(answer.head, /^connection: close$/im);
  assert.not.ok(answer.text.includes('103 Early Hints'), 'no job was opened');
  assert.not.ok(/x-docfix-job/i.test(answer.head), 'no job was opened');
  assert.equal(await readdir(join(dataDir, 'tmp')).catch(() => []), [], 'no temp file left');
  const documents = await readdir(join(dataDir, 'tenants', tenantId, 'documents')).catch(() => []);
  assert.equal(documents, [], 'no document');
});

test.run();
