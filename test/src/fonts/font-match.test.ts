// Font matching against real corpus fonts and known AFM widths.
import { test } from 'uvu';
import { BUNDLED_FACES } from '../../../src/fonts/catalog.ts';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { hasSubsetTag, withoutSubsetTag } from '../../../src/pdf/subset-tag.ts';
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

const PDF_DIR = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const face = (id: string): BundledFace => {
  const f = faceById(id);
  if (!f) throw new Error(id);
  return f;
};
const top = (m: FontMatch) => m.candidates[0]?.face.id ?? null;

/** Facts of every font on the first pages of a corpus file, by BaseFont. */
function corpusFonts(file: string, pages = 3, dir = PDF_DIR): Map<string, FontDictFacts> {
  const doc = mupdf.Document.openDocument(readFileSync(`${dir}${file}`), 'application/pdf');
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

test('Prawn’s subset tags (six lowercase hex digits, asciidoctor-pdf) are tags, not part of the name', () => {
  const parsed = parseFontName('2d90a6+NotoSerif');
  assert.is(parsed.subset, true);
  assert.is(parsed.name, 'NotoSerif');
  assert.is(parsed.family, 'Noto Serif');
  assert.is(withoutSubsetTag('a836bf+NotoSerif-Bold'), 'NotoSerif-Bold');
  // Not a tag: fewer than six characters, or no plus sign.
  assert.is(withoutSubsetTag('ab12+Name'), 'ab12+Name');
  assert.is(hasSubsetTag('NotoSerif'), false);
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
    // A capitalised style word glued to an unknown family is its style; a lower-case one is not.
    ['FooSerifBoldItalic', null, true, true],
    ['FooSansOblique', null, null, true],
    ['Kobold', null, null, null],
    ['FreeMonoBold', 'Liberation Mono', true, false],
    ['FreeSerifBold', null, true, false],
    // The free faces bundled for themselves; another weight, width or design of the same name is
    // not one of them (its widths may still match a bundled face, but not by name).
    ['ABCDEF+NotoSans-BoldItalic', 'Noto Sans', true, true],
    ['NotoSansMono-Regular', null, false, false],
    ['NotoSansCJKjp-Regular', null, false, false],
    ['Lato-Light', null, false, false],
    ['SourceSans3-It', 'Source Sans 3', false, true],
    ['SourceSansPro-BoldIt', 'Source Sans 3', true, true],
    ['SourceSerif4Caption-Regular', null, false, false],
    ['EBGaramond12-Italic', 'EB Garamond 12', false, true],
    ['EBGaramond-Regular', 'EB Garamond 12', false, false],
    ['EBGaramond08-Regular', null, false, false],
    ['Cantarell-ExtraBold', null, true, false],
    ['LinBiolinumOB', 'Linux Biolinum O', true, false],
    ['LinBiolinumT-TLF', 'Linux Biolinum O', false, false],
    ['PTSans-Narrow', null, false, false],
    ['PTSerif-BoldItalic', 'PT Serif', true, true],
    ['GentiumPlus', 'Gentium Plus', false, false],
    ['GentiumBookPlus-Regular', null, null, null],
    ['Inter,Bold', 'Inter', true, false],
    ['InterDisplay-Regular', null, false, false],
    ['Interstate-Bold', null, true, false],
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
  assert.is(m.candidates.length + m.rejected.length, BUNDLED_FACES.length);
});

test('a ToUnicode that maps only some codes (XeTeX Type 1 subsets: the ligatures): the rest read through the encoding', () => {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.newDictionary();
    font.put('Type', doc.newName('Font'));
    font.put('Subtype', doc.newName('Type1'));
    font.put('BaseFont', doc.newName('VHFTUH+TeXGyreTermes-Regular'));
    font.put('FirstChar', doc.newInteger(27));
    font.put('LastChar', doc.newInteger(101));
    const widths = doc.newArray();
    for (let c = 27; c <= 101; c += 1)
      widths.push(doc.newInteger({ 27: 600, 97: 444, 98: 500, 99: 444, 100: 500, 101: 444 }[c] ?? 0));
    font.put('Widths', widths);
    const enc = doc.newDictionary();
    enc.put('BaseEncoding', doc.newName('WinAnsiEncoding'));
    const diffs = doc.newArray();
    diffs.push(doc.newInteger(27));
    diffs.push(doc.newName('ff'));
    enc.put('Differences', diffs);
    font.put('Encoding', enc);
    const cmap =
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <1B> <FB00> endbfchar endcmap end end';
    font.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    const facts = fontFactsFromPdf(font);
    assert.is(facts.unicode_source, 'ToUnicode');
    assert.equal(Object.fromEntries(facts.widths), { '\ufb00': 600, a: 444, b: 500, c: 444, d: 500, e: 444 });
    // TeX Gyre Termes has Times' widths: Liberation Serif, by name and by these widths.
    const m = matchFont(facts);
    assert.is(top(m), 'liberation-serif-regular');
    assert.ok(m.candidates[0].width_diff! < 1, `${m.candidates[0].width_diff}`);
  } finally {
    doc.destroy();
  }
});

