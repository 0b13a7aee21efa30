// The fit rule: how much wider the new text may be than the old one, where the line has room for it
// (the gap to the next character, the line's end, its column's edge, the word gaps re-spaced), and
// the refusals when it has none (docs/engine.md, Fit).
import type { TierRejection } from '../../schemas.ts';
import type { Located } from '../locate/located.ts';
import { devicePoint } from '../locate/located.ts';
import { apply as applyMat, mul } from '../locate/text-interpreter.ts';
import { WORD_GAP_EM } from '../locate/target.ts';
import type { TextLine } from '../locate/page-text.ts';
import type { Glyph } from '../locate/text-interpreter.ts';
import { NOT_BUILT, refuse, TIER_NAMES } from '../refusals.ts';
import { advanceOf, keepsInnerKerning } from '../rewrite/rewrite.ts';
import type { TierProduct } from '../tiers/tier.ts';
import { planRespacing, respacingExtent, type Respacing } from './line-respacing.ts';

const round = (v: number) => Math.round(v * 1000) / 1000;

/** Overflow allowed past the old text's end without any gap to use, in em. */
export const FIT_TOLERANCE_EM = 0.02;

/** Space kept between the new text's end and the next drawn character, in em. */
export const KEEP_GAP_EM = 0.15;

/** Overflow allowed at the end of a line (nothing follows), in em. */
export const LINE_END_ALLOWANCE_EM = 0.25;

/**
 * A gap inside a word at least this wide (in em) may read as a word break: poppler's pdftotext
 * breaks words at a gap of 0.1 of the font size (TextOutputDev's minWordBreakSpace), MuPDF only at
 * a wider one, so MuPDF's text check alone would pass a word poppler reads split.
 */
export const WORD_BREAK_EM = 0.08;

/** poppler's own word break (TextOutputDev's minWordBreakSpace): a gap this wide (em) already reads as one. */
const POPPLER_WORD_BREAK_EM = 0.1;

/** How far (em) kerning may pull a letter back into the advance of the one before it. */
const KERN_BACK_EM = 0.3;

/** The new text's extent against the old one's and the room after it; the correction's measurements. */
export interface Fit {
  measurements: Record<string, unknown>;
  overflow: number;
  rule: string;
  /** The font size on the page, and the length of one text-space unit along the baseline. */
  emPts: number;
  dirLen: number;
  vertical: boolean;
  /** Replaced code for code inside one TJ array: the kerning numbers between the letters stay. */
  spread: boolean;
  /** The word gaps after the target narrowed for a wider replacement (line-respacing.ts). */
  respacing: Respacing | null;
}

/** The line the target is on, measured along its baseline from the old text's start (points). */
interface Baseline {
  /** The font size on the page, and the length of one text-space unit along the baseline. */
  emPts: number;
  dirLen: number;
  dir: [number, number];
  /** Distance of a point along the baseline, and across it, from the old text's start. */
  along: (p: [number, number]) => number;
  across: (p: [number, number]) => number;
  /** A hundredth of an em: what counts as past a point. */
  eps: number;
}

function baselineOf(t: Located): Baseline {
  const g0 = t.g0;
  const start = devicePoint(g0, 0);
  const unitX = devicePoint(g0, 1);
  const dirLen = Math.hypot(unitX[0] - start[0], unitX[1] - start[1]) || 1;
  const dir: [number, number] = [(unitX[0] - start[0]) / dirLen, (unitX[1] - start[1]) / dirLen];
  const emPts = Math.abs(g0.state.Tfs) * dirLen;
  const along = (p: [number, number]) => (p[0] - start[0]) * dir[0] + (p[1] - start[1]) * dir[1];
  const across = (p: [number, number]) => -(p[0] - start[0]) * dir[1] + (p[1] - start[1]) * dir[0];
  return { emPts, dirLen, dir, along, across, eps: 0.01 * emPts };
}

