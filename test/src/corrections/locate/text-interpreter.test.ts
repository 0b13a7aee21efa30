// The interpreter's glyph origins agree with MuPDF's characters for every text-state and positioning
// operator, in page content and in a Form XObject with its own matrix; and the font helpers read
// encodings, glyph names and ToUnicode CMaps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { interpretPage, type Mat } from '../../../../src/corrections/locate/text-interpreter.ts';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadFontInfo, programGlyphNames, readCMap } from '../../../../src/corrections/locate/fonts.ts';
import {
  baseEncodingUnicode,
  glyphNameToUnicode,
  unicodeToGlyphName,
} from '../../../../src/corrections/locate/encodings.ts';
import { makePdf, type3Font, withDoc } from '../fixtures.ts';

const CONTENT = [
  'q 1 0 0 1 5 -3 cm',
  'BT /F1 11 Tf 20 180 Td (Plain) Tj',
  '2 Tc (Spaced) Tj 0 Tc',
  '6 Tw (a b c) Tj 0 Tw',
  '150 Tz (Wide) Tj 100 Tz',
  '14 TL T* (Next) Tj',
  "(Tick) '",
  '3 1.5 (Quote) "',
  '0 0 Tc 0 Tw 5 Ts (Up) Tj 0 Ts',
  '10 -20 TD (Moved) Tj T* (Leading) Tj',
  '[(Ke) 120 (rn) -300 (ing)] TJ',
  '0.8660 0.5 -0.5 0.8660 150 40 Tm (Turned) Tj',
  'ET Q',
  'q /Fm1 Do Q',
].join('\n');

test('every character MuPDF reports sits on a glyph origin the interpreter computed', () => {
  const pdf = makePdf([{ content: CONTENT, forms: ['Fm1'] }], {
    Fm1: 'q 0.5 0 0 0.5 0 0 cm BT /F1 20 Tf 200 30 Td (Form) Tj ET Q',
  });
  withDoc(pdf, (doc) => {
    const page = doc.loadPage(0);
    const interp = interpretPage(page, page.getTransform() as Mat);
    assert.equal(interp.problems, []);
    const chars = readPageText(page)
      .flatMap((l) => l.chars)
      .filter((c) => c.c !== ' ');
    assert.ok(chars.length > 60);
    let worst = 0;
    for (const ch of chars) {
      let best = Infinity;
      for (const g of interp.glyphs)
        best = Math.min(best, Math.hypot(g.origin[0] - ch.origin[0], g.origin[1] - ch.origin[1]));
      worst = Math.max(worst, best);
      assert.ok(
        best < 0.01,
        `“${ch.c}” at ${ch.origin.map((v) => v.toFixed(3))}: nearest glyph ${best.toFixed(4)} pt away`,
      );
    }
    // The form's glyphs are attributed to the form's stream.
    const formUnit = interp.units.find((u) => u.kind === 'form');
    assert.ok(formUnit);
    assert.is(interp.glyphs.filter((g) => g.unit === formUnit!.id).length, 4);
  });
});

test('a Type3 font with FontMatrix .011: widths in single precision, as MuPDF keeps them', () => {
  // pdfTeX 0.13's bitmap fonts: 59 × 0.011 is 0.649 em in floats (0.648 in doubles), so a line of
  // them drifted 1/1000 em per glyph from MuPDF's characters.
  const pdf = withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const font = type3Font(
      doc,
      0.011,
      [0, 0, 60, 60],
      [
        { code: 97, name: 'a', width: 59, draw: '0 0 50 50 re f' },
        { code: 98, name: 'b', width: 61, draw: '0 0 50 50 re f' },
      ],
    );
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('T3', doc.addObject(font));
    page.put(
      'Contents',
      doc.addStream(`BT /T3 10 Tf 10 100 Td (${'ab'.repeat(20)}) Tj ET`, doc.newDictionary()),
    );
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
  withDoc(pdf, (doc) => {
    const page = doc.loadPage(0);
    const interp = interpretPage(page, page.getTransform() as Mat);
    const xs = interp.glyphs.map((g) => g.origin[0]);
    // 20 × (0.649 + 0.671) em at 10 pt.
    assert.ok(Math.abs(xs[39] + 0.671 * 10 - xs[0] - 20 * (0.649 + 0.671) * 10) < 1e-6, `${xs[39] - xs[0]}`);
    const chars = readPageText(page).flatMap((l) => l.chars);
    assert.is(chars.length, 40);
    chars.forEach((c, i) =>
      assert.ok(Math.abs(c.origin[0] - xs[i]) < 1e-3, `${i}: ${c.origin[0]} vs ${xs[i]}`),
    );
  });
});

