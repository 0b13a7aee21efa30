// What the engine needs to know about a PDF font: how its strings split into codes, each code's
// advance width, each code's Unicode (ToUnicode, else the encoding), whether the font program is
// embedded, and whether that program really holds a glyph for a character.
import { mupdf } from '../../pdf/mupdf-adapter.ts';
import { parseContent, type Operand } from './content-stream.ts';
import { resolved, streamBytes } from './pdf-bytes.ts';
import {
  cffBuiltinEncoding,
  cffGlyphNames,
  cffGlyphNamesById,
  type1BuiltinEncoding,
  type1GlyphNames,
} from './glyph-names.ts';
import { baseEncodingUnicode, glyphNameToUnicode, type BaseEncoding } from './encodings.ts';
import { predefinedCMap, type CodespaceRange } from './cjk-cmaps.ts';
import { withoutSubsetTag } from '../../pdf/subset-tag.ts';

export type FontKind = 'Type1' | 'MMType1' | 'TrueType' | 'Type3' | 'Type0';

export interface FontInfo {
  /** Object number of the font dictionary (0 when direct). */
  objNum: number;
  baseFont: string;
  kind: FontKind;
  /** CIDFontType0 / CIDFontType2 for Type0 fonts. */
  descendantKind: string | null;
  composite: boolean;
  /** 0 horizontal, 1 vertical. */
  wmode: number;
  /** Name of the Type0 CMap or of the simple encoding ('' when none). */
  encodingName: string;
  /** Null when the codes of this font cannot be split (unsupported CMap). */
  codespace: CodespaceRange[] | null;
  /** Embedded font program: FontFile (Type1), FontFile2 (TrueType), FontFile3 (CFF/OpenType). */
  fontFile: { key: 'FontFile' | 'FontFile2' | 'FontFile3'; subtype: string } | null;
  embedded: boolean;
  standard14: boolean;
  /** Type3 font matrix (horizontal scale of widths), else 0.001. */
  widthScale: number;
  /** Type3: MuPDF holds the scaled widths as whole (truncated) thousandths of an em. */
  intWidths: boolean;
  /** Widths in glyph units (1/1000 em for non-Type3) by code. */
  widths: Map<number, number>;
  defaultWidth: number;
  /** Simple fonts: first and last code of /Widths. */
  firstChar: number;
  lastChar: number;
  toUnicode: Map<number, string> | null;
  /** Simple fonts: code → Unicode through the encoding (base + Differences). */
  encodingUnicode: Map<number, string>;
  /** Simple fonts: code → glyph name from /Differences. */
  differences: Map<number, string>;
  /** Base encoding named by the font (simple fonts). */
  baseEncoding: BaseEncoding | null;
  symbolic: boolean;
  /** Composite fonts: CIDToGIDMap is /Identity (or absent). */
  cidToGidIdentity: boolean;
  /** Font dictionary, for rewriting (the tier-2 path copies it). */
  dict: mupdf.PDFObject;
}

const STANDARD_14 = new Set([
  'Times-Roman',
  'Times-Bold',
  'Times-Italic',
  'Times-BoldItalic',
  'Helvetica',
  'Helvetica-Bold',
  'Helvetica-Oblique',
  'Helvetica-BoldOblique',
  'Courier',
  'Courier-Bold',
  'Courier-Oblique',
  'Courier-BoldOblique',
  'Symbol',
  'ZapfDingbats',
]);

const STANDARD_ALIASES: Record<string, string> = {
  Arial: 'Helvetica',
  'Arial,Bold': 'Helvetica-Bold',
  'Arial,Italic': 'Helvetica-Oblique',
  'Arial,BoldItalic': 'Helvetica-BoldOblique',
  ArialMT: 'Helvetica',
  'Arial-BoldMT': 'Helvetica-Bold',
  TimesNewRoman: 'Times-Roman',
  TimesNewRomanPSMT: 'Times-Roman',
  'TimesNewRoman,Bold': 'Times-Bold',
  CourierNew: 'Courier',
  CourierNewPSMT: 'Courier',
};

export function standardName(baseFont: string): string | null {
  const plain = withoutSubsetTag(baseFont);
  if (STANDARD_14.has(plain)) return plain;
  return STANDARD_ALIASES[plain] ?? null;
}