/** The old text's extent and the new one's along the baseline, and whether the kerns inside it stay. */
function extents(t: Located, product: TierProduct, b: Baseline) {
  const { glyphs, g0, font } = t;
  const { codes, widthFont } = product;
  const vertical = font.wmode === 1;
  // A freshly embedded matched face takes the old glyphs' advances (tier4.ts, mirrorOldWidths).
  const newAdvance = product.keepsOldAdvances
    ? glyphs.reduce((s, g) => s + g.advance, 0)
    : advanceOf(widthFont, codes, g0) * (product.squeeze ?? 1);
  const last = glyphs[glyphs.length - 1];
  const oldExtent = b.along(devicePoint(last, last.advance));
  // Vertical: the same count of glyphs with one advance each takes the column's old extent.
  // A swap made in place draws each new glyph where the old one stood (cross-font-swap.ts).
  let newExtent =
    vertical || product.inPlace ? oldExtent : newAdvance * b.dirLen * Math.sign(g0.state.Th || 1);
  // Replaced code for code inside one TJ array, the kerning numbers between the letters stay
  // where they are (rewrite.ts), so they count in the new extent as they did in the old.
  const spread = !vertical && product.draw.use !== 'inserted' && keepsInnerKerning(glyphs, codes);
  if (spread) {
    const oldWidths = glyphs.reduce((s, g) => s + g.advance, 0) * b.dirLen * Math.sign(g0.state.Th || 1);
    newExtent += oldExtent - oldWidths;
  }
  return { vertical, oldExtent, newExtent, spread };
}

/**
 * The first character (not a space) on the baseline's band from `from` on, and the nearest space
 * there: the next character ahead, whatever line or block MuPDF put it in (table cells, columns,
 * right-to-left runs).
 */
function ahead(t: Located, b: Baseline, from: number, skip: Set<unknown>) {
  let first: { c: string; at: number } | null = null;
  let space = Infinity;
  for (const l of t.lines)
    for (const ch of l.chars) {
      if (skip.has(ch) || Math.abs(b.across(ch.origin)) > 0.5 * b.emPts) continue;
      const at = b.along(ch.origin);
      if (at < from) continue;
      if (/\s/.test(ch.c)) space = Math.min(space, at);
      else if (!first || at < first.at) first = { c: ch.c, at };
    }
  return { first, space };
}

/**
 * Where a line starts and ends along the target's baseline (points from the old text's start): its
 * characters' quads projected on the baseline, so a rotated or skewed line is measured in its own
 * frame as an upright one is by its box. Null for a line not parallel to the target's (or empty).
 */
function extentAlong(l: TextLine, b: Baseline): { start: number; end: number } | null {
  if (!l.chars.length || l.dir[0] * b.dir[0] + l.dir[1] * b.dir[1] < 0.99) return null;
  let start = Infinity;
  let end = -Infinity;
  for (const ch of l.chars)
    for (let k = 0; k < 8; k += 2) {
      const at = b.along([ch.quad[k]!, ch.quad[k + 1]!]);
      start = Math.min(start, at);
      end = Math.max(end, at);
    }
  return { start, end };
}

/**
 * The page's other lines parallel to the target's, measured along its baseline (extentAlong), with
 * how far across it their first character stands (below it positive on an upright line).
 */
function parallelLines(t: Located, b: Baseline): { start: number; end: number; across: number }[] {
  const out: { start: number; end: number; across: number }[] = [];
  for (const l of t.lines) {
    const e = l === t.match.line ? null : extentAlong(l, b);
    if (e) out.push({ ...e, across: b.across(l.chars[0]!.origin) });
  }
  return out;
}

/** How far (in ems) the lines just above and below a line are looked for. */
const NEIGHBOUR_LINE_EM = 3;

/**
 * The line is set flush: two or more of the page's parallel lines end where it does, within half a
 * point, and one of them is the nearest line above it or below it (overlapping it along the
 * baseline, within NEIGHBOUR_LINE_EM): a justified paragraph's line, or right-aligned text. A
 * paragraph's last line, shorter than the one above, is not, whatever lines elsewhere on the page
 * happen to end where it does (a pdf-lib man page's “partir du fichier.” ended where two short
 * lines far below it did).
 */
