// A bundled face standing in for a Type 3 font: the METAFONT bitmaps pdfTeX and dvipdfm embed as
// Type 3 (cmr10 drawn from a 600 dpi pk file) have no name, flags or program to say what they are.
// Two witnesses must then agree before a face draws a letter the font lacks: its widths (matched as
// any font's, over WIDTH_EVIDENCE_CHARS letters at least) and its ink. The font's own glyph
// procedures and the face's glyphs are drawn side by side, one em 80 px high, and must cover the
// same pixels (inkAgreement): cmsl10 has cmr10's widths, and an upright letter in slanted text is
// not a correction nobody sees.
//
// The new letters are then added to a copy of the Type 3 font itself (extendType3), as tier 2 adds
// codes to a font whose program has the glyph: each new code's procedure draws the face's glyph one
// em high, and the codes change in place in the string. No font switch splits the operator (PDFium
// places a split line's bitmap glyphs a pixel over where dvipdfm put them on exact half pixels),
// and every renderer reads the new widths as it reads the old font's (MuPDF truncates a Type 3
// width to whole thousandths of an em, poppler keeps every digit): a new letter given the width of
// the glyph it replaces advances as that one did in each of them, and one of its own width is
// written to be truncated by the same fraction (readAlike).
import { createHash } from 'node:crypto';
import { mupdf } from '../../pdf/mupdf-adapter.ts';
import type { Face } from '../../fonts/machine-fonts.ts';
import { faceAdvance, loadFace } from '../../fonts/font-match.ts';
import { type3Flipped, type3Letters, type3Scale } from '../../fonts/pdf-font-facts.ts';
import { streamBytes } from '../locate/pdf-bytes.ts';
import { unicodeToGlyphName } from '../locate/encodings.ts';
import { extendToUnicodeOf } from './tier2.ts';
import { codeWidth, writtenWidth, type FontInfo } from '../locate/fonts.ts';
import type { Glyph, Interpretation } from '../locate/text-interpreter.ts';
import { copyDict, type ChangedObject } from '../rewrite/write.ts';

/** Share of ink the font's glyphs and the face's must have in common (intersection over union). */
export const INK_AGREEMENT = 0.7;

/** Pixels per em of the side-by-side drawing (a 600 dpi pk glyph of 10 pt is 83 px per em). */
const EM_PX = 80;

const INK_CACHE_SIZE = 512;
const inkCache = new Map<string, number | null>();

/**
 * How much ink the Type 3 font's glyphs and the face's have in common, over the letters both draw:
 * each letter drawn by each at the same origin, at EM_PX per em, the dark pixels of the two
 * drawings intersected over their union (0.80 for cmr10's pk bitmaps and LM Roman 10; 0.29 for
 * LM Roman Slanted, 0.53 for Liberation Serif). Null when they share no letter.
 */
export function inkAgreement(font: FontInfo, face: Face): number | null {
  try {
    return measureInk(font, face);
  } catch {
    // Procedures MuPDF cannot read or draw are no evidence: the face does not stand in.
    return null;
  }
}

function measureInk(font: FontInfo, face: Face): number | null {
  const scale = type3Scale(font.dict);
  if (font.kind !== 'Type3' || scale === null) return null;
  const program = loadFace(face);
  const letters = [...type3Letters(font.dict)].filter(
    ([code, ch]) => (font.widths.get(code) ?? 0) > 0 && program.encodeCharacter(ch.codePointAt(0) ?? 0) > 0,
  );
  if (letters.length === 0) return null;
  // The drawing is known by what makes it: the procedures and the resources they draw with.
  const key = createHash('sha256').update(face.id).update(String(scale));
  for (const [code] of letters) {
    const proc = charProc(font, font.differences.get(code));
    key.update(`${code}:`).update(proc ? streamBytes(proc) : new Uint8Array());
  }
  digest(font.dict.get('Resources'), key, 0);
  const id = key.digest('hex');
  if (inkCache.has(id)) return inkCache.get(id) ?? null;

  const doc = new mupdf.PDFDocument();
  try {
    const fonts = doc.newDictionary();
    fonts.put('T', doc.graftObject(font.dict));
    fonts.put('F', doc.addFont(program));
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    const width = EM_PX * (2 * letters.length + 1);
    const draw = (name: string, codes: string[]) =>
      `BT /${name} ${EM_PX} Tf ${codes.map((c, i) => `1 0 0 1 ${EM_PX * (2 * i + 0.5)} ${EM_PX / 2} Tm <${c}> Tj`).join(' ')} ET`;
    const dark = (content: string) => {
      doc.insertPage(-1, doc.addPage([0, 0, width, EM_PX * 2], 0, resources, content));
      const page = doc.loadPage(doc.countPages() - 1);
      const pixels = page.toPixmap(mupdf.Matrix.identity, mupdf.ColorSpace.DeviceGray, false).getPixels();
      return pixels.map((v) => (v < 128 ? 1 : 0));
    };
    const own = dark(
      draw(
        'T',
        letters.map(([code]) => code.toString(16).padStart(2, '0')),
      ),
    );
    const faces = dark(
      draw(
        'F',
        letters.map(([, ch]) =>
          program
            .encodeCharacter(ch.codePointAt(0) ?? 0)
            .toString(16)
            .padStart(4, '0'),
        ),
      ),
    );
    let both = 0;
    let either = 0;
    for (let i = 0; i < own.length; i += 1) {
      both += own[i] & faces[i];
      either += own[i] | faces[i];
    }
    const agreement = either === 0 ? null : Math.round((both / either) * 1000) / 1000;
    // A daemon meets many fonts: the cache is emptied now and then rather than grown without end.
    if (inkCache.size >= INK_CACHE_SIZE) inkCache.clear();
    inkCache.set(id, agreement);
    return agreement;
  } finally {
    doc.destroy();
  }
}

