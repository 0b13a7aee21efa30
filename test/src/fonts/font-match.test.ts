// Font matching against real corpus fonts and known AFM widths.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { faceById } from '../../../src/fonts/catalog.ts';
import type { BundledFace } from '../../../src/fonts/catalog.ts';
import {
  faceAdvance,
  matchFont,
  missingGlyphs,
  parseFontName,
  textAdvance,
} from '../../../src/fonts/font-match.ts';
import type { FontMatch } from '../../../src/fonts/font-match.ts';
import { fontFactsFromPdf, glyphNameToUnicode } from '../../../src/fonts/pdf-font-facts.ts';
import type { FontDictFacts } from '../../../src/fonts/pdf-font-facts.ts';

mupdf.setLog({ warning() {}, error() {} });

const PDF_DIR = fileURLToPath(new URL('../../../../shared/corpus/pdf/', import.meta.url));
const face = (id: string): BundledFace => {
  const f = faceById(id);
  if (!f) throw new Error(id);
  return f;
};
const top = (m: FontMatch) => m.candidates[0]?.face.id ?? null;

/** Facts of every font on the first pages of a corpus file, by BaseFont. */
function corpusFonts(file: string, pages = 3): Map<string, FontDictFacts> {
  const doc = mupdf.Document.openDocument(readFileSync(`${PDF_DIR}${file}`), 'application/pdf');
  const out = new Map<string, FontDictFacts>();
  try {
    const pdf = doc.asPDF();
    if (!pdf) throw new Error(`${file} is not a PDF`);
    for (let i = 0; i < Math.min(pages, pdf.countPages()); i += 1) {
      const fonts = pdf.findPage(i).get('Resources').get('Font');
      if (!fonts.isDictionary()) continue;
      fonts.forEach((font) => {
        const facts = fontFactsFromPdf(font);
        if (!out.has(facts.baseFont)) out.set(facts.baseFont, facts);
      });
    }
  } finally {
    doc.destroy();
  }
  return out;
}

// Adobe's AFM widths (Helvetica.afm, Times-Roman.afm, Courier.afm).
const HELVETICA: Record<string, number> = {
  a: 556,
  m: 833,
  i: 222,
  e: 556,
  l: 222,
  t: 278,
  r: 333,
  s: 500,
  o: 556,
  A: 667,
  H: 722,
  W: 944,
  ' ': 278,
};
const TIMES: Record<string, number> = {
  a: 444,
  m: 778,
  i: 278,
  e: 444,
  l: 278,
  t: 278,
  r: 333,
  s: 389,
  o: 500,
  A: 722,
  H: 722,
  W: 944,
  ' ': 250,
};
const COURIER: Record<string, number> = Object.fromEntries([...'amietrsoAHW '].map((c) => [c, 600]));

test('Liberation Sans has Helvetica’s widths (AFM a 556, m 833, i 222)', () => {
  const sans = face('liberation-sans-regular');
  for (const [ch, w] of Object.entries(HELVETICA)) {
    assert.ok(Math.abs((faceAdvance(sans, ch) ?? -1) - w) < 0.5, `${ch}: ${faceAdvance(sans, ch)} vs ${w}`);
  }
  // And MuPDF's own built-in Helvetica (URW Nimbus Sans) over the whole alphabet.
  const builtin = new mupdf.Font('Helvetica');
  try {
    let sum = 0;
    const chars = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
    for (const ch of chars)
      sum += Math.abs(builtin.advanceGlyph(builtin.encodeCharacter(ch)) * 1000 - faceAdvance(sans, ch)!);
    assert.ok(sum / chars.length < 1, `mean ${sum / chars.length}`);
  } finally {
    builtin.destroy();
  }
});

test('an unnamed font is matched by its widths alone', () => {
  const sans = matchFont({ baseFont: 'F1', widths: HELVETICA });
  assert.is(top(sans), 'liberation-sans-regular');
  assert.ok(sans.candidates[0].width_diff! < 1);
  assert.is(sans.candidates[0].family_match, false);
  const serif = matchFont({ baseFont: 'F2', widths: TIMES });
  assert.is(top(serif), 'liberation-serif-regular');
  const mono = matchFont({ baseFont: 'F3', widths: new Map(Object.entries(COURIER)) });
  assert.is(top(mono), 'liberation-mono-regular');
  // Widths of Helvetica under a name that says Times: the widths veto every Times face.
  const liar = matchFont({ baseFont: 'TimesNewRomanPSMT', widths: HELVETICA });
  assert.not.ok(liar.candidates.some((c) => c.face.family === 'Liberation Serif'));
  assert.is(top(liar), 'liberation-sans-regular');
});

