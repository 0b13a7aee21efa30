// Search through the daemon keeps each revision's text: the first search writes the index beside the
// revision blob, a second search answers the same (a rare phrase too), and a
// document uploaded with a password never has its text written to disk.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';

let h: Harness;

test.before(async () => {
  h = await makeHarness();
});

test.after(async () => {
  await h.close();
});

/** Every `*.text-index.json` file in the data dir (each beside its revision blob). */
function indexFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(d, entry.name));
      else if (entry.name.endsWith('.text-index.json')) out.push(entry.name);
    }
  };
  walk(dir);
  return out;
}

test('the first search writes the index beside the blob; the second answers the same', async () => {
  const up = await h.upload(`${CORPUS_DIR}latex-4-pages.pdf`);
  assert.is(up.status, 201);
  const id = up.body.document_id as string;
  const first = await h.json('GET', `/v1/documents/${id}/search?q=Should&ignore_case=true`);
  assert.is(first.status, 200);
  assert.ok(first.body.matches.length >= 80);
  const files = indexFiles(h.dataDir);
  assert.is(files.length, 1);
  assert.match(files[0], /^[0-9a-f]{64}\.text-index\.json$/);
  const second = await h.json('GET', `/v1/documents/${id}/search?q=Should&ignore_case=true`);
  assert.equal(second.body, first.body);
  const rare = await h.json('GET', `/v1/documents/${id}/search?q=nothing%20like%20this`);
  assert.equal(rare.body.matches, []);
  assert.equal(rare.body.pages_searched, [0, 1, 2, 3]);
});

test('a document with a password: searched, its text not written to disk', async () => {
  const before = indexFiles(h.dataDir).length;
  const up = await h.upload(`${CORPUS_DIR}crazyones-aes256.pdf`, { password: 'password' });
  assert.is(up.status, 201);
  const s = await h.json('GET', `/v1/documents/${up.body.document_id}/search?q=crazy`);
  assert.is(s.status, 200);
  assert.ok(s.body.matches.length > 0);
  assert.is(indexFiles(h.dataDir).length, before);
});

test.run();