/** Feeds `obj` (names, numbers, strings, stream data; references followed 6 deep) to `hash`. */
function digest(obj: mupdf.PDFObject, hash: ReturnType<typeof createHash>, depth: number): void {
  if (depth > 6) return;
  if (obj.isStream()) hash.update(streamBytes(obj));
  if (obj.isDictionary())
    obj.forEach((value, key) => {
      hash.update(`/${key}`);
      digest(value, hash, depth + 1);
    });
  else if (obj.isArray()) for (let i = 0; i < obj.length; i += 1) digest(obj.get(i), hash, depth + 1);
  else hash.update(`${obj.toString()} `);
}

export interface Type3Extension {
  /** The copy of the font dictionary (indirect) the page draws with instead. */
  ref: mupdf.PDFObject;
  /** Font facts with the added codes. */
  font: FontInfo;
  /** Code of each new character. */
  codes: Map<string, number>;
  /** Each new glyph took the width of the old glyph it replaces. */
  keepsOldAdvances: boolean;
  changed: ChangedObject[];
}

/** How much wider (em) than the old glyph a new one may be and still take its width. */
const OLD_WIDTH_SLACK = 0.02;

const decimal = (n: number) => String(Math.round(n * 1e6) / 1e6);

function charProc(font: FontInfo, name: string | undefined): mupdf.PDFObject | null {
  const procs = font.dict.get('CharProcs');
  const proc = procs.isDictionary() && name ? procs.get(name) : null;
  return proc?.isStream() ? proc : null;
}

/**
 * A glyph-space width within a thousandth of an em of `natural` that every renderer reads as it
 * reads the old glyph's width `code`, apart from whole thousandths (which the TJ adjustment after
 * it, read alike by all, takes): MuPDF truncates a Type 3 width, scaled to thousandths in single
 * precision, to a whole number (fonts.ts, codeWidth), PDFium rounds the same single-precision value
 * (CPDF_Type3Font), poppler keeps every digit. `natural` itself where no width near it does.
 */
function readAlike(font: FontInfo, natural: number, code: number): number {
  const scale = font.widthScale;
  const gaps = (w: number) => {
    const one = { ...font, widths: new Map([[0, w]]) };
    const written = writtenWidth(one, 0);
    const single = Math.fround(Math.fround(Math.fround(scale) * Math.fround(w)) * 1000);
    return [written - codeWidth(one, 0) * 1000, written - Math.round(single)];
  };
  const want = gaps(font.widths.get(code) ?? 0);
  const n = Math.round(natural * scale * 1000 - want[0]);
  const w = Math.round(((n + want[0]) / scale / 1000) * 1e4) / 1e4;
  // Single precision decides near a whole or half thousandth (cmr's 40 units at 0.011 are 440
  // written and 439 in MuPDF): the nearest widths written with four decimals are tried too.
  for (const step of [0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5]) {
    const tried = Math.round((w + step * 1e-4) * 1e4) / 1e4;
    const got = gaps(tried);
    if (got.every((g, i) => Math.abs(g - want[i]) < 0.01)) return tried;
  }
  return natural;
}

/** Operators that draw a named resource: a procedure using one needs the Resources it runs with. */
const NAMED_RESOURCE = /\/[^\s/[\]<>(){}%]+\s+(?:Do|Tf|gs|sh|cs|CS|scn|SCN|BDC|DP)\b/;

/**
 * A copy of the Type 3 font with a code for each of `newChars` whose procedure draws the face's
 * glyph `gids[i]` (of `faceRef`) one em high at the glyph origin, or the reason it cannot be made.
 * Where the new text has as many characters as the glyphs it replaces, each new code takes the
 * width of the old glyph it replaces (unless the two differ by more than OLD_WIDTH_SLACK),
 * else its own width written to be read alike (readAlike); with another count of characters, its
 * own width.
 */