/** Splits a string into codes following the font's codespace; null when it cannot. */
export function splitCodes(
  font: FontInfo,
  bytes: Uint8Array,
): { code: number; offset: number; length: number }[] | null {
  const out: { code: number; offset: number; length: number }[] = [];
  if (!font.composite) {
    for (let i = 0; i < bytes.length; i += 1) out.push({ code: bytes[i], offset: i, length: 1 });
    return out;
  }
  if (!font.codespace) return null;
  let i = 0;
  while (i < bytes.length) {
    let matched = 0;
    let code = 0;
    for (let len = 1; len <= 4 && i + len <= bytes.length && !matched; len += 1) {
      code = 0;
      for (let k = 0; k < len; k += 1) code = code * 256 + bytes[i + k];
      for (const r of font.codespace) {
        if (r.bytes === len && code >= r.lo && code <= r.hi) {
          matched = len;
          break;
        }
      }
    }
    if (!matched) {
      // Not in any range: PDF says take the shortest range length.
      const len = Math.min(...font.codespace.map((r) => r.bytes), bytes.length - i);
      code = 0;
      for (let k = 0; k < len; k += 1) code = code * 256 + bytes[i + k];
      matched = len;
    }
    out.push({ code, offset: i, length: matched });
    i += matched;
  }
  return out;
}

/** Advance of one code in text space per unit of font size (before Tc/Tw/Tz). */
export function codeWidth(font: FontInfo, code: number): number {
  const w = font.widths.get(code);
  // MuPDF reads Widths, W, DW and MissingWidth as whole numbers, rounded half up (pdf_to_int):
  // a width written 514.5 (pdfTeX's cm-super typewriter) advances 515/1000 em. Glyphs are placed
  // as the renderer that verifies them places them, or a long monospaced line drifts from
  // MuPDF's by half a unit per glyph.
  if (font.widthScale === 0.001 && !font.intWidths) return Math.floor((w ?? font.defaultWidth) + 0.5) / 1000;
  if (w === undefined || !font.intWidths) return (w ?? font.defaultWidth) * font.widthScale;
  // MuPDF keeps Type3 widths, scaled to 1/1000 em, as whole thousandths (truncated), computed in
  // single precision (FontMatrix a × width × 1000 as floats: 0.011 × 59 gives 649, not the 648 of
  // doubles); positions are computed as the renderer that verifies them computes them.
  const f = Math.fround;
  return Math.trunc(f(f(f(font.widthScale) * f(w)) * 1000)) / 1000;
}

/** Width of a code as the font writes it, in thousandths of an em (poppler reads every digit). */
export function writtenWidth(font: FontInfo, code: number): number {
  return (font.widths.get(code) ?? font.defaultWidth) * font.widthScale * 1000;
}

/**
 * `w` moved by less than half a unit to end in fraction `f`: a width written with the fraction of the
 * width it replaces is read as that one is by every renderer (MuPDF rounds half up, PDFium
 * truncates, poppler keeps every digit), so the glyphs after it stay where each renderer had them.
 */
export function withFraction(w: number, f: number): number {
  return Math.round((Math.round(w - f) + f) * 1e4) / 1e4;
}

/**
 * Appends to a CID font's (empty) W array one `first [w w …]` group per run of consecutive codes
 * of `widths`, written as given (whole numbers as integers).
 */
