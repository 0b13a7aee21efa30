// Tier 2, encoding extension: the font program has the glyph but the PDF font has no code for it.
// A copy of the font dictionary, used by this page only, adds one:
// - simple fonts: an unused code gets a /Differences entry naming the glyph, its /Widths entry and a
//   ToUnicode entry. The glyph must exist: for embedded programs MuPDF's font must map the character
//   (TrueType through its Unicode cmap, Type1/CFF through glyph names); for non-embedded standard
//   fonts every conforming viewer's font has the Latin set, and the width is the standard metric.
// - CID fonts with Identity-H and an identity CIDToGIDMap (CIDFontType2), or a name-keyed CFF program
//   (CIDFontType0, the glyph found by its name): the glyph id is the code; a /W entry and a ToUnicode
//   entry are added.
// Anything else is refused with evidence. The caller verifies by rendering, including that each new
// glyph actually leaves ink.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { TIER_NAMES } from '../refusals.ts';
import type { Tier } from './tier.ts';
import {
  builtinFont,
  codeUnicode,
  glyphNameIs,
  nameKeyedCidGlyphs,
  programGlyphNames,
  standardName,
  withFraction,
  type FontInfo,
} from '../locate/fonts.ts';
import { fractionsByChar } from '../rewrite/rewrite.ts';
import { baseEncodingUnicode, unicodeToGlyphName } from '../locate/encodings.ts';
import { streamBytes } from '../locate/pdf-bytes.ts';
import type { Interpretation } from '../locate/text-interpreter.ts';
import { copyDict, type ChangedObject } from '../rewrite/write.ts';
import { drawsLetter } from '../../fonts/font-subset.ts';

export interface Extension {
  /** The new font dictionary (indirect) to draw with. */
  ref: mupdf.PDFObject;
  /** Font facts with the added codes (widths), for measuring. */
  font: FontInfo;
  codes: Map<string, number>;
  changed: ChangedObject[];
  /** How the glyph's existence was established. */
  proof: string;
}

export interface ExtensionRefusal {
  refused: string;
  code: string;
  evidence: Record<string, unknown>;
}

const hex = (n: number, bytes: number) =>
  n
    .toString(16)
    .toUpperCase()
    .padStart(bytes * 2, '0');

function utf16Hex(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i += 1) out += hex(s.charCodeAt(i), 2);
  return out;
}

/** A ToUnicode CMap with `entries` added (before `endcmap`), or a fresh one when there was none. */
function extendedToUnicode(
  old: Uint8Array | null,
  entries: [number, string][],
  codeBytes: number,
): Uint8Array {
  const block = `${entries.length} beginbfchar\n${entries.map(([c, u]) => `<${hex(c, codeBytes)}> <${utf16Hex(u)}>`).join('\n')}\nendbfchar\n`;
  if (old) {
    const text = Buffer.from(old).toString('latin1');
    const at = text.lastIndexOf('endcmap');
    if (at >= 0) return new Uint8Array(Buffer.from(text.slice(0, at) + block + text.slice(at), 'latin1'));
  }
  const range = codeBytes === 1 ? '<00> <FF>' : '<0000> <FFFF>';
  return new Uint8Array(
    Buffer.from(
      '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n' +
        `/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n${range}\nendcodespacerange\n${block}endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n`,
      'latin1',
    ),
  );
}

/**
 * Writes the font's ToUnicode (or a new one) extended with the new codes as a new stream and points
 * `target` (the font's copy) at it: copy-on-write, the original stream stays for other users.
 */
export function extendToUnicodeOf(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  target: mupdf.PDFObject,
  codes: Map<string, number>,
  codeBytes: 1 | 2,
): ChangedObject {
  const tu = font.dict.get('ToUnicode');
  const old = tu.isStream() ? streamBytes(tu) : null;
  const bytes = extendedToUnicode(
    old,
    [...codes].map(([ch, code]) => [code, ch]),
    codeBytes,
  );
  const ref = doc.addStream(bytes, doc.newDictionary());
  target.put('ToUnicode', ref);
  return {
    num: ref.asIndirect(),
    kind: 'cmap',
    replaces: tu.isStream() ? tu.asIndirect() : 0,
    bytes_before: old?.length ?? 0,
    bytes_after: bytes.length,
  };
}

const refusal = (
  refused: string,
  code: string,
  evidence: Record<string, unknown> = {},
): ExtensionRefusal => ({
  refused,
  code,
  evidence,
});

