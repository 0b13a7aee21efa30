// preview.png and crop.png rendering: sizes, the crop's pixels equal the same region of a full
// render, limits (crop_too_large, page_out_of_range), and the unpaid marking outside corrections.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { DocfixError } from '../../../src/errors.ts';
import { mupdf, openPdf, renderPage } from '../../../src/pdf/mupdf-adapter.ts';
import { cropOutputSize, renderCrop, renderPreview } from '../../../src/documents/render.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const open = (file: string) => openPdf(new Uint8Array(readFileSync(CORPUS + file))).doc;
const decode = (png: Uint8Array) => PNG.sync.read(Buffer.from(png));

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return error instanceof DocfixError ? error.code : String(error);
  }
}

test('preview is 72 dpi; thumb is 150 pixels wide', () => {
  const doc = open('latex-minimal.pdf');
  const p = renderPreview(doc, 0);
  const img = decode(p.png);
  assert.is(img.width, 596); // 595.28 pt, rounded outwards like every render
  assert.is(img.height, 842);
  assert.is(p.dpi, 72);
  const t = decode(renderPreview(doc, 0, true).png);
  assert.is(t.width, 150);
  assert.ok(Math.abs(t.height - 212) <= 1);
  assert.is(
    codeOf(() => renderPreview(doc, 1)),
    'page_out_of_range',
  );
});

test('crop pixels equal the same region of a full 300 dpi render', () => {
  const doc = open('latex-minimal.pdf');
  const full = renderPage(doc.loadPage(0), 300);
  const [x, y, w, h] = [400, 350, 700, 240];
  const crop = renderCrop(doc, { page_index: 0, x, y, w, h, dpi: 0 });
  assert.is(crop.dpi, 300);
  assert.equal(crop.box_render, [x, y, x + w, y + h]);
  const img = decode(crop.png);
  assert.is(img.width, w);
  assert.is(img.height, h);
  let differing = 0;
  let ink = 0;
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const a = (row * w + col) * 4;
      const b = (y + row) * full.stride + (x + col) * 3;
      if (
        img.data[a] !== full.pixels[b] ||
        img.data[a + 1] !== full.pixels[b + 1] ||
        img.data[a + 2] !== full.pixels[b + 2]
      )
        differing++;
      if (img.data[a] < 128) ink++;
    }
  }
  assert.ok(ink > 1000, 'the region carries text');
  assert.is(differing, 0);
});

test('crop at 600 dpi doubles the pixels; dpi 0 uses the default; regions are clipped to the page', () => {
  const doc = open('latex-minimal.pdf');
  const c = decode(renderCrop(doc, { page_index: 0, x: 400, y: 350, w: 500, h: 200, dpi: 600 }).png);
  assert.is(c.width, 1000);
  assert.is(c.height, 400);
  const scan = renderCrop(doc, { page_index: 0, x: 0, y: 0, w: 300, h: 300, dpi: 0, default_dpi: 150 });
  assert.is(scan.dpi, 150);
  assert.is(scan.width, 150);
  const edge = renderCrop(doc, { page_index: 0, x: 2400, y: 3400, w: 500, h: 500, dpi: 300 });
  assert.equal(edge.box_render, [2400, 3400, 2481, 3508]);
  assert.is(
    codeOf(() => renderCrop(doc, { page_index: 0, x: 9000, y: 0, w: 10, h: 10, dpi: 300 })),
    'invalid_request',
  );
});

test('crop_too_large over 4 megapixels of output; page_out_of_range', () => {
  assert.is(
    codeOf(() => cropOutputSize({ w: 2000, h: 2000, dpi: 300 })),
    'ok',
  );
  assert.is(
    codeOf(() => cropOutputSize({ w: 2001, h: 2000, dpi: 300 })),
    'crop_too_large',
  );
  assert.is(
    codeOf(() => cropOutputSize({ w: 1000, h: 1001, dpi: 600 })),
    'crop_too_large',
  );
  const doc = open('latex-minimal.pdf');
  assert.is(
    codeOf(() => renderCrop(doc, { page_index: 3, x: 0, y: 0, w: 10, h: 10, dpi: 300 })),
    'page_out_of_range',
  );
});

test('marked crop: native inside the correction box, coarse and hatched outside; budget', () => {
  const doc = open('latex-minimal.pdf');
  const region = { page_index: 0, x: 400, y: 350, w: 800, h: 200, dpi: 300 };
  const plain = decode(renderCrop(doc, region).png);
  const keep: [number, number, number, number] = [500, 380, 700, 450];
  const marked = renderCrop(doc, { ...region, marking: { boxes: [keep], budget_pixels: 1_000_000 } });
  assert.ok(marked.marked);
  assert.is(marked.native_inside_pixels, 200 * 70);
  const img = decode(marked.png);
  let insideDiff = 0;
  let outsideDiff = 0;
  for (let row = 0; row < img.height; row++) {
    for (let col = 0; col < img.width; col++) {
      const i = (row * img.width + col) * 4;
      const same =
        img.data[i] === plain.data[i] &&
        img.data[i + 1] === plain.data[i + 1] &&
        img.data[i + 2] === plain.data[i + 2];
      const X = region.x + col;
      const Y = region.y + row;
      const inside = X >= keep[0] && X < keep[2] && Y >= keep[1] && Y < keep[3];
      if (inside && !same) insideDiff++;
      if (!inside && !same) outsideDiff++;
    }
  }
  assert.is(insideDiff, 0, 'native inside the correction');
  assert.ok(outsideDiff > 10_000, `marked outside (${outsideDiff} pixels differ)`);
  assert.is(
    codeOf(() => renderCrop(doc, { ...region, marking: { boxes: [keep], budget_pixels: 100 } })),
    'inspection_budget_spent',
  );
});

test.run();
