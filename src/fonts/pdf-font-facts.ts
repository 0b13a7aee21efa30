// Reads the facts font-match needs from a PDF font dictionary: BaseFont, the FontDescriptor's
// Flags/ItalicAngle/StemV/FontWeight, and the width (1/1000 em) of each character the font can
// draw, keyed by Unicode character.
//
// Codes become characters through, in order: the ToUnicode CMap (bfchar/bfrange, 1- and 2-byte
// codes), else the Encoding's Differences (glyph names: letters, digits, punctuation, accented
// Latin, uniXXXX/uXXXX) over its base encoding (WinAnsi, MacRoman, Standard). Widths come from
// FirstChar/Widths (simple fonts) or the descendant's W (Type0 with Identity-H/V); zero widths
// (codes a subset does not use) are left out. A Type 3 font's widths are in its glyph space: they
// are scaled by its FontMatrix to thousandths of the text space unit (the em where, as pdfTeX and
// dvipdfm write METAFONT bitmaps, the font size is the em), and only its letters and digits are
// read (type3Letters). The engine may pass its own measured widths to matchFont instead; this
// reader is the plain, dependable subset.
import type * as mupdf from 'mupdf';
import type { PdfFontFacts } from './font-match.ts';
import { symbolicCodeGlyphs } from './truetype-cmap.ts';
import { nameKeyedCffNames, plainGlyphNameUnicode, readCMap } from '../corrections/locate/fonts.ts';

const isDict = (o: mupdf.PDFObject | null | undefined): o is mupdf.PDFObject => !!o && o.isDictionary();
const get = (o: mupdf.PDFObject | null | undefined, key: string): mupdf.PDFObject | null => {
  if (!isDict(o)) return null;
  const v = o.get(key);
  return v.isNull() ? null : v;
};
const num = (o: mupdf.PDFObject | null): number | undefined => (o && o.isNumber() ? o.asNumber() : undefined);
const name = (o: mupdf.PDFObject | null): string | undefined => (o && o.isName() ? o.asName() : undefined);

export interface FontDictFacts extends PdfFontFacts {
  subtype: string;
  widths: Map<string, number>;
  /** Where the code → character mapping came from. */
  unicode_source: 'ToUnicode' | 'Encoding' | 'none';
}

/** The name and descriptor facts of a font dictionary, without its widths (its style's evidence). */
export function fontNameFacts(font: mupdf.PDFObject): FontDictFacts {
  const subtype = name(get(font, 'Subtype')) ?? '';
  const descendant = subtype === 'Type0' ? firstOf(get(font, 'DescendantFonts')) : null;
  const descriptor = get(descendant ?? font, 'FontDescriptor');
  // A Type 3 font has no BaseFont; its descriptor's FontName (PDF 1.5, as Skia writes the outlines
  // of NimbusSans-Bold) says which face drew its procedures, where /Name is only a resource name.
  const type3Name = subtype === 'Type3' ? name(get(descriptor, 'FontName')) : undefined;
  const baseFont = name(get(font, 'BaseFont')) ?? type3Name ?? name(get(font, 'Name')) ?? '';
  return {
    baseFont,
    subtype,
    flags: num(get(descriptor, 'Flags')),
    italicAngle: num(get(descriptor, 'ItalicAngle')),
    stemV: num(get(descriptor, 'StemV')),
    fontWeight: num(get(descriptor, 'FontWeight')),
    widths: new Map(),
    unicode_source: 'none',
  };
}

/** Facts of a font dictionary (a page's /Resources /Font entry). */
export function fontFactsFromPdf(font: mupdf.PDFObject): FontDictFacts {
  const facts = fontNameFacts(font);
  const { subtype } = facts;
  const descendant = subtype === 'Type0' ? firstOf(get(font, 'DescendantFonts')) : null;
  if (subtype === 'Type3') {
    const scale = type3Scale(font);
    if (scale === null) return facts;
    const widths = simpleWidths(font);
    for (const [code, ch] of type3Letters(font)) {
      const w = widths.get(code);
      if (w !== undefined && w > 0 && !facts.widths.has(ch)) facts.widths.set(ch, w * scale * 1000);
    }
    if (facts.widths.size > 0) facts.unicode_source = 'Encoding';
    return facts;
  }

  const codeWidths = subtype === 'Type0' ? cidWidths(font, descendant) : simpleWidths(font);
  if (subtype === 'TrueType') dropUnmappedCodes(font, facts.flags, codeWidths);
  if (codeWidths.size === 0) return facts;
  const toUnicode = readToUnicode(get(font, 'ToUnicode'));
  // A simple font's codes the ToUnicode leaves out read through its encoding, as viewers read
  // them (XeTeX's Type 1 subsets map only their ligatures in ToUnicode).
  const encoding =
    subtype !== 'Type0' ? simpleEncoding(font, subtype, facts.flags) : new Map<number, string>();
  // A name-keyed CFF under Identity names the glyph each code draws: that name, not a ToUnicode
  // which may be wrong (mutool convert's is, above ASCII), says whose width the code carries.
  const named = subtype === 'Type0' ? nameKeyedCidLetters(descendant) : new Map<number, string>();
  if (toUnicode.size === 0 && encoding.size === 0 && named.size === 0) return facts;
  facts.unicode_source = toUnicode.size > 0 ? 'ToUnicode' : 'Encoding';
  const unicodeOf = (code: number) => named.get(code) ?? toUnicode.get(code) ?? encoding.get(code);
  for (const [code, width] of codeWidths) {
    if (!(width > 0)) continue; // 0: a code the (subset) font does not use
    const text = unicodeOf(code);
    if (!text || [...text].length !== 1 || text.codePointAt(0)! < 0x20) continue;
    if (!facts.widths.has(text)) facts.widths.set(text, width);
  }
  return facts;
}

