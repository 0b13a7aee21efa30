// The typed API client against small real HTTP servers: errors rebuilt from both body shapes,
// validation problems, a route the daemon does not serve, answers that are not the API, timeouts,
// Retry-After and the opt-in retry, streamed multipart with progress, downloads that never leave a
// partial file.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient, ConnectionError, errorFromBody, withRetry } from '../../src/api-client.ts';
import { DocfixError } from '../../src/errors.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

async function serve(
  handler: Handler,
): Promise<{ client: ApiClient; url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    client: new ApiClient({ baseUrl: url, apiKey: 'k1', timeoutMs: 1000 }),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const json = (res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(data));
};

async function rejects(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

test('a call: method, path, query, bearer key, JSON both ways', async () => {
  let seen: { method?: string; url?: string; auth?: string; body?: string } = {};
  const s = await serve((req, res, body) => {
    seen = { method: req.method, url: req.url, auth: req.headers.authorization, body: body.toString() };
    json(res, 200, { ok: true });
  });
  try {
    await s.client.call('listDocuments', { query: { limit: 5 } });
    assert.equal(seen, { method: 'GET', url: '/v1/documents?limit=5', auth: 'Bearer k1', body: '' });
    await s.client.call('createAttestation', { body: { document_id: 'd/1' } });
    assert.equal(seen.body, '{"document_id":"d/1"}');
    await s.client.call('proposeEdit', {
      params: { document_id: 'd/1' },
      body: { target: { method: 'text_layer', find: 'a' }, attestation_id: 'a' },
    });
    assert.is(seen.url, '/v1/documents/d%2F1/edits:propose', 'parameters are encoded');
  } finally {
    await s.close();
  }
});

test('errors: inside detail, at the top level, validation, unknown codes', async () => {
  const s = await serve((req, res) => {
    if (req.url?.startsWith('/v1/documents/a'))
      return json(res, 404, { detail: { error: 'not_found', message: 'no doc' } });
    if (req.url === '/v1/usage') return json(res, 401, { error: 'invalid_api_key', message: 'bad key' });
    if (req.url?.startsWith('/v1/documents?'))
      return json(res, 422, {
        detail: [{ loc: ['query', 'limit'], msg: 'must be <= 200', type: 'maximum' }],
      });
    return json(res, 500, { error: 'weird_thing', message: 'x' });
  });
  try {
    let e = (await rejects(s.client.call('getDocument', { params: { document_id: 'a' } }))) as DocfixError;
    assert.instance(e, DocfixError);
    assert.equal([e.code, e.message, e.exitCode], ['not_found', 'no doc', 4]);
    e = (await rejects(s.client.call('usage'))) as DocfixError;
    assert.equal([e.code, e.exitCode], ['invalid_api_key', 3]);
    e = (await rejects(s.client.call('listDocuments', { query: { limit: 500 } }))) as DocfixError;
    assert.is(e.code, 'invalid_request');
    assert.equal(e.extra.problems, [{ field: 'query.limit', problem: 'must be <= 200' }]);
    e = (await rejects(s.client.call('plans'))) as DocfixError;
    assert.is(e.code, 'internal_error');
  } finally {
    await s.close();
  }
});

test('a route the daemon does not serve says so', () => {
  const ctx = { method: 'GET', url: 'http://d', path: '/v1/jobs/{job_id}' };
  const routed = errorFromBody(
    404,
    { detail: { error: 'not_found', message: 'No route GET /v1/jobs/x.' } },
    ctx,
  );
  assert.match(routed.message, /does not serve GET \/v1\/jobs/);
  const framework = errorFromBody(404, { message: 'Route GET:/v1/jobs/x not found', statusCode: 404 }, ctx);
  assert.match(framework.message, /does not serve/);
  const real = errorFromBody(404, { detail: { error: 'not_found', message: 'No such job.' } }, ctx);
  assert.is(real.message, 'No such job.');
});

test('not the API: HTML, malformed JSON, refused, timeout → ConnectionError naming the URL', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/v1/usage') {
      res.writeHead(502, { 'content-type': 'text/html' });
      return res.end('<h1>Bad gateway</h1>');
    }
    if (req.url === '/v1/plans') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<html></html>');
    }
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{"ok": tru');
    }
    // /v1/audit: never answers
  });
  try {
    for (const route of ['usage', 'plans', 'health', 'listAudit'] as const) {
      const e = (await rejects(s.client.call(route))) as ConnectionError;
      assert.instance(e, ConnectionError, route);
      assert.ok(e.message.includes(s.url), `${route}: ${e.message}`);
      assert.not.match(e.message, /\n/);
    }
    const e = (await rejects(s.client.call('listAudit'))) as ConnectionError;
    assert.match(e.message, /timed out/);
  } finally {
    await s.close();
  }
  const gone = (await rejects(s.client.call('usage'))) as ConnectionError;
  assert.instance(gone, ConnectionError);
  assert.match(gone.message, /cannot reach .*connection refused/);
});

