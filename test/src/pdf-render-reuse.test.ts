// A verification render's buffer given back (recycleRender) is reused by the next render of the same
// size, holds that render's pixels and nothing of the last, and is never handed out twice.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPage, openPdf, recycleRender, renderPage, renderPageRgb } from '../../src/pdf/mupdf-adapter.ts';

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

test.run();