export function extendType3(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  face: Face,
  faceRef: mupdf.PDFObject,
  newChars: string[],
  gids: number[],
  replaced: readonly Glyph[],
  interp: Interpretation,
): Type3Extension | { refused: string } {
  const scale = type3Scale(font.dict);
  if (scale === null) return { refused: 'Its FontMatrix is not a uniform scale.' };
  const chars = [...new Set(newChars)];
  const gidOf = new Map(newChars.map((ch, i) => [ch, gids[i]]));
  const resources = font.dict.get('Resources');
  if (!resources.isDictionary() && drawsWithPageResources(font))
    return { refused: 'Its glyph procedures draw with the page’s resources.' };
  const free = freeCodes(font, interp, chars.length);
  if (free.length < chars.length) return { refused: 'It has no unused code left.' };
  const codes = new Map(chars.map((ch, i) => [ch, free[i]]));

  const natural = (ch: string) => Math.round(((faceAdvance(face, ch) ?? 0) / 1000 / scale) * 1e4) / 1e4;
  const old = oldWidthsKept(font, newChars, replaced, natural, scale);

  // Otherwise the face's width, moved by less than a thousandth of an em so that it is read as the
  // old glyph's is: MuPDF truncates a Type 3 width to whole thousandths, poppler keeps every digit,
  // and a new width that truncates by the same fraction leaves the rest of the line where each of
  // them had it (the TJ adjustment after it, read alike by all, takes the whole difference).
  const replacedBy = new Map(newChars.map((ch, i) => [ch, replaced[i]]));
  const widthOf = (ch: string) => {
    const kept = old?.get(ch);
    if (kept !== undefined) return kept;
    const was = replacedBy.get(ch);
    return was ? readAlike(font, natural(ch), was.code) : natural(ch);
  };
  const copy = { chars, codes, gidOf, widthOf, scale, faceRef };
  const { ref, changed, widths, differences, first, last } = writeType3Copy(doc, font, copy);
  return {
    ref,
    font: extendedInfo(font, { ref, widths, differences, first, last, codes }),
    codes,
    keepsOldAdvances: old !== null,
    changed,
  };
}

/** Glyph procedures that name a resource, where the font has none of its own: the page's are meant. */
function drawsWithPageResources(font: FontInfo): boolean {
  // Its procedures run with the page's resources; the copy's own would hide them.
  for (const name of font.differences.values()) {
    const proc = charProc(font, name);
    if (proc && NAMED_RESOURCE.test(Buffer.from(streamBytes(proc)).toString('latin1'))) return true;
  }
  return false;
}

/**
 * Free codes: no procedure (no glyph name, or one CharProcs lacks: dvipdfm names all 256), not
 * drawn with this font on the page. A later Differences entry for a code overrides an earlier one.
 */
function freeCodes(font: FontInfo, interp: Interpretation, wanted: number): number[] {
  const used = new Set(interp.glyphs.filter((g) => g.font.objNum === font.objNum).map((g) => g.code));
  const free: number[] = [];
  for (let c = 1; c < 256 && free.length < wanted; c += 1)
    if (!charProc(font, font.differences.get(c)) && !used.has(c) && c !== 32) free.push(c);
  return free;
}

/**
 * Widths where each new character takes one old glyph's: one as wide within OLD_WIDTH_SLACK (a
 * "ü" where a "u" stood). A wider letter given the old advance would overlap the next ("æ" where
 * "c" stood), a narrower one leave a hole in the word ("j" where "e" stood): each takes its own
 * width, and the fit rule judges it (a narrower one's gap, left before the next letter, is
 * refused and the rest of the word redrawn after it, so the gap joins the space after the word).
 */
function oldWidthsKept(
  font: FontInfo,
  newChars: string[],
  replaced: readonly Glyph[],
  natural: (ch: string) => number,
  scale: number,
): Map<string, number> | null {
  let old: Map<string, number> | null = null;
  if (replaced.length === newChars.length && replaced.every((g) => g.font.objNum === font.objNum)) {
    old = new Map();
    for (let i = 0; i < newChars.length && old; i += 1) {
      const w = font.widths.get(replaced[i].code);
      const had = old.get(newChars[i]);
      if (
        w === undefined ||
        !(w > 0) ||
        Math.abs(natural(newChars[i]) - w) * scale > OLD_WIDTH_SLACK ||
        (had !== undefined && had !== w)
      )
        old = null;
      else old.set(newChars[i], w);
    }
  }

  return old;
}