export const encodingExtensionTier: Tier = {
  tier: 2,
  name: TIER_NAMES[2],
  needs:
    "the missing characters' glyphs in the page font's program (or a standard font's set), and free codes",
  attempt(ctx) {
    const { font, reused, newChars } = ctx;
    const missing = reused.missing;
    // Each added code's width ends in the fraction of the width it replaces (fonts.ts, withFraction).
    const fractions = fractionsByChar(ctx.glyphs, newChars);
    const ext = extendEncoding(ctx.doc, font, [...new Set(missing)], ctx.program, ctx.interp, fractions);
    if ('refused' in ext) return { refused: { code: ext.code, reason: ext.refused, evidence: ext.evidence } };
    // Tier 1's codes stay; the added codes fill the characters it had none for.
    const codes = reused.codes.map((c, i) => (c.code < 0 ? { ...c, code: ext.codes.get(newChars[i])! } : c));
    const sources = reused.sources.map((s, i) => (reused.codes[i].code < 0 ? 'encoding_extension' : s));
    return {
      codes,
      sources,
      widthFont: ext.font,
      draw: { use: 'replacement', ref: ext.ref },
      keepsOldAdvances: false,
      changed: ext.changed,
      measurements: { extension: { codes: Object.fromEntries(ext.codes), proof: ext.proof } },
      warnings: [],
      fontAlternatives: 0,
      explain: (p) =>
        `Tier 2 (encoding extension): the embedded program of ${font.baseFont} has ${missing.map((c) => `“${c}”`).join(', ')} but the PDF font had no code for it; a copy of the font dictionary for this page adds code(s) ${[...ext.codes.values()].join(', ')} with width and ToUnicode entry (${ext.proof}). Fit rule: ${p.rule}.`,
    };
  },
};

export function extendEncoding(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  missing: string[],
  getProgram: () => mupdf.Font | null,
  interp: Interpretation,
  fractions: Map<string, number> = new Map(),
): Extension | ExtensionRefusal {
  if (missing.some((ch) => [...ch].length !== 1))
    return refusal('Only single characters can be added.', 'not_available');
  if (font.kind === 'Type3') {
    return refusal(
      'Type3 fonts draw only the glyph procedures they carry; there is none for these characters.',
      'glyph_not_in_program',
      {
        font: font.baseFont,
      },
    );
  }
  return font.composite
    ? extendCid(doc, font, missing, getProgram, fractions)
    : extendSimple(doc, font, missing, getProgram, interp, fractions);
}

/** A glyph's width, moved to the fraction of the width it replaces when there is one. */
const fitted = (w: number, fraction: number | undefined) =>
  fraction === undefined ? w : withFraction(w, fraction);

function extendSimple(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  missing: string[],
  getProgram: () => mupdf.Font | null,
  interp: Interpretation,
  fractions: Map<string, number>,
): Extension | ExtensionRefusal {
  const glyphs = font.embedded
    ? embeddedGlyphs(font, missing, getProgram, fractions)
    : standardGlyphs(font, missing, fractions);
  if ('refused' in glyphs) return glyphs;
  const free = freeCodes(font, interp, missing.length);
  if ('refused' in free) return free;
  const codes = new Map<string, number>();
  missing.forEach((ch, i) => codes.set(ch, free[i]));

  // The copied font dictionary.
  const dict = copyDict(doc, font.dict);
  dict.put('Encoding', extendedDifferences(doc, font, codes, glyphs.glyphName));
  const widened = extendedWidths(doc, font, codes, glyphs.widths, dict);

  const changed: ChangedObject[] = [];
  // Without a ToUnicode, extraction reads the new codes through their Differences glyph names.
  if (font.dict.get('ToUnicode').isStream()) changed.push(extendToUnicodeOf(doc, font, dict, codes, 1));
  const ref = doc.addObject(dict);
  changed.push({
    num: ref.asIndirect(),
    kind: 'font',
    replaces: font.objNum,
    bytes_before: 0,
    bytes_after: 0,
  });

  const info: FontInfo = {
    ...font,
    widths: widened.widths,
    firstChar: widened.first,
    lastChar: widened.last,
    encodingUnicode: new Map([
      ...font.encodingUnicode,
      ...[...codes].map(([ch, c]) => [c, ch] as [number, string]),
    ]),
  };
  return { ref, font: info, codes, changed, proof: glyphs.proof };
}