function setFlush(t: Located, b: Baseline, me: { start: number; end: number }): boolean {
  const lines = parallelLines(t, b);
  if (lines.filter((l) => Math.abs(l.end - me.end) < 0.5).length < 2) return false;
  let above: { end: number; across: number } | null = null;
  let below: { end: number; across: number } | null = null;
  for (const l of lines) {
    if (l.end <= me.start || l.start >= me.end) continue;
    const off = l.across;
    if (Math.abs(off) < 0.5 * b.emPts || Math.abs(off) > NEIGHBOUR_LINE_EM * b.emPts) continue;
    if (off < 0 && (!above || off > above.across)) above = l;
    if (off > 0 && (!below || off < below.across)) below = l;
  }
  return [above, below].some((l) => l !== null && Math.abs(l.end - me.end) < 0.5);
}

/**
 * The end the line's column is set to, along the line's baseline (its right edge on an upright
 * line): the commonest end (within half a point) of the page's other lines parallel to it that
 * start where this one does (within half a point: a centred line starts elsewhere), when two or
 * more share it (a justified paragraph's width). A heading or a paragraph's last line may grow up
 * to it. Measured in the line's own frame, so a rotated or skewed column is read as an upright one.
 */
function columnRightEdge(t: Located, b: Baseline): number | null {
  const me = extentAlong(t.match.line, b);
  if (!me) return null;
  const edges = parallelLines(t, b)
    .filter((l) => Math.abs(l.start - me.start) < 0.5)
    .map((l) => l.end);
  let best: number | null = null;
  let most = 1;
  for (const e of edges) {
    const n = edges.filter((x) => Math.abs(x - e) < 0.5).length;
    if (n > most) [best, most] = [e, n];
  }
  return best;
}

/**
 * Room after a later glyph of the line (re-spacing moves the line's last word into it): to the next
 * character on the band, keeping KEEP_GAP_EM, or past the line's end where the line is not set flush
 * with others (a justified line keeps its right edge): LINE_END_ALLOWANCE_EM, or up to its column's
 * right edge. Ends and edges are read along the line's baseline, whatever its direction.
 */
function roomAfter(t: Located, b: Baseline, columnRight: number | null) {
  const { emPts } = b;
  const me = extentAlong(t.match.line, b);
  const flush = me !== null && setFlush(t, b, me);
  return (g: Glyph) => {
    const end = b.along(devicePoint(g, g.advance));
    const following = ahead(t, b, end + b.eps, new Set()).first;
    if (following) return Math.min(LINE_END_ALLOWANCE_EM * emPts, following.at - end - KEEP_GAP_EM * emPts);
    if (!me || flush) return 0;
    const toColumnEdge = columnRight !== null ? columnRight - end : 0;
    return Math.max(LINE_END_ALLOWANCE_EM * emPts, toColumnEdge);
  };
}

/** What follows the old text on its line: the next character, the gap to it, and a word gap. */
interface Surroundings {
  next: { c: string; at: number } | null;
  gapToNext: number | null;
  /**
   * The gap a text extractor sees between the old text's last glyph and the next letter: gapToNext
   * and the spacing the last glyph's advance carries past its width (Tc, and Tw after a space),
   * which extractors such as poppler do not count as the glyph's own. A line justified by letter
   * spacing has such a gap inside every word, just under the width that reads as a space.
   */
  innerGap: number;
  spaceFollows: boolean;
}

function surroundings(t: Located, b: Baseline, oldExtent: number): Surroundings {
  const { span } = t;
  const spanChars = new Set(t.match.line.chars.slice(span.spanStart, span.spanEnd));
  // From a little before the old end: kerning may pull the next letter back (Liberation Sans Bold's
  // “е” starts 0.01 em inside “л”'s advance), and a letter missed here is a word gap believed.
  const { first: next, space: nearestSpace } = ahead(
    t,
    b,
    Math.max(b.eps, oldExtent - KERN_BACK_EM * b.emPts),
    spanChars,
  );
  const gapToNext = next ? next.at - oldExtent : null;
  const last = t.glyphs[t.glyphs.length - 1];
  const carried =
    last && t.font.wmode !== 1
      ? (last.state.Tc + (last.length === 1 && last.code === 32 ? last.state.Tw : 0)) *
        last.state.Th *
        b.dirLen
      : 0;
  const innerGap = (gapToNext ?? 0) + carried;
  // A word gap is a space character before the next letter, or a gap as wide as one (producers
  // that place each word by itself draw no space glyph at all).
  const spaceFollows =
    (next ? nearestSpace < next.at : nearestSpace < Infinity) ||
    (gapToNext !== null && gapToNext >= WORD_GAP_EM * b.emPts);
  return { next, gapToNext, innerGap, spaceFollows };
}