/** The font copied with a procedure for each new character drawing the face's glyph, and its new codes. */
function writeType3Copy(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  copy: {
    chars: string[];
    codes: Map<string, number>;
    gidOf: Map<string, number>;
    widthOf: (ch: string) => number;
    scale: number;
    faceRef: mupdf.PDFObject;
  },
) {
  const { chars, codes, gidOf, widthOf, scale, faceRef } = copy;
  const resources = font.dict.get('Resources');
  const changed: ChangedObject[] = [];
  const dict = copyDict(doc, font.dict);
  const procs = copyDict(doc, font.dict.get('CharProcs'));
  const oldEnc = font.dict.get('Encoding');
  const enc = oldEnc.isDictionary() ? copyDict(doc, oldEnc) : doc.newDictionary();
  const diffs = doc.newArray();
  const oldDiffs = oldEnc.isDictionary() ? oldEnc.get('Differences') : null;
  if (oldDiffs?.isArray()) for (let i = 0; i < oldDiffs.length; i += 1) diffs.push(oldDiffs.get(i));
  const widths = new Map(font.widths);
  const differences = new Map(font.differences);
  for (const ch of chars) {
    const code = codes.get(ch) ?? 0;
    // Its AGL name says the character where the font has no ToUnicode (MuPDF and poppler read it).
    let name = unicodeToGlyphName(ch);
    if (!procs.get(name).isNull()) name = `${name}.docfix`;
    const gid = (gidOf.get(ch) ?? 0).toString(16).padStart(4, '0');
    // Text state the glyph would inherit from the line (Tz, Ts, Tc, Tw) is set back: the face's
    // glyph is drawn once, one em high, at the glyph origin (turned over where the glyph space is).
    const turn = type3Flipped(font.dict) ? '1 0 0 -1 0 0 Tm ' : '';
    const body = `${decimal(widthOf(ch))} 0 d0\nBT ${turn}/DocfixFace ${decimal(1 / scale)} Tf 100 Tz 0 Ts 0 Tc 0 Tw <${gid}> Tj ET\n`;
    const bytes = new TextEncoder().encode(body);
    const proc = doc.addStream(bytes, doc.newDictionary());
    changed.push({
      num: proc.asIndirect(),
      kind: 'font',
      replaces: 0,
      bytes_before: 0,
      bytes_after: bytes.length,
    });
    procs.put(name, proc);
    diffs.push(doc.newInteger(code));
    diffs.push(doc.newName(name));
    widths.set(code, widthOf(ch));
    differences.set(code, name);
  }
  enc.put('Type', doc.newName('Encoding'));
  enc.put('Differences', diffs);
  dict.put('Encoding', enc);
  dict.put('CharProcs', procs);
  // Widths over the (possibly widened) range: the old entries as they are, the new ones added.
  const first = Math.min(font.firstChar, ...codes.values());
  const last = Math.max(font.lastChar, ...codes.values());
  const oldWidths = font.dict.get('Widths');
  const arr = doc.newArray();
  for (let c = first; c <= last; c += 1) {
    const i = c - font.firstChar;
    const added = [...codes.values()].includes(c);
    if (!added && oldWidths.isArray() && i >= 0 && i < oldWidths.length) arr.push(oldWidths.get(i));
    else arr.push(doc.newReal(added ? (widths.get(c) ?? 0) : 0));
  }
  dict.put('FirstChar', doc.newInteger(first));
  dict.put('LastChar', doc.newInteger(last));
  dict.put('Widths', arr);
  const res = resources.isDictionary() ? copyDict(doc, resources) : doc.newDictionary();
  const fonts = res.get('Font').isDictionary() ? copyDict(doc, res.get('Font')) : doc.newDictionary();
  fonts.put('DocfixFace', faceRef);
  res.put('Font', fonts);
  dict.put('Resources', res);
  if (font.dict.get('ToUnicode').isStream()) changed.push(extendToUnicodeOf(doc, font, dict, codes, 1));
  const ref = doc.addObject(dict);
  changed.push({
    num: ref.asIndirect(),
    kind: 'type3 font',
    replaces: font.objNum,
    bytes_before: 0,
    bytes_after: 0,
  });
  return { ref, changed, widths, differences, first, last };
}

/** What the engine reads of the copy: its widths, names and the new codes' text. */
function extendedInfo(
  font: FontInfo,
  copy: {
    ref: mupdf.PDFObject;
    widths: Map<number, number>;
    differences: Map<number, string>;
    first: number;
    last: number;
    codes: Map<string, number>;
  },
): FontInfo {
  const { ref, widths, differences, first, last, codes } = copy;
  return {
    ...font,
    dict: ref,
    widths,
    differences,
    firstChar: first,
    lastChar: last,
    encodingUnicode: new Map([
      ...font.encodingUnicode,
      ...[...codes].map(([ch, c]) => [c, ch] as [number, string]),
    ]),
    ...(font.toUnicode
      ? {
          toUnicode: new Map([
            ...font.toUnicode,
            ...[...codes].map(([ch, c]) => [c, ch] as [number, string]),
          ]),
        }
      : {}),
  };
}
