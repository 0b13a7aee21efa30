// A verification render's buffer given back (recycleRender) is reused by the next render of the same
// size, holds that render's pixels and nothing of the last, and is never handed out twice. A render
// made over a base (renderPageOver) equals a plain render byte for byte, whatever the last one made
// over that base changed, and names every row range where it differs from the base.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  loadPage,
  openPdf,
  recycleRender,
  renderPage,
  renderPageOver,
  renderPageRgb,
  type RgbImage,
} from '../../src/pdf/mupdf-adapter.ts';
import { diffRenders } from '../../src/corrections/proof/render-diff.ts';

const file = fileURLToPath(new URL('../../fixtures/corpus/pdf/latex-4-pages.pdf', import.meta.url));
const { doc } = openPdf(new Uint8Array(readFileSync(file)), '');
const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.compare(a, b) === 0;

test('a given-back buffer carries the next page, not the last', () => {
  const first = renderPageRgb(loadPage(doc, 0), 72);
  const firstBytes = first.pixels.slice();
  recycleRender(first);
  const second = renderPageRgb(loadPage(doc, 1), 72);
  assert.is(second.pixels.buffer, first.pixels.buffer, 'the same buffer is used again');
  const fresh = renderPage(loadPage(doc, 1), 72);
  assert.ok(same(second.pixels, fresh.pixels), 'the reused buffer holds page 2 exactly');
  assert.not.ok(same(second.pixels, firstBytes), 'pages 1 and 2 differ, so a stale buffer would show');
});

test('a buffer given back twice is handed out once', () => {
  const img = renderPageRgb(loadPage(doc, 2), 72);
  recycleRender(img);
  recycleRender(img);
  const a = renderPageRgb(loadPage(doc, 2), 72);
  const b = renderPageRgb(loadPage(doc, 3), 72);
  assert.is.not(a.pixels.buffer, b.pixels.buffer);
});

test('a render of another size never takes a spare buffer', () => {
  const small = renderPageRgb(loadPage(doc, 0), 36);
  recycleRender(small);
  const big = renderPageRgb(loadPage(doc, 0), 72);
  assert.is.not(big.pixels.buffer, small.pixels.buffer);
  assert.is(big.pixels.byteLength, big.stride * big.height);
});

/** Rows where two renders of one size differ, by a plain row-by-row comparison. */
function rowsDiffering(a: RgbImage, b: RgbImage): number[] {
  const rows: number[] = [];
  for (let y = 0; y < a.height; y += 1) {
    const [s, e] = [y * a.stride, (y + 1) * a.stride];
    if (Buffer.compare(a.pixels.subarray(s, e), b.pixels.subarray(s, e)) !== 0) rows.push(y);
  }
  return rows;
}

test('a render over a base equals a plain render, after any other render over that base', () => {
  const base = renderPage(loadPage(doc, 0), 72);
  // Page 2, then page 1 itself (nothing differs: the blocks page 2 wrote must be put back), then page 3.
  for (const index of [1, 0, 2, 1]) {
    const over = renderPageOver(loadPage(doc, index), 72, base);
    const plain = renderPage(loadPage(doc, index), 72);
    assert.ok(same(over.image.pixels, plain.pixels), `page ${index + 1} rendered over page 1 is exact`);
    assert.ok(over.differing, 'pages of one size are compared');
    const rows = rowsDiffering(base, plain);
    assert.is(rows.length > 0, index !== 0, `page ${index + 1} differs from page 1: ${rows.length} rows`);
    const covered = (y: number) => over.differing!.some(([y0, y1]) => y >= y0 && y < y1);
    assert.ok(rows.every(covered), 'every differing row lies in a range it names');
    // The comparison that reads only those ranges finds what the full comparison finds.
    const box: [number, number, number, number] = [10, 10, 200, 120];
    assert.equal(diffRenders(base, over.image, box, over.differing), diffRenders(base, plain, box));
    recycleRender(over.image);
  }
});

test('a render over a base whose last image is still read is made in a buffer of its own', () => {
  const base = renderPage(loadPage(doc, 3), 72);
  const first = renderPageOver(loadPage(doc, 2), 72, base);
  const kept = first.image.pixels.slice();
  const second = renderPageOver(loadPage(doc, 1), 72, base);
  assert.is.not(second.image.pixels.buffer, first.image.pixels.buffer);
  assert.ok(same(first.image.pixels, kept), 'the image still read is untouched');
  assert.ok(same(second.image.pixels, renderPage(loadPage(doc, 1), 72).pixels));
  recycleRender(first.image);
  recycleRender(second.image);
});

test('a render over a base of another size is a plain render, compared nowhere', () => {
  const base = renderPage(loadPage(doc, 0), 36);
  const over = renderPageOver(loadPage(doc, 0), 72, base);
  assert.is(over.differing, null);
  assert.ok(same(over.image.pixels, renderPage(loadPage(doc, 0), 72).pixels));
});

test.run();
