// The recogniser (src/ocr/recognizer.ts) asked several things at once: each recognition runs with
// its own mode and resolution (they are sent with the image, not set beforehand where another call
// could overtake them), the same pixels asked twice within one piece of work are recognised once,
// a line reading is kept for later tasks of the thread, and every recognition's pixels are counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cropPng, cropPpm } from '../../../src/corrections/proof/render-diff.ts';
import { openPdf, renderPageRgb, type RgbImage } from '../../../src/pdf/mupdf-adapter.ts';
import {
  closeRecognisers,
  hasDarkGround,
  imageArea,
  recogniseWords,
  recognitionCounts,
  sharingRecognitions,
  wordsOfTsv,
} from '../../../src/ocr/recognizer.ts';
import { keptWork } from '../../../src/ocr/kept-work.ts';
import { scannedPage } from '../corrections/scan-fixtures.ts';

const LINES = ['The periodic review of the contract is due', 'Please return the form with your remarks'];

test.after(async () => {
  await closeRecognisers();
});

function pageRender(): RgbImage {
  const { doc } = openPdf(scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 }), '');
  try {
    return renderPageRgb(doc.loadPage(0), 300);
  } finally {
    doc.destroy();
  }
}

const text = (words: { text: string }[]) => words.map((w) => w.text).join(' ');

test('a PPM crop holds the same pixels as the PNG crop, and both report their area', () => {
  const page = pageRender();
  const box: [number, number, number, number] = [10, 20, 310, 120];
  const ppm = cropPpm(page, box);
  const head = `P6\n300 100\n255\n`;
  assert.is(new TextDecoder().decode(ppm.subarray(0, head.length)), head);
  assert.is(ppm.length, head.length + 300 * 100 * 3);
  // Row 50 of the crop is row 70 of the page, from x 10.
  const row = (20 + 50) * page.stride + 10 * 3;
  assert.equal(
    [...ppm.subarray(head.length + 50 * 300 * 3, head.length + 51 * 300 * 3)],
    [...page.pixels.subarray(row, row + 300 * 3)],
  );
  assert.is(imageArea(ppm), 300 * 100);
  assert.is(imageArea(cropPng(page, box)), 300 * 100);
  assert.is(imageArea(new Uint8Array([1, 2, 3])), 0);
});

test('recognitions asked at once each run with their own mode and resolution', async () => {
  const page = pageRender();
  // The first text line, alone, for single-line mode; the whole page for automatic segmentation.
  const lineBox: [number, number, number, number] = [0, 0, page.width, Math.round(page.height / 2)];
  const whole = cropPpm(page, [0, 0, page.width, page.height]);
  const line = cropPpm(page, lineBox);
  const alone = {
    page: await recogniseWords(whole, 'eng', true, 300),
    line: await recogniseWords(line, 'eng', 'line', 300),
  };
  assert.ok(text(alone.page).includes('periodic'), text(alone.page));
  assert.ok(text(alone.page).includes('remarks'), text(alone.page));
  // Interleaved: line, page, line, page — each must read as it did alone.
  const together = await Promise.all([
    recogniseWords(line, 'eng', 'line', 300),
    recogniseWords(whole, 'eng', true, 300),
    recogniseWords(line, 'eng', 'line', 300),
    recogniseWords(whole, 'eng', true, 300),
  ]);
  assert.equal(together.map(text), [alone.line, alone.page, alone.line, alone.page].map(text));
  // Single-line mode reads the line as one line; automatic segmentation finds the page's lines.
  assert.is(new Set(alone.line.map((w) => w.line)).size, 1);
  assert.ok(new Set(alone.page.map((w) => w.line)).size >= 2);
});

