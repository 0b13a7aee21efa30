// Tier 4, matched font: the document's font cannot draw a character, so the changed characters are
// drawn with a bundled metric-compatible font (src/fonts/) chosen from the original font's name,
// flags and measured widths. The face is embedded as a Type0/Identity-H font with MuPDF's
// ToUnicode (so extraction gives the new text), its program cut to the glyphs drawn
// (font-subset.ts: TrueType and CFF outlines) and Flate-compressed, marked with /DocfixFace (and the kept
// glyph ids, /DocfixGlyphs) so later corrections reuse it when it draws what they need. In the content
// stream only the text-showing operator that holds the span changes: it is split around the span,
// the new run is drawn between `/New size Tf` and `/Original size Tf` in the same text state, and a
// TJ adjustment after the new run puts the pen exactly where the old span ended. A face embedded by
// this correction that draws as many glyphs as it replaces, each about as wide as the old (or into
// a CJK cell), gets the old glyphs' widths in its W instead (mirrorOldWidths), so no adjustment is
// needed and every renderer reads the new advance as it read the old one; other glyphs keep their
// own advances, written in the old widths' fractions so renderers still read them alike; the last
// of them, where the line is not re-spaced, is still written with the old width (takeOldLastAdvance),
// so the pen after the run is summed from the same numbers as before.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import {
  DEFAULT_MAX_MEAN_WIDTH_DIFF,
  loadFace,
  matchFont,
  missingGlyphs,
  type FontCandidate,
  type MatchOptions,
  type PdfFontFacts,
} from '../../fonts/font-match.ts';
import { BUNDLED_FACES } from '../../fonts/catalog.ts';
import { fontFactsFromPdf } from '../../fonts/pdf-font-facts.ts';
import { drawsAlike, subsetOpenType, subsetTrueType, type FontSubset } from '../../fonts/font-subset.ts';
import { machineFaces, type Face } from '../../fonts/machine-fonts.ts';
import {
  encodeString,
  exactNumber,
  formatNumber,
  nameToken,
  type ContentOp,
  type Operand,
} from '../locate/content-stream.ts';
import {
  codeWidth,
  fillCidWidths,
  fontLabel,
  loadFontInfo,
  withFraction,
  type FontInfo,
} from '../locate/fonts.ts';
import { verticalMetrics } from '../locate/text-interpreter.ts';
import { TIER_NAMES } from '../refusals.ts';
import { companionWithOldAdvances, scriptCompanion, type Companion } from './script-companion.ts';
import { CJK } from '../locate/page-text.ts';
import type { Code, Tier, TierContext, TierProduct, TierRefusal } from './tier.ts';
import {
  addKernEdits,
  advanceOf,
  codeToBytes,
  kernedItems,
  kernsBefore,
  kernsIn,
  type StreamEdit,
} from '../rewrite/rewrite.ts';
import type { Kern } from '../rewrite/rewrite.ts';
import type { Glyph, StreamUnit } from '../locate/text-interpreter.ts';
import type { ChangedObject } from '../rewrite/write.ts';
import { extendType3, INK_AGREEMENT, inkAgreement } from './type3-stand-in.ts';
import { withoutSubsetTag } from '../../pdf/subset-tag.ts';

/** Key put in the font dictionary of an embedded bundled face (its catalogue id). */
export const MARKER_KEY = 'DocfixFace';
/** Key put beside it when the face is embedded as a subset: the glyph ids the subset keeps. */
export const GLYPHS_KEY = 'DocfixGlyphs';

export interface Alternative {
  font_attempt: number;
  face: string;
  family: string;
  style: string;
  /** A face of this machine (absent: bundled): where it was found and its file. */
  origin?: 'system' | 'font_dirs';
  file?: string;
  width_diff: number | null;
  /** A Type 3 font's glyphs and the face's: share of ink in common (type3-stand-in.ts). */
  ink_agreement?: number;
  lacks: string[];
}

export interface MatchedFont {
  face: Face;
  candidate: FontCandidate;
  alternatives: Alternative[];
  ref: mupdf.PDFObject;
  info: FontInfo;
  reused: boolean;
  /** Glyph ids (= codes, Identity-H) of the new characters. */
  gids: number[];
  changed: ChangedObject[];
  font_file_bytes: number;
  /** Glyph ids kept when the face was embedded as a subset (null: whole, or reused). */
  subset_glyphs: number[] | null;
}

export interface MatchRefusal {
  code: string;
  what: string;
  why: string;
  do: string[];
  alternatives: Alternative[];
  /** Machine faces that would stand in but whose licence forbids embedding, each named with why. */
  restricted: string[];
}

const quoted = (chars: string[]) => chars.map((c) => `“${c}”`).join(', ');