export function fillCidWidths(doc: mupdf.PDFDocument, W: mupdf.PDFObject, widths: Map<number, number>): void {
  let group: mupdf.PDFObject | null = null;
  let last = -2;
  for (const [code, w] of [...widths].sort((a, b) => a[0] - b[0])) {
    if (!group || code !== last + 1) {
      W.push(doc.newInteger(code));
      group = doc.newArray();
      W.push(group);
    }
    group.push(Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
    last = code;
  }
}

/** The font's name for messages (a Type 3 font often has none). */
export function fontLabel(font: FontInfo): string {
  return font.baseFont || `(unnamed ${font.kind === 'Type3' ? 'Type 3' : font.kind})`;
}

/** Unicode of a code as far as the PDF says (ToUnicode first, then the encoding). */
export function codeUnicode(font: FontInfo, code: number): string | undefined {
  return font.toUnicode?.get(code) ?? font.encodingUnicode.get(code);
}

const numberOf = (o: mupdf.PDFObject, fallback = 0) => (o.isNumber() ? o.asNumber() : fallback);

export function loadFontInfo(dict: mupdf.PDFObject): FontInfo {
  const d = resolved(dict);
  const subtype = d.get('Subtype').isName() ? d.get('Subtype').asName() : 'Type1';
  const kind: FontKind = (['Type1', 'MMType1', 'TrueType', 'Type3', 'Type0'] as const).includes(
    subtype as FontKind,
  )
    ? (subtype as FontKind)
    : 'Type1';
  const baseFont = d.get('BaseFont').isName() ? d.get('BaseFont').asName() : '';
  const composite = kind === 'Type0';
  const info: FontInfo = {
    objNum: dict.isIndirect() ? dict.asIndirect() : 0,
    baseFont,
    kind,
    descendantKind: null,
    composite,
    wmode: 0,
    encodingName: '',
    codespace: composite ? null : [{ bytes: 1, lo: 0, hi: 255 }],
    fontFile: null,
    embedded: false,
    standard14: false,
    widthScale: 0.001,
    intWidths: false,
    widths: new Map(),
    defaultWidth: 0,
    firstChar: 0,
    lastChar: -1,
    toUnicode: null,
    encodingUnicode: new Map(),
    differences: new Map(),
    baseEncoding: null,
    symbolic: false,
    cidToGidIdentity: true,
    dict: d,
  };

  let descriptor = d.get('FontDescriptor');
  if (composite) {
    const desc = resolved(d.get('DescendantFonts').get(0));
    info.descendantKind = desc.get('Subtype').isName() ? desc.get('Subtype').asName() : null;
    descriptor = desc.get('FontDescriptor');
    info.defaultWidth = numberOf(desc.get('DW'), 1000);
    readCidWidths(desc.get('W'), info.widths);
    const c2g = desc.get('CIDToGIDMap');
    info.cidToGidIdentity = c2g.isNull() || (c2g.isName() && c2g.asName() === 'Identity');
    const enc = d.get('Encoding');
    if (enc.isName()) {
      info.encodingName = enc.asName();
      if (info.encodingName === 'Identity-H' || info.encodingName === 'Identity-V') {
        info.codespace = [{ bytes: 2, lo: 0, hi: 0xffff }];
        info.wmode = info.encodingName.endsWith('-V') ? 1 : 0;
      } else {
        info.wmode = info.encodingName.endsWith('-V') ? 1 : 0;
        // Predefined CMaps: Shift-JIS ones are read (cjk-cmaps.ts) where no /W needs their CIDs;
        // the others are not (their text is not mapped).
        const predefined = predefinedCMap(info.encodingName);
        const ordering = desc.get('CIDSystemInfo').get('Ordering');
        const japan1 = ordering.isString() && ordering.asString() === 'Japan1';
        if (predefined && japan1 && info.widths.size === 0) {
          info.codespace = predefined.codespace;
          info.encodingUnicode = predefined.unicode;
        } else info.codespace = null;
      }
    } else if (enc.isStream()) {
      info.encodingName = 'embedded';
      const cmap = readCMap(streamBytes(enc));
      info.codespace = cmap.codespace.length ? cmap.codespace : null;
      info.wmode = numberOf(enc.get('WMode'), 0);
      if (!cmap.identity) info.codespace = null; // non-identity code → CID maps are not followed
    }
  } else {
    info.firstChar = numberOf(d.get('FirstChar'), 0);
    const widths = d.get('Widths');
    if (widths.isArray()) {
      for (let i = 0; i < widths.length; i += 1)
        info.widths.set(info.firstChar + i, numberOf(resolved(widths.get(i))));
      info.lastChar = info.firstChar + widths.length - 1;
    }
    if (kind === 'Type3') {
      const fm = d.get('FontMatrix');
      info.widthScale = fm.isArray() ? numberOf(fm.get(0)) : 0.001;
      info.intWidths = true;
    }
  }

  const fd = resolved(descriptor);
  if (fd.isDictionary()) {
    if (!composite) info.defaultWidth = numberOf(fd.get('MissingWidth'), 0);
    info.symbolic = (numberOf(fd.get('Flags')) & 4) !== 0;
    for (const key of ['FontFile', 'FontFile2', 'FontFile3'] as const) {
      const ff = fd.get(key);
      if (ff.isStream()) {
        const st = ff.get('Subtype');
        info.fontFile = { key, subtype: st.isName() ? st.asName() : '' };
        info.embedded = true;
        break;
      }
    }
  }
  if (kind === 'Type3') info.embedded = true; // glyph procedures live in the font dictionary
  info.standard14 = !info.embedded && !composite && standardName(baseFont) !== null;

  if (!composite) {
    readSimpleEncoding(d, info);
    readBuiltinEncoding(info);
  }
  const tu = d.get('ToUnicode');
  if (tu.isStream()) {
    try {
      info.toUnicode = readCMap(streamBytes(tu)).unicode;
    } catch {
      info.toUnicode = null;
    }
  }
  if (info.standard14 && info.widths.size === 0) fillStandardWidths(info);
  return info;
}

/** Reads a CID font's W array (`first [w w …]` and `first last w` groups) into `out`, CID → width. */
export function readCidWidths(w: mupdf.PDFObject, out: Map<number, number>): void {
  if (!w.isArray()) return;
  let i = 0;
  while (i < w.length) {
    const first = numberOf(resolved(w.get(i)));
    const next = resolved(w.get(i + 1));
    if (next.isArray()) {
      for (let k = 0; k < next.length; k += 1) out.set(first + k, numberOf(resolved(next.get(k))));
      i += 2;
    } else {
      const last = numberOf(next);
      const width = numberOf(resolved(w.get(i + 2)));
      for (let c = first; c <= last && c - first < 65536; c += 1) out.set(c, width);
      i += 3;
    }
  }
}

function readSimpleEncoding(d: mupdf.PDFObject, info: FontInfo): void {
  const enc = resolved(d.get('Encoding'));
  let base: BaseEncoding | null = null;
  const named = (n: string): BaseEncoding | null =>
    n === 'WinAnsiEncoding' ||
    n === 'MacRomanEncoding' ||
    n === 'StandardEncoding' ||
    n === 'MacExpertEncoding'
      ? n
      : null;
  if (enc.isName()) base = named(enc.asName());
  else if (enc.isDictionary()) {
    const b = enc.get('BaseEncoding');
    if (b.isName()) base = named(b.asName());
    const diffs = enc.get('Differences');
    if (diffs.isArray()) {
      let code = 0;
      for (let i = 0; i < diffs.length; i += 1) {
        const item = resolved(diffs.get(i));
        if (item.isNumber()) code = item.asNumber();
        else if (item.isName()) {
          info.differences.set(code, item.asName());
          code += 1;
        }
      }
    }
  }
  // Without a named base, non-symbolic fonts use StandardEncoding (PDF 9.6.6.1), but an embedded
  // TrueType program is looked up by the code as a character of its Unicode cmap, which MuPDF and
  // poppler extract as that character: WinAnsiEncoding but for 0x80–0x9F (Text::PDF writes no
  // /Encoding: its 0xF1 is "ñ", StandardEncoding's "æ"). Symbolic and embedded Type1 fonts use their
  // built-in encoding, which only the program knows.
  const std = standardName(info.baseFont);
  if (!base && std !== 'Symbol' && std !== 'ZapfDingbats' && (!info.symbolic || info.standard14)) {
    if (info.kind === 'TrueType' && info.embedded) base = 'WinAnsiEncoding';
    else if (!(info.kind === 'Type1' && info.embedded)) base = 'StandardEncoding';
  }
  info.baseEncoding = base;
  info.encodingName = enc.isName() ? enc.asName() : enc.isDictionary() ? 'Differences' : '';
  if (base) {
    for (let code = 0; code < 256; code += 1) {
      const u = baseEncodingUnicode(base, code);
      if (u !== undefined) info.encodingUnicode.set(code, u);
    }
  }
  for (const [code, name] of info.differences) {
    const u = glyphNameToUnicode(name);
    if (u !== undefined) info.encodingUnicode.set(code, u);
    else info.encodingUnicode.delete(code);
  }
}

/**
 * An embedded Type1 or CFF font without a named base encoding draws each code by the encoding built
 * into its program (PDF 9.6.6.2); the codes /Differences does not name get their Unicode from it.
 * Without this, a code the ToUnicode leaves out (dvipdfmx's "ﬁ") reads as nothing, and a word with
 * the ligature is cut at it.
 */
function readBuiltinEncoding(info: FontInfo): void {
  if (info.baseEncoding || !info.fontFile || (info.kind !== 'Type1' && info.kind !== 'MMType1')) return;
  const { key, subtype } = info.fontFile;
  if (key !== 'FontFile' && subtype !== 'Type1C') return;
  let builtin: Map<number, string> | 'standard' | null = null;
  try {
    const bytes = streamBytes(resolved(info.dict.get('FontDescriptor')).get(key));
    builtin = key === 'FontFile' ? type1BuiltinEncoding(bytes) : cffBuiltinEncoding(bytes);
  } catch {
    return; // an unreadable program: the codes keep what the PDF says
  }
  if (!builtin) return;
  for (let code = 0; code < 256; code += 1) {
    if (info.differences.has(code)) continue;
    const u =
      builtin === 'standard'
        ? baseEncodingUnicode('StandardEncoding', code)
        : ((name) => (name === undefined ? undefined : glyphNameToUnicode(name)))(builtin.get(code));
    if (u !== undefined) info.encodingUnicode.set(code, u);
  }
}

const builtinFonts = new Map<string, mupdf.Font>();

/** MuPDF's built-in font for a standard-14 name (kept for the life of the process). */
export function builtinFont(name: string): mupdf.Font {
  let f = builtinFonts.get(name);
  if (!f) {
    f = new mupdf.Font(name);
    builtinFonts.set(name, f);
  }
  return f;
}

function fillStandardWidths(info: FontInfo): void {
  const std = standardName(info.baseFont);
  if (!std) return;
  const font = builtinFont(std);
  for (const [code, uni] of info.encodingUnicode) {
    const gid = font.encodeCharacter(uni.codePointAt(0) ?? 0);
    if (gid > 0) info.widths.set(code, font.advanceGlyph(gid) * 1000);
  }
  if (std === 'Symbol' || std === 'ZapfDingbats') {
    // Built-in encodings: MuPDF maps codes straight to the program; widths come from it.
    for (let code = 32; code < 256; code += 1) {
      const gid = font.encodeCharacter(code);
      if (gid > 0 && !info.widths.has(code)) info.widths.set(code, font.advanceGlyph(gid) * 1000);
    }
  }
}

export interface CMapData {
  codespace: CodespaceRange[];
  unicode: Map<number, string>;
  /** CID ranges/chars all map code → same number (an identity-like embedded CMap). */
  identity: boolean;
}

function hexNumber(op: Operand | undefined): { value: number; bytes: number } | null {
  if (!op || op.kind !== 'string') return null;
  let v = 0;
  for (const b of op.bytes) v = v * 256 + b;
  return { value: v, bytes: op.bytes.length };
}

function utf16(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) s += String.fromCharCode(bytes[i] * 256 + bytes[i + 1]);
  if (bytes.length % 2) s += String.fromCharCode(bytes[bytes.length - 1]);
  return s;
}