/**
 * A Type 3 font's FontMatrix scale when it is uniform (no skew, the same across and up, or down:
 * Skia writes its procedures with y pointing down, `0.001 0 0 -0.001 0 0`), else null.
 */
export function type3Scale(font: mupdf.PDFObject): number | null {
  const fm = get(font, 'FontMatrix');
  if (!fm || !fm.isArray() || fm.length !== 6) return null;
  const [a, b, c, d] = [0, 1, 2, 3].map((i) => num(fm.get(i)));
  if (a === undefined || !(a > 0) || b !== 0 || c !== 0 || d === undefined) return null;
  return Math.abs(Math.abs(d) - a) <= a * 1e-6 ? a : null;
}

/** The Type 3 font's glyph space has y pointing down (its FontMatrix turns it over). */
export function type3Flipped(font: mupdf.PDFObject): boolean {
  const d = num(get(font, 'FontMatrix')?.get(3) ?? null);
  return d !== undefined && d < 0;
}

/**
 * The codes of a Type 3 font that draw an ASCII letter or digit, as viewers read them: through
 * ToUnicode, else the glyph names of Differences. pdfTeX names METAFONT bitmaps `/a97` after their
 * code, which MuPDF and poppler read as that code's character; only letters and digits are taken
 * that way, where every TeX text encoding (OT1, T1, LY1) puts them at their ASCII codes.
 */
export function type3Letters(font: mupdf.PDFObject): Map<number, string> {
  const out = new Map<number, string>();
  const toUnicode = readToUnicode(get(font, 'ToUnicode'));
  const names = new Map<number, string>();
  const diffs = get(get(font, 'Encoding'), 'Differences');
  if (diffs && diffs.isArray()) {
    let code = 0;
    for (let i = 0; i < diffs.length; i += 1) {
      const item = diffs.get(i);
      if (item.isNumber()) code = item.asNumber();
      else if (item.isName()) names.set(code++, item.asName());
    }
  }
  for (const code of new Set([...toUnicode.keys(), ...names.keys()])) {
    let ch = toUnicode.get(code);
    if (ch === undefined) {
      const glyph = names.get(code) ?? '';
      const numbered = /^a(\d{2,3})$/.exec(glyph);
      ch = numbered ? String.fromCharCode(Number(numbered[1])) : glyphNameToUnicode(glyph);
    }
    if (ch !== undefined && /^[A-Za-z0-9]$/.test(ch)) out.set(code, ch);
  }
  return out;
}

/** Code → letter of a CIDFontType0 whose CFF program is name-keyed (glyph id = CID = code). */
function nameKeyedCidLetters(descendant: mupdf.PDFObject | null): Map<number, string> {
  const out = new Map<number, string>();
  let names: (string | null)[] | null = null;
  try {
    names = descendant ? nameKeyedCffNames(descendant) : null;
  } catch {
    return out; // a program that cannot be read: the ToUnicode is all there is
  }
  names?.forEach((glyph, gid) => {
    const ch = plainGlyphNameUnicode(glyph);
    if (gid > 0 && ch) out.set(gid, ch);
  });
  return out;
}

function firstOf(arr: mupdf.PDFObject | null): mupdf.PDFObject | null {
  if (!arr || !arr.isArray() || arr.length === 0) return null;
  const first = arr.get(0);
  return first.isNull() ? null : first;
}

/**
 * A symbolic embedded TrueType font's codes its cmap leaves on .notdef carry no width of the face
 * (truetype-cmap.ts): they are left out. Only when no Encoding says otherwise (a symbolic font's
 * codes then go straight through that cmap).
 */