export const matchedFontTier: Tier = {
  tier: 4,
  name: TIER_NAMES[4],
  needs:
    "a bundled face matched to the page's font (font_attempt chooses which) that has every new character",
  attempt(ctx) {
    const { font, newChars } = ctx;
    const missing = ctx.reused.missing;
    // Latin in CJK (or Cyrillic, Arabic …) text: drawn as the document draws its Latin (script-companion.ts).
    const companion = scriptCompanion(ctx);
    if (companion?.codes) return companionProduct(ctx, companion, companion.codes);
    const base = companion?.info ?? font;
    const mf = matchedFont(ctx.doc, base, newChars, ctx.fontAttempt, companion ? [] : ctx.glyphs);
    const via = companion
      ? ` The page draws its ${companion.script}${companion.atSize > 0 ? ' at this size' : ''} with ${companion.info.baseFont}, which lacks ${quoted([newChars[companion.sources.length]])} too.`
      : '';
    if ('code' in mf) {
      const lacks = mf.alternatives.map(
        (a) =>
          `${a.face} (font_attempt ${a.font_attempt})${a.lacks.length ? ` lacks ${quoted(a.lacks)}` : ' has them all'}`,
      );
      return {
        refused: { code: mf.code, reason: mf.what, evidence: { alternatives: mf.alternatives } },
        end: {
          code: mf.code === 'font_attempt_out_of_range' ? mf.code : 'glyph_not_available',
          what: `The page's font ${fontLabel(font)} cannot draw ${quoted(missing)}, and ${mf.code === 'no_matched_font' ? 'no bundled font matches it' : 'the matched font cannot either'}.`,
          why: `${font.embedded ? 'The embedded font program' : 'The font'} ${fontLabel(font)} does not contain ${missing.length > 1 ? 'these characters' : 'this character'}.${via} ${mf.what} ${mf.why}${lacks.length ? ` Matched fonts: ${lacks.join('; ')}.` : ''}`,
          do: [
            ...new Set([
              ...mf.do,
              'Choose a replacement made of characters the document already shows in this font.',
            ]),
          ],
          evidence: {
            font_alternatives: mf.alternatives.length,
            alternatives: mf.alternatives,
            ...(mf.restricted.length ? { restricted_faces: mf.restricted } : {}),
          },
        },
      };
    }
    if (base.kind === 'Type3') return type3Product(ctx, mf);
    const codes = mf.gids.map((gid) => ({ code: gid, length: 2 }));
    const face = mf.face;
    // A CJK face drawn narrower into a proportional cell, or a Latin Modern optical size drawn at
    // the scale that gives it a cm-super size's widths (font-match.ts, designScale).
    const scale = mf.candidate.scale ?? null;
    const squeeze = face.standsInForScript ? cjkSqueeze(ctx.glyphs, codes, mf.info) : scale;
    if (face.standsInForScript || companion?.cells) takesCells.add(mf.info);
    const mirrors = oldWidthsFor(ctx.glyphs, codes, mf.info, squeeze ?? 1) !== null;
    return {
      codes,
      sources: newChars.map(() => 'matched_font'),
      widthFont: mf.info,
      draw: { use: 'inserted', ref: mf.ref },
      // A face this correction embeds takes the old glyphs' advances where it can (mirrorOldWidths),
      // or is drawn narrower to take them (squeeze).
      keepsOldAdvances: scale === null && (squeeze !== null || mirrors),
      mirrorsAdvances: mirrors,
      ...(squeeze !== null ? { squeeze } : {}),
      changed: mf.changed,
      measurements: {
        ...(companion ? { companion_font: companionFacts(companion) } : {}),
        matched_font: matchedFontFacts(mf, scale !== null ? { horizontal_scale: scale } : {}),
      },
      warnings: [
        face.origin === 'bundled'
          ? `${face.family} ${face.style} (${face.id}) stands in for ${fontLabel(base)} to draw “${newChars.join('')}”: a bundled metric-compatible font, not the document's own${embeddedAs(mf)}.`
          : `${face.family} ${face.styleName} (${face.file}, ${ORIGIN_WORDS[face.origin]}) stands in for ${fontLabel(base)} to draw “${newChars.join('')}”: ${mf.candidate.named_clone ? "a named clone of the font's design (TeX Gyre / URW base35)" : "the face the font's name names"}, with its widths, not the document's own embedded program${embeddedAs(mf)}.`,
      ],
      fontAlternatives: mf.alternatives.length,
      explain: (p) =>
        `Tier 4 (matched font): ${fontLabel(font)} has no glyph for ${quoted(missing)}; ${companion ? `the page sets its ${companion.script}${companion.atSize > 0 ? ' at this size' : ''} in ${base.baseFont}, which lacks it too, so ` : ''}“${p.newText}” is drawn with ${face.origin === 'bundled' ? `the bundled ${face.family} ${face.style}` : `${face.family} ${face.styleName} from ${face.file} (${ORIGIN_WORDS[face.origin]})`} (metric-compatible${scale !== null ? ` drawn ${Math.round(scale * 1000) / 10} % wide, the nearest optical size scaled to the font's widths` : ''}, mean width difference ${mf.candidate.width_diff ?? '?'}/1000 em), ${mf.reused ? 'already embedded by an earlier correction' : 'embedded once for the document'}, at the same size, colour and position; the original font is set again right after it and a TJ adjustment puts every following glyph back where it was. Fit rule: ${p.rule}.`,
    };
  },
};

const companionFacts = (c: Companion) => ({
  font: c.info.baseFont,
  object: c.info.objNum,
  glyphs_on_page: c.glyphs,
  glyphs_at_size: c.atSize,
  glyphs_beside_target: c.beside,
  script: c.script,
  target_script: c.targetScript,
});

/**
 * Latin letters or digits in place of CJK text (Latin letters in place of Cyrillic …), drawn with
 * the page's own Latin font at the same size (it has their glyphs): the document's design, but a
 * font other than the one the target is drawn with, hence tier 4's cost, not tier 3's. In CJK text
 * the new glyphs take the old cells; elsewhere they keep their own advances, as typeset.
 */
function companionProduct(ctx: TierContext, companion: Companion, codes: Code[]): TierProduct {
  const { font, newChars } = ctx;
  const missing = ctx.reused.missing;
  const widened = companion.cells ? companionWithOldAdvances(ctx.doc, companion, codes, ctx.glyphs) : null;
  return {
    codes,
    sources: companion.sources.map((s) => `companion_font:${s}`),
    widthFont: widened?.info ?? companion.info,
    draw: { use: 'inserted', ref: widened?.ref ?? companion.ref },
    keepsOldAdvances: widened !== null,
    changed: widened?.changed ?? [],
    measurements: { companion_font: { ...companionFacts(companion), old_advances: widened !== null } },
    warnings: [
      `“${newChars.join('')}” is drawn with ${companion.info.baseFont}, the font this page sets its ${companion.script} in${companion.atSize > 0 ? ' at this size' : ''}, not with the ${companion.targetScript} font ${font.baseFont}.`,
    ],
    fontAlternatives: 0,
    explain: (p) =>
      `Tier 4 (matched font): ${font.baseFont} has no glyph for ${quoted(missing)}; the page sets its ${companion.script} ${companion.cells ? 'letters and digits' : 'letters'}${companion.atSize > 0 ? ' at this size' : ''} in ${companion.info.baseFont} (${companion.glyphs} glyphs), which has it: “${p.newText}” is drawn with that font at the same size, colour and position, the original font is set again right after it, and ${widened ? 'a copy of its font dictionary gives the new glyphs the old ones’ advances' : 'a TJ adjustment puts every following glyph back where it was'}. Fit rule: ${p.rule}.`,
  };
}

/** How the proposal names where a machine face came from. */
const ORIGIN_WORDS = {
  system: 'a font of this machine, found by fontconfig',
  font_dirs: 'a font of this machine, from DOCFIX_FONT_DIRS',
} as const;

/** The matched face and how it went in, for the measurements (`extra` after its widths). */
function matchedFontFacts(mf: MatchedFont, extra: Record<string, unknown>) {
  return {
    face: mf.face.id,
    family: mf.face.family,
    style: mf.face.style,
    // A face of this machine: where it was found and the file embedded (bundled faces: absent).
    ...(mf.face.origin !== 'bundled' ? { origin: mf.face.origin, file: mf.face.file } : {}),
    // Reached only as a named clone of the document font's design (machine-fonts.ts CLONE_FAMILIES).
    ...(mf.candidate.named_clone ? { named_clone: true } : {}),
    reused: mf.reused,
    width_diff: mf.candidate.width_diff,
    ...extra,
    font_file_bytes: mf.font_file_bytes,
    subset_glyphs: mf.subset_glyphs?.length ?? null,
    alternatives: mf.alternatives,
  };
}