/** Reads codespace ranges, bfchar/bfrange (ToUnicode) and cidchar/cidrange (identity check). */
export function readCMap(bytes: Uint8Array): CMapData {
  const { ops } = parseContent(bytes);
  const out: CMapData = { codespace: [], unicode: new Map(), identity: true };
  for (const op of ops) {
    const a = op.operands;
    if (op.op === 'endcodespacerange') {
      for (let i = 0; i + 1 < a.length; i += 2) {
        const lo = hexNumber(a[i]);
        const hi = hexNumber(a[i + 1]);
        if (lo && hi) out.codespace.push({ bytes: lo.bytes, lo: lo.value, hi: hi.value });
      }
    } else if (op.op === 'endbfchar') {
      for (let i = 0; i + 1 < a.length; i += 2) {
        const src = hexNumber(a[i]);
        const dst = a[i + 1];
        if (!src) continue;
        if (dst.kind === 'string') out.unicode.set(src.value, utf16(dst.bytes));
        else if (dst.kind === 'name') {
          const u = glyphNameToUnicode(dst.value);
          if (u) out.unicode.set(src.value, u);
        }
      }
    } else if (op.op === 'endbfrange') {
      for (let i = 0; i + 2 < a.length; i += 3) {
        const lo = hexNumber(a[i]);
        const hi = hexNumber(a[i + 1]);
        const dst = a[i + 2];
        if (!lo || !hi || hi.value - lo.value > 65535) continue;
        if (dst.kind === 'string') {
          const base = dst.bytes;
          for (let c = lo.value; c <= hi.value; c += 1) {
            const b = Uint8Array.from(base);
            // Increment the last byte (with carry into the one before, as readers do).
            let add = c - lo.value;
            for (let k = b.length - 1; k >= 0 && add > 0; k -= 1) {
              const sum = b[k] + add;
              b[k] = sum & 0xff;
              add = sum >> 8;
            }
            out.unicode.set(c, utf16(b));
          }
        } else if (dst.kind === 'array') {
          dst.items.forEach((item, k) => {
            if (item.kind === 'string' && lo.value + k <= hi.value)
              out.unicode.set(lo.value + k, utf16(item.bytes));
          });
        }
      }
    } else if (op.op === 'endcidrange') {
      for (let i = 0; i + 2 < a.length; i += 3) {
        const lo = hexNumber(a[i]);
        const cid = a[i + 2];
        if (!lo || cid.kind !== 'number' || cid.value !== lo.value) out.identity = false;
      }
    } else if (op.op === 'endcidchar') {
      for (let i = 0; i + 1 < a.length; i += 2) {
        const src = hexNumber(a[i]);
        const cid = a[i + 1];
        if (!src || cid.kind !== 'number' || cid.value !== src.value) out.identity = false;
      }
    }
  }
  return out;
}

