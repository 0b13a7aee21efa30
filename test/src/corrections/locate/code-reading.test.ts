// The text as pdftotext reads it where MuPDF reads otherwise (code-reading.ts): a code nothing maps
// read as itself, and letter-spaced figures read as one word; the engine finds and corrects a word
// in that reading, checked by poppler.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codeReading } from '../../../../src/corrections/locate/code-reading.ts';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import type { FontInfo } from '../../../../src/corrections/locate/fonts.ts';
import { GlyphIndex } from '../../../../src/corrections/locate/locate.ts';
import type { TextChar, TextLine } from '../../../../src/corrections/locate/page-text.ts';
import type { Glyph } from '../../../../src/corrections/locate/text-interpreter.ts';
import { editInput, makePdf, pageText, withDoc } from '../fixtures.ts';
import { popplerProblemsOf as popplerProblems } from '../poppler.ts';

test('a simple font code nothing maps, which MuPDF reads as U+FFFD, reads as its Latin-1 character', () => {
  // A CFF font with a built-in encoding of unknown names and no ToUnicode (arabi's TraditionalArabic).
  const font = { toUnicode: null, encodingUnicode: new Map(), composite: false } as unknown as FontInfo;
  const glyph = (code: number, x: number) =>
    ({ code, font, origin: [x, 100], lost: false, state: { Tr: 0 } }) as unknown as Glyph;
  const char = (c: string, x: number) =>
    ({ c, origin: [x, 100], size: 10, quad: [x, 90, x + 5, 90, x, 100, x + 5, 100] }) as unknown as TextChar;
  const line = {
    wmode: 0,
    dir: [1, 0],
    chars: [char('\ufffd', 10), char('\ufffd', 15), char('\ufffd', 20)],
  } as unknown as TextLine;
  const read = codeReading([line], new GlyphIndex([glyph(0x41, 10), glyph(0x68, 15), glyph(0x07, 20)]));
  assert.ok(read.changed);
  // A control code stays as MuPDF read it.
  assert.is(read.lines[0].text, 'Ah\ufffd');
});

test('figures set one by one with small gaps: one word, found, swapped and read so by poppler', async () => {
  // MuPDF reads “8 1 2 5” (a space in every 0.17 em gap), pdftotext “812 5”.
  const pdf = makePdf([
    { content: 'BT /F1 12 Tf 20 60 Td (8) Tj 8.7 0 Td (1) Tj 8.7 0 Td (2) Tj 14 0 Td (5) Tj ET' },
  ]);
  assert.ok(pageText(pdf).includes('8 1 2 5'));
  const r = await applyEdit(editInput(pdf, '812', '182'));
  assert.is(r.proposal.tier, 1);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is((r.proposal.measurements as { overflow_pt: number }).overflow_pt, 0);
  assert.ok(pageText(r.output).includes('1 8 2 5'));
  assert.equal(popplerProblems(pdf, r.output, '812', '182', r.verification.declared_box!), []);
});

test('a ligature whose code reads as “ﬁ” (U+FB01): found as pdftotext reads it, swapped with its own glyph', async () => {
  // LaTeX's Latin Modern fonts map the ligature's code to U+FB01 in their ToUnicode: pdftotext reads
  // “ﬁles”, MuPDF expands it to “files”. A `find` copied from poppler's text is found in the codes'
  // reading, and the ligature glyph itself is reused (tier 1), so poppler reads “lﬁes” after.
  const base = makePdf([{ content: 'BT ET' }]);
  const pdf = withDoc(base, (doc) => {
    const font = doc.newDictionary();
    font.put('Type', doc.newName('Font'));
    font.put('Subtype', doc.newName('Type1'));
    font.put('BaseFont', doc.newName('Times-Roman'));
    const diffs = doc.newArray();
    diffs.push(doc.newInteger(0x81));
    diffs.push(doc.newName('fi'));
    const encoding = doc.newDictionary();
    encoding.put('Differences', diffs);
    font.put('Encoding', encoding);
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lig def /CMapType 2 def',
      '1 begincodespacerange <00> <FF> endcodespacerange',
      '1 beginbfchar <81> <FB01> endbfchar',
      '1 beginbfrange <20> <7E> <0020> endbfrange',
      'endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n');
    font.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('L', doc.addObject(font));
    page.put(
      'Contents',
      doc.addStream('BT /L 12 Tf 20 100 Td (the de\\201nition \\201les here) Tj ET', doc.newDictionary()),
    );
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
  assert.ok(pageText(pdf).includes('definition files'));
  const r = await applyEdit(editInput(pdf, 'ﬁles', 'lﬁes'));
  assert.is(r.proposal.tier, 1);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.match(r.verification.guards.find((g) => g.name === 'text_layer_true')!.detail, /lﬁes/);
  assert.equal(popplerProblems(pdf, r.output, 'ﬁles', 'lﬁes', r.verification.declared_box!), []);
});

test.run();