/** How the face was embedded, for the warning ('' where an earlier correction embedded it). */
const embeddedAs = (mf: MatchedFont) =>
  mf.reused
    ? ''
    : `; it is embedded ${mf.subset_glyphs ? `as a subset of ${mf.subset_glyphs.length} glyphs` : 'whole'} (${Math.round(mf.font_file_bytes / 1024)} KB compressed)`;

/**
 * A Type 3 font's missing characters, drawn by the matched face inside a copy of the font itself
 * (type3-stand-in.ts): the codes change in place, as tier 2's do.
 */
function type3Product(ctx: TierContext, mf: MatchedFont): TierProduct | TierRefusal {
  const { font, newChars } = ctx;
  const missing = [...new Set(ctx.reused.missing)];
  const at = newChars.map((ch, i) => (ctx.reused.codes[i].code < 0 ? i : -1)).filter((i) => i >= 0);
  const ext = extendType3(
    ctx.doc,
    font,
    mf.face,
    mf.ref,
    at.map((i) => newChars[i]),
    at.map((i) => mf.gids[i]),
    // The old glyph each new one replaces, where the text keeps its length.
    ctx.glyphs.length === newChars.length ? at.map((i) => ctx.glyphs[i]) : [],
    ctx.interp,
  );
  if ('refused' in ext) {
    const what = `The page's font ${fontLabel(font)} cannot draw ${quoted(missing)}: it is a Type 3 font that cannot take new glyphs. ${ext.refused}`;
    return {
      refused: { code: 'type3_not_extended', reason: what, evidence: { face: mf.face.id } },
      end: {
        code: 'glyph_not_available',
        what,
        why: `${mf.face.family} ${mf.face.style} would stand in for it, drawn by glyph procedures added to a copy of the font.`,
        do: ['Choose a replacement made of characters the document already shows in this font.'],
        evidence: { face: mf.face.id },
      },
    };
  }
  const face = mf.face;
  const ink = mf.alternatives[mf.candidate.rank]?.ink_agreement ?? null;
  return {
    codes: ctx.reused.codes.map((c, i) => (c.code < 0 ? { ...c, code: ext.codes.get(newChars[i]) ?? 0 } : c)),
    sources: ctx.reused.sources.map((s, i) => (ctx.reused.codes[i].code < 0 ? 'matched_font' : s)),
    widthFont: ext.font,
    draw: { use: 'replacement', ref: ext.ref },
    keepsOldAdvances: false,
    changed: [...mf.changed, ...ext.changed],
    measurements: {
      matched_font: matchedFontFacts(mf, { ink_agreement: ink, type3_codes: Object.fromEntries(ext.codes) }),
    },
    warnings: [
      `${face.family} ${face.style} (${face.origin === 'bundled' ? face.id : face.file}) draws “${missing.join('')}” inside the Type 3 font ${fontLabel(font)} (its glyphs are procedures, bitmaps in TeX's pk fonts): a bundled font of the same design, not the document's own${embeddedAs(mf)}.`,
    ],
    fontAlternatives: mf.alternatives.length,
    explain: (p) =>
      `Tier 4 (matched font): ${fontLabel(font)} is a Type 3 font with no glyph for ${quoted(missing)}; ${face.family} ${face.style} has its widths (mean difference ${mf.candidate.width_diff ?? '?'}/1000 em) and draws its letters as its own glyph procedures do (${Math.round((ink ?? 0) * 100)} % of their ink in common). A copy of the font dictionary for this page adds code(s) ${[...ext.codes.values()].join(', ')}, whose procedures draw ${face.family}'s glyphs one em high${ext.keepsOldAdvances ? ', each with the width of the glyph it replaces' : ''}; the codes change in place. Fit rule: ${p.rule}.`,
  };
}

/** Characters whose widths must agree before a face that the font's name does not name stands in. */
export const WIDTH_EVIDENCE_CHARS = 8;

/**
 * Ranks the bundled faces for `font` and lists which of `text`'s characters each lacks; where none of
 * them draws every character, the machine's faces (machine-fonts.ts) the font's name names come
 * after them, held to the same evidence. `restricted` names the machine faces that would stand in but
 * whose licence forbids embedding them.
 */
export function alternativesFor(
  font: FontInfo,
  text: string,
  replaced: readonly Glyph[] = [],
): { candidates: FontCandidate[]; alternatives: Alternative[]; restricted: string[] } {
  const facts = fontFactsFromPdf(font.dict);
  const type3 = font.kind === 'Type3';
  // A Type 3 bitmap font's widths are whole or tenths of device pixels (a 600 dpi pixel is 12/1000
  // em of a 10 pt font), so they may stray twice as far; its ink is the stronger witness, and ranks.
  const options = type3
    ? {
        maxMeanWidthDiff: 2 * DEFAULT_MAX_MEAN_WIDTH_DIFF,
        ...(replaced.length ? { drawnSize: drawnSize(replaced[0]) } : {}),
      }
    : {};
  const script = cjkStandIn(font, text, replaced);
  const ranked = [...(script ? [script] : []), ...vouchedFor(font, matchFont(facts, options).candidates)];
  const draws = (c: Omit<FontCandidate, 'rank'>) => missingGlyphs(c.face, text).length === 0;
  const restricted: string[] = [];
  if (!ranked.some(draws)) {
    const machine = vouchedFor(font, machineCandidates(facts, options));
    for (const c of machine) {
      if (c.embedding_refused) restricted.push(c.embedding_refused);
      else ranked.push(c);
    }
  }
  // For this text, faces that draw every character come first (in the matcher's order), so the
  // default font_attempt 0 is the best face that can make the correction at all (CMU Serif before
  // Latin Modern for a Cyrillic letter in a Computer Modern font).
  const complete = ranked.filter(draws);
  const candidates = [...complete, ...ranked.filter((c) => !complete.includes(c))].map((c, rank) => ({
    ...c,
    rank,
  }));
  return {
    candidates,
    alternatives: candidates.map((c) => ({
      font_attempt: c.rank,
      face: c.face.id,
      family: c.face.family,
      style: c.face.style,
      ...(c.face.origin !== 'bundled' ? { origin: c.face.origin, file: c.face.file } : {}),
      width_diff: c.width_diff,
      ...(type3 ? { ink_agreement: inkOf(font, c) } : {}),
      lacks: missingGlyphs(c.face, text),
    })),
    restricted,
  };
}

/** The machine's candidates (none where discovery finds nothing, or it fails). */
function machineCandidates(facts: PdfFontFacts, options: MatchOptions): FontCandidate[] {
  const faces = machineFaces();
  return faces.length ? matchFont(facts, { ...options, faces }).candidates : [];
}