test('TeX Gyre names: Pagella bundled (with Palatino, URW Palladio), Termes, Heros, Cursor by their metric twins', () => {
  for (const [name, family, bold, italic] of [
    ['RVQTYG+TeXGyrePagella-Regular-Identity-H', 'TeX Gyre Pagella', false, false],
    ['TeXGyrePagella-BoldItalic', 'TeX Gyre Pagella', true, true],
    ['PalatinoLinotype-Italic', 'TeX Gyre Pagella', false, true],
    ['URWPalladioL-Bold', 'TeX Gyre Pagella', true, false],
    ['TeXGyreTermes-Regular', 'Liberation Serif', false, false],
    ['TeXGyreHeros-Bold', 'Liberation Sans', true, false],
    ['TeXGyreCursor-Italic', 'Liberation Mono', false, true],
    ['TeXGyreHerosCn-Regular', null, false, false],
  ] as const) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic], [family, bold, italic], name);
  }
  // A Palatino subset with Pagella's widths: Pagella.
  const widths = Object.fromEntries(
    [...'aenoHW'].map((c) => [c, faceAdvance(faceById('texgyre-pagella-regular')!, c)!]),
  );
  assert.is(
    top(matchFont({ baseFont: 'ABCDEF+Palatino-Roman', flags: 34, widths })),
    'texgyre-pagella-regular',
  );
});

test('a named clone whose symbols are drawn otherwise is judged on its letters and figures; an unnamed face on everything', () => {
  const pagella = faceById('texgyre-pagella-regular')!;
  const letters = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123'];
  // URW Palladio's own letter widths are Pagella's; its parentheses, brackets and signs are not
  // (pdfLaTeX's mathpazo: "(" 333 where Pagella's is 456, "+" 606 where Pagella's is 760).
  const symbols: Record<string, number> = {
    '(': 333,
    ')': 333,
    '[': 333,
    ']': 333,
    '+': 606,
    '=': 606,
    '<': 606,
    '>': 606,
    '|': 606,
    '{': 333,
    '}': 333,
  };
  const own = (k: number) =>
    Object.fromEntries(letters.map((c) => [c, Math.round(faceAdvance(pagella, c)! * k)]));
  const named = matchFont({
    baseFont: 'ZQWRRU+URWPalladioL-Roma',
    flags: 4,
    widths: { ...own(1), ...symbols },
  });
  assert.is(top(named), 'texgyre-pagella-regular');
  assert.match(named.candidates[0].reasons.join('; '), /letters and figures/);
  assert.is(named.candidates[0].width_chars, letters.length);
  // The letters decide: 4 % wider letters are another design, named or not.
  const wider = matchFont({
    baseFont: 'ZQWRRU+URWPalladioL-Roma',
    flags: 4,
    widths: { ...own(1.04), ...symbols },
  });
  assert.not.ok(wider.candidates.some((c) => c.face.id === 'texgyre-pagella-regular'));
  // A face the name does not point to is judged on every character it draws.
  const unnamed = matchFont({
    baseFont: 'ZQWRRU+SomeSerif-Regular',
    flags: 34,
    widths: { ...own(1), ...symbols },
  });
  assert.not.ok(unnamed.candidates.some((c) => c.face.id === 'texgyre-pagella-regular'));
});

