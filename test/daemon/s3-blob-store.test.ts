// The S3 blob backend (--blobs s3://…) against a stand-in: a small in-memory HTTP server that answers
// the five S3 calls the backend makes (PUT, GET, HEAD object; ListObjectsV2; DeleteObjects). It
// checks what the client sends — path-style URLs, no flexible-checksum headers on plain PUTs — and
// the backend's behaviour. It is not a real S3 server (none is available to the tests): a server's
// own quirks are not covered here.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { S3Client } from '@aws-sdk/client-s3';
import { parseS3Url, S3BlobBackend } from '../../daemon/storage/s3-blob-store.ts';

const objects = new Map<string, Buffer>();
const seen: { method: string; path: string; headers: IncomingMessage['headers'] }[] = [];
let server: Server;
let endpoint: string;

function xml(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${body}`;
}

test.before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
      const [, bucket, ...rest] = url.pathname.split('/');
      const key = decodeURIComponent(rest.join('/'));
      const id = `${bucket}/${key}`;
      if (req.method === 'PUT') {
        objects.set(id, Buffer.concat(chunks));
        res.writeHead(200, { etag: '"x"' }).end();
      } else if ((req.method === 'GET' || req.method === 'HEAD') && key) {
        const found = objects.get(id);
        if (!found) {
          res.writeHead(404, { 'content-type': 'application/xml' });
          res.end(req.method === 'HEAD' ? undefined : xml('<Error><Code>NoSuchKey</Code></Error>'));
          return;
        }
        res.writeHead(200, { 'content-length': String(found.length), etag: '"x"' });
        res.end(req.method === 'HEAD' ? undefined : found);
      } else if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
        const prefix = `${bucket}/${url.searchParams.get('prefix') ?? ''}`;
        const keys = [...objects.keys()].filter((k) => k.startsWith(prefix));
        const contents = keys.map((k) => `<Contents><Key>${k.slice(bucket.length + 1)}</Key></Contents>`);
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          xml(`<ListBucketResult><IsTruncated>false</IsTruncated>${contents.join('')}</ListBucketResult>`),
        );
      } else if (req.method === 'POST' && url.searchParams.has('delete')) {
        const body = Buffer.concat(chunks).toString();
        for (const m of body.matchAll(/<Key>([^<]+)<\/Key>/g)) objects.delete(`${bucket}/${m[1]}`);
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(xml('<DeleteResult></DeleteResult>'));
      } else {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

test.after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('s3:// URLs: bucket and prefix', () => {
  assert.equal(parseS3Url('s3://docfix-files/prod/eu'), { bucket: 'docfix-files', prefix: 'prod/eu/' });
  assert.equal(parseS3Url('s3://docfix-files'), { bucket: 'docfix-files', prefix: '' });
  assert.throws(() => parseS3Url('https://docfix-files'));
});

test('put, has, get and a document’s removal, path-style, without checksum headers on PUT', async () => {
  // The backend's own client settings, pointed at the stand-in.
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const backend = new S3BlobBackend('s3://docfix-files/prod', client);
  const sha = 'a'.repeat(64);
  const bytes = new TextEncoder().encode('%PDF-1.7 test');
  assert.not.ok(await backend.has('tnt_a', 'doc_a', sha, 'pdf'));
  await backend.put('tnt_a', 'doc_a', sha, 'pdf', bytes);
  await backend.put('tnt_a', 'doc_a', sha, 'pdf', bytes); // already there: not written again
  assert.ok(await backend.has('tnt_a', 'doc_a', sha, 'pdf'));
  assert.equal(await backend.get('tnt_a', 'doc_a', sha, 'pdf'), bytes);
  assert.is(await backend.get('tnt_a', 'doc_b', sha, 'pdf'), null);
  assert.ok(objects.has(`docfix-files/prod/tnt_a/doc_a/${sha}.pdf`), [...objects.keys()].join());

  const puts = seen.filter((s) => s.method === 'PUT');
  assert.is(puts.length, 1);
  assert.ok(puts[0].path.startsWith('/docfix-files/'), 'path-style');
  assert.not.ok(
    Object.keys(puts[0].headers).some(
      (h) => h.startsWith('x-amz-checksum-') || h === 'x-amz-sdk-checksum-algorithm',
    ),
    JSON.stringify(puts[0].headers),
  );

  const after = await backend.removeDocument(null as never, 'tnt_a', 'doc_a');
  await after?.();
  assert.not.ok(await backend.has('tnt_a', 'doc_a', sha, 'pdf'));
});

test.run();