/** Ink agreement of a Type 3 font with each face, measured once per font and face. */
const inkCache = new WeakMap<FontInfo, Map<string, number>>();
function inkOf(font: FontInfo, c: Omit<FontCandidate, 'rank'>): number {
  if (font.kind !== 'Type3') return 0;
  let inks = inkCache.get(font);
  if (!inks) inkCache.set(font, (inks = new Map()));
  let v = inks.get(c.face.id);
  if (v === undefined) inks.set(c.face.id, (v = inkAgreement(font, c.face) ?? 0));
  return v;
}

/**
 * The candidates with evidence enough to stand in, best first. A stand-in needs evidence: the font's
 * name names its family, or its widths were measured against the document's over
 * WIDTH_EVIDENCE_CHARS characters at least. Flags alone would let any sans stand in for Computer
 * Modern, and a few characters (a page number's figures, 500/1000 em in most text faces) fit one
 * face of 158 or another by chance. A Type 3 font's glyphs must also draw as the face's do
 * (type3-stand-in.ts): widths do not tell slanted from upright.
 */
function vouchedFor(font: FontInfo, candidates: FontCandidate[]): Omit<FontCandidate, 'rank'>[] {
  const type3 = font.kind === 'Type3';
  return (
    candidates
      .filter(
        (c) =>
          (c.family_match || (c.width_diff !== null && c.width_chars >= WIDTH_EVIDENCE_CHARS)) &&
          (!type3 || inkOf(font, c) >= INK_AGREEMENT),
      )
      // Ink ranks a Type 3 font's faces, by more than noise (LM Mono 9 and 10 draw cmtt10's pk
      // bitmaps 0.916 and 0.910 alike; the size it is drawn at decides between them).
      .sort((a, b) => b.score + 50 * inkOf(font, b) - (a.score + 50 * inkOf(font, a)))
  );
}

/**
 * A CJK face for CJK characters: every CJK font draws ideographs, kana and hangul on a full-width
 * (1 em) grid, so where the glyphs being replaced are drawn 1 em wide, the bundled CJK face keeps
 * the line's advances. In a proportional font (kana 0.85–1 em wide) the new glyphs are drawn
 * narrower, by as much as the old ones are (cjkSqueeze), across only. Its design (a gothic) may
 * differ from a Mincho's; the pixel comparison judges the ink. In vertical writing (WMode 1) it is
 * embedded with Identity-V and the font's DW2 (matchedFont).
 */
function cjkStandIn(
  font: FontInfo,
  text: string,
  replaced: readonly Glyph[],
): Omit<FontCandidate, 'rank'> | null {
  if (!CJK.test(text) || replaced.length === 0) return null;
  // Vertical writing: only where every glyph advances by DW2 (no per-glyph W2), which the new
  // font copies.
  if (font.wmode === 1 && !verticalMetrics(font)) return null;
  const face = BUNDLED_FACES.find(
    (f) => f.standsInForScript === 'cjk' && missingGlyphs(f, text).length === 0,
  );
  if (!face) return null;
  const widths = replaced.map((g) => codeWidth(g.font, g.code) * 1000);
  const diffs = widths.map((w) => Math.abs(w - 1000));
  const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length;
  // Vertically the pen advances by DW2 (copied); the width only centres the glyph across the
  // column (half of it), so 5 % of the em moves the new glyph 2.5 % off the old one's centre.
  // Across, a cell up to 15 % narrower takes the glyph drawn narrower.
  const full =
    font.wmode === 1 ? mean <= 5 * DEFAULT_MAX_MEAN_WIDTH_DIFF : mean <= DEFAULT_MAX_MEAN_WIDTH_DIFF;
  const narrower =
    font.wmode === 0 &&
    widths.every((w) => w >= 1000 - MAX_SQUEEZE * 1000 && w <= 1000 + DEFAULT_MAX_MEAN_WIDTH_DIFF);
  if (!full && !narrower) return null;
  return {
    face,
    score: 0,
    family_match: false,
    style_match: true,
    class_match: false,
    width_diff: Math.round(mean * 100) / 100,
    width_max_diff: Math.round(Math.max(...diffs) * 100) / 100,
    width_chars: widths.length,
    width_missing: [],
    reasons: [
      full
        ? `${font.baseFont} draws the replaced CJK characters full-width, as ${face.family} does`
        : `${font.baseFont} draws the replaced characters ${Math.round(Math.min(...widths))}–${Math.round(Math.max(...widths))}/1000 em wide: ${face.family}'s are drawn narrower to fit`,
    ],
  };
}

/** Largest horizontal squeeze of a CJK stand-in (15 %: a proportional kana cell). */
const MAX_SQUEEZE = 0.15;

/**
 * The horizontal scale that gives new CJK glyphs the old glyphs' total advance, where the old
 * glyphs are narrower than the face's by more than 1 % (a proportional font); null otherwise.
 */
function cjkSqueeze(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
): number | null {
  if (glyphs.length === 0 || glyphs[0].font.wmode !== 0) return null;
  const old = glyphs.reduce((s, g) => s + codeWidth(g.font, g.code), 0);
  const fresh = codes.reduce((s, c) => s + codeWidth(info, c.code), 0);
  if (!(fresh > 0)) return null;
  const ratio = old / fresh;
  if (ratio >= 1 - DEFAULT_MAX_MEAN_WIDTH_DIFF / 1000 || ratio < 1 - MAX_SQUEEZE) return null;
  return ratio;
}

const describe = (alts: Alternative[]) =>
  alts.map(
    (a) =>
      `${a.font_attempt}: ${a.face}${a.lacks.length ? ` (lacks ${a.lacks.map((c) => `“${c}”`).join(', ')})` : ''}`,
  );

/** Chooses the candidate `attempt` and embeds it (or finds it already embedded). */
export function matchedFont(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  newChars: string[],
  attempt: number,
  replaced: readonly Glyph[] = [],
): MatchedFont | MatchRefusal {
  const { candidates, alternatives, restricted } = alternativesFor(font, newChars.join(''), replaced);
  const refusal = candidateRefusal(font, candidates, alternatives, attempt);
  if (refusal) return withRestricted({ ...refusal, alternatives, restricted });
  const candidate = candidates[attempt];
  const face = candidate.face;
  const program = loadFace(face);
  const gids = newChars.map((ch) => program.encodeCharacter(ch.codePointAt(0) ?? 0));
  const found = findEmbedded(doc, face.id, gids, font.wmode === 1 ? verticalMetrics(font) : null);
  const embedded = found
    ? { ref: found, changed: [], fontFileBytes: 0, subsetGlyphs: null }
    : embedFace(doc, font, face, program, newChars, gids);
  const info = loadFontInfo(embedded.ref);
  if (!found) freshlyEmbedded.set(info, doc);
  return {
    face,
    candidate,
    alternatives,
    reused: found !== null,
    gids,
    font_file_bytes: embedded.fontFileBytes,
    subset_glyphs: embedded.subsetGlyphs,
    ref: embedded.ref,
    info,
    changed: embedded.changed,
  };
}

