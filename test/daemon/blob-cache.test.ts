// The local cache of revision files a daemon on a shared database keeps (pg-blob-store.ts): files are
// fetched once and served from the cache, and the cache is held under its size by removing the
// files used least recently — never one used in the last ten minutes.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CachedBlobStore, type BlobBackend } from '../../daemon/storage/pg-blob-store.ts';

function memoryBackend(): BlobBackend & { gets: number } {
  const objects = new Map<string, Uint8Array>();
  const backend = {
    gets: 0,
    async put(t: string, d: string, sha: string, ext: string, bytes: Uint8Array) {
      objects.set(`${t}/${d}/${sha}.${ext}`, bytes);
    },
    async get(t: string, d: string, sha: string, ext: string) {
      backend.gets++;
      return objects.get(`${t}/${d}/${sha}.${ext}`) ?? null;
    },
    async has(t: string, d: string, sha: string, ext: string) {
      return objects.has(`${t}/${d}/${sha}.${ext}`);
    },
    removeDocument: async () => null,
  };
  return backend;
}

test('fetched once, then served from the cache; pruned least recently used first, recent files kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-blob-cache-'));
  try {
    const backend = memoryBackend();
    const cache = join(dir, 'cache');
    const store = new CachedBlobStore(backend, cache, join(dir, 'tmp'), 250);
    const shas: string[] = [];
    for (let i = 0; i < 4; i++) {
      const bytes = new Uint8Array(100).fill(i);
      shas.push(await store.putBytes('tnt_a', 'doc_a', bytes));
      assert.is(shas[i], createHash('sha256').update(bytes).digest('hex'));
    }
    const path = await store.localPath('tnt_a', 'doc_a', shas[0]);
    await store.localPath('tnt_a', 'doc_a', shas[0]);
    assert.equal(await store.read('tnt_a', 'doc_a', shas[0]), new Uint8Array(100).fill(0));
    assert.is(backend.gets, 1, 'one fetch, then the cache');
    for (const sha of shas.slice(1)) await store.localPath('tnt_a', 'doc_a', sha);
    // 400 bytes cached, 250 allowed. Two files were last used an hour ago, in this order.
    const hourAgo = Date.now() / 1000 - 3600;
    await utimes(join(cache, `${shas[2]}.pdf`), hourAgo, hourAgo);
    await utimes(join(cache, `${shas[1]}.pdf`), hourAgo + 60, hourAgo + 60);
    await writeFile(join(cache, 'not-a-blob'), 'kept');
    assert.is(await store.pruneCache(Date.now() + 120_000), 2);
    const left = (await readdir(cache)).sort();
    assert.equal(left, [`${shas[0]}.pdf`, `${shas[3]}.pdf`, 'not-a-blob'].sort());
    assert.ok(path.startsWith(cache));
    // Gone from the cache is not gone: fetched again when needed.
    assert.equal(await store.read('tnt_a', 'doc_a', shas[2]), new Uint8Array(100).fill(2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