/**
 * A narrower replacement widens the gap before the next letter of its word by what it lacks; that
 * gap then reads as a word break (WORD_BREAK_EM, with margin under poppler's tenth of an em) where it
 * did not before. A gap poppler already reads as one stays one, however wide.
 */
function opensWordBreak(around: Surroundings, overflow: number, emPts: number): boolean {
  if (!around.next || around.spaceFollows || overflow >= 0) return false;
  const before = around.innerGap;
  return before < POPPLER_WORD_BREAK_EM * emPts && before - overflow >= WORD_BREAK_EM * emPts;
}

/** How much wider the new text may be (`allowed`), by which rule, and the re-spacing that makes room. */
interface Room {
  allowed: number;
  rule: string;
  respacing: Respacing | null;
}

/**
 * The rule that applies, in order: the new text fits (narrower: the rest of the word may follow
 * it); nothing follows on the line (its end, its column's edge, or the gaps before it re-spaced);
 * a word gap follows (used down to KEEP_GAP_EM, then the line re-spaced); the word goes on (the
 * rest of it moves with the new letters); else no gap, only the tolerance.
 */
function chooseRoom(
  t: Located,
  product: TierProduct,
  b: Baseline,
  overflow: number,
  vertical: boolean,
  around: Surroundings,
): Room {
  const { glyphs } = t;
  const { emPts } = b;
  const { next, gapToNext, spaceFollows } = around;
  const last = glyphs[glyphs.length - 1];
  const room = roomAfter(t, b, columnRightEdge(t, b));
  const geometry = { along: (g: Glyph, x: number) => b.along(devicePoint(g, x)), dirLen: b.dirLen, emPts };
  // Re-spacing the line (line-respacing.ts). Each gap stays a word gap by this engine's own
  // measure: MuPDF reads no space into a gap of 0.15 em in some fonts (Linux Libertine's 0.25 em
  // space narrowed that far). The gaps after the target give first; where they cannot give enough,
  // those before it on the line give too.
  const respace = (by: number, restOfWord: boolean) => {
    const limits = { keepGapEm: WORD_GAP_EM, wordGapEm: WORD_GAP_EM, roomAfter: room, restOfWord };
    const plan = (before: boolean) =>
      planRespacing(glyphs, t.interp, t.match.line.chars, t.index, by, geometry, { ...limits, before });
    return plan(false) ?? (by > 0 ? plan(true) : null);
  };
  // New letters drawn in another font (tier 4) inside a word: the rest of the word stays in its own
  // font and moves with them, the gaps of the line giving (or taking) the difference. So does the
  // rest of a word that could not be redrawn with it (in another operator or font: Scribus draws a
  // Vietnamese letter's mark in a font of its own), whatever the tier, on the engine's last attempt
  // (before it, a redraw to the word's end may still fit at no cost).
  const restOfWord = (by: number) =>
    (product.draw.use === 'inserted' || t.restMoves) && gapOpens(t, product) && next && !spaceFollows
      ? respace(by, true)
      : null;
  const canRespace = !vertical && !product.inPlace;
  let respacing: Respacing | null = null;
  if (overflow <= FIT_TOLERANCE_EM * emPts) {
    const rule = `fits: the new text is no wider than the old (+${FIT_TOLERANCE_EM} em tolerance)`;
    if (opensWordBreak(around, overflow, emPts) && (respacing = restOfWord(overflow)))
      return { allowed: FIT_TOLERANCE_EM * emPts, rule: `narrower: ${respacedPhrase(respacing)}`, respacing };
    return { allowed: FIT_TOLERANCE_EM * emPts, rule, respacing: null };
  }
  if (!next) {
    const allowed = Math.max(LINE_END_ALLOWANCE_EM * emPts, room(last));
    const rule =
      allowed > LINE_END_ALLOWANCE_EM * emPts
        ? `line end: up to the right edge of the line's column (${round(allowed)} pt) when nothing follows on the line`
        : `line end: up to ${LINE_END_ALLOWANCE_EM} em past the old end when nothing follows on the line`;
    // The line's last word, wider than that: the word gaps before it give the rest.
    respacing = overflow > allowed && canRespace ? respace(overflow, false) : null;
    return respaced(respacing, overflow) ?? { allowed, rule, respacing: null };
  }
  if (spaceFollows) {
    const allowed = Math.max(FIT_TOLERANCE_EM * emPts, (gapToNext ?? 0) - KEEP_GAP_EM * emPts);
    const rule = `word gap: may use the space to the next word, keeping ${KEEP_GAP_EM} em before it`;
    // Wider than that gap: the word gaps after it in its operator each give the same amount.
    respacing = overflow > allowed && canRespace ? respace(overflow, false) : null;
    return respaced(respacing, overflow) ?? { allowed, rule, respacing: null };
  }
  if ((respacing = restOfWord(overflow)))
    return {
      allowed: overflow,
      rule: `the word goes on: ${respacedPhrase(respacing)}, keeping ${WORD_GAP_EM} em each`,
      respacing,
    };
  return {
    allowed: FIT_TOLERANCE_EM * emPts,
    rule: `no gap: the next character follows directly; only ${FIT_TOLERANCE_EM} em tolerance`,
    respacing: null,
  };
}