test('names: subset tags, #xx escapes, style suffixes, families', () => {
  const cases: [string, string | null, boolean | null, boolean | null][] = [
    ['ABCDEF+Arial-BoldItalicMT', 'Liberation Sans', true, true],
    ['Arial,Bold', 'Liberation Sans', true, false],
    ['ArialMT', 'Liberation Sans', false, false],
    ['Helvetica-Oblique', 'Liberation Sans', false, true],
    ['Arimo', 'Liberation Sans', false, false],
    ['TimesNewRomanPS-ItalicMT', 'Liberation Serif', false, true],
    ['Times#20New#20Roman', 'Liberation Serif', false, false],
    ['Times-Roman', 'Liberation Serif', false, false],
    ['NimbusRomNo9L-MediItal', 'Liberation Serif', true, true],
    ['Courier-BoldOblique', 'Liberation Mono', true, true],
    ['CourierNewPSMT', 'Liberation Mono', false, false],
    ['Calibri-Bold', 'Carlito', true, false],
    ['Cambria,Italic', 'Caladea', false, true],
    ['BAAAAA+DejaVuSans', 'DejaVu Sans', false, false],
    ['Calibri-Light', null, false, false],
    ['Arial Narrow', null, false, false],
    ['F1', null, null, null],
    ['Foo-Bold', null, true, null],
  ];
  for (const [name, family, bold, italic] of cases) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic], [family, bold, italic], name);
  }
  assert.is(parseFontName('ABCDEF+Arial').subset, true);
  assert.is(parseFontName('Times#20New#20Roman').name, 'Times New Roman');
  assert.is(parseFontName('Symbol').symbolic, true);
  assert.is(parseFontName('ABCDEF+CMSY10').symbolic, true);
});

test('standard14-tcpdf.pdf: every standard font to its stand-in; Symbol and ZapfDingbats to none', () => {
  const fonts = corpusFonts('standard14-tcpdf.pdf', 1);
  const expected: Record<string, string | null> = {
    Helvetica: 'liberation-sans-regular',
    'Helvetica-Bold': 'liberation-sans-bold',
    'Helvetica-Oblique': 'liberation-sans-italic',
    'Helvetica-BoldOblique': 'liberation-sans-bold-italic',
    'Times-Roman': 'liberation-serif-regular',
    'Times-Bold': 'liberation-serif-bold',
    'Times-Italic': 'liberation-serif-italic',
    'Times-BoldItalic': 'liberation-serif-bold-italic',
    Courier: 'liberation-mono-regular',
    'Courier-Bold': 'liberation-mono-bold',
    'Courier-Oblique': 'liberation-mono-italic',
    'Courier-BoldOblique': 'liberation-mono-bold-italic',
    Symbol: null,
    ZapfDingbats: null,
  };
  assert.equal([...fonts.keys()].sort(), Object.keys(expected).sort());
  for (const [name, id] of Object.entries(expected)) {
    const m = matchFont(fonts.get(name)!);
    assert.is(top(m), id, name);
    // Not embedded, no Widths: the name alone speaks, so only its own family is offered.
    assert.is(m.candidates.length, id ? 1 : 0, name);
  }
  const symbol = matchFont(fonts.get('Symbol')!);
  assert.is(symbol.symbolic, true);
  assert.match(symbol.rejected[0].reason, /symbol font/);
});

test('libreoffice-writer.pdf: its TrueType subset BAAAAA+DejaVuSans matches DejaVu Sans by name and widths', () => {
  const fonts = corpusFonts('libreoffice-writer.pdf');
  assert.equal([...fonts.keys()], ['BAAAAA+DejaVuSans']);
  const facts = fonts.get('BAAAAA+DejaVuSans')!;
  assert.is(facts.subtype, 'TrueType');
  assert.is(facts.unicode_source, 'ToUnicode');
  assert.ok(facts.widths.size >= 20);
  const m = matchFont(facts);
  assert.is(top(m), 'dejavu-sans-regular');
  assert.ok(m.candidates[0].family_match);
  assert.ok(m.candidates[0].width_diff! < 2, `${m.candidates[0].width_diff}`);
  // Every other face is rejected with a reason.
  assert.is(m.candidates.length + m.rejected.length, 22);
});