test('tracemonkey-two-column.pdf: the NimbusRomNo9L (Times) subsets go to Liberation Serif, CM to Latin Modern', () => {
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
  // Computer Modern: Latin Modern of the same optical size, by name and (CMTT9) by 62 widths.
  assert.is(top(byName('CMR8')), 'lm-roman-8-regular');
  const tt = byName('CMTT9');
  assert.is(top(tt), 'lm-mono-9-regular');
  assert.is(tt.candidates[0].width_diff, 0);
  assert.ok(tt.candidates[0].width_chars >= 60);
  assert.is(byName('CMSY9').symbolic, true);
});

test('Bitstream Charter: its Type 1, XCharter, vntex and TeX names; a pdfTeX subset matches it within 0/1000 em, Charis SIL not', () => {
  const cases: [string, string | null, boolean, boolean][] = [
    ['XYEDOT+CharterBT-Roman', 'Bitstream Charter', false, false],
    ['CharterBT-BoldItalic', 'Bitstream Charter', true, true],
    ['XCharter-Italic', 'Bitstream Charter', false, true],
    ['VnCharterBT-Bold', 'Bitstream Charter', true, false],
    ['VnBitstreamCharter', 'Bitstream Charter', false, false],
    ['bchri8t', 'Bitstream Charter', false, true],
    ['bchb8a', 'Bitstream Charter', true, false],
    ['bchrc8t', null, false, false],
    ['Charter-Black', null, false, false],
  ];
  for (const [name, family, bold, italic] of cases) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic], [family, bold, italic], name);
  }
  const texFonts = fileURLToPath(new URL('../../../fixtures/tex-fonts/', import.meta.url));
  const fonts = corpusFonts('charter-line.pdf', 1, texFonts);
  for (const [baseFont, face] of [
    ['XYEDOT+CharterBT-Roman', 'charter-regular'],
    ['AFPBUC+CharterBT-Italic', 'charter-italic'],
  ]) {
    const m = matchFont(fonts.get(baseFont)!);
    assert.is(top(m), face);
    assert.ok(m.candidates[0].width_diff! < 0.5, `${m.candidates[0].width_diff}`);
    assert.not.ok(
      m.candidates.some((c) => c.face.family === 'Charis SIL'),
      'Charis SIL has other widths',
    );
  }
});

test('Adobe Utopia (bundled renamed, Nowhere Serif): its Type 1, OpenType, Heuristica, psnfss and Fourier names; a pdfTeX subset matches it within 0.5/1000 em', () => {
  const cases: [string, string | null, boolean, boolean][] = [
    ['RUTFHU+Utopia-Regular', 'Nowhere Serif', false, false],
    ['Utopia-BoldItalic', 'Nowhere Serif', true, true],
    ['UtopiaStd-Italic', 'Nowhere Serif', false, true],
    ['Heuristica-Bold', 'Nowhere Serif', true, false],
    ['putr8t', 'Nowhere Serif', false, false],
    ['putbi8a', 'Nowhere Serif', true, true],
    ['futri8t', 'Nowhere Serif', false, true],
    ['putrc8t', null, false, false],
    // The bundle's renamed copy, embedded by an earlier correction.
    ['ABCDEF+NowhereSerif-Italic', 'Nowhere Serif', false, true],
  ];
  for (const [name, family, bold, italic] of cases) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic], [family, bold, italic], name);
  }
  const texFonts = fileURLToPath(new URL('../../../fixtures/tex-fonts/', import.meta.url));
  const fonts = corpusFonts('utopia-line.pdf', 1, texFonts);
  for (const [baseFont, face] of [
    ['HBWDER+Utopia-Regular', 'nowhere-serif-regular'],
    ['OEKEGF+Utopia-Italic', 'nowhere-serif-italic'],
  ]) {
    const m = matchFont(fonts.get(baseFont)!);
    assert.is(top(m), face);
    assert.ok(m.candidates[0].width_diff! < 0.5, `${m.candidates[0].width_diff}`);
  }
});