/** Each missing character's glyph in a simple font: its width, the name /Differences uses, and how it was proven. */
interface SimpleGlyphs {
  widths: Map<string, number>;
  glyphName: Map<string, string>;
  proof: string;
}

/** A non-embedded standard Latin font: every viewer's font has the Latin set, with the standard metrics. */
function standardGlyphs(
  font: FontInfo,
  missing: string[],
  fractions: Map<string, number>,
): SimpleGlyphs | ExtensionRefusal {
  const std = standardName(font.baseFont);
  if (!std || std === 'Symbol' || std === 'ZapfDingbats') {
    return refusal(
      `The font ${font.baseFont} is not embedded and is not a standard Latin font whose glyph set is known.`,
      'glyph_not_provable',
      {
        font: font.baseFont,
      },
    );
  }
  const widths = new Map<string, number>();
  const builtin = builtinFont(std);
  for (const ch of missing) {
    const gid = builtin.encodeCharacter(ch.codePointAt(0)!);
    // The standard Latin set (what every viewer's standard font has): Latin-1 and Latin Extended-A.
    const cp = ch.codePointAt(0)!;
    if (gid <= 0 || cp > 0x17f) {
      return refusal(
        `“${ch}” is outside the standard Latin character set a viewer's ${std} is known to have.`,
        'glyph_not_provable',
        {
          font: font.baseFont,
          character: ch,
        },
      );
    }
    widths.set(ch, fitted(builtin.advanceGlyph(gid) * 1000, fractions.get(ch)));
  }
  return {
    widths,
    glyphName: new Map(),
    proof: `non-embedded standard font ${std}: width from the standard metrics`,
  };
}

/** An embedded program: the character must map to a glyph (and, for Type1/CFF, to a name it has). */
function embeddedGlyphs(
  font: FontInfo,
  missing: string[],
  getProgram: () => mupdf.Font | null,
  fractions: Map<string, number>,
): SimpleGlyphs | ExtensionRefusal {
  if (font.kind === 'TrueType' && font.symbolic) {
    return refusal(
      `${font.baseFont} is a symbolic TrueType font: its codes select glyphs directly, not through names.`,
      'glyph_not_provable',
      {
        font: font.baseFont,
      },
    );
  }
  const program = getProgram();
  if (!program)
    return refusal(`The embedded program of ${font.baseFont} could not be read.`, 'glyph_not_provable', {
      font: font.baseFont,
    });
  const widths = new Map<string, number>();
  const glyphName = new Map<string, string>();
  // Type1/CFF: the /Differences name must be one the program has (its own spelling of it).
  const names = programGlyphNames(font);
  for (const ch of missing) {
    if (!names) continue;
    const hex4 = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    const found = [unicodeToGlyphName(ch), `uni${hex4}`, `u${hex4}`].find((n) => names.has(n));
    if (!found) {
      return refusal(
        `The embedded program of ${font.baseFont} has no glyph for “${ch}”: it holds ${names.size} glyph(s) (a subset keeps only the glyphs the document used).`,
        'glyph_not_in_program',
        { font: font.baseFont, character: ch, program_glyphs: names.size },
      );
    }
    glyphName.set(ch, found);
  }
  for (const ch of missing) {
    const gid = program.encodeCharacter(ch.codePointAt(0)!);
    if (gid <= 0) {
      return refusal(
        `The embedded program of ${font.baseFont} has no glyph for “${ch}” (a subset keeps only the glyphs the document used).`,
        'glyph_not_in_program',
        {
          font: font.baseFont,
          character: ch,
        },
      );
    }
    const emptied = emptiedOutline(font, program, ch, gid);
    if (emptied) return emptied;
    widths.set(ch, fitted(program.advanceGlyph(gid) * 1000, fractions.get(ch)));
  }
  return {
    widths,
    glyphName,
    proof: `embedded ${font.fontFile?.key ?? ''} program maps the character to a glyph`,
  };
}

/** Letters WinAnsiEncoding has a code for. */
const WIN_ANSI = new Set(
  Array.from({ length: 256 }, (_, code) => baseEncodingUnicode('WinAnsiEncoding', code)).filter(
    (u): u is string => u !== undefined,
  ),
);
const inWinAnsi = (ch: string) => WIN_ANSI.has(ch);