test('encodings and glyph names', () => {
  assert.is(baseEncodingUnicode('WinAnsiEncoding', 0xe9), 'é');
  assert.is(baseEncodingUnicode('WinAnsiEncoding', 0x80), '€');
  assert.is(baseEncodingUnicode('WinAnsiEncoding', 0x81), undefined);
  assert.is(baseEncodingUnicode('MacRomanEncoding', 0x8e), 'é');
  assert.is(baseEncodingUnicode('StandardEncoding', 0x27), '\u2019');
  assert.is(baseEncodingUnicode('StandardEncoding', 0xe9), 'Ø');
  assert.is(glyphNameToUnicode('eacute'), 'é');
  assert.is(glyphNameToUnicode('uni0151'), 'ő');
  assert.is(glyphNameToUnicode('u1F600'), '😀');
  assert.is(glyphNameToUnicode('a.sc'), 'a');
  assert.is(glyphNameToUnicode('f_i'), 'fi');
  assert.is(glyphNameToUnicode('no-such-glyph'), undefined);
  assert.is(unicodeToGlyphName('é'), 'eacute');
  assert.is(unicodeToGlyphName('ő'), 'uni0151');
});

test('ToUnicode CMaps: bfchar, bfrange (with carry and arrays), codespace', () => {
  const cmap = readCMap(
    new Uint8Array(
      Buffer.from(
        [
          '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
          '1 begincodespacerange <0000> <FFFF> endcodespacerange',
          '2 beginbfchar <0003> <0020> <0010> <00660069> endbfchar',
          '2 beginbfrange <0020> <0022> <00FE> <0030> <0031> [<0041> <0042>] endbfrange',
          'endcmap CMapName currentdict /CMap defineresource pop end end',
        ].join('\n'),
        'latin1',
      ),
    ),
  );
  assert.equal(cmap.codespace, [{ bytes: 2, lo: 0, hi: 0xffff }]);
  assert.is(cmap.unicode.get(3), ' ');
  assert.is(cmap.unicode.get(0x10), 'fi');
  assert.is(cmap.unicode.get(0x20), '\u00fe');
  assert.is(cmap.unicode.get(0x22), '\u0100');
  assert.is(cmap.unicode.get(0x31), 'B');
});

test('glyph names of embedded Type1 (eexec CharStrings) and CFF (charset) programs', () => {
  const names = (file: string, fontName: string) =>
    withDoc(
      new Uint8Array(
        readFileSync(fileURLToPath(new URL(`../../../../fixtures/corpus/pdf/${file}`, import.meta.url))),
      ),
      (doc) => {
        let out: Set<string> | null = null;
        doc
          .loadPage(0)
          .getObject()
          .getInheritable('Resources')
          .get('Font')
          .forEach((f) => {
            if (f.get('BaseFont').asName().endsWith(fontName)) out = programGlyphNames(loadFontInfo(f));
          });
        return out as Set<string> | null;
      },
    );
  const cmr = names('latex-4-pages.pdf', 'CMR10');
  assert.ok(cmr && cmr.has('A') && cmr.has('ff') && cmr.has('.notdef'));
  assert.not.ok(cmr!.has('udieresis'), 'a subset lacks what the document never used');
  const sfrm = names('geotopo-linearized-type1c.pdf', 'SFRM1095');
  assert.ok(sfrm && sfrm.has('Adieresis') && sfrm.has('A'));
  assert.not.ok(sfrm!.has('egrave'));
});

test.run();