/** Why candidate `attempt` cannot make the correction (none, out of range, a glyph it lacks), or null. */
function candidateRefusal(
  font: FontInfo,
  candidates: FontCandidate[],
  alternatives: Alternative[],
  attempt: number,
): Omit<MatchRefusal, 'alternatives' | 'restricted'> | null {
  if (candidates.length === 0) {
    return {
      code: 'no_matched_font',
      what: `No bundled font stands in for ${font.baseFont || `this ${font.kind} font`}.`,
      why:
        font.kind === 'Type3'
          ? `No bundled face has this Type 3 font’s widths (within 1 % of the em on average, over ${WIDTH_EVIDENCE_CHARS} letters at least) and draws its letters as its own glyph procedures do (${INK_AGREEMENT * 100} % of their ink in common).`
          : 'No bundled face has this font’s name, style and widths (within 1 % of the em on average); a symbol font gets none.',
      do: [
        'Choose a replacement made of characters the document already shows in this font.',
        // The face itself is the honest way to the letter: the machine's fonts are searched too.
        ...(font.kind !== 'Type3' && font.baseFont
          ? [
              `Install the font ${withoutSubsetTag(font.baseFont)} on this machine, or add the folder holding its file to DOCFIX_FONT_DIRS, and ask again: docfix draws with the machine's fonts when their widths match.`,
            ]
          : []),
      ],
    };
  }
  if (attempt >= candidates.length) {
    return {
      code: 'font_attempt_out_of_range',
      what: `font_attempt ${attempt} is beyond the ${candidates.length} matched font(s).`,
      why: `The candidates are ${describe(alternatives).join('; ')}.`,
      do: [`Send a font_attempt from 0 to ${candidates.length - 1}.`],
    };
  }
  const lacks = alternatives[attempt].lacks;
  if (!lacks.length) return null;
  const better = alternatives.filter((a) => a.lacks.length === 0).map((a) => a.font_attempt);
  return {
    code: 'glyph_not_in_matched_font',
    what: `The matched font ${candidates[attempt].face.id} has no glyph for ${lacks.map((c) => `“${c}”`).join(', ')}.`,
    why: `Candidates (font_attempt: face): ${describe(alternatives).join('; ')}.`,
    do: [
      better.length
        ? `Send font_attempt ${better[0]} (${alternatives[better[0]].face} has every character).`
        : 'No bundled font has every character: choose a replacement without them.',
      'Choose a shorter replacement, or one made of characters the document already shows.',
    ],
  };
}

