// An upload the daemon answers before reading its body (here: over the key's rate limit) is read as
// that answer, 429 too_many_requests with its wait, not as a broken connection: the client must not
// ask the daemon to close the connection after the answer (it would, while the file is still being
// sent, and the answer was lost to "write EPIPE"). A real daemon, a 4 MB file, several times over.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../../src/api-client.ts';
import { DocfixError } from '../../src/errors.ts';
import { startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon | undefined;

test('an upload over the rate limit is answered 429 with its wait, every time', async () => {
  // The hosted plans' limit, made small: two requests, then one every 30 s.
  process.env.DOCFIX_RATE_PER_MINUTE = '2';
  process.env.DOCFIX_RATE_BURST = '2';
  d = await startDaemon();
  const file = join(d.dir, 'big.pdf');
  const bytes = Buffer.alloc(4 * 1024 * 1024, 0x20);
  bytes.write('%PDF-1.7\n');
  await writeFile(file, bytes);
  const client = new ApiClient({ baseUrl: d.url, apiKey: d.apiKey, timeoutMs: 30_000 });
  await client.call('usage');
  await client.call('usage');
  for (let i = 0; i < 4; i += 1) {
    let error: unknown;
    try {
      await client.call('uploadDocument', { multipart: { file: { path: file } } });
    } catch (e) {
      error = e;
    }
    assert.instance(error, DocfixError, `attempt ${i}: ${String(error)}`);
    const refused = error as DocfixError;
    assert.is(refused.code, 'too_many_requests', `attempt ${i}: ${refused.message}`);
    assert.ok(Number(refused.extra.retry_after) >= 1, `attempt ${i}: a wait is named`);
  }
  // The connection kept serving: a light request after the refused uploads is answered (429 too).
  const after = await client.call('usage').catch((e: unknown) => e);
  assert.instance(after, DocfixError);
  assert.is((after as DocfixError).code, 'too_many_requests');
});

test.after(async () => {
  await d?.stop();
});

test.run();