/** Free codes: not drawn with this font anywhere on the page, not a space, in the Widths range first. */
function freeCodes(font: FontInfo, interp: Interpretation, count: number): number[] | ExtensionRefusal {
  const used = new Set(interp.glyphs.filter((g) => g.font === font).map((g) => g.code));
  const free: number[] = [];
  const candidates = [...range(128, 255), ...range(33, 126), ...range(1, 31)];
  const inRange = (c: number) => c >= font.firstChar && c <= font.lastChar;
  for (const c of [...candidates.filter(inRange), ...candidates.filter((c) => !inRange(c))]) {
    if (used.has(c) || c === 32) continue;
    free.push(c);
    if (free.length === count) break;
  }
  if (free.length < count)
    return refusal('The font has no unused code left on this page.', 'no_free_code', { font: font.baseFont });
  return free;
}

/** The font's encoding with the new codes appended to its /Differences (its base encoding kept). */
function extendedDifferences(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  codes: Map<string, number>,
  glyphName: Map<string, string>,
): mupdf.PDFObject {
  const enc = doc.newDictionary();
  enc.put('Type', doc.newName('Encoding'));
  const oldEnc = font.dict.get('Encoding');
  const oldDiffs: mupdf.PDFObject | null =
    oldEnc.isDictionary() && oldEnc.get('Differences').isArray() ? oldEnc.get('Differences') : null;
  const base = oldEnc.isName()
    ? oldEnc.asName()
    : oldEnc.isDictionary() && oldEnc.get('BaseEncoding').isName()
      ? oldEnc.get('BaseEncoding').asName()
      : null;
  if (base) enc.put('BaseEncoding', doc.newName(base));
  const diffs = doc.newArray();
  if (oldDiffs) for (let i = 0; i < oldDiffs.length; i += 1) diffs.push(oldDiffs.get(i));
  for (const [ch, code] of codes) {
    diffs.push(code);
    diffs.push(doc.newName(glyphName.get(ch) ?? unicodeToGlyphName(ch)));
  }
  enc.put('Differences', diffs);
  return enc;
}

/**
 * The copy's /Widths over the (possibly widened) range with the new codes' widths; codes outside
 * the old range keep the missing width. Answers the widths and the range for measuring. A standard
 * font written without /Widths keeps none when every new letter is one of WinAnsi's (whose metrics
 * every viewer's standard font has): viewers then take every width from their standard font by
 * glyph name, and a code the encoding leaves undefined keeps the advance each viewer gives it
 * (MuPDF the .notdef's, poppler none), where any written width would move the text after it in one
 * of them. Beyond WinAnsi (ő) PDFium has no metrics of its own, and the widths are written.
 */
function extendedWidths(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  codes: Map<string, number>,
  widths: Map<string, number>,
  dict: mupdf.PDFObject,
): { widths: Map<number, number>; first: number; last: number } {
  const newWidths = new Map(font.widths);
  for (const [ch, code] of codes) newWidths.set(code, widths.get(ch)!);
  if (font.standard14 && !font.dict.get('Widths').isArray() && [...codes.keys()].every(inWinAnsi)) {
    return { widths: newWidths, first: font.firstChar, last: font.lastChar };
  }
  const allCodes = [...codes.values()];
  const first = font.widths.size ? Math.min(font.firstChar, ...allCodes) : Math.min(...allCodes);
  const last = font.widths.size ? Math.max(font.lastChar, ...allCodes) : Math.max(...allCodes);
  const arr = doc.newArray();
  for (let c = first; c <= last; c += 1)
    arr.push(Math.round((newWidths.get(c) ?? font.defaultWidth) * 1000) / 1000);
  dict.put('FirstChar', first);
  dict.put('LastChar', last);
  dict.put('Widths', arr);
  return { widths: newWidths, first, last };
}

