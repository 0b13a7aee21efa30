// Preflight on real pages: scans and invisible OCR layers refuse as a whole; words the engine cannot
// map to their drawing are named; correctable words are not; every word of a page is checked (the
// engine's dry run, no word cap).
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { preflightPage, sameGlyphReplacement } from '../../../src/preflight/page-preflight.ts';
import { CORPUS_DIR } from '../../daemon/harness.ts';

const run = (file: string, box: [number, number, number, number] | null = null, page = 0) =>
  preflightPage({
    pdf: new Uint8Array(readFileSync(`${CORPUS_DIR}${file}`)),
    password: '',
    page_index: page,
    box_render: box,
    render_dpi: null,
  });

test('probe replacements reuse only the word’s glyphs', () => {
  assert.is(sameGlyphReplacement('should'), 'hsould');
  assert.is(sameGlyphReplacement('aab'), 'aba');
  assert.is(sameGlyphReplacement('7'), '77');
});

test('a scan, with or without an OCR layer, is named as a page of pixel patches, not refused', async () => {
  const scan = await run('scan-russian-form.pdf');
  assert.equal(scan.regions, []);
  assert.match(scan.message ?? '', /pixel patches of the scan \(tier 5/);
  const layer = await run('vicksburg-ocr.pdf');
  assert.equal(layer.regions, []);
  assert.match(layer.message ?? '', /invisible OCR layer.*retyped/);
});

test('words the engine cannot map are named with its advice', async () => {
  const out = await run('cjk-90ms-rksj.pdf');
  assert.is(out.word_source, 'text_layer');
  assert.ok((out.checked ?? 0) > 0);
  assert.ok(out.regions!.length > 0);
  for (const r of out.regions!) {
    assert.is(r.code, 'text_not_mapped');
    assert.ok(r.what.length > 0);
    assert.is(r.box_render.length, 4);
  }
});

test('correctable words are not listed; a region limits the check; every word is checked', async () => {
  // manifest: libreoffice-writer.pdf page 0 "dolore" verifies at tier 1.
  const s = 300 / 72;
  const whole = await run('libreoffice-writer.pdf');
  assert.is(whole.checked, 100, 'every word of the page (pdftotext counts 100)');
  assert.is(whole.skipped, 0);
  assert.equal(whole.regions, []);
  const region = await run('libreoffice-writer.pdf', [
    0,
    Math.floor(60 * s),
    Math.ceil(600 * s),
    Math.ceil(100 * s),
  ]);
  assert.ok((region.checked ?? 0) > 0 && (region.checked ?? 0) < (whole.checked ?? 0) + (whole.skipped ?? 0));
});

test('a dense page: every word checked, the refusing ones named with the engine’s codes', async () => {
  const out = await run('tax-form-incremental.pdf');
  assert.ok((out.checked ?? 0) > 400, `${out.checked} words checked`);
  assert.is(out.skipped, 0);
  assert.ok(out.regions!.length > 0);
  assert.ok(out.regions!.every((r) => r.code === 'split_drawing' && (r.evidence as { word?: string }).word));
});

test.run();
