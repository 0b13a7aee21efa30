// The PDFium guard (second-renderer.ts): a glyph PDFium rounds onto another pixel at one scale after
// a split text operator is not a change; a glyph really moved is one at every scale.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { RECHECK_DPIS, secondRendererGuard } from '../../../../src/corrections/proof/second-renderer.ts';
import type { VerifyOutput } from '../../../../src/corrections/proof/verify.ts';

/** A Times line set as LuaTeX sets it (text matrix 1.02 wide, words kerned apart in one TJ). */
function timesLine(x: number, tj: string): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Times-Roman'), 'Latin');
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', font);
    resources.put('Font', fonts);
    const content = `BT /F1 9.96264 Tf 1.02 0 0 1 ${x} 182.195 Tm ${tj} ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, content));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/** A verification that passed with nothing declared but one pixel in the corner. */
function passedVerification(): VerifyOutput {
  return {
    passed: true,
    failure_reason: null,
    declared_box: [0, 0, 1, 1],
    guards: [],
  } as unknown as VerifyOutput;
}

const WHOLE = '[(unwanted) -292 (generated) -292 (because of the sukuns)] TJ';
// The same glyphs at the same places, the operator split after the g (as a correction splits it).
const SPLIT = '[(unwanted) -292 (g)] TJ [(enerated) -292 (because of the sukuns)] TJ';
// The words after the g moved right by 5/1000 em (0.05 pt): a real change.
const MOVED = '[(unwanted) -292 (g)] TJ [-5 (enerated) -292 (because of the sukuns)] TJ';
// At this origin PDFium at 300 dpi puts some glyphs after the split one pixel over (found by a
// search over origins 0.037 pt apart: 2 of 400 flip); at 299 and 301 dpi it does not.
const FLIPPING_X = 305.6763;

test('a glyph PDFium rounds onto another pixel at 300 dpi only is not a change: the guard passes, and says so', async () => {
  const v = passedVerification();
  await secondRendererGuard(timesLine(FLIPPING_X, WHOLE), timesLine(FLIPPING_X, SPLIT), '', 0, v);
  const guard = v.guards[0] as unknown as {
    passed: boolean;
    outside_pixels: number;
    detail: string;
    other_scales: { dpi: number; outside_pixels: number; passed: boolean }[];
  };
  assert.ok(guard.outside_pixels > 0, 'PDFium at 300 dpi sees the flip');
  assert.equal(
    guard.other_scales.map((s) => [s.dpi, s.outside_pixels]),
    RECHECK_DPIS.map((dpi) => [dpi, 0]),
  );
  assert.ok(guard.passed, guard.detail);
  assert.ok(v.passed);
  assert.match(guard.detail, /another pixel at one scale only/);
});

test('a glyph moved by 0.05 pt is a change at every scale: the guard fails', async () => {
  const v = passedVerification();
  await secondRendererGuard(timesLine(FLIPPING_X, WHOLE), timesLine(FLIPPING_X, MOVED), '', 0, v);
  const guard = v.guards[0] as unknown as {
    passed: boolean;
    other_scales: { dpi: number; outside_pixels: number }[];
  };
  assert.is(guard.passed, false);
  assert.is(v.passed, false);
  assert.ok(guard.other_scales.every((s) => s.outside_pixels > 0));
  assert.match(v.failure_reason ?? '', /second_renderer_pdfium/);
});

test('no recheck when PDFium sees nothing outside the box', async () => {
  const v = passedVerification();
  await secondRendererGuard(timesLine(300, WHOLE), timesLine(300, SPLIT), '', 0, v);
  const guard = v.guards[0] as unknown as { passed: boolean; other_scales?: unknown };
  assert.ok(guard.passed);
  assert.is(guard.other_scales, undefined);
});

test.run();
