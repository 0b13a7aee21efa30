// Jobs: engine-bound requests are followed as jobs — announced at once (103 Early Hints), visible
// while running, then succeeded or failed with their result or error code; other tenants' jobs are
// not found.
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CORPUS_DIR, makeHarness, multipart } from './harness.ts';

test('an upload is a job that succeeds with its document; a refused one fails with its code', async () => {
  const h = await makeHarness();
  try {
    const { payload, headers } = multipart({
      file: { filename: 'a.pdf', content: new Uint8Array(readFileSync(`${CORPUS_DIR}latex-minimal.pdf`)) },
    });
    const up = await h.inject({ method: 'POST', url: '/v1/documents', payload, headers });
    assert.is(up.statusCode, 201);
    const jobId = up.headers['x-docfix-job'] as string;
    assert.match(jobId, /^job_/);
    const job = await h.json('GET', `/v1/jobs/${jobId}`);
    assert.is(job.status, 200);
    assert.is(job.body.kind, 'uploadDocument');
    assert.is(job.body.status, 'succeeded');
    assert.is(job.body.progress, 1);
    assert.is(job.body.result.document_id, up.json().document_id);

    const bad = multipart({ file: { filename: 'b.pdf', content: new TextEncoder().encode('not a pdf') } });
    const refused = await h.inject({
      method: 'POST',
      url: '/v1/documents',
      payload: bad.payload,
      headers: bad.headers,
    });
    assert.is(refused.statusCode, 422);
    const failed = await h.json('GET', `/v1/jobs/${refused.headers['x-docfix-job']}`);
    assert.is(failed.body.status, 'failed');
    assert.is(failed.body.last_error, 'not_a_pdf');

    const other = await h.newAccount('other');
    assert.is((await h.json('GET', `/v1/jobs/${jobId}`, undefined, other)).status, 404);
    const unknown = await h.json('GET', '/v1/jobs/job_nope');
    assert.is(unknown.status, 404);
    assert.is(unknown.body.detail.error, 'not_found');
  } finally {
    await h.close();
  }
});

test('over a socket the job id arrives first (103) and the job is running meanwhile', async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const h = await makeHarness({});
  await h.app.close();
  const { build } = await import('../../daemon/app.ts');
  const { sharedEngine } = await import('./harness.ts');
  const app = await build({
    config: { dataDir: h.dataDir, rateLimit: { perMinute: 1e6, burst: 1e6 } },
    engine: sharedEngine(),
    handlers: {
      searchDocument: async () => {
        await gate;
        return {
          query: 'x',
          matches: [],
          pages_searched: [],
          pages_needing_recognition: [],
          truncated: false,
        };
      },
    },
  });
  try {
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const jobId = await new Promise<string>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/v1/documents/doc_x/search?q=x',
        headers: h.account.headers,
      });
      req.on('information', (info) => {
        if (info.statusCode === 103) resolve(String(info.headers['x-docfix-job']));
      });
      req.on('response', (res) => res.resume());
      req.on('error', reject);
      setTimeout(() => reject(new Error('no 103 Early Hints with the job id')), 5000);
      req.end();
    });
    const running = await fetch(`${address}/v1/jobs/${jobId}`, { headers: h.account.headers });
    const body = (await running.json()) as { status: string; progress: number; kind: string };
    assert.is(body.status, 'running');
    assert.is(body.kind, 'searchDocument');
    release();
    for (let i = 0; i < 50; i++) {
      const done = (await (
        await fetch(`${address}/v1/jobs/${jobId}`, { headers: h.account.headers })
      ).json()) as { status: string };
      if (done.status === 'succeeded') return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.unreachable('the job did not finish');
  } finally {
    release();
    await app.close();
    await h.close().catch(() => undefined);
  }
});

test.run();
