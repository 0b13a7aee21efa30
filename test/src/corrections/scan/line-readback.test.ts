// The line reads as before, except the word (issue 32, item 1): the band of a word and its two
// neighbours recognised on real pixels before and after a change — the same words at the same
// boundaries but the target, and the gaps around it within the line's own range. The pages are
// made by fixtures/scans/make-russian-scan.ts's writer with English lines (bundled data), the
// "after" page differing from the "before" one only in the line's text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { _internals, lineContext, readLineBack } from '../../../../src/corrections/scan/line-readback.ts';
import { ocrPage } from '../../../../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../../../../src/ocr/recognizer.ts';
import { openPdf, renderPageRgb, type RgbImage } from '../../../../src/pdf/mupdf-adapter.ts';
import { russianScan } from '../../../../fixtures/scans/make-russian-scan.ts';

const REST = ['Certificate of the Board, signed and dated', 'Please return the form with your remarks'];
const page = (first: string) => russianScan([first, ...REST], { seed: 7 });

function render(pdf: Uint8Array): RgbImage {
  const { doc } = openPdf(pdf, '');
  try {
    return renderPageRgb(doc.loadPage(0), 300);
  } finally {
    doc.destroy();
  }
}

const BEFORE = page('The periodic review of the contract is due');
let before: RgbImage;
let line: ReturnType<typeof lineContext>;
let target: [number, number, number, number];

test.before(async () => {
  before = render(BEFORE);
  const read = await ocrPage({
    pdf: BEFORE,
    password: '',
    page_index: 0,
    find: 'review',
    box_render: null,
    render_dpi: 300,
    lang: 'eng',
    turn: 0,
  });
  const match = read.matches![0];
  target = match.box_render as typeof target;
  line = lineContext(read.words!, target, 300, before, 300);
});

test.after(async () => {
  await closeRecognisers();
});

const judge = (first: string, replacement: string) =>
  readLineBack(before, render(page(first)), line, target, {
    find: 'review',
    replacement,
    lang: 'eng',
    dpi: 300,
  });

test('the band holds the word and both neighbours, and the line’s gaps are measured', () => {
  assert.is(line.neighbours, 2);
  assert.ok(line.band[0] < target[0] && line.band[2] > target[2]);
  assert.ok(line.gaps.length >= 6, `${line.gaps.length} gaps`);
  assert.ok(Math.min(...line.gaps) > 5 && Math.max(...line.gaps) < 60, JSON.stringify(line.gaps));
});

test('a line of two columns: only the target’s own run of words counts (gaps and neighbours)', () => {
  const box = (x0: number, x1: number) => ({ box_render: [x0, 100, x1, 140] });
  const words = [
    box(100, 300),
    box(320, 500),
    box(900, 980),
    box(1000, 1100),
    box(1125, 1200),
    box(1900, 2000),
  ];
  const ctx = lineContext(words, [1000, 100, 1100, 140], 300, { width: 2400, height: 400 }, 300);
  assert.equal(ctx.gaps, [20, 25], 'the gutter (400 px) and the far column (700 px) are not word gaps');
  assert.is(ctx.neighbours, 2);
  assert.equal([ctx.band[0], ctx.band[2]], [888, 1212]);
  // At another resolution the boxes are scaled to the working 300 dpi.
  const half = lineContext(
    words.map((w) => ({ box_render: w.box_render.map((v) => v / 2) })),
    [500, 50, 550, 70],
    150,
    { width: 2400, height: 400 },
    300,
  );
  assert.equal(half.gaps, ctx.gaps);
});

test('only the word changed: the line reads as before and the spacing is kept', async () => {
  const r = await judge('The periodic reveiw of the contract is due', 'reveiw');
  assert.ok(r.reading.passed, r.reading.detail);
  assert.ok(r.spacing.passed, r.spacing.detail);
  // How surely the same band read the old word before and the new one after: tier 5's bar.
  assert.ok(r.word, 'the word read in the band before and after');
  assert.ok(r.word.before > 0 && r.word.before <= 100, `before ${r.word.before}`);
  assert.ok(r.word.after > 0 && r.word.after <= 100, `after ${r.word.after}`);
});

