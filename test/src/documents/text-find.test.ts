// text-find: characters with quads from an open page, matches folded for case and ligatures, words
// hyphenated across a line end joined, boxes in 300-dpi render pixels with the page rotation applied.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import {
  findMatches,
  findNthMatch,
  foldNeedle,
  readPageText,
  toBoxRender,
} from '../../../src/documents/text-find.ts';
import { simpleTextPdf } from '../../../fixtures/make-hostile.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const open = (file: string) => openPdf(new Uint8Array(readFileSync(CORPUS + file)));

test('ligatures: "official" finds "Oﬃcial" drawn with one ffi glyph', () => {
  const { doc } = open('latex-multicolumn.pdf');
  const page = doc.loadPage(2);
  const lig = page.toStructuredText('preserve-ligatures').asText();
  assert.ok(lig.includes('Oﬃcial'), 'the page really draws the ligature');
  const m = findNthMatch(page, 'official');
  assert.ok(m);
  assert.is(m.text, 'Official');
  assert.is(m.chars.map((c) => c.c).join(''), 'Official');
  // The three letters of the ligature share its one glyph: the first carries the glyph's quad, the
  // next two are empty at its end, where the following letter starts.
  const [, f1, f2, i2, c] = m.chars;
  assert.ok(f1.quad[2] - f1.quad[0] > 3, 'the ligature glyph is wide');
  assert.is(f2.quad[0], f1.quad[2]);
  assert.is(i2.quad[0], f1.quad[2]);
  assert.ok(Math.abs(c.quad[0] - f1.quad[2]) < 0.5);
  // The query may itself carry the ligature character.
  assert.is(
    findMatches(readPageText(page), 'OFFICIAL').length,
    findMatches(readPageText(page), 'oﬃcial').length,
  );
  doc.destroy();
});

test('hyphenation: a word broken across two lines is found whole', () => {
  const { doc } = open('latex-minimal.pdf');
  const page = doc.loadPage(0);
  assert.ok(page.toStructuredText('').asText().includes('taki-\nmata'));
  const m = findNthMatch(page, 'takimata');
  assert.ok(m);
  assert.is(m.text, 'taki-mata');
  const lines = new Set(m.chars.map((c) => c.line));
  assert.is(lines.size, 2, 'the match spans two lines');
  // The hyphenated form is found too.
  assert.ok(findNthMatch(page, 'taki-mata'));
  doc.destroy();
});

test('case-insensitive, Nth match, white space collapsed', () => {
  const bytes = simpleTextPdf(['Alpha beta ALPHA', 'gamma   alpha', 'end']);
  const { doc } = openPdf(bytes);
  const page = doc.loadPage(0);
  const text = readPageText(page);
  const all = findMatches(text, 'alpha');
  assert.is(all.length, 3);
  assert.equal(
    all.map((m) => m.text),
    ['Alpha', 'ALPHA', 'alpha'],
  );
  assert.is(findNthMatch(page, 'ALPHA', 2)!.text, 'alpha');
  assert.is(findNthMatch(page, 'alpha', 3), null);
  assert.is(findMatches(text, 'beta  alpha').length, 1);
  assert.is(findMatches(text, 'alpha gamma').length, 1, 'a line break is a space');
  assert.is(findMatches(text, '').length, 0);
  assert.is(foldNeedle('  Oﬃce  Hours '), 'office hours');
  doc.destroy();
});

test('box_render: 300 dpi integer pixels, top-left origin, matching the glyph positions', () => {
  // Helvetica 12 pt; the ' operator moves down one 14 pt line first: baseline at 792 - 706 = 86 pt.
  const { doc } = openPdf(simpleTextPdf(['Alpha beta']));
  const m = findNthMatch(doc.loadPage(0), 'beta')!;
  const [x0, y0, x1, y1] = m.box_render;
  assert.ok(m.box_render.every(Number.isInteger));
  const baseline = (86 * 300) / 72;
  assert.ok(y0 < baseline && y1 > baseline && y1 - y0 < 80, `y ${y0}..${y1}`);
  assert.ok(x0 > 300 && x1 - x0 > 60 && x1 - x0 < 140, `x ${x0}..${x1}`);
  assert.equal(toBoxRender([1, 2, 3.1, 4.9]), [4, 8, 13, 21]);
  doc.destroy();
});

test('rotated page: boxes are in the displayed (rotated) page', () => {
  const { doc } = open('linearized-rotate90.pdf');
  const page = doc.loadPage(1);
  const b = page.getBounds();
  assert.ok(b[2] > b[3], 'page 2 (/Rotate 90) is displayed landscape');
  const text = readPageText(page);
  const word = text.chars.find((c) => /\w/.test(c.c))!;
  const m = findMatches(text, word.c)[0];
  assert.ok(
    m.box_render[2] <= Math.ceil((b[2] * 300) / 72) && m.box_render[3] <= Math.ceil((b[3] * 300) / 72),
  );
  doc.destroy();
});

test.run();
