// The guard `edit_on_own_line` on a slanted line (issue 33 item 3): the band is taken in the line's
// own frame, its characters' quads across its direction, and every changed pixel is measured the
// same way (proof/line-band.ts). The page has two parallel lines of Helvetica at 30°, 16 pt apart;
// a long slanted line's upright box covers rows where its neighbour draws, so a change there stayed
// "within the line band" before. The renders after are the render before with a glyph's box painted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  quadBox,
  readPageText,
  toRender,
  type TextLine,
} from '../../../../src/corrections/locate/page-text.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { editOnOwnLine } from '../../../../src/corrections/proof/line-band.ts';
import type { Box } from '../../../../src/corrections/proof/render-diff.ts';
import { loadPage, mupdf, renderPage, type RgbImage } from '../../../../src/pdf/mupdf-adapter.ts';
import { withDoc } from '../fixtures.ts';

/** Two lines at 30°, the second 16 pt below the first across their direction. */
function slantedPdf(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const res = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', font);
    res.put('Font', fonts);
    const m = '0.866025 0.5 -0.5 0.866025';
    const content = `BT /F1 12 Tf ${m} 40 100 Tm (the quick brown fox jumps over the lazy dog) Tj ${m} 48 86.14 Tm (pack my box with five dozen liquor jugs now) Tj ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 400, 400], 0, res, content));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

/** A copy of `img` with `box` (render pixels) painted red: the pixels a correction would change. */
function painted(img: RgbImage, box: Box): RgbImage {
  const pixels = new Uint8Array(img.pixels);
  for (let y = box[1]; y < box[3]; y += 1)
    for (let x = box[0]; x < box[2]; x += 1) {
      const i = y * img.stride + x * 3;
      [pixels[i], pixels[i + 1], pixels[i + 2]] = [255, 0, 0];
    }
  return { ...img, pixels };
}

/** The guard's verdict on a change painted over the glyph box of `line`'s character `k`. */
function guardFor(target: TextLine, changedLine: TextLine, k: number) {
  return withDoc(slantedPdf(), (doc) => {
    const page = loadPage(doc, 0);
    const before = renderPage(page, 300);
    const changed = toRender(quadBox(changedLine.chars[k]!.quad));
    return editOnOwnLine(page, changed, {
      line: target,
      drawn: [],
      tolerance: 0.12,
      oldInk: () => [],
      pad: 2,
      renders: { before, after: painted(before, changed) },
    });
  });
}

const lines = () => withDoc(slantedPdf(), (doc) => readPageText(loadPage(doc, 0)));

test('a change on the slanted line itself stays in its band', () => {
  const [first] = lines();
  assert.ok(first!.dir[0] > 0.8 && first!.dir[1] < -0.4, `direction ${first!.dir}`);
  const k = first!.text.indexOf('brown');
  const guard = guardFor(first!, first!, k);
  assert.ok(guard.passed, guard.detail);
  assert.match(guard.detail, /within the slanted line's band/);
});

test('a change on the parallel line next to it is refused, though inside the line’s upright box', () => {
  const [first, second] = lines();
  // The premise: the neighbour's character lies in the rows of the first line's upright box.
  const k = second!.text.indexOf('five');
  const band = toRender(first!.bbox);
  const glyph = toRender(quadBox(second!.chars[k]!.quad));
  assert.ok(glyph[1] > band[1] && glyph[3] < band[3], `${glyph} within rows of ${band}`);
  const guard = guardFor(first!, second!, k);
  assert.not.ok(guard.passed, guard.detail);
  assert.match(guard.detail, /outside the slanted line's band/);
});

test.run();