test('a neighbour read differently fails the line, naming it', async () => {
  const r = await judge('The periodic reveiw af the contract is due', 'reveiw');
  assert.not.ok(r.reading.passed);
  assert.match(r.reading.detail, /a neighbour reads “af” where it read “of”/);
  // Its ink changed: counted, not put down to the recogniser.
  assert.not.match(r.reading.detail, /pixels unchanged/);
  assert.is(r.word, null);
  assert.not.ok(r.spacing.passed, 'not measured when the line does not read as before');
});

test('a gap inside the word moves a word boundary: refused', async () => {
  const r = await judge('The periodic rev eiw of the contract is due', 'reveiw');
  assert.not.ok(r.reading.passed, r.reading.detail);
  assert.match(r.reading.detail, /word boundary moved|reads “rev”/);
});

test('the space after the word far wider than the line’s own: spacing refused', async () => {
  const r = await judge('The periodic reveiw  of the contract is due', 'reveiw');
  assert.ok(r.reading.passed, r.reading.detail);
  assert.not.ok(r.spacing.passed, r.spacing.detail);
  assert.match(r.spacing.detail, /after out of range/);
});

test('a side whose recognition boxes overlapped before the patch and still do is kept; a new gap is not', () => {
  // "la ayuda y": the y's tail reaches under "ayuda", whose box then ends 29 px past the y's start.
  const word = (text: string, x0: number, x1: number) => ({
    text,
    confidence: 95,
    box: [x0, 0, x1, 40] as [number, number, number, number],
    line: 0,
  });
  const was = [word('la', 0, 40), word('ayuda', 49, 200), word('y', 171, 200)];
  const line = {
    band: [0, 0, 300, 40] as [number, number, number, number],
    gaps: [5, 12, 27],
    neighbours: 2,
  };
  const { spacingGuard } = _internals;
  const overlapping = spacingGuard(
    line,
    [word('la', 0, 40), word('auyda', 49, 194), word('y', 171, 200)],
    was,
    1,
  );
  assert.ok(overlapping.passed, overlapping.detail);
  assert.match(overlapping.detail, /after -23 px \(-29 before\)/);
  // The same word ending 40 px short of the y: a space wider than any of the line's, refused.
  const opened = spacingGuard(line, [word('la', 0, 40), word('auyda', 49, 131), word('y', 171, 200)], was, 1);
  assert.not.ok(opened.passed, opened.detail);
  assert.match(opened.detail, /after out of range/);
});

test('the gaps around the word are the paper between the words’ ink, not recognition’s boxes', () => {
  // Two words of ink 20 px apart on a white band. After the patch recognition's box of the new
  // word took in half its neighbour (−50 px by boxes, "maekn" 49 px into the next word on a real
  // page): the ink still stands 20 px apart, as before, and the spacing is kept. Ink moved to 3 px
  // from its neighbour is refused, whatever the boxes say.
  const W = 240;
  const H = 40;
  const band = (inkFrom: number[][]): RgbImage => {
    const pixels = new Uint8Array(W * H * 3).fill(250);
    for (const [x0, x1] of inkFrom)
      for (let y = 10; y < 30; y++)
        for (let x = x0; x < x1; x++) pixels.fill(10, (y * W + x) * 3, (y * W + x) * 3 + 3);
    return { width: W, height: H, stride: W * 3, pixels };
  };
  const word = (text: string, x0: number, x1: number) => ({
    text,
    confidence: 95,
    box: [x0, 10, x1, 30] as [number, number, number, number],
    line: 0,
  });
  const line = { band: [0, 0, W, H] as [number, number, number, number], gaps: [18, 22], neighbours: 1 };
  const before = band([
    [10, 100],
    [120, 200],
  ]);
  const was = [word('maken', 10, 100), word('en', 120, 200)];
  const ink = (after: RgbImage) => ({ before, after, band: line.band, threshold: 130 });
  const { spacingGuard } = _internals;
  const boxes = [word('maekn', 10, 170), word('en', 120, 200)];
  assert.not.ok(spacingGuard(line, boxes, was, 0).passed, 'by boxes alone: −50 px');
  const kept = spacingGuard(line, boxes, was, 0, ink(before));
  assert.ok(kept.passed, kept.detail);
  assert.match(kept.detail, /after 20 px \(20 before\)/);
  const closed = spacingGuard(
    line,
    [word('maekn', 10, 117), word('en', 120, 200)],
    was,
    0,
    ink(
      band([
        [10, 117],
        [120, 200],
      ]),
    ),
  );
  assert.not.ok(closed.passed, closed.detail);
  assert.match(closed.detail, /after 3 px/);
});

test.run();
