// The PDFium second opinion: exact comparison, real changes found where MuPDF finds them, the
// declared box decides pass/fail, encrypted files compared with their password.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf, openPdf, renderPage, saveKeepingEncryption } from '../../../src/pdf/mupdf-adapter.ts';
import type { RgbImage } from '../../../src/pdf/mupdf-adapter.ts';
import {
  changedOnlyInside,
  compareExact,
  scaleBox,
  secondOpinion,
} from '../../../src/verify/second-opinion.ts';
import type { Box } from '../../../src/verify/second-opinion.ts';
import { PDFIUM_RENDERER, renderPageWithPdfium } from '../../../src/verify/pdfium-render.ts';

mupdf.setLog({ warning() {}, error() {} });

const PDF_DIR = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytesOf = (file: string) => new Uint8Array(readFileSync(`${PDF_DIR}${file}`));

/** A copy of the document with a filled black rectangle (PDF user space) drawn on top of a page. */
function withRectangle(
  bytes: Uint8Array,
  pageIndex: number,
  [x, y, w, h]: [number, number, number, number],
  password = '',
): Uint8Array {
  const { doc } = openPdf(bytes, password);
  try {
    const page = doc.findPage(pageIndex);
    const contents = page.get('Contents');
    const list = doc.newArray();
    list.push(doc.addStream('q\n', {}));
    if (contents.isArray()) {
      for (let i = 0; i < contents.length; i += 1) list.push(contents.get(i));
    } else {
      list.push(contents);
    }
    list.push(doc.addStream(`\nQ q 0 0 0 rg ${x} ${y} ${w} ${h} re f Q\n`, {}));
    page.put('Contents', list);
    return saveKeepingEncryption(doc);
  } finally {
    doc.destroy();
  }
}

