// Tier 1, glyph reuse: every new character gets a code the page's font already maps to it, whose
// glyph the engine can prove exists (drawn on the page, or named by the font's encoding and present
// in its program). Nothing is added to the document; only the text operators change. Its per-character
// answer is also what tier 2 starts from: it adds codes only for the characters left without one.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import {
  codeWidth,
  fontLabel,
  glyphNameIs,
  nameKeyedCidGlyphs,
  programGlyphNames,
  type FontInfo,
} from '../locate/fonts.ts';
import { baseEncodingName } from '../locate/encodings.ts';
import { TIER_NAMES } from '../refusals.ts';
import { drawsLetter } from '../../fonts/font-subset.ts';
import type { ReusedCodes, Tier } from './tier.ts';

export interface CodeChoice {
  code: number;
  source: string;
}

/** Tier 1: a code the font already maps to `ch`, whose glyph exists. */
export function tier1Code(
  font: FontInfo,
  ch: string,
  observed: Map<string, Map<number, number>>,
  getProgram: () => mupdf.Font | null,
): CodeChoice | null {
  const seen = observed.get(ch);
  if (seen && seen.size) {
    const best = [...seen.entries()].sort((a, b) => b[1] - a[1])[0][0];
    return { code: best, source: 'drawn_on_page' };
  }
  const candidates: number[] = [];
  if (font.toUnicode) for (const [code, u] of font.toUnicode) if (u === ch) candidates.push(code);
  if (!font.composite) {
    for (const [code, u] of font.encodingUnicode) {
      if (u !== ch) continue;
      const tu = font.toUnicode?.get(code);
      if (tu !== undefined && tu !== ch) continue;
      if (!candidates.includes(code)) candidates.push(code);
    }
  }
  for (const code of candidates) {
    if (
      !font.composite &&
      (code < font.firstChar || code > font.lastChar) &&
      font.widths.size &&
      !font.standard14
    )
      continue;
    if (codeWidth(font, code) <= 0 && ch !== ' ') continue;
    if (!font.embedded) {
      if (font.composite) continue; // a CID font without its program: the viewer's substitute is unknown
      return { code, source: 'encoding_non_embedded' };
    }
    if (font.kind === 'Type3') {
      const name = font.differences.get(code);
      if (name && !font.dict.get('CharProcs').get(name).isNull()) return { code, source: 'type3_charproc' };
      continue;
    }
    // The program must draw this very code as the character: for CID fonts an identity CIDToGIDMap
    // on a TrueType program, or a name-keyed CFF under Identity (whose glyph the program names), ties
    // code to glyph id; symbolic TrueType codes bypass Unicode.
    if (font.composite && font.descendantKind === 'CIDFontType0') {
      if (!glyphNameIs(nameKeyedCidGlyphs(font)?.[code], ch)) continue;
      if (!font.widths.has(code) && !widthMatches(programAdvance(getProgram(), code), font.defaultWidth))
        continue;
      if (!drawsInk(getProgram(), code, ch)) continue;
      return { code, source: 'font_program' };
    }
    if (font.composite && (font.descendantKind !== 'CIDFontType2' || !font.cidToGidIdentity)) continue;
    if (!font.composite && font.kind === 'TrueType' && font.symbolic) continue;
    // Type1/CFF: the code's glyph name (Differences or base encoding) must be in the program.
    const names = programGlyphNames(font);
    const name =
      font.differences.get(code) ??
      (font.baseEncoding ? baseEncodingName(font.baseEncoding, code) : undefined);
    if (names && name) {
      if (!names.has(name)) continue;
      const program = getProgram();
      if (program && !drawsInk(program, program.encodeCharacter(ch.codePointAt(0) ?? 0), ch)) continue;
      return { code, source: 'font_program' };
    }
    const program = getProgram();
    const gid = program ? program.encodeCharacter(ch.codePointAt(0) ?? 0) : 0;
    if (!program || gid <= 0 || (font.composite && gid !== code)) continue;
    // A CID font's /W lists only the glyphs its producer drew (PDF::API2, PDF::Builder): another
    // glyph of a whole program is drawn with the default width (/DW, often 1000), not its own. Such
    // a code is left to tier 2, which adds its real width to a copy of the font.
    if (
      font.composite &&
      !font.widths.has(code) &&
      !widthMatches(program.advanceGlyph(gid) * 1000, font.defaultWidth)
    )
      continue;
    if (!drawsInk(program, gid, ch)) continue;
    return { code, source: 'font_program' };
  }
  return null;
}

/**
 * A glyph of the program that draws something for a letter: a subset may keep a glyph's id, advance
 * and cmap entry and empty its outline (iText does), and drawn the letter would be a blank. Unknown
 * (no program, no glyph id) is left to the verification.
 */
function drawsInk(program: mupdf.Font | null, gid: number, ch: string): boolean {
  return !program || gid <= 0 || drawsLetter(program, gid, ch);
}

/** A glyph's own advance and a declared width (thousandths of an em) agree to within one unit. */
const widthMatches = (own: number, declared: number) => Math.abs(own - declared) <= 1;

/** A glyph's advance in thousandths of an em (NaN without a program). */
const programAdvance = (program: mupdf.Font | null, gid: number) =>
  program ? program.advanceGlyph(gid) * 1000 : NaN;

/** Tier 1's code for each of `chars` in `font`, `codeLength` bytes each for a composite font. */
export function reuseCodes(
  font: FontInfo,
  chars: string[],
  observed: Map<string, Map<number, number>>,
  getProgram: () => mupdf.Font | null,
  codeLength: number,
): ReusedCodes {
  const length = font.composite ? codeLength : 1;
  const out: ReusedCodes = { codes: [], sources: [], missing: [] };
  for (const ch of chars) {
    const found = tier1Code(font, ch, observed, getProgram);
    // A codespace of mixed lengths (Shift-JIS: roman one byte, kanji two) gives each code its own.
    const own = found && font.codespace?.find((r) => found.code >= r.lo && found.code <= r.hi);
    out.codes.push({ code: found ? found.code : -1, length: own ? own.bytes : length });
    out.sources.push(found ? found.source : 'missing');
    if (!found) out.missing.push(ch);
  }
  return out;
}

export const glyphReuseTier: Tier = {
  tier: 1,
  name: TIER_NAMES[1],
  needs: "a code in the page's own font for every new character, its glyph proven to exist",
  attempt(ctx) {
    const { font, reused } = ctx;
    const missing = reused.missing;
    if (missing.length) {
      return {
        refused: {
          code: 'glyph_not_in_font',
          reason: `The font ${fontLabel(font)} has no code for ${missing.map((c) => `“${c}”`).join(', ')} whose glyph the engine can prove exists.`,
          evidence: {
            font: font.baseFont,
            missing,
            embedded: font.embedded,
            kind: font.kind,
            program_glyphs: programGlyphNames(font)?.size ?? null,
          },
        },
      };
    }
    return {
      codes: reused.codes,
      sources: reused.sources,
      widthFont: font,
      draw: { use: 'own' },
      keepsOldAdvances: false,
      changed: [],
      measurements: {},
      warnings: [],
      fontAlternatives: 0,
      explain: (p) =>
        `Tier 1 (glyph reuse): “${p.oldText}” becomes “${p.newText}” in ${fontLabel(font)} at ${p.sizePt} pt, using codes the font already maps (${[...new Set(reused.sources)].join(', ')}). ${
          p.adjusted
            ? 'A TJ adjustment after the new text puts every following glyph back where it was.'
            : 'The widths are equal, so nothing else moves.'
        } Fit rule: ${p.rule}.`,
    };
  },
};