test('Retry-After on 429/503, and the opt-in retry', async () => {
  let calls = 0;
  const s = await serve((_req, res) => {
    calls++;
    if (calls <= 2)
      return json(res, 503, { error: 'busy', message: 'all slots busy' }, { 'retry-after': '0' });
    json(res, 200, { limit: 1 });
  });
  try {
    const e = (await rejects(s.client.call('usage'))) as DocfixError;
    assert.equal([e.code, e.extra.retry_after], ['busy', 0]);
    const retries: number[] = [];
    const r = await s.client.call('usage', { retry: { onRetry: ({ attempt }) => retries.push(attempt) } });
    assert.equal(r, { limit: 1 });
    assert.equal(retries, [1]);
  } finally {
    await s.close();
  }
});

test('withRetry: bounded, honours the wait, gives up on long waits and other errors', async () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  const busy = () => new DocfixError('busy', 'busy', { retry_after: 2 });
  let n = 0;
  const e = await rejects(
    withRetry(
      async () => {
        n++;
        throw busy();
      },
      { retries: 3, sleep },
    ),
  );
  assert.is((e as DocfixError).code, 'busy');
  assert.is(n, 4);
  assert.equal(waits, [2000, 2000, 2000]);
  n = 0;
  await rejects(
    withRetry(
      async () => {
        n++;
        throw new DocfixError('too_many_requests', 'slow down', { retry_after: 3600 });
      },
      { sleep },
    ),
  );
  assert.is(n, 1, 'a wait over maxWaitS is not waited for');
  n = 0;
  await rejects(
    withRetry(
      async () => {
        n++;
        throw new DocfixError('not_found');
      },
      { sleep },
    ),
  );
  assert.is(n, 1);
});

test('multipart: the file streamed from disk, fields, progress', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-client-'));
  const file = join(dir, 'a.pdf');
  const bytes = Buffer.alloc(300_000, 7);
  bytes.write('%PDF-1.7\n');
  await writeFile(file, bytes);
  let received: { type?: string; body?: Buffer } = {};
  const s = await serve((req, res, body) => {
    received = { type: req.headers['content-type'], body };
    json(res, 201, { document_id: 'd1' });
  });
  try {
    const progress: number[] = [];
    const doc = await s.client.call('uploadDocument', {
      multipart: { file: { path: file }, password: 'pw' },
      onProgress: ({ sent }) => progress.push(sent),
    });
    assert.is(doc.document_id, 'd1');
    assert.match(received.type ?? '', /^multipart\/form-data; boundary=/);
    const text = received.body!.toString('latin1');
    assert.match(text, /name="file"; filename="a.pdf"\r\nContent-Type: application\/pdf/);
    assert.match(text, /name="password"\r\n\r\npw\r\n/);
    assert.ok(received.body!.includes(bytes), 'the whole file arrived');
    assert.ok(progress.length >= 1);
    assert.ok(progress.at(-1)! >= bytes.length);
  } finally {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('download: written through a temporary name; a cut answer leaves nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-client-'));
  const pdf = Buffer.from('%PDF-1.7\n' + 'x'.repeat(100_000));
  const s = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(pdf.length) });
    if (req.url?.includes('cut')) res.write(pdf.subarray(0, 1000), () => res.socket?.destroy());
    else res.end(pdf);
  });
  try {
    const ok = join(dir, 'ok.pdf');
    const r = await s.client.download('downloadDocument', { params: { document_id: 'd1' } }, ok);
    assert.is(r.bytes, pdf.length);
    assert.ok((await readFile(ok)).equals(pdf));
    const cut = join(dir, 'cut.pdf');
    const e = await rejects(s.client.download('downloadDocument', { params: { document_id: 'cut/x' } }, cut));
    assert.instance(e, ConnectionError);
    assert.equal(await readdir(dir), ['ok.pdf']);
  } finally {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