test('OpenType math faces name their text companion; only their letters and figures are compared', () => {
  const lm = parseFontName('KMFCQA+LatinModernMath-Regular');
  assert.equal(
    [lm.families, lm.bold, lm.italic, lm.math, lm.symbolic],
    [['LM Roman 10', 'CMU Serif'], false, false, true, false],
  );
  assert.is(parseFontName('STIXTwoMath-Regular').family, 'STIX Two Text');
  assert.is(parseFontName('TeXGyrePagellaMath-Regular').family, 'TeX Gyre Pagella');
  assert.is(parseFontName('CMSY10').symbolic, true);
  // LM Math's own widths: upright letters LM Roman 10's; its √ and stretchy circumflex, and the
  // math italic 𝑎 (cmmi's 529), are its own and not compared.
  const widths = { a: 500, e: 444, m: 833, p: 556, '√': 833, '\u0302': 1320, '𝑎': 529, '𝑏': 429 };
  const m = matchFont({ baseFont: 'ABCDEF+LatinModernMath-Regular', flags: 4, widths });
  assert.is(top(m), 'lm-roman-10-regular');
  assert.is(m.candidates[0].width_diff, 0);
  assert.is(m.candidates[0].width_chars, 4);
  // The same widths under an unknown name: √ and the accent count, and nothing stands in.
  assert.is(matchFont({ baseFont: 'ABCDEF+F1', flags: 4, widths }).candidates.length, 0);
});

test('arabic-cid.pdf: the DejaVuSerif subset matches DejaVu Serif by name and widths', () => {
  const facts = corpusFonts('arabic-cid.pdf').get('XGBNKK+DejaVuSerif')!;
  const m = matchFont(facts);
  assert.is(top(m), 'dejavu-serif-regular');
  assert.ok(m.candidates[0].family_match);
  assert.ok(m.candidates[0].width_diff! < 1, `${m.candidates[0].width_diff}`);
});

test('other corpus fonts: Arial CID subsets (Google Docs), ArialMT WinAnsi, Roboto, DejaVu Sans Condensed', () => {
  const gdocs = corpusFonts('google-docs.pdf');
  assert.is(top(matchFont(gdocs.get('AAAAAA+ArialMT')!)), 'liberation-sans-regular');
  assert.is(top(matchFont(gdocs.get('CAAAAA+Arial-BoldMT')!)), 'liberation-sans-bold');
  assert.is(top(matchFont(gdocs.get('BAAAAA+Arial-ItalicMT')!)), 'liberation-sans-italic');
  const autocad = matchFont(corpusFonts('autocad-rotate270.pdf').get('ArialMT')!);
  assert.is(top(autocad), 'liberation-sans-regular');
  assert.ok(autocad.candidates[0].width_diff! < 3);
  const roboto = corpusFonts('reportlab-overlay.pdf').get('AAAAAA+Roboto-Regular')!;
  const m = matchFont(roboto);
  assert.equal(
    m.candidates.map((c) => c.face.id),
    ['roboto-regular'],
  );
  assert.ok(m.candidates[0].width_diff! < 1);
  // Liberation Sans is not Roboto: its widths differ by more than the threshold.
  assert.ok(
    m.rejected.some((r) => r.face_id === 'liberation-sans-regular' && /widths differ by/.test(r.reason)),
  );
  assert.is(top(matchFont(roboto, { maxMeanWidthDiff: 40 })), 'roboto-regular');
  const condensed = corpusFonts('aes256-user-owner.pdf').get('ADRGBG+DejaVuSansCondensed');
  if (condensed) {
    const c = matchFont(condensed);
    assert.is(top(c), 'dejavu-sans-condensed-regular');
    assert.ok(c.candidates[0].width_diff! < 1);
  }
});