/**
 * The embedded font program loaded by MuPDF (null when not embedded or unreadable). The caller
 * destroys it.
 */
export function loadProgram(info: FontInfo): mupdf.Font | null {
  if (!info.fontFile || info.kind === 'Type3') return null;
  const fd = info.composite
    ? resolved(resolved(info.dict.get('DescendantFonts').get(0)).get('FontDescriptor'))
    : resolved(info.dict.get('FontDescriptor'));
  const stream = fd.get(info.fontFile.key);
  try {
    return new mupdf.Font(info.baseFont || 'embedded', streamBytes(stream));
  } catch {
    return null;
  }
}

const glyphNameCache = new WeakMap<FontInfo, Set<string> | null>();

/**
 * Glyph names in the embedded Type1 (FontFile) or bare CFF (FontFile3 /Type1C) program of a simple
 * font; null when the program has no names to read (TrueType, CID-keyed CFF, OpenType) or fails.
 */
export function programGlyphNames(info: FontInfo): Set<string> | null {
  if (glyphNameCache.has(info)) return glyphNameCache.get(info)!;
  let names: Set<string> | null = null;
  try {
    if (
      !info.composite &&
      info.fontFile &&
      (info.fontFile.key === 'FontFile' || info.fontFile.subtype === 'Type1C')
    ) {
      const stream = resolved(info.dict.get('FontDescriptor')).get(info.fontFile.key);
      const bytes = streamBytes(stream);
      names = info.fontFile.key === 'FontFile' ? type1GlyphNames(bytes) : cffGlyphNames(bytes);
    }
  } catch {
    names = null;
  }
  glyphNameCache.set(info, names);
  return names;
}