function extendCid(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  missing: string[],
  getProgram: () => mupdf.Font | null,
  fractions: Map<string, number>,
): Extension | ExtensionRefusal {
  if (!font.embedded)
    return refusal(`The CID font ${font.baseFont} is not embedded.`, 'glyph_not_provable', {
      font: font.baseFont,
    });
  // A name-keyed CFF program under Identity draws glyph id = CID = code, and names its glyphs.
  const named = font.encodingName === 'Identity-H' ? nameKeyedCidGlyphs(font) : null;
  if (
    !named &&
    (font.encodingName !== 'Identity-H' || font.descendantKind !== 'CIDFontType2' || !font.cidToGidIdentity)
  ) {
    return refusal(
      `Adding a code to ${font.baseFont} needs Identity-H with an identity CIDToGIDMap on a TrueType CID font, or a name-keyed CFF one (it has ${font.encodingName}, ${font.descendantKind}).`,
      'not_available',
      { font: font.baseFont },
    );
  }
  const program = getProgram();
  if (!program)
    return refusal(`The embedded program of ${font.baseFont} could not be read.`, 'glyph_not_provable', {
      font: font.baseFont,
    });
  const codes = new Map<string, number>();
  const widths = new Map<number, number>();
  for (const ch of missing) {
    const gid = named
      ? named.findIndex((name, id) => id > 0 && glyphNameIs(name, ch))
      : program.encodeCharacter(ch.codePointAt(0)!);
    if (gid <= 0) {
      return refusal(
        `The embedded program of ${font.baseFont} has no glyph for “${ch}” (a subset keeps only the glyphs the document used).`,
        'glyph_not_in_program',
        {
          font: font.baseFont,
          character: ch,
        },
      );
    }
    // A subset may keep every glyph id and empty the glyphs it dropped (LuaTeX does): an id with no
    // advance is not a glyph the program has.
    if (!(program.advanceGlyph(gid) > 0)) {
      return refusal(
        `The embedded program of ${font.baseFont} maps “${ch}” to glyph ${gid}, which the subset emptied (no advance).`,
        'glyph_not_in_program',
        { font: font.baseFont, character: ch, gid },
      );
    }
    const emptied = emptiedOutline(font, program, ch, gid);
    if (emptied) return emptied;
    const known = codeUnicode(font, gid);
    if (known !== undefined && known !== ch) {
      return refusal(
        `Glyph ${gid} of ${font.baseFont} is already mapped to “${known}”.`,
        'glyph_not_provable',
        { font: font.baseFont, gid },
      );
    }
    codes.set(ch, gid);
    widths.set(gid, fitted(program.advanceGlyph(gid) * 1000, fractions.get(ch)));
  }
  const type0 = copyDict(doc, font.dict);
  const descRef = font.dict.get('DescendantFonts').get(0);
  const desc = copyDict(doc, descRef.isIndirect() ? descRef.resolve() : descRef);
  const w = doc.newArray();
  const oldW = desc.get('W');
  if (oldW.isArray()) for (let i = 0; i < oldW.length; i += 1) w.push(oldW.get(i));
  for (const [gid, width] of widths) {
    const one = doc.newArray();
    one.push(Math.round(width * 1000) / 1000);
    w.push(gid);
    w.push(one);
  }
  desc.put('W', w);
  const descNew = doc.addObject(desc);
  const arr = doc.newArray();
  arr.push(descNew);
  type0.put('DescendantFonts', arr);
  const changed: ChangedObject[] = [
    {
      num: descNew.asIndirect(),
      kind: 'font',
      replaces: descRef.isIndirect() ? descRef.asIndirect() : 0,
      bytes_before: 0,
      bytes_after: 0,
    },
  ];
  changed.push(extendToUnicodeOf(doc, font, type0, codes, 2));
  const ref = doc.addObject(type0);
  changed.push({
    num: ref.asIndirect(),
    kind: 'font',
    replaces: font.objNum,
    bytes_before: 0,
    bytes_after: 0,
  });
  const newWidths = new Map(font.widths);
  for (const [gid, width] of widths) newWidths.set(gid, width);
  return {
    ref,
    font: { ...font, widths: newWidths },
    codes,
    changed,
    proof: 'embedded CID program maps the character to a glyph id',
  };
}

/**
 * A refusal when the program maps a letter to a glyph that draws nothing: a subset may keep the
 * glyph's id, advance and cmap entry and empty its outline (iText does), and that glyph would draw
 * an empty space where the letter goes. Refused here, the ladder goes on to a face that draws it.
 */
function emptiedOutline(
  font: FontInfo,
  program: mupdf.Font,
  ch: string,
  gid: number,
): ExtensionRefusal | null {
  if (drawsLetter(program, gid, ch)) return null;
  return refusal(
    `The embedded program of ${font.baseFont} maps “${ch}” to glyph ${gid}, whose outline the subset emptied: it draws nothing.`,
    'glyph_not_in_program',
    { font: font.baseFont, character: ch, gid },
  );
}

function range(a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = a; i <= b; i += 1) out.push(i);
  return out;
}