/** A refusal that names the machine faces whose licence forbids embedding them (unchanged without). */
function withRestricted(r: MatchRefusal): MatchRefusal {
  if (!r.restricted.length) return r;
  const names = r.restricted.map((x) => x.replace(/ \(.*$/, ''));
  return {
    ...r,
    why: `${r.why} A font of this machine would stand in, but may not be embedded: ${r.restricted.join('; ')}.`,
    do: [
      `Install a version of ${names.join(', ')} whose licence allows embedding (OS/2 fsType installable, editable or preview & print).`,
      ...r.do,
    ],
  };
}

/**
 * Embeds the face as a Type0/Identity-H font (Identity-V in vertical writing, with the font's DW2),
 * its program cut to the glyphs drawn where the face allows subsetting; the objects it adds.
 */
function embedFace(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  face: Face,
  program: mupdf.Font,
  newChars: string[],
  gids: number[],
): { ref: mupdf.PDFObject; changed: ChangedObject[]; fontFileBytes: number; subsetGlyphs: number[] | null } {
  const ref = doc.addFont(program);
  const dict = ref.resolve();
  dict.put(MARKER_KEY, doc.newString(face.id));
  const descendant = dict.get('DescendantFonts').get(0);
  if (font.wmode === 1) {
    // Vertical writing: each glyph is placed by the position vector (half its W width across,
    // DW2's first number down) and advances by DW2's second number, as the page's font does.
    dict.put('Encoding', doc.newName('Identity-V'));
    const dw2 = verticalMetrics(font);
    if (dw2) {
      const arr = doc.newArray();
      arr.push(doc.newReal(dw2.vy));
      arr.push(doc.newReal(dw2.w1));
      descendant.put('DW2', arr);
    }
  }
  const fd = descendant.get('FontDescriptor');
  const file = fd.get('FontFile2').isNull() ? fd.get('FontFile3') : fd.get('FontFile2');
  let fontFileBytes = 0;
  let subsetGlyphs: number[] | null = null;
  if (!file.isNull() && file.get('Filter').isNull()) {
    let raw = file.readStream().asUint8Array();
    const chars = new Map(newChars.map((ch, i) => [ch.codePointAt(0) ?? 0, gids[i]]));
    // A machine face whose fsType forbids subsetting (bit 8) is embedded whole.
    const subsettable = face.origin === 'bundled' || face.subsettable;
    const subset = !subsettable
      ? null
      : fd.get('FontFile2').isNull()
        ? cffSubset(raw, program, chars)
        : subsetTrueType(raw, chars);
    if (subset) {
      // A subset keeps only the glyphs drawn (ids unchanged); its name carries a subset tag, and
      // the kept ids say whether a later correction can draw with it too.
      raw = subset.bytes;
      subsetGlyphs = subset.glyphs;
      const tagged = `${subsetTag(face.id, subset.glyphs)}+${dict.get('BaseFont').asName()}`;
      dict.put('BaseFont', doc.newName(tagged));
      descendant.put('BaseFont', doc.newName(tagged));
      fd.put('FontName', doc.newName(tagged));
      const kept = doc.newArray();
      for (const g of subset.glyphs) kept.push(doc.newInteger(g));
      dict.put(GLYPHS_KEY, kept);
      keepSubsetEntries(doc, dict, descendant, subset.glyphs, chars);
    }
    const packed = deflateSync(raw, { level: 6 });
    file.put('Filter', doc.newName('FlateDecode'));
    if (!fd.get('FontFile2').isNull()) file.put('Length1', doc.newInteger(raw.length));
    file.writeRawStream(packed);
    fontFileBytes = packed.length;
  }
  const changed: ChangedObject[] = [];
  for (const o of [ref, descendant, fd, file, dict.get('ToUnicode')]) {
    if (o.isIndirect())
      changed.push({
        num: o.asIndirect(),
        kind: 'font',
        replaces: 0,
        bytes_before: 0,
        bytes_after: o === file ? fontFileBytes : 0,
      });
  }
  return { ref, changed, fontFileBytes, subsetGlyphs };
}

/** Size (text space units on the page) the glyph is drawn at. */
function drawnSize(g: Glyph): number {
  const m = [g.tm[0] * g.ctm[0] + g.tm[1] * g.ctm[2], g.tm[0] * g.ctm[1] + g.tm[1] * g.ctm[3]];
  const n = [g.tm[2] * g.ctm[0] + g.tm[3] * g.ctm[2], g.tm[2] * g.ctm[1] + g.tm[3] * g.ctm[3]];
  return g.state.Tfs * Math.sqrt(Math.abs(m[0] * n[1] - m[1] * n[0]));
}

/** Matched faces embedded by the correction being built (not reused): their W may still be set. */
const freshlyEmbedded = new WeakMap<FontInfo, mupdf.PDFDocument>();

/**
 * Embedded faces whose new glyphs take the old glyphs' cells whatever their own advances: CJK text
 * (an ideograph for an ideograph, a Latin letter set in an ideograph's cell).
 */
const takesCells = new WeakSet<FontInfo>();

/**
 * Gives each new glyph of a freshly embedded face the advance of the old glyph it replaces (same
 * number of glyphs only), written in W as the original font writes its width (e.g. 555.6), so no TJ
 * adjustment is needed for it. Each renderer reads a width the same way in Widths and in W (MuPDF
 * rounded to a whole number, 555.6 → 556; PDFium truncated, 555; poppler as written), so the pen
 * after the run lands where each renderer had it before; with the face's own width and a TJ
 * adjustment, renderers that read widths differently disagree by the difference (PDFium's tail
 * moved by 0.6/1000 em and some glyphs rounded to the next pixel). Only the advances change: every
 * glyph is drawn where it was, the new ones at the old ones' places.
 */
function mirrorOldWidths(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
  scale = 1,
): void {
  const doc = freshlyEmbedded.get(info);
  if (!doc) return;
  const old = oldWidthsFor(glyphs, codes, info, scale);
  // Drawn at a horizontal scale, a glyph advances by its width times the scale: the width that
  // gives the old advance is the old width divided by it (the TJ adjustment takes the remainder).
  // A glyph too wide or too narrow for the old one's place keeps its own advance, in the old
  // width's fraction.
  const want = old
    ? scale === 1
      ? old
      : new Map([...old].map(([gid, w]) => [gid, scaledWidth(w, scale)]))
    : oldFractionsFor(glyphs, codes, info);
  if (!want || [...want].every(([gid, w]) => info.widths.get(gid) === w)) return;
  rewriteWidths(doc, info, want);
}

/**
 * Gives the last new glyph of a freshly embedded face the old last glyph's width as written (W),
 * when every glyph before it already advances as the old one in its place did (the line is not
 * re-spaced: the pen goes back to where the old span ended): the pen after the run is then summed
 * from the same addends as the old span's, and no TJ adjustment follows. Each glyph is still drawn
 * where it was (a wider one into the word gap the fit rule gave it, a narrower one leaving the gap
 * it judged); only the arithmetic of the pen changes. With the face's own width and
 * an adjustment (564 + 32 for a 596 slot) the sum can differ from the old one in its last bit, and
 * poppler's quarter-pixel glyph placement then draws a glyph further along the line with another
 * anti-aliasing (an Apache FOP line, 150 dpi), which the pixel comparison reads as a change.
 */
function takeOldLastAdvance(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
): void {
  const doc = freshlyEmbedded.get(info);
  if (!doc || glyphs.length !== codes.length || glyphs[0].font.wmode !== 0) return;
  const want = new Map<number, number>();
  for (let i = 0; i < glyphs.length; i += 1) {
    const g = glyphs[i];
    if (g.font.widthScale !== 0.001 || g.font.intWidths || takesCells.has(info)) return;
    const old = g.font.widths.get(g.code) ?? (g.font.composite ? g.font.defaultWidth : undefined);
    const own = info.widths.get(codes[i].code);
    if (old === undefined || !(old > 0) || own === undefined) return;
    if (i < glyphs.length - 1 && own !== old) return;
    // One glyph id has one width: a code drawn twice must take the same old width both times.
    const prev = want.get(codes[i].code);
    if (prev !== undefined && prev !== old) return;
    want.set(codes[i].code, old);
  }
  if ([...want].every(([gid, w]) => info.widths.get(gid) === w)) return;
  rewriteWidths(doc, info, want);
}

/** Sets the W entries `want` (glyph id → width) of a freshly embedded face, keeping the others. */
function rewriteWidths(doc: mupdf.PDFDocument, info: FontInfo, want: Map<number, number>): void {
  const W = info.dict.get('DescendantFonts').get(0).get('W');
  if (!W.isArray()) return;
  const all = new Map(info.widths);
  for (const [gid, w] of want) all.set(gid, w);
  for (let i = W.length - 1; i >= 0; i -= 1) W.delete(i);
  fillCidWidths(doc, W, all);
  for (const [gid, w] of want) info.widths.set(gid, w);
}

/**
 * The width that advances as `w` does when drawn at `scale`, keeping `w`'s fraction: renderers read a
 * written width differently (MuPDF rounds half up, PDFium truncates, poppler keeps every digit), and
 * n + f then advances as the old m + f does in each of them, within f × (1 − scale) of a unit. A
 * whole 544 in place of cm-super's 528.9 at 97.24 % moved the rest of the line one unit in PDFium.
 */
export function scaledWidth(w: number, scale: number): number {
  return withFraction(w / scale, w - Math.floor(w));
}

/**
 * How far (1/1000 em) a new glyph's own advance may be from the old one's for it to take the old
 * (the fit rule's allowance): an accented letter in its base letter's place, a metric-compatible
 * face's rounding. A wider letter in a narrow one's cell would overlap the next, a narrower one
 * leave a hole in the word; those keep their own advances and go through the fit rule.
 */
const MIRROR_TOLERANCE = 20;

/**
 * The W entries (glyph id → width) that give each new glyph of a freshly embedded face the old
 * glyph's advance, or null when that cannot be done (another count of glyphs, a face embedded by an
 * earlier correction, widths in other units, one glyph asked to take two widths, a glyph whose own
 * advance drawn at `scale` is more than MIRROR_TOLERANCE from the old, except in a CJK cell or a
 * column of vertical text). An accented letter then takes its base letter's advance (í where i
 * stood): its accent may overhang a little, which the pixel comparison judges like any other ink.
 */
export function oldWidthsFor(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
  scale = 1,
): Map<number, number> | null {
  return newWidthsFrom(glyphs, codes, info, (own, old, g) =>
    takesCells.has(info) || g.font.wmode !== 0 || Math.abs(own * scale - old) <= MIRROR_TOLERANCE
      ? old
      : null,
  );
}

/**
 * For new glyphs that keep their own advances: each one's width moved by less than half a unit to
 * end in the fraction of the old glyph's width it replaces (withFraction), so every renderer reads
 * the run's widths as it read the old run's (a TJ adjustment written exactly then puts the pen back
 * in each); null as for oldWidthsFor.
 */
function oldFractionsFor(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
): Map<number, number> | null {
  return newWidthsFrom(glyphs, codes, info, (own, old) => withFraction(own, old - Math.floor(old)));
}

/**
 * The width `pick` gives each new glyph of a freshly embedded face (from its own width and the width
 * of the old glyph in its place, 1/1000 em), one per glyph id; null where another count of glyphs
 * replaces the old, a face embedded by an earlier correction, widths in other units, `pick` says
 * null, or one glyph would take two widths.
 */
function newWidthsFrom(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
  pick: (own: number, old: number, g: Glyph) => number | null,
): Map<number, number> | null {
  if (!freshlyEmbedded.has(info) || glyphs.length !== codes.length) return null;
  const want = new Map<number, number>();
  for (let i = 0; i < glyphs.length; i += 1) {
    const g = glyphs[i];
    if (g.font.widthScale !== 0.001 || g.font.intWidths) return null;
    // A CID font's glyphs without a W entry take its DW (CJK fonts list only the exceptions).
    const old = g.font.widths.get(g.code) ?? (g.font.composite ? g.font.defaultWidth : undefined);
    if (old === undefined || !(old > 0)) return null;
    const w = pick(codeWidth(info, codes[i].code) * 1000, old, g);
    if (w === null) return null;
    const prev = want.get(codes[i].code);
    if (prev !== undefined && prev !== w) return null;
    want.set(codes[i].code, w);
  }
  return want;
}

/**
 * A font object of the document that embeds bundled face `id` (added by an earlier correction) and
 * draws every glyph of `gids`: the whole face, or a subset that kept them. A subset without them is
 * left as it is (pages drawn with it keep their bytes) and a new subset is embedded beside it.
 */
function findEmbedded(
  doc: mupdf.PDFDocument,
  id: string,
  gids: number[],
  vertical: { vy: number; w1: number } | null,
): mupdf.PDFObject | null {
  const count = doc.countObjects();
  for (let num = count - 1; num > 0; num -= 1) {
    const ref = doc.newIndirect(num);
    const obj = ref.resolve();
    if (!obj.isDictionary() || obj.isStream()) continue;
    const marker = obj.get(MARKER_KEY);
    if (marker.isNull() || marker.asString() !== id || obj.get('Subtype').asName() !== 'Type0') continue;
    // A vertical line needs a copy embedded for vertical writing with the same DW2, and vice versa.
    if ((obj.get('Encoding').asName() === 'Identity-V') !== (vertical !== null)) continue;
    if (vertical) {
      const own = verticalMetrics(loadFontInfo(ref));
      if (!own || own.vy !== vertical.vy || own.w1 !== vertical.w1) continue;
    }
    const kept = obj.get(GLYPHS_KEY);
    if (kept.isArray()) {
      const has = new Set<number>();
      for (let i = 0; i < kept.length; i += 1) has.add(kept.get(i).asNumber());
      if (!gids.every((g) => has.has(g))) continue;
    }
    return ref;
  }
  return null;
}

/**
 * W and ToUnicode as MuPDF wrote them cover the whole face (23 KB and 6 KB for DejaVu Sans); a
 * subset's keep only its glyphs: their widths, and the characters the correction draws.
 */
function keepSubsetEntries(
  doc: mupdf.PDFDocument,
  dict: mupdf.PDFObject,
  descendant: mupdf.PDFObject,
  glyphs: number[],
  chars: ReadonlyMap<number, number>,
): void {
  const widths = new Map<number, number>();
  const W = descendant.get('W');
  for (let i = 0; W.isArray() && i + 1 < W.length;) {
    const first = W.get(i).asNumber();
    const next = W.get(i + 1);
    if (next.isArray()) {
      for (let k = 0; k < next.length; k += 1) widths.set(first + k, next.get(k).asNumber());
      i += 2;
    } else {
      const last = next.asNumber();
      const w = W.get(i + 2).asNumber();
      for (let g = first; g <= last; g += 1) if (glyphs.includes(g)) widths.set(g, w);
      i += 3;
    }
  }
  if (W.isArray()) {
    // In place: MuPDF writes W as an object of its own, which must not be left behind unused.
    for (let i = W.length - 1; i >= 0; i -= 1) W.delete(i);
    for (const g of glyphs) {
      const w = widths.get(g);
      if (w === undefined) continue;
      const one = doc.newArray();
      one.push(Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
      W.push(doc.newInteger(g));
      W.push(one);
    }
  }
  const hex = (n: number, digits: number) => n.toString(16).toUpperCase().padStart(digits, '0');
  const utf16 = (cp: number) =>
    String.fromCodePoint(cp)
      .split('')
      .map((unit) => hex(unit.charCodeAt(0), 4))
      .join('');
  const entries = [...chars].filter(([, g]) => g > 0).sort((a, b) => a[1] - b[1]);
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    `${entries.length} beginbfchar`,
    ...entries.map(([cp, g]) => `<${hex(g, 4)}> <${utf16(cp)}>`),
    'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const tu = dict.get('ToUnicode');
  if (tu.isStream()) tu.writeStream(cmap);
}

/**
 * A subset of an OpenType face with CFF outlines (Latin Modern), used only where every kept glyph
 * draws as in the whole face (a CFF glyph may be built from others the subset emptied).
 */
function cffSubset(
  raw: Uint8Array,
  program: mupdf.Font,
  chars: ReadonlyMap<number, number>,
): FontSubset | null {
  const subset = subsetOpenType(raw, chars);
  return subset && drawsAlike(program, subset.bytes, subset.glyphs) ? subset : null;
}

/** Six capital letters from the face and its kept glyphs (PDF 32000-1 9.6.4: a subset's tag). */
function subsetTag(faceId: string, glyphs: number[]): string {
  const digest = createHash('sha256')
    .update(`${faceId}:${glyphs.join(',')}`)
    .digest();
  return [...digest.subarray(0, 6)].map((b) => String.fromCharCode(65 + (b % 26))).join('');
}

/** A fresh resource name for the owner's /Font dictionary. */
export function freshFontName(resources: mupdf.PDFObject): string {
  const fonts = resources.get('Font');
  for (let k = 1; ; k += 1) {
    const name = `DFM${k}`;
    if (!fonts.isDictionary() || fonts.get(name).isNull()) return name;
  }
}

export interface MatchedEditPlan {
  edits: Map<number, StreamEdit[]>;
  /** Advance of the new run (text space) and of the old span, and the adjustment written. */
  newAdvance: number;
  oldExtent: number;
  adjustment: number;
}

/**
 * Splits the operator that draws `glyphs` (all in one operator) around them and draws `codes` in the
 * matched (or sibling) font between two Tf, keeping every other glyph where it was. (Drawing the new run after
 * the whole operator instead would keep the operator intact but put the new letters at the end of
 * the line in extraction order: the text layer would not read true.)
 */
export function planMatchedEdits(
  units: StreamUnit[],
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
  newName: string,
  squeeze: number | null = null,
  kerns: Kern[] = [],
): MatchedEditPlan | null {
  const first = glyphs[0];
  const last = glyphs[glyphs.length - 1];
  if (glyphs.some((g) => g.unit !== first.unit || g.opIndex !== first.opIndex)) return null;
  const unit = units[first.unit];
  const op: ContentOp = unit.ops[first.opIndex];
  const t = first.state;
  const scale = t.Tfs * t.Th;
  if (scale === 0) return null;
  mirrorOldWidths(glyphs, codes, info, squeeze ?? 1);
  // The old span's extent in text space: advances plus the TJ numbers between its glyphs.
  let oldExtent = glyphs.reduce((s, g) => s + g.advance, 0);
  let innerNumbers = false;
  const arr = op.operands[op.operands.length - 1];
  if (first.element >= 0 && arr?.kind === 'array') {
    for (let e = first.element + 1; e < last.element; e += 1) {
      const it = arr.items[e];
      if (it.kind === 'number') {
        oldExtent -= (it.value / 1000) * scale;
        innerNumbers = true;
      }
    }
  }
  // With a re-spaced line the numbers after the run move the rest of the word from the new
  // glyph's own advance (extraction reads a gap from its advance), so it keeps it there.
  if (squeeze === null && !innerNumbers && kerns.length === 0) takeOldLastAdvance(glyphs, codes, info);
  const newAdvance = advanceOf(info, codes, first) * (squeeze ?? 1);
  let adjustment = ((newAdvance - oldExtent) * 1000) / scale;
  // Vertical: as many glyphs as before, each advancing by the same DW2 (verticalRule).
  if (first.font.wmode === 1 || Math.abs(adjustment) < 5e-5) adjustment = 0;
  const hexRun = encodeString(Uint8Array.from(codes.flatMap((c) => codeToBytes(c.code, c.length))), true);
  // Inside a squeezed run the number is drawn at the run's horizontal scale too.
  const written = squeeze === null ? adjustment : adjustment / squeeze;
  const run = adjustment === 0 ? `${hexRun} Tj` : `[${hexRun} ${formatNumber(written)}] TJ`;
  const size = exactNumber(t.Tfs);
  // A squeezed run is drawn at a narrower horizontal scale, then the line's scale is set again.
  const scaled = (body: string) =>
    squeeze === null
      ? body
      : `${formatNumber(t.Th * 100 * squeeze)} Tz ${body} ${formatNumber(t.Th * 100)} Tz`;
  const middle = `${nameToken(newName)} ${size} Tf ${scaled(run)} ${nameToken(first.fontName)} ${size} Tf`;
  const raw = (o: { start: number; end: number }) =>
    Buffer.from(unit.bytes.subarray(o.start, o.end)).toString('latin1');
  let text: string;
  if (first.element >= 0 && arr?.kind === 'array') {
    const s1 = arr.items[first.element] as Operand & { kind: 'string' };
    const s2 = arr.items[last.element] as Operand & { kind: 'string' };
    // The array up to the new run, with the numbers of a line re-spaced before it.
    // An item of the array as written, or a string cut by the numbers a re-spaced line puts in it.
    // Empty strings are left out: PDFium would drop a number ending the array (emptyStringEdits).
    const item = (it: Operand, element: number) => {
      const here = kernsIn(kerns, { ...first, element });
      if (it.kind === 'string' && it.bytes.length === 0) return '';
      return it.kind === 'string' && here.length ? kernedItems(it, 0, here) : raw(it);
    };
    const head: string[] = arr.items
      .slice(0, first.element)
      .map((it, i) => item(it, i))
      .filter((x) => x !== '');
    const lead = kernedItems(s1, 0, kernsBefore(kerns, first), first.offset);
    if (lead.length) head.push(lead);
    const tail: string[] = [];
    // The rest of the array, with the numbers of a re-spaced line (line-respacing.ts) before its words.
    const rest = kernedItems(s2, last.offset + last.length, kernsIn(kerns, last, last.offset + last.length));
    if (rest.length) tail.push(rest);
    arr.items.slice(last.element + 1).forEach((it, i) => {
      const written = item(it, last.element + 1 + i);
      if (written !== '') tail.push(written);
    });
    const parts: string[] = [];
    if (head.length) parts.push(`[${head.join(' ')}] TJ`);
    parts.push(middle);
    if (tail.length) parts.push(`[${tail.join(' ')}] TJ`);
    text = ` ${parts.join(' ')} `;
  } else {
    const s = (op.op === '"' ? op.operands[2] : op.operands[op.operands.length - 1]) as Operand & {
      kind: 'string';
    };
    if (s?.kind !== 'string') return null;
    const before = s.bytes.subarray(0, first.offset);
    const after = s.bytes.subarray(last.offset + last.length);
    const parts: string[] = [];
    if (op.op === "'") parts.push('T*');
    else if (op.op === '"') parts.push(`${raw(op.operands[0])} Tw ${raw(op.operands[1])} Tc T*`);
    else if (op.op !== 'Tj') return null;
    const lead = kernsBefore(kerns, first);
    if (lead.length) parts.push(`[${kernedItems(s, 0, lead, first.offset)}] TJ`);
    else if (before.length) parts.push(`${encodeString(before, s.hex)} Tj`);
    parts.push(middle);
    const here = kernsIn(kerns, last, last.offset + last.length);
    if (here.length) parts.push(`[${kernedItems(s, last.offset + last.length, here)}] TJ`);
    else if (after.length) parts.push(`${encodeString(after, s.hex)} Tj`);
    text = ` ${parts.join(' ')} `;
  }
  const edits = new Map([[first.unit, [{ start: op.start, end: op.end, text }]]]);
  // A re-spaced line's numbers in later operators (words placed with their own Td or Tm).
  addKernEdits(
    units,
    kerns.filter((k) => k.glyph.unit !== first.unit || k.glyph.opIndex !== first.opIndex),
    edits,
  );
  return { edits, newAdvance, oldExtent, adjustment };
}