/** A re-spaced line takes the whole overflow. */
function respaced(respacing: Respacing | null, overflow: number): Room | null {
  if (!respacing) return null;
  return {
    allowed: overflow,
    rule: `line re-spaced: ${respacedPhrase(respacing)}, keeping ${WORD_GAP_EM} em each`,
    respacing,
  };
}

/**
 * A narrower replacement leaves a gap where it ends (the glyphs after it stay where they were):
 * against the next letter of the word, a gap of WORD_BREAK_EM reads as a space.
 */
function gapOpens(t: Located, product: TierProduct): boolean {
  return t.font.wmode !== 1 && !product.inPlace && !product.mirrorsAdvances;
}

/** The correction's measurements: the font, the old and new text and codes, the widths and the rule. */
function fitMeasurements(
  t: Located,
  product: TierProduct,
  b: Baseline,
  e: { oldExtent: number; newExtent: number; overflow: number },
  around: Pick<Surroundings, 'gapToNext' | 'innerGap'>,
  room: Room,
): Record<string, unknown> {
  const { glyphs, g0, font, span, newChars } = t;
  const { gapToNext, innerGap } = around;
  const { respacing } = room;
  return {
    font: font.baseFont,
    font_kind: font.composite ? `Type0/${font.descendantKind}` : font.kind,
    embedded: font.embedded,
    encoding: font.encodingName || null,
    font_size: round(g0.state.Tfs),
    size_on_page_pt: round(b.emPts),
    old_text: t.match.line.chars
      .slice(span.spanStart, span.spanEnd)
      .map((c) => c.c)
      .join(''),
    new_text: newChars.join(''),
    old_codes: glyphs.map((g) => g.code),
    new_codes: product.codes.map((c) => c.code),
    code_sources: product.sources,
    width_before_pt: round(e.oldExtent),
    width_after_pt: round(e.newExtent),
    overflow_pt: round(e.overflow),
    allowed_overflow_pt: round(room.allowed),
    gap_to_next_pt: gapToNext === null ? null : round(gapToNext),
    // The gap extractors see, where letter spacing makes it differ from the pen's.
    ...(gapToNext !== null &&
      Math.abs(innerGap - gapToNext) > 0.005 && { gap_to_next_letter_pt: round(innerGap) }),
    fit_rule: room.rule,
    ...lineFrame(t, b),
    ...(respacing && {
      respaced: {
        word_gaps_pt: respacing.gaps.map((g) => ({ before: round(g.before), after: round(g.after) })),
        word_gaps_before_pt: respacing.gapsBefore.map((g) => ({
          before: round(g.before),
          after: round(g.after),
        })),
        target_move_pt: round(respacing.targetShift),
        glyphs_moved: respacingExtent(respacing).glyphs,
        max_move_pt: round(respacingExtent(respacing).moved),
        last_word_move_pt: round(respacing.endShift),
        rest_of_word: { glyphs: respacing.rest.glyphs, move_pt: round(respacing.rest.shift) },
      },
    }),
    ...product.measurements,
  };
}