function mupdfRender(bytes: Uint8Array, pageIndex: number, dpi: number, password = ''): RgbImage {
  const { doc } = openPdf(bytes, password);
  try {
    const page = doc.loadPage(pageIndex);
    try {
      return renderPage(page, dpi);
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

const pad = (b: Box, n: number): Box => [b[0] - n, b[1] - n, b[2] + n, b[3] + n];
const near = (a: Box | null, b: Box | null, tolerance: number) =>
  a !== null && b !== null && a.every((v, k) => Math.abs(v - b[k]) <= tolerance);

function image(width: number, height: number, fill = 255): RgbImage {
  return { width, height, stride: width * 3, pixels: new Uint8Array(width * height * 3).fill(fill) };
}

test('compareExact: any channel difference counts, bbox exclusive, outside counted', () => {
  const a = image(10, 8);
  const b = image(10, 8);
  assert.equal(compareExact(a, b, null), {
    changed_pixels: 0,
    outside_pixels: 0,
    outside_max_delta: 0,
    bbox: null,
  });
  b.pixels[(3 * 10 + 4) * 3 + 2] = 254; // (4, 3): blue channel off by one
  b.pixels[(5 * 10 + 7) * 3] = 0; // (7, 5)
  assert.equal(compareExact(a, b, null), {
    changed_pixels: 2,
    outside_pixels: 2,
    outside_max_delta: 255,
    bbox: [4, 3, 8, 6],
  });
  assert.equal(compareExact(a, b, [4, 3, 8, 6]).outside_pixels, 0);
  // Outside, only the blue channel off by one: PDFium's rounding noise, which the guard accepts.
  const noise = compareExact(a, b, [5, 3, 8, 6]);
  assert.equal([noise.outside_pixels, noise.outside_max_delta], [1, 1]);
  assert.is(changedOnlyInside(noise), true);
  b.pixels[(3 * 10 + 4) * 3 + 2] = 253; // two levels: a moved edge, not noise
  assert.is(changedOnlyInside(compareExact(a, b, [5, 3, 8, 6])), false);
  assert.is(changedOnlyInside(compareExact(a, b, null)), false);
  assert.equal(compareExact(a, b, [4, 3, 7, 6]).outside_pixels, 1); // x1 exclusive
  assert.equal(compareExact(a, b, [0, 0, 10, 5]).outside_pixels, 1); // y1 exclusive
  const c = image(10, 9);
  assert.equal(compareExact(a, c, [0, 0, 10, 9]), {
    changed_pixels: 90,
    outside_pixels: 90,
    outside_max_delta: 255,
    bbox: [0, 0, 10, 9],
  });
});

test('compareExact honours a stride wider than the row', () => {
  const a: RgbImage = { width: 2, height: 2, stride: 8, pixels: new Uint8Array(16).fill(255) };
  const b: RgbImage = { width: 2, height: 2, stride: 8, pixels: new Uint8Array(16).fill(255) };
  a.pixels[6] = 0; // padding byte of row 0: not a pixel
  assert.is(compareExact(a, b, null).changed_pixels, 0);
  b.pixels[8 + 3] = 0; // (1, 1)
  assert.equal(compareExact(a, b, null).bbox, [1, 1, 2, 2]);
});

test('scaleBox rounds outward', () => {
  assert.equal(scaleBox([100, 200, 301, 401], 300, 150), [50, 100, 151, 201]);
  assert.equal(scaleBox([100, 200, 300, 400], 300, 300), [100, 200, 300, 400]);
  assert.equal(scaleBox([1, 1, 2, 2], 300, 72), [0, 0, 1, 1]);
});

test('the same document twice: nothing changed, passes even with no declared box', async () => {
  const bytes = bytesOf('libreoffice-writer.pdf');
  const r = await secondOpinion(bytes, bytes, '', 0, null);
  assert.is(r.renderer, PDFIUM_RENDERER);
  assert.equal([r.width, r.height, r.dpi], [2481, 3508, 300]);
  assert.is(r.changed_pixels, 0);
  assert.is(r.bbox, null);
  assert.is(r.passed, true);
});

test('a real change is found where MuPDF finds it; the declared box decides', async () => {
  const before = bytesOf('libreoffice-writer.pdf');
  const after = withRectangle(before, 0, [300, 500, 10, 10]);
  // The rectangle at 300 dpi: x 1250–1291.7, y (841.89 − 510)·300/72 = 1382.9 to 1424.5.
  const mu = compareExact(mupdfRender(before, 0, 300), mupdfRender(after, 0, 300), null);
  assert.ok(near(mu.bbox, [1250, 1382, 1292, 1425], 1), `MuPDF bbox ${mu.bbox}`);

  const declared = pad(mu.bbox as Box, 2);
  const ok = await secondOpinion(before, after, '', 0, declared);
  assert.ok(ok.changed_pixels >= 40 * 40 && ok.changed_pixels <= 44 * 44, `${ok.changed_pixels}`);
  assert.ok(near(ok.bbox, mu.bbox, 1), `PDFium bbox ${ok.bbox} vs MuPDF ${mu.bbox}`);
  assert.is(ok.outside_pixels, 0);
  assert.is(ok.passed, true);
  assert.equal(ok.declared_box, declared);

  // The same with the before render supplied (cached by the caller).
  const beforeRender = await renderPageWithPdfium(before, '', 0, 300);
  const cached = await secondOpinion(new Uint8Array(0), after, '', 0, declared, 300, { beforeRender });
  assert.equal(cached, ok);

  // A box that misses the change: every changed pixel is outside.
  const wrong = await secondOpinion(before, after, '', 0, [0, 0, 200, 200]);
  assert.is(wrong.outside_pixels, wrong.changed_pixels);
  assert.is(wrong.passed, false);

  // A box that covers only part of it.
  const half = await secondOpinion(before, after, '', 0, [1200, 1370, 1270, 1440]);
  assert.ok(half.outside_pixels > 0 && half.outside_pixels < half.changed_pixels);
  assert.is(half.passed, false);

  // No box: nothing may change.
  const none = await secondOpinion(before, after, '', 0, null);
  assert.is(none.outside_pixels, none.changed_pixels);
  assert.is(none.passed, false);
});

test('at another dpi the declared 300 dpi box is scaled', async () => {
  const before = bytesOf('libreoffice-writer.pdf');
  const after = withRectangle(before, 0, [300, 500, 10, 10]);
  const r = await secondOpinion(before, after, '', 0, [1248, 1380, 1294, 1427], 150);
  assert.equal(r.declared_box, [624, 690, 647, 714]);
  assert.ok(near(r.bbox, [625, 691, 646, 713], 1), `bbox ${r.bbox}`);
  assert.is(r.outside_pixels, 0);
  assert.is(r.passed, true);
  const margin = await secondOpinion(before, after, '', 0, [1252, 1384, 1290, 1422], 150, { marginPx: 3 });
  assert.equal(margin.declared_box, [623, 689, 648, 714]);
  assert.is(margin.passed, true);
});

test('a rotated page (/Rotate 90): PDFium and MuPDF put the change in the same place', async () => {
  const before = bytesOf('arabic-rotated.pdf');
  const after = withRectangle(before, 0, [100, 200, 20, 10]);
  const mu = compareExact(mupdfRender(before, 0, 300), mupdfRender(after, 0, 300), null);
  assert.ok(mu.bbox, 'MuPDF sees the change');
  const [x0, y0, x1, y1] = mu.bbox as Box;
  assert.ok(y1 - y0 > x1 - x0, 'a wide rectangle turned upright by the rotation');
  const r = await secondOpinion(before, after, '', 0, pad(mu.bbox as Box, 2));
  assert.ok(near(r.bbox, mu.bbox, 1), `PDFium ${r.bbox} vs MuPDF ${mu.bbox}`);
  assert.is(r.passed, true);
});

/** A one-line page of Times text (MuPDF's built-in Times as a simple font). */
function textPage(line: string, size: number, x: number): Uint8Array {
  const doc = new mupdf.PDFDocument();
  const font = new mupdf.Font('Times-Roman');
  try {
    const resources = doc.addObject({ Font: { F1: doc.addSimpleFont(font) } });
    doc.insertPage(
      -1,
      doc.addPage([0, 0, 612, 792], 0, resources, `BT /F1 ${size} Tf ${x} 700 Td (${line}) Tj ET`),
    );
    const buf = doc.saveToBuffer('');
    try {
      return new Uint8Array(buf.asUint8Array());
    } finally {
      buf.destroy();
    }
  } finally {
    font.destroy();
    doc.destroy();
  }
}

test('a one-letter text change: PDFium’s footprint is MuPDF’s within a pixel (use marginPx 2)', async () => {
  for (const [size, x] of [
    [11, 72],
    [9.5, 73.3],
    [12.7, 100.15],
  ]) {
    const before = textPage('The quick brown fox jumps', size, x);
    const after = textPage('The quick bruwn fox jumps', size, x);
    const mu = compareExact(mupdfRender(before, 0, 300), mupdfRender(after, 0, 300), null);
    assert.ok(mu.changed_pixels > 50);
    const r = await secondOpinion(before, after, '', 0, mu.bbox, 300, { marginPx: 2 });
    assert.ok(near(r.bbox, mu.bbox, 1), `${size} pt: PDFium ${r.bbox} vs MuPDF ${mu.bbox}`);
    assert.is(r.outside_pixels, 0);
    assert.is(r.passed, true);
  }
});

test('an encrypted document is compared with its password (the copy stays encrypted)', async () => {
  const before = bytesOf('libreoffice-password.pdf');
  const after = withRectangle(before, 0, [300, 500, 10, 10], 'openpassword');
  const reopened = openPdf(after, 'openpassword');
  reopened.doc.destroy();
  assert.ok(reopened.protected);
  const r = await secondOpinion(before, after, 'openpassword', 0, [1248, 1380, 1294, 1427]);
  assert.ok(near(r.bbox, [1250, 1382, 1292, 1425], 1), `bbox ${r.bbox}`);
  assert.is(r.passed, true);
});

test.run();