const cidGlyphNameCache = new WeakMap<FontInfo, (string | null)[] | null>();

/**
 * A CIDFontType0 under Identity-H/V whose embedded CFF program is name-keyed: the code is the CID,
 * the CID is the glyph id (a CFF without ROS has no CIDs of its own), and the program names each
 * glyph. Answers the glyph names by code, the proof of what each code draws; null for any other font.
 */
export function nameKeyedCidGlyphs(info: FontInfo): (string | null)[] | null {
  if (cidGlyphNameCache.has(info)) return cidGlyphNameCache.get(info)!;
  let names: (string | null)[] | null = null;
  try {
    if (info.composite && (info.encodingName === 'Identity-H' || info.encodingName === 'Identity-V'))
      names = nameKeyedCffNames(resolved(info.dict.get('DescendantFonts').get(0)));
  } catch {
    names = null;
  }
  cidGlyphNameCache.set(info, names);
  return names;
}

/**
 * Glyph names by glyph id of a CIDFontType0 descendant's embedded CFF program (FontFile3, not
 * OpenType) when it is name-keyed; null for any other descendant. Throws on an unreadable stream.
 */
export function nameKeyedCffNames(descendant: mupdf.PDFObject): (string | null)[] | null {
  const subtype = descendant.get('Subtype');
  if (!subtype.isName() || subtype.asName() !== 'CIDFontType0') return null;
  const file = resolved(descendant.get('FontDescriptor')).get('FontFile3');
  if (!file.isStream()) return null;
  const kind = file.get('Subtype');
  if (kind.isName() && kind.asName() === 'OpenType') return null;
  return cffGlyphNamesById(streamBytes(file));
}

/**
 * Whether a program's glyph name is the plain name of `ch`: its AGL name, uniXXXX or uXXXX. A name
 * with a suffix (a.sc, a.alt) draws a variant of the letter, not the letter itself.
 */
export function glyphNameIs(name: string | null | undefined, ch: string): boolean {
  return plainGlyphNameUnicode(name) === ch;
}

/** The character a plain glyph name (no variant suffix, no ligature) stands for, if any. */
export function plainGlyphNameUnicode(name: string | null | undefined): string | undefined {
  if (!name || name.includes('.') || name.includes('_')) return undefined;
  const text = glyphNameToUnicode(name);
  return text !== undefined && [...text].length === 1 ? text : undefined;
}