test('TeX names: Computer Modern, EC/cm-super and Latin Modern to the nearest optical size', () => {
  const cases: [string, string | null, boolean, boolean, number][] = [
    ['IYCZZB+CMR10', 'LM Roman 10', false, false, 10],
    ['CMR5', 'LM Roman 5', false, false, 5],
    ['CMR12', 'LM Roman 12', false, false, 12],
    ['CMR17', 'LM Roman 17', false, false, 17],
    ['CMBX12', 'LM Roman 12', true, false, 12],
    ['CMBX5', 'LM Roman 5', true, false, 5],
    ['CMTI10', 'LM Roman 10', false, true, 10],
    ['CMBXTI10', 'LM Roman 10', true, true, 10],
    ['CMSL10', 'LM Roman Slanted 10', false, true, 10],
    ['CMSS10', 'LM Sans 10', false, false, 10],
    ['CMSSBX10', 'LM Sans 10', true, false, 10],
    ['CMSSI10', 'LM Sans 10', false, true, 10],
    ['CMTT9', 'LM Mono 9', false, false, 9],
    ['CMITT10', 'LM Mono 10', false, true, 10],
    ['SFRM1095', 'LM Roman 10', false, false, 10.95],
    ['ECRM1200', 'LM Roman 12', false, false, 12],
    ['SFTI1440', null, false, true, 14.4],
    ['SFSX1440', null, true, false, 14.4],
    ['LMRoman10-Regular', 'LM Roman 10', false, false, 10],
    ['LMRomanSlant12-Regular', 'LM Roman Slanted 12', false, true, 12],
    ['LMSans10-Oblique', 'LM Sans 10', false, true, 10],
    // Every Latin Modern series: small caps, demi (CMB), bold slanted, unslanted italic, Dunhill,
    // sans demi condensed and quotation, slanted and proportional typewriter, typewriter caps.
    ['CMCSC10', 'LM Roman Caps 10', false, false, 10],
    ['ECCC1000', 'LM Roman Caps 10', false, false, 10],
    ['CMB10', 'LM Roman Demi 10', true, false, 10],
    ['CMBXSL10', 'LM Roman Slanted 10', true, true, 10],
    ['CMU10', 'LM Roman Unslanted 10', false, false, 10],
    ['CMDUNH10', 'LM Roman Dunhill 10', false, false, 10],
    ['CMSSDC10', 'LM Sans Demi Cond 10', true, false, 10],
    ['CMSSQ8', 'LM Sans Quotation 8', false, false, 8],
    ['CMSSI8', 'LM Sans 8', false, true, 8],
    ['SFSO1000', 'LM Sans 10', true, true, 10],
    ['CMSLTT10', 'LM Mono Slanted 10', false, true, 10],
    ['CMVTT10', 'LM Mono Prop 10', false, false, 10],
    ['CMTCSC10', 'LM Mono Caps 10', false, false, 10],
    ['CMFIB8', null, false, false, 8],
    // XeTeX and LuaTeX name the OpenType faces, dvipdfmx with the CMap after them.
    ['MCYBKR+LMSans10-BoldOblique-Identity-H', 'LM Sans 10', true, true, 10],
    ['LMRomanSlant10-Bold', 'LM Roman Slanted 10', true, true, 10],
    ['LMMonoLt10-BoldOblique', 'LM Mono Light 10', true, true, 10],
    ['LMRomanDemi10-Oblique', 'LM Roman Demi 10', true, true, 10],
  ];
  for (const [name, family, bold, italic, size] of cases) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic, p.design_size], [family, bold, italic, size], name);
  }
  // Only a size less than 1 pt away is the same design (CM's widths change with the size).
  assert.equal(parseFontName('CMR8').families, ['LM Roman 8']);
  // CMU Serif is CM Roman at 10 pt (with Cyrillic and Greek): the same design, after Latin Modern.
  assert.equal(parseFontName('SFRM1095').families, ['LM Roman 10', 'CMU Serif']);
  assert.equal(parseFontName('CMBX12').families, ['LM Roman 12']);
  // … and CMU Typewriter Text and CMU Sans Serif (regular only) for CM Typewriter and Sans.
  assert.equal(parseFontName('SFTT1000').families, ['LM Mono 10', 'CMU Typewriter Text']);
  assert.equal(parseFontName('CMSS10').families, ['LM Sans 10', 'CMU Sans Serif']);
  assert.equal(parseFontName('CMSSBX10').families, ['LM Sans 10']);
  assert.equal(parseFontName('ABCDEF+CMUTypewriter-Regular-Identity-H').families, ['CMU Typewriter Text']);
  assert.equal(parseFontName('CMUSansSerif').families, ['CMU Sans Serif']);
  assert.equal(parseFontName('CMUSerif-BoldItalic').families, ['CMU Serif']);
  assert.equal(
    [parseFontName('CMUSerif-BoldItalic').bold, parseFontName('CMUSerif-Roman').italic],
    [true, false],
  );
  // Families made from CM's sources with other letters keep CM's widths: CS (Czech), PL (Polish,
  // old and Type 1 names), vntex, LH (T2A/T2B/T2C, X2) and CB Greek; Washington Cyrillic names its
  // glyphs in Latin transliteration and stands in for nothing.
  for (const [name, families, bold, italic] of [
    ['LMOIFU+csr10', ['LM Roman 10', 'CMU Serif'], false, false],
    ['csbx12', ['LM Roman 12'], true, false],
    ['cscsc10', ['LM Roman Caps 10'], false, false],
    ['CSTT10', ['LM Mono 10', 'CMU Typewriter Text'], false, false],
    ['plr10', ['LM Roman 10', 'CMU Serif'], false, false],
    ['JXBPIJ+PLRoman10-Regular', ['LM Roman 10', 'CMU Serif'], false, false],
    ['PLSlanted10-Italic', ['LM Roman Slanted 10'], false, true],
    ['PLTypewriter10-Regular', ['LM Mono 10', 'CMU Typewriter Text'], false, false],
    ['PLSans10-BoldItalic', ['LM Sans 10'], true, true],
    ['RTGYLT+VNR10', ['LM Roman 10', 'CMU Serif'], false, false],
    ['VNSS10', ['LM Sans 10', 'CMU Sans Serif'], false, false],
    ['larm1000', ['LM Roman 10', 'CMU Serif'], false, false],
    ['rxbx1000', ['LM Roman 10', 'CMU Serif'], true, false],
    ['BOHYBN+grmn1000', ['LM Roman 10', 'CMU Serif'], false, false],
    ['grxn1000', ['LM Roman 10', 'CMU Serif'], true, false],
    ['gsmn1000', ['LM Sans 10', 'CMU Sans Serif'], false, false],
    ['gttn1000', ['LM Mono 10', 'CMU Typewriter Text'], false, false],
    ['WNCYR10', [], false, false],
  ] as const) {
    const p = parseFontName(name);
    assert.equal([p.families, p.bold, p.italic], [families, bold, italic], name);
  }
  assert.match(parseFontName('WNCYR10').note ?? '', /transliteration/);
  // Libertine writes its style in letters: O/T (OpenType, Type 1), then B, I; Z (semibold) is not bundled.
  for (const [name, bold, italic] of [
    ['GDGNCC+LinLibertineO', false, false],
    ['LinLibertineOB', true, false],
    ['LinLibertineOI', false, true],
    ['LinLibertineOBI', true, true],
    ['LinLibertineT-TLF', false, false],
    ['LinLibertineTB-TLF', true, false],
    ['LinLibertineTI-OsF', false, true],
  ] as const) {
    const p = parseFontName(name);
    assert.equal([p.family, p.bold, p.italic], ['Linux Libertine O', bold, italic], name);
  }
  assert.is(parseFontName('LinLibertineOZ').family, null);
  const libertine = matchFont({
    baseFont: 'GDGNCC+LinLibertineO',
    flags: 4,
    widths: { a: 457, e: 447, n: 542, o: 504 },
  });
  assert.is(top(libertine), 'linux-libertine-regular');
  assert.match(parseFontName('SFTI1440').note ?? '', /within 1 pt of 14.4 pt/);
  assert.match(parseFontName('CMFIB8').note ?? '', /Fibonacci\) has no bundled Latin Modern face/);
  assert.is(parseFontName('CMMI10').symbolic, true);
  // CM's widths are Latin Modern's: CMR10 from its AFM (a 500, e 444.4, m 833.3, W 1027.8).
  const cmr10 = { a: 500, e: 444.4, m: 833.3, W: 1027.8, o: 500, i: 277.8, n: 555.6 };
  const m = matchFont({ baseFont: 'ABCDEF+CMR10', flags: 4, widths: cmr10 });
  assert.is(top(m), 'lm-roman-10-regular');
  assert.ok(m.candidates[0].width_diff! < 0.5);
  assert.is(m.candidates[1].face.id, 'cmu-serif-regular');
  assert.ok(m.candidates[1].family_match && m.candidates[1].width_diff! < 1, 'CMU Serif has CM widths');
  // … and those of another size are rejected by the widths: CMR8's for LM Roman 10.
  const asEight = matchFont({ baseFont: 'CMR8', widths: { a: 500, e: 444.4, m: 833.3, n: 555.6 } });
  assert.is(top(asEight), 'lm-roman-10-regular');
  assert.ok(
    asEight.rejected.some((r) => r.face_id === 'lm-roman-8-regular' && /widths differ/.test(r.reason)),
  );
});