/**
 * A line that is not upright (rotated text, a rotated page, form or CTM, or a shear such as fake
 * italics) is measured in its own frame: its baseline's angle on the page (degrees, counter-clockwise
 * as the page is seen), the shear of its glyphs (degrees their upright leans along the baseline),
 * the old text's quad in that frame (page points: start and end of its characters along the
 * baseline, from their bottom to their top) and its page-space box. Nothing for an upright line.
 */
function lineFrame(t: Located, b: Baseline): Record<string, unknown> {
  const g0 = t.g0;
  const origin = devicePoint(g0, 0);
  const m = mul(g0.tm, g0.ctm);
  const up = applyMat(m, 0, g0.state.Trise + 1);
  const yv = [up[0] - origin[0], up[1] - origin[1]];
  // Seen on the page (y down), the baseline's upright is the direction turned a quarter back.
  const upright = [b.dir[1], -b.dir[0]];
  const angle = (Math.atan2(-b.dir[1], b.dir[0]) * 180) / Math.PI;
  const shear =
    (Math.atan2(yv[0] * b.dir[0] + yv[1] * b.dir[1], yv[0] * upright[0] + yv[1] * upright[1]) * 180) /
    Math.PI;
  if (Math.abs(angle) < 0.05 && Math.abs(shear) < 0.05) return {};
  const chars = t.match.line.chars.slice(t.span.spanStart, t.span.spanEnd);
  const first = chars[0]!.quad;
  const last = chars[chars.length - 1]!.quad;
  // MuPDF's quads: upper left, upper right, lower left, lower right, in the line's own frame.
  const quad = [first[4]!, first[5]!, last[6]!, last[7]!, last[2]!, last[3]!, first[0]!, first[1]!].map(
    round,
  );
  const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
  const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
  return {
    line_frame: {
      angle_deg: round(angle),
      shear_deg: round(shear),
      target_quad_pt: quad,
      target_box_pt: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
    },
  };
}

/** The words of a refusal: the correction, and what the fit rule measured. */
interface Refused {
  tier: number;
  find: string;
  replacement: string;
  overflow: number;
  measurements: Record<string, unknown>;
  rejected: TierRejection[];
}

function refuseTooWide(r: Refused, room: Room): never {
  const { tier, find, replacement, overflow, measurements, rejected } = r;
  rejected.push({
    tier,
    tier_name: TIER_NAMES[tier],
    code: 'does_not_fit',
    reason: `The new text is ${round(overflow)} pt wider than the old and only ${round(Math.max(0, room.allowed))} pt may be used (${room.rule}).`,
    evidence: measurements,
  });
  refuse(
    'replacement_too_wide',
    `“${replacement}” is ${round(overflow)} pt wider than “${find}” in this font, and the line has no room for it.`,
    `The rest of the word is redrawn with it, and may take the gap after it down to ${KEEP_GAP_EM} em, or the word gaps after it on the line (in its text operator and in later ones of the same stream, up to a column's gap) down to ${WORD_GAP_EM} em each (the line is re-spaced, its last word may move into free space after it), and then those before it as well (the words before it moving left, the line's first staying); here they cannot give enough room, or another character follows directly.`,
    [
      'Choose a replacement of about the same width.',
      'Re-flowing the paragraph (moving words to the next line) is not something this engine does.',
    ],
    { rejected: [...rejected, ...NOT_BUILT], evidence: measurements },
  );
}