test('tracemonkey-two-column.pdf: the NimbusRomNo9L (Times) subsets go to Liberation Serif, TeX fonts to none', () => {
  const fonts = corpusFonts('tracemonkey-two-column.pdf');
  const byName = (suffix: string) => {
    const entry = [...fonts.entries()].find(([name]) => name.endsWith(`+${suffix}`));
    if (!entry) throw new Error(suffix);
    return matchFont(entry[1]);
  };
  const regular = byName('NimbusRomNo9L-Regu');
  assert.is(top(regular), 'liberation-serif-regular');
  assert.ok(regular.candidates[0].width_diff! < 1);
  assert.ok(regular.candidates[0].width_chars > 50);
  assert.is(top(byName('NimbusRomNo9L-Medi')), 'liberation-serif-bold');
  assert.is(top(byName('NimbusRomNo9L-ReguItal')), 'liberation-serif-italic');
  assert.is(top(byName('NimbusRomNo9L-MediItal')), 'liberation-serif-bold-italic');
  // A slanted upright Times: no bundled face has upright widths and a slant.
  assert.is(byName('NimbusRomNo9L-Regu-Slant_167').candidates.length, 0);
  assert.is(byName('CMR8').candidates.length, 0);
  assert.is(byName('CMTT9').candidates.length, 0);
  assert.is(byName('CMSY9').symbolic, true);
});

test('other corpus fonts: Arial CID subsets (Google Docs), ArialMT WinAnsi, Roboto refused', () => {
  const gdocs = corpusFonts('google-docs.pdf');
  assert.is(top(matchFont(gdocs.get('AAAAAA+ArialMT')!)), 'liberation-sans-regular');
  assert.is(top(matchFont(gdocs.get('CAAAAA+Arial-BoldMT')!)), 'liberation-sans-bold');
  assert.is(top(matchFont(gdocs.get('BAAAAA+Arial-ItalicMT')!)), 'liberation-sans-italic');
  const autocad = matchFont(corpusFonts('autocad-rotate270.pdf').get('ArialMT')!);
  assert.is(top(autocad), 'liberation-sans-regular');
  assert.ok(autocad.candidates[0].width_diff! < 3);
  const roboto = corpusFonts('reportlab-overlay.pdf').get('AAAAAA+Roboto-Regular')!;
  const refused = matchFont(roboto);
  assert.is(refused.candidates.length, 0);
  assert.ok(refused.rejected.some((r) => /widths differ by/.test(r.reason)));
  // A looser threshold lets Liberation Sans through.
  assert.is(top(matchFont(roboto, { maxMeanWidthDiff: 40 })), 'liberation-sans-regular');
});

test('ranking: scores descend, ranks count from 0, reasons given', () => {
  const m = matchFont({ baseFont: 'F9', flags: 32 });
  assert.ok(m.candidates.length >= 2);
  m.candidates.forEach((c, k) => {
    assert.is(c.rank, k);
    assert.ok(c.reasons.length > 0);
    if (k > 0) assert.ok(c.score <= m.candidates[k - 1].score);
  });
  // Nonsymbolic without Serif or FixedPitch: sans; DejaVu Sans comes last.
  assert.is(m.class, 'sans');
  assert.ok(['liberation-sans-regular', 'carlito-regular'].includes(top(m)!));
  assert.is(m.candidates.at(-1)!.face.family, 'DejaVu Sans');
  assert.is(m.italic, false, 'flags without the Italic bit: upright');
  assert.ok(m.candidates.every((c) => !c.face.italic));
  // Flags: fixed pitch → mono; Italic flag → italic faces only.
  assert.is(top(matchFont({ baseFont: 'F9', flags: 1 })), 'liberation-mono-regular');
  const italic = matchFont({ baseFont: 'F9', flags: 2 | 64 });
  assert.ok(italic.candidates.every((c) => c.face.italic));
  assert.is(italic.candidates[0].face.class, 'serif');
  // StemV hints at bold when the name says nothing.
  assert.ok(matchFont({ baseFont: 'F9', flags: 32, stemV: 140 }).candidates[0].face.bold);
});

test('missing glyphs and text advance', () => {
  const sans = face('liberation-sans-regular');
  assert.equal(missingGlyphs(sans, 'Grüße, 10 € — Ωμέγα'), []);
  assert.equal(missingGlyphs(face('caladea-regular'), 'xΩyΩ你'), ['Ω', '你']);
  assert.equal(missingGlyphs(sans, '你好你'), ['你', '好']);
  assert.ok(Math.abs(textAdvance(sans, 'Hello')! - (722 + 556 + 222 + 222 + 556)) < 1.5);
  assert.is(textAdvance(sans, 'H你'), null);
});

test('glyph names to Unicode', () => {
  assert.is(glyphNameToUnicode('a'), 'a');
  assert.is(glyphNameToUnicode('eacute'), 'é');
  assert.is(glyphNameToUnicode('Scaron'), 'Š');
  assert.is(glyphNameToUnicode('quoteright'), '\u2019');
  assert.is(glyphNameToUnicode('fi'), '\ufb01');
  assert.is(glyphNameToUnicode('uni20AC'), '€');
  assert.is(glyphNameToUnicode('u1F600'), '😀');
  assert.is(glyphNameToUnicode('seven.oldstyle'), '7');
  assert.is(glyphNameToUnicode('g123'), undefined);
});

test.run();
