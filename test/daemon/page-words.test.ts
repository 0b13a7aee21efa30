// The OCR and preflight routes over real uploads: an encrypted scanned page recognised in a region,
// matches with confidence and confirmation flags; a preflight naming the words known to refuse; page
// range and tenant isolation.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeRecognisers } from '../../src/ocr/recognizer.ts';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';

let h: Harness;
let documentId = '';

test.before(async () => {
  h = await makeHarness();
  const up = await h.upload(`${CORPUS_DIR}scan-jbig2-encrypted.pdf`, { password: 'ELXRTQWS' });
  assert.is(up.status, 201, JSON.stringify(up.body));
  documentId = up.body.document_id;
});

test.after(async () => {
  await h.close();
  await closeRecognisers();
});

test('GET /v1/ocr/languages: the languages recognition can use, each with its source and file', async () => {
  const res = await h.json('GET', '/v1/ocr/languages');
  assert.is(res.status, 200, JSON.stringify(res.body));
  const codes = res.body.languages.map((l: { code: string }) => l.code);
  for (const bundled of ['deu', 'eng', 'fra', 'ita', 'nld', 'pol', 'por', 'spa', 'ukr'])
    assert.ok(codes.includes(bundled), bundled);
  assert.equal(codes, [...new Set(codes)].sort(), 'each once, sorted');
  for (const l of res.body.languages) {
    assert.ok(['configured', 'bundled', 'tessdata_prefix', 'system'].includes(l.source), l.source);
    assert.match(l.file, new RegExp(`/${l.code}\\.traineddata(\\.gz)?$`));
  }
  assert.ok(res.body.folders.some((f: { source: string }) => f.source === 'bundled'));
});

test('recognises a region of an encrypted scan and finds the manifest word there', async () => {
  // manifest: page 0 "quite" at [105.8, 74.6, 129.1, 85.2] points
  const s = 300 / 72;
  const measured = [105.8 * s, 74.6 * s, 129.1 * s, 85.2 * s];
  const box = [0, Math.round(measured[1]) - 80, Math.round(measured[2]) + 800, Math.round(measured[3]) + 80];
  const res = await h.json('POST', `/v1/documents/${documentId}/pages/0/ocr`, {
    find: 'quite',
    box_render: box,
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.word_source, 'recognised');
  assert.match(res.body.provider, /^tesseract\.js /);
  assert.is(res.body.lang, 'eng');
  assert.is(res.body.confirm_threshold, 85);
  const match = res.body.matches.find(
    (m: any) =>
      m.box_render[0] < measured[2] &&
      measured[0] < m.box_render[2] &&
      m.box_render[1] < measured[3] &&
      measured[1] < m.box_render[3],
  );
  assert.ok(match, JSON.stringify(res.body.matches));
  assert.is(typeof match.needs_confirmation, 'boolean');
  assert.ok(res.body.selection_text.length > 0);
});

test('page out of range, bad bodies and other tenants get their errors', async () => {
  const far = await h.json('POST', `/v1/documents/${documentId}/pages/5/ocr`, {});
  assert.is(far.status, 422);
  assert.is(far.body.detail.error, 'page_out_of_range');
  const bad = await h.json('POST', `/v1/documents/${documentId}/pages/0/ocr`, { turn: 45 });
  assert.is(bad.status, 422);
  assert.is(bad.body.error, 'invalid_request');
  const other = await h.newAccount('other');
  const res = await h.json('POST', `/v1/documents/${documentId}/pages/0/ocr`, {}, other);
  assert.is(res.status, 404);
  assert.is(res.body.detail.error, 'not_found');
});

test('preflight names what refuses and says how much it checked', async () => {
  const up = await h.upload(`${CORPUS_DIR}cjk-90ms-rksj.pdf`);
  assert.is(up.status, 201);
  const res = await h.json('POST', `/v1/documents/${up.body.document_id}/pages/0/preflight`, {});
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.word_source, 'text_layer');
  assert.ok(res.body.checked > 0);
  assert.ok(res.body.regions.length > 0);
  assert.is(res.body.regions[0].code, 'text_not_mapped');
  const scan = await h.json('POST', `/v1/documents/${documentId}/pages/0/preflight`, {});
  // A scan refuses nothing as a whole: its words are pixel patches (tier 5).
  assert.equal(scan.body.regions, []);
  assert.match(scan.body.message, /pixel patches of the scan/);
  const far = await h.json('POST', `/v1/documents/${documentId}/pages/3/preflight`, {});
  assert.is(far.body.detail.error, 'page_out_of_range');
});

test.run();