function refuseGapInsideWord(r: Refused, next: { c: string }, innerGap: number): never {
  const { tier, find, replacement, overflow, measurements, rejected } = r;
  const gap = round(innerGap - overflow);
  // The gap there already (letter spacing) is named when there is one: it is why a small difference counts.
  const spaced = innerGap > 0.005 ? ` (${round(innerGap)} pt of letter spacing there already)` : '';
  rejected.push({
    tier,
    tier_name: TIER_NAMES[tier],
    code: 'gap_inside_word',
    reason: `The new text is ${round(-overflow)} pt narrower than the old, and “${next.c}” follows directly: a gap of ${gap} pt${spaced}.`,
    evidence: measurements,
  });
  refuse(
    'gap_inside_word',
    `“${replacement}” is ${round(-overflow)} pt narrower than “${find}” here, and the gap of ${gap} pt it would leave before “${next.c}”${spaced} reads as a space.`,
    'Every other glyph of the line stays where it is, so a narrower replacement leaves a gap where it ends; text extraction (pdftotext breaks words at a tenth of an em) would read the word as two.',
    [
      'Choose a replacement of about the same width.',
      'The rest of the word is redrawn with it where it can be, so the gap joins the space after the word; a word that goes on in another text operator, or for more than 32 characters, cannot be.',
    ],
    { rejected: [...rejected, ...NOT_BUILT], evidence: measurements },
  );
}

/**
 * Width: the new text starts where the old did; the pen after it is put back where it was. It may
 * take more room than the old text only where the line has room (docs/engine.md, Fit); else refused.
 * The decisions, in order: the baseline, the extents, what follows, the room, the measurements, and
 * a refusal when the new text is too wide or leaves a gap inside a word.
 */
export function fitRule(
  t: Located,
  tier: number,
  product: TierProduct,
  find: string,
  replacement: string,
  rejected: TierRejection[],
): Fit {
  const b = baselineOf(t);
  const { vertical, oldExtent, newExtent, spread } = extents(t, product, b);
  const overflow = newExtent - oldExtent;
  const around = surroundings(t, b, oldExtent);
  const room = chooseRoom(t, product, b, overflow, vertical, around);
  const e = { oldExtent, newExtent, overflow };
  const measurements = fitMeasurements(t, product, b, e, around, room);
  const refused = { tier, find, replacement, overflow, measurements, rejected };
  if (overflow > room.allowed) refuseTooWide(refused, room);
  if (gapOpens(t, product) && !room.respacing && around.next && opensWordBreak(around, overflow, b.emPts))
    refuseGapInsideWord(refused, around.next, around.innerGap);
  const { emPts, dirLen } = b;
  return {
    measurements,
    overflow,
    rule: room.rule,
    emPts,
    dirLen,
    vertical,
    spread,
    respacing: room.respacing,
  };
}

/** What a re-spacing gives and moves, in the words of the fit rule and the warning. */
export function respacedPhrase(r: Respacing): string {
  const rest =
    r.rest.glyphs > 0
      ? `the rest of its word (${r.rest.glyphs} glyph(s), in its own font) moves ${round(Math.abs(r.rest.shift))} pt ${r.rest.shift < 0 ? 'left' : 'right'} with it, `
      : '';
  if (r.rest.shift < 0) {
    if (r.endShift < 0 && r.gaps.length)
      return `${rest}and the ${r.gaps.length} word(s) after it on the line as much (the line is not set flush: it ends ${round(-r.endShift)} pt earlier)`;
    return `${rest}${r.gaps.length ? `and the ${r.gaps.length} word gap(s) after it on the line each widen by ${round(-Math.min(0, ...r.gaps.map((g) => g.before - g.after)))} pt` : 'and a number after it puts the pen back'}`;
  }
  const given = respacingExtent(r).given;
  const after = r.gaps.length
    ? given > 0
      ? `the ${r.gaps.length} word gap(s) after it on the line each give up to ${round(given)} pt`
      : `the ${r.gaps.length} word(s) after it on the line move as much, their gaps kept`
    : 'no word gap follows on the line';
  const gaps = r.gapsBefore.length
    ? `${after}, and the ${r.gapsBefore.length} before it up to ${round(Math.max(...r.gapsBefore.map((g) => g.before - g.after)))} pt each (it moves ${round(-r.targetShift)} pt left, with the words between the line's first and it)`
    : after;
  return `${rest}${gaps}${r.endShift > 0 ? `, and its last word moves ${round(r.endShift)} pt into the free space after it` : ", and the line's last word stays where it was"}`;
}
