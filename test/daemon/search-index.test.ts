// Search through the daemon keeps each revision's text: the upload writes the index beside the
// revision blob (the pages' text read to classify them; the same index a first search builds), a second search answers the same (a rare phrase too), and a
// document uploaded with a password never has its text written to disk; a long upload classified
// over both engine threads gives the pages, index and matches of one pass.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { inspectPdf, splitPages } from '../../src/documents/inspect.ts';
import { searchFile } from '../../src/documents/search.ts';
import { textIndexPath, type TextIndex } from '../../src/documents/text-index.ts';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';

let h: Harness;

test.before(async () => {
  h = await makeHarness();
});

test.after(async () => {
  await h.close();
});

/** Every `*.text-index.json` file in the data dir (each beside its revision blob), full paths. */
function indexPaths(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(d, entry.name));
      else if (entry.name.endsWith('.text-index.json')) out.push(join(d, entry.name));
    }
  };
  walk(dir);
  return out;
}

/** Their file names. */
function indexFiles(dir: string): string[] {
  return indexPaths(dir).map((p) => basename(p));
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

test('an upload writes the index at once, the same index a first search builds from the file', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'docfix-index-'));
  try {
    for (const name of [
      'tracemonkey-two-column.pdf',
      'annotations-many-types.pdf',
      'libreoffice-form.pdf',
      'scan-ocr-mixed-pages.pdf',
    ]) {
      const before = new Set(indexPaths(h.dataDir));
      const up = await h.upload(`${CORPUS_DIR}${name}`);
      assert.is(up.status, 201, name);
      const written = indexPaths(h.dataDir).filter((p) => !before.has(p));
      assert.is(written.length, 1, `${name}: the upload wrote its index`);
      // The index a search builds when there is none (a copy stored as a revision blob).
      const blob = join(scratch, `${up.body.original_sha256}.pdf`);
      copyFileSync(`${CORPUS_DIR}${name}`, blob);
      searchFile(blob, 'anything');
      const built = JSON.parse(readFileSync(textIndexPath(blob), 'utf8')) as TextIndex;
      const uploaded = JSON.parse(readFileSync(written[0], 'utf8')) as TextIndex;
      assert.equal(uploaded, built, name);
      assert.ok(uploaded.pages.every((p) => p !== null));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

test('a long upload is classified over both engine threads and answers as one pass would', async () => {
  const name = 'geotopo-linearized-type1c.pdf';
  const bytes = new Uint8Array(readFileSync(`${CORPUS_DIR}${name}`));
  assert.is(splitPages(117, 2).length, 2, 'the harness has 2 engine slots: the upload is split');
  const serial = inspectPdf(bytes);
  const before = new Set(indexPaths(h.dataDir));
  const up = await h.upload(`${CORPUS_DIR}${name}`);
  assert.is(up.status, 201);
  assert.is(up.body.page_count, 117);
  assert.equal(up.body.pages, serial.pages);
  assert.equal(up.body.concerns, serial.concerns);
  const written = indexPaths(h.dataDir).filter((p) => !before.has(p));
  assert.is(written.length, 1, 'the joined index is beside the blob');
  const scratch = mkdtempSync(join(tmpdir(), 'docfix-index-'));
  try {
    const blob = join(scratch, `${up.body.original_sha256}.pdf`);
    copyFileSync(`${CORPUS_DIR}${name}`, blob);
    const kinds = serial.pages.map((p) => p.kind);
    const built = searchFile(blob, 'Topologie', { kinds });
    assert.equal(
      JSON.parse(readFileSync(written[0], 'utf8')),
      JSON.parse(readFileSync(textIndexPath(blob), 'utf8')),
    );
    const found = await h.json('GET', `/v1/documents/${up.body.document_id}/search?q=Topologie`);
    assert.is(found.status, 200);
    assert.ok(found.body.matches.length > 10);
    assert.equal(found.body, built);
    // The idle daemon splits an indexed search of a long document over its threads: the same
    // listing, cap, truncation and totals as one search.
    for (const [query, options] of [
      ['q=e&limit=7', { cap: 7 }],
      ['q=e&limit=7&count=true', { cap: 7, count: true }],
      ['q=RAUM&ignore_case=true', { rule: { ignoreCase: true, word: false } }],
    ] as const) {
      const got = await h.json('GET', `/v1/documents/${up.body.document_id}/search?${query}`);
      assert.equal(
        got.body,
        searchFile(blob, new URLSearchParams(query).get('q')!, { kinds, ...options }),
        query,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
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