function dropUnmappedCodes(
  font: mupdf.PDFObject,
  flags: number | undefined,
  widths: Map<number, number>,
): void {
  if (flags === undefined || (flags & 4) === 0 || get(font, 'Encoding')) return;
  const file = get(get(font, 'FontDescriptor'), 'FontFile2');
  if (!file || !file.isStream()) return;
  let glyphs: Map<number, number> | null = null;
  try {
    glyphs = symbolicCodeGlyphs(file.readStream().asUint8Array());
  } catch {
    return; // a program that cannot be read: its widths stay as written
  }
  if (!glyphs || glyphs.size === 0) return;
  for (const code of [...widths.keys()]) if (!glyphs.has(code)) widths.delete(code);
}

function simpleWidths(font: mupdf.PDFObject): Map<number, number> {
  const out = new Map<number, number>();
  const first = num(get(font, 'FirstChar'));
  const widths = get(font, 'Widths');
  if (first === undefined || !widths || !widths.isArray()) return out;
  for (let i = 0; i < widths.length; i += 1) {
    const w = widths.get(i);
    if (w.isNumber()) out.set(first + i, w.asNumber());
  }
  return out;
}

function cidWidths(font: mupdf.PDFObject, descendant: mupdf.PDFObject | null): Map<number, number> {
  const out = new Map<number, number>();
  const encoding = name(get(font, 'Encoding'));
  if (!descendant || (encoding !== 'Identity-H' && encoding !== 'Identity-V')) return out;
  // Identity: code = CID. Only CIDs listed in W count (DW is a default, not a measurement).
  const w = get(descendant, 'W');
  if (!w || !w.isArray()) return out;
  for (let i = 0; i < w.length;) {
    const start = w.get(i);
    const next = w.get(i + 1);
    if (!start.isNumber()) break;
    if (next.isArray()) {
      for (let k = 0; k < next.length; k += 1) {
        const v = next.get(k);
        if (v.isNumber()) out.set(start.asNumber() + k, v.asNumber());
      }
      i += 2;
    } else {
      const last = next;
      const v = w.get(i + 2);
      if (!last.isNumber() || !v.isNumber()) break;
      for (let c = start.asNumber(); c <= last.asNumber() && c - start.asNumber() < 65536; c += 1)
        out.set(c, v.asNumber());
      i += 3;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// ToUnicode

/**
 * The ToUnicode CMap's text by code: read by the engine's own CMap reader (the content tokenizer's
 * syntax, so a hex string may hold white space, as the specification allows and fontkit writes:
 * `<0066 0069>` for an fi ligature; a pattern match that took it for two strings put every
 * later character one code off, and each font then matched no face by its widths).
 */
export function readToUnicode(stream: mupdf.PDFObject | null): Map<number, string> {
  if (!stream || !stream.isStream()) return new Map();
  return readCMap(stream.readStream().asUint8Array()).unicode;
}

// ---------------------------------------------------------------------------------------------
// Simple encodings and glyph names

const winAnsi = new TextDecoder('windows-1252');
const macRoman = new TextDecoder('macintosh');

function baseEncodingTable(base: string | undefined): Map<number, string> {
  const out = new Map<number, string>();
  if (base === 'WinAnsiEncoding' || base === 'MacRomanEncoding') {
    const decoder = base === 'WinAnsiEncoding' ? winAnsi : macRoman;
    for (let code = 32; code < 256; code += 1) {
      if (code === 127) continue;
      const ch = decoder.decode(new Uint8Array([code]));
      if (ch !== '\ufffd') out.set(code, ch);
    }
  } else if (base === 'StandardEncoding') {
    for (let code = 32; code < 127; code += 1) out.set(code, String.fromCharCode(code));
    out.set(0x27, '\u2019');
    out.set(0x60, '\u2018');
  }
  return out;
}

function simpleEncoding(
  font: mupdf.PDFObject,
  subtype: string,
  flags: number | undefined,
): Map<number, string> {
  const encoding = get(font, 'Encoding');
  const symbolic = flags !== undefined && (flags & 4) !== 0 && (flags & 32) === 0;
  // Without an explicit base, a non-symbolic font is read as StandardEncoding (its usual built-in
  // encoding); a symbolic one has only what Differences say. A TrueType font with no Encoding at
  // all uses its own cmap, which this reader does not open.
  const implicit = symbolic ? undefined : 'StandardEncoding';
  if (!encoding) return subtype === 'TrueType' ? new Map() : baseEncodingTable(implicit);
  if (encoding.isName()) return baseEncodingTable(encoding.asName());
  const table = baseEncodingTable(name(get(encoding, 'BaseEncoding')) ?? implicit);
  const diffs = get(encoding, 'Differences');
  if (diffs && diffs.isArray()) {
    let code = 0;
    for (let i = 0; i < diffs.length; i += 1) {
      const item = diffs.get(i);
      if (item.isNumber()) {
        code = item.asNumber();
      } else if (item.isName()) {
        const ch = glyphNameToUnicode(item.asName());
        if (ch) table.set(code, ch);
        else table.delete(code);
        code += 1;
      }
    }
  }
  return table;
}

const ACCENTS: Record<string, string> = {
  acute: '\u0301',
  grave: '\u0300',
  dieresis: '\u0308',
  circumflex: '\u0302',
  tilde: '\u0303',
  ring: '\u030a',
  cedilla: '\u0327',
  caron: '\u030c',
  macron: '\u0304',
  breve: '\u0306',
  ogonek: '\u0328',
  dotaccent: '\u0307',
  hungarumlaut: '\u030b',
};

const GLYPH_NAMES: Record<string, string> = {
  space: ' ',
  exclam: '!',
  quotedbl: '"',
  numbersign: '#',
  dollar: '$',
  percent: '%',
  ampersand: '&',
  quotesingle: "'",
  quoteright: '\u2019',
  quoteleft: '\u2018',
  parenleft: '(',
  parenright: ')',
  asterisk: '*',
  plus: '+',
  comma: ',',
  hyphen: '-',
  period: '.',
  slash: '/',
  colon: ':',
  semicolon: ';',
  less: '<',
  equal: '=',
  greater: '>',
  question: '?',
  at: '@',
  bracketleft: '[',
  backslash: '\\',
  bracketright: ']',
  asciicircum: '^',
  underscore: '_',
  grave: '`',
  braceleft: '{',
  bar: '|',
  braceright: '}',
  asciitilde: '~',
  zero: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
  endash: '\u2013',
  emdash: '\u2014',
  quotedblleft: '\u201c',
  quotedblright: '\u201d',
  quotesinglbase: '\u201a',
  quotedblbase: '\u201e',
  bullet: '\u2022',
  ellipsis: '\u2026',
  dagger: '\u2020',
  daggerdbl: '\u2021',
  perthousand: '\u2030',
  guilsinglleft: '\u2039',
  guilsinglright: '\u203a',
  guillemotleft: '\u00ab',
  guillemotright: '\u00bb',
  fi: '\ufb01',
  fl: '\ufb02',
  ff: '\ufb00',
  ffi: '\ufb03',
  ffl: '\ufb04',
  germandbls: '\u00df',
  ae: '\u00e6',
  AE: '\u00c6',
  oe: '\u0153',
  OE: '\u0152',
  oslash: '\u00f8',
  Oslash: '\u00d8',
  dotlessi: '\u0131',
  lslash: '\u0142',
  Lslash: '\u0141',
  eth: '\u00f0',
  Eth: '\u00d0',
  thorn: '\u00fe',
  Thorn: '\u00de',
  section: '\u00a7',
  paragraph: '\u00b6',
  copyright: '\u00a9',
  registered: '\u00ae',
  trademark: '\u2122',
  degree: '\u00b0',
  minus: '\u2212',
  multiply: '\u00d7',
  divide: '\u00f7',
  periodcentered: '\u00b7',
  Euro: '\u20ac',
  sterling: '\u00a3',
  yen: '\u00a5',
  cent: '\u00a2',
  currency: '\u00a4',
  exclamdown: '\u00a1',
  questiondown: '\u00bf',
  ordfeminine: '\u00aa',
  ordmasculine: '\u00ba',
  mu: '\u00b5',
  plusminus: '\u00b1',
  nbspace: '\u00a0',
  onehalf: '\u00bd',
  onequarter: '\u00bc',
  threequarters: '\u00be',
};

/** Unicode of a glyph name (Adobe Glyph List subset), or undefined. */
export function glyphNameToUnicode(glyph: string): string | undefined {
  const base = glyph.split('.')[0];
  if (/^[A-Za-z]$/.test(base)) return base;
  if (base in GLYPH_NAMES) return GLYPH_NAMES[base];
  let m = /^uni([0-9A-Fa-f]{4})$/.exec(base);
  if (m) return String.fromCharCode(parseInt(m[1], 16));
  m = /^u([0-9A-Fa-f]{4,6})$/.exec(base);
  if (m) {
    const cp = parseInt(m[1], 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : undefined;
  }
  m =
    /^([A-Za-z])(acute|grave|dieresis|circumflex|tilde|ring|cedilla|caron|macron|breve|ogonek|dotaccent|hungarumlaut)$/.exec(
      base,
    );
  if (m) {
    const composed = (m[1] + ACCENTS[m[2]]).normalize('NFC');
    return [...composed].length === 1 ? composed : undefined;
  }
  return undefined;
}