test('ranking: scores descend, ranks count from 0, reasons given', () => {
  const m = matchFont({ baseFont: 'F9', flags: 32 });
  assert.ok(m.candidates.length >= 2);
  m.candidates.forEach((c, k) => {
    assert.is(c.rank, k);
    assert.ok(c.reasons.length > 0);
    if (k > 0) assert.ok(c.score <= m.candidates[k - 1].score);
  });
  // Nonsymbolic without Serif or FixedPitch: sans; the last resorts (DejaVu Sans, Roboto) come last.
  assert.is(m.class, 'sans');
  assert.ok(['liberation-sans-regular', 'carlito-regular'].includes(top(m)!));
  assert.is(m.candidates.at(-1)!.face.metricCompatible, false);
  const firstLastResort = m.candidates.findIndex((c) => !c.face.metricCompatible);
  assert.ok(m.candidates.slice(firstLastResort).every((c) => !c.face.metricCompatible));
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

test('cm-super sizes Latin Modern lacks: the nearest optical size, drawn at the scale of the widths', () => {
  const letters = [...'abcdefghinoprstuABCDEHMW'];
  const widthsOf = (id: string, k: number) =>
    Object.fromEntries(letters.map((c) => [c, Math.round(faceAdvance(faceById(id)!, c)! * k * 10) / 10]));
  // SFRM1440 (no LM Roman 14): its widths are LM Roman 12's at 97.24 % (measured on numnameru.pdf).
  const m1440 = matchFont({
    baseFont: 'ABCDEF+SFRM1440',
    flags: 4,
    widths: widthsOf('lm-roman-12-regular', 0.9724),
  });
  assert.is(top(m1440), 'lm-roman-12-regular');
  assert.ok(Math.abs((m1440.candidates[0].scale ?? 0) - 0.9724) < 0.001, `${m1440.candidates[0].scale}`);
  assert.ok(m1440.candidates[0].width_diff! < 1);
  assert.ok(m1440.candidates[0].reasons.some((r) => /drawn 97.2 % wide/.test(r)));
  // SFRM1728 names LM Roman 17, whose own widths are 2 % narrower: scaled, they are within the rule.
  const m1728 = matchFont({ baseFont: 'SFRM1728', flags: 4, widths: widthsOf('lm-roman-17-regular', 1.02) });
  assert.is(top(m1728), 'lm-roman-17-regular');
  assert.ok(Math.abs((m1728.candidates[0].scale ?? 0) - 1.02) < 0.001);
  // The same design at its own widths is not scaled.
  assert.is(
    matchFont({ baseFont: 'SFRM1728', flags: 4, widths: widthsOf('lm-roman-17-regular', 1) }).candidates[0]
      .scale,
    undefined,
  );
  // Widths more than 5 % off every design are no scaled Latin Modern.
  assert.is(
    top(matchFont({ baseFont: 'SFRM1440', flags: 4, widths: widthsOf('lm-roman-12-regular', 0.85) })),
    null,
  );
});

test('shaped and full-width scripts say nothing about widths: an Amiri page matches Amiri by its Latin; Arabic alone, or hangul alone, matches nothing but a name', () => {
  const amiri = faceById('amiri-regular')!;
  const latin = Object.fromEntries([...'aemnorst0123'].map((c) => [c, faceAdvance(amiri, c)!]));
  // Contextual forms (initial, medial, final) map to their letter; their widths are not the isolated
  // glyph's a face has for that letter.
  const arabic = { ب: 150, ت: 980, ث: 40, ج: 900, ح: 60, خ: 700, د: 20, ل: 850 };
  const page = matchFont({ baseFont: 'QPHTVM+Amiri-Regular', flags: 4, widths: { ...latin, ...arabic } });
  assert.is(top(page), 'amiri-regular');
  assert.ok(page.candidates[0].width_diff! < 1, String(page.candidates[0].width_diff));
  const only = matchFont({ baseFont: 'QPHTVM+Amiri-Regular', flags: 4, widths: arabic });
  assert.equal(only.candidates, []);
  assert.ok(only.rejected.every((r) => /contextually shaped script/.test(r.reason)));
  // Noto Serif is Noto Serif, not the CJK or script families of the same prefix.
  assert.is(parseFontName('UIQRKM+NotoSerif-Regular').family, 'Noto Serif');
  assert.is(parseFontName('NotoSerifKR-Regular-Identity-H').family, null);
  assert.is(parseFontName('NotoSerifDevanagari-Bold').family, null);
  // Han and hangul are 1 em in every CJK font: their widths name no face, a name still does.
  const hangul = Object.fromEntries([...'가나다라마바사아자차카'].map((c) => [c, 1000]));
  const unnamed = matchFont({ baseFont: 'JTIFEX+oynmjlc6', flags: 4, widths: hangul });
  assert.ok(
    unnamed.candidates.every((c) => !c.family_match && c.width_diff === null && c.width_chars === 0),
    'no face is named and none has widths to show',
  );
  assert.is(
    top(matchFont({ baseFont: 'ILMJLX+nanummjmd3', flags: 4, widths: hangul })),
    'nanum-myeongjo-regular',
  );
  // Amiri calls its italics Slanted.
  assert.equal(
    [parseFontName('Amiri-BoldSlanted').bold, parseFontName('Amiri-BoldSlanted').italic],
    [true, true],
  );
});

test.run();