test('within one piece of work the same pixels are recognised once; a line reading is kept for later tasks', async () => {
  keptWork.clear();
  const page = pageRender();
  const band = cropPpm(page, [0, 0, page.width, Math.round(page.height / 2)]);
  const other = cropPpm(page, [0, Math.round(page.height / 2), page.width, page.height]);
  const start = recognitionCounts();
  const [first, again, later, different] = await sharingRecognitions(async () => {
    const early = recogniseWords(band, 'eng', 'line', 300); // asked ahead, not awaited yet
    const twice = recogniseWords(band, 'eng', 'line', 300);
    const [a, b] = await Promise.all([early, twice]);
    return [
      a,
      b,
      await recogniseWords(band, 'eng', 'line', 300),
      await recogniseWords(other, 'eng', 'line', 300),
    ];
  });
  const shared = recognitionCounts();
  assert.is(shared.line - start.line, 2, 'the band once, the other line once');
  assert.is(shared.pixels - start.pixels, imageArea(band) + imageArea(other));
  assert.equal(text(again), text(first));
  assert.equal(text(later), text(first));
  assert.ok(text(first).includes('periodic'), text(first));
  assert.ok(text(different).includes('remarks'), text(different));
  // A later piece of work gets the line reading the same pixels gave (kept for the thread); the
  // same pixels in another mode or at another resolution are another recognition.
  const kept = await sharingRecognitions(async () => {
    const again = await recogniseWords(band, 'eng', 'line', 300);
    await recogniseWords(band, 'eng', false, 300);
    await recogniseWords(band, 'eng', 'line', 200);
    return again;
  });
  assert.equal(text(kept), text(first));
  assert.is(recognitionCounts().line - shared.line, 1, 'only the band at 200 dpi is read');
  assert.is(recognitionCounts().region - shared.region, 1);
  // Outside a piece of work too: a line reading is kept, a region (or page) reading is not.
  const outside = recognitionCounts();
  const handed = await recogniseWords(band, 'eng', 'line', 300);
  assert.equal(text(handed), text(first));
  // What a task is handed is its own: changing it does not change what the next task reads.
  handed[0].text = 'changed';
  handed[0].box[0] = -1;
  const next = await recogniseWords(band, 'eng', 'line', 300);
  assert.equal(text(next), text(first));
  assert.ok(next[0].box[0] >= 0);
  await recogniseWords(band, 'eng', false, 300);
  await recogniseWords(band, 'eng', false, 300);
  assert.is(recognitionCounts().line - outside.line, 0);
  assert.is(recognitionCounts().region - outside.region, 2);
  // The store forgotten (its bound passed, or cleared), the pixels are recognised again.
  keptWork.clear();
  assert.equal(text(await recogniseWords(band, 'eng', 'line', 300)), text(first));
  assert.is(recognitionCounts().line - outside.line, 1);
});

test('light text on a dark ground is still read: the inverted reading is kept where the image has one', async () => {
  const page = pageRender();
  const whole = cropPpm(page, [0, 0, page.width, page.height]);
  // The first line as a negative (a heading printed white on a black band).
  const negative = whole.slice();
  const head = `P6\n${page.width} ${page.height}\n255\n`.length;
  const rowBytes = page.width * 3;
  for (let i = head; i < head + Math.round(page.height / 2) * rowBytes; i++) negative[i] = 255 - negative[i];
  assert.is(hasDarkGround(whole), false, 'print on paper has no dark ground');
  assert.is(hasDarkGround(negative), true);
  assert.is(hasDarkGround(cropPng(page, [0, 0, 100, 100])), true, 'a PNG is not looked into');
  // Tesseract reads "The periodic review …" on the black band only in its inverted reading.
  const words = text(await recogniseWords(negative, 'eng', true, 300));
  assert.ok(words.includes('periodic review'), words);
  assert.ok(words.includes('remarks'), words);
});

test('a dark band 30 pixels high is a dark ground wherever it lies; a page of print is not', () => {
  const pgm = (w: number, h: number, dark: (x: number, y: number) => boolean) => {
    const head = new TextEncoder().encode(`P5\n${w} ${h}\n255\n`);
    const out = new Uint8Array(head.length + w * h).fill(255);
    out.set(head);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (dark(x, y)) out[head.length + y * w + x] = 20;
    return out;
  };
  for (const top of [0, 5, 9, 13, 20, 31]) {
    assert.is(hasDarkGround(pgm(240, 100, (_x, y) => y >= top && y < top + 30)), true, `band at ${top}`);
  }
  // Strokes 4 px wide every 8 px (a bold line of print, half dark): no dark ground.
  assert.is(hasDarkGround(pgm(240, 100, (x) => x % 8 < 4)), false);
});

test("words come from tesseract's TSV: lines numbered in order, empty words and other levels skipped", () => {
  const row = (...cells: (string | number)[]) => cells.join('\t');
  const tsv = [
    row(
      'level',
      'page_num',
      'block_num',
      'par_num',
      'line_num',
      'word_num',
      'left',
      'top',
      'width',
      'height',
      'conf',
      'text',
    ),
    row(1, 1, 0, 0, 0, 0, 0, 0, 800, 600, -1, ''),
    row(2, 1, 1, 0, 0, 0, 10, 10, 300, 80, -1, ''),
    row(4, 1, 1, 1, 1, 0, 10, 10, 300, 30, -1, ''),
    row(5, 1, 1, 1, 1, 1, 10, 10, 120, 30, 96.53, 'Hello,'),
    row(5, 1, 1, 1, 1, 2, 140, 12, 170, 28, 91.04, 'world'),
    row(4, 1, 1, 1, 2, 0, 10, 50, 300, 30, -1, ''),
    row(5, 1, 1, 1, 2, 1, 10, 50, 20, 30, 0, ' '),
    row(4, 1, 1, 1, 3, 0, 10, 90, 300, 30, -1, ''),
    row(5, 1, 1, 1, 3, 1, 12, 90, 60, 30, 88.96, 'again'),
    '',
  ].join('\n');
  assert.equal(wordsOfTsv(tsv), [
    { text: 'Hello,', confidence: 96.5, box: [10, 10, 130, 40], line: 0 },
    { text: 'world', confidence: 91, box: [140, 12, 310, 40], line: 0 },
    { text: 'again', confidence: 89, box: [12, 90, 72, 120], line: 2 },
  ]);
});

test.run();
