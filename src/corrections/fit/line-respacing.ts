// Re-spacing the rest of a line for a replacement wider than the gap after its word: the word gaps
// that follow it on the line (in its text operator, and in later operators of the same stream up
// to a column's gap: Ghostscript and word processors place each word with its own Td or Tm) are
// each narrowed by the same amount (none below a word gap, WORD_GAP_EM), so the words between move
// right by what the gaps before them gave up and the last word, and the pen after it, stay exactly
// where they were. Numbers written in TJ arrays move the words; an operator placed afresh needs its
// own, and none touches a text line matrix, so later lines keep their positions to the bit.
// Typesetters shrink inter-word space the same way (TeX lets a 1/3 em space shrink by 1/9 em); the
// glyphs moved are declared, and the correction costs `low` rather than `none` (DESIGN: tier 1
// keeps every other glyph of the line in place).
import type { Glyph, Interpretation } from '../locate/text-interpreter.ts';
import type { GlyphIndex } from '../locate/locate.ts';
import type { TextChar } from '../locate/page-text.ts';
import type { Kern } from '../rewrite/rewrite.ts';

export interface Respacing {
  kerns: Kern[];
  /**
   * Every glyph of the line that moves, and how far along the baseline (points; negative: left);
   * a glyph a number puts back where it stood is listed at no shift (it is declared all the same).
   */
  moved: { glyph: Glyph; shift: number }[];
  /** Each word gap used after the target: its width before and after, in points. */
  gaps: { before: number; after: number }[];
  /**
   * The word gaps before the target that narrow (a justified line's last words have no room after
   * them): the target, the start of its word and the words between move left (planRespacing's
   * `before`). Empty when only the gaps after it give.
   */
  gapsBefore: { before: number; after: number }[];
  /** How far the target's new text starts left of where the old did (points, ≤ 0). */
  targetShift: number;
  /** How far the line's last word moves into free space after it (0: it stays; negative: a narrower run shortens a line not set flush). */
  endShift: number;
  /** The rest of the target's word, drawn in its own font, moved with the new letters (restOfWord). */
  rest: { glyphs: number; shift: number };
}

interface Geometry {
  /** Distance along the baseline from the target's start, in points, of a glyph's point at x (text space). */
  along: (g: Glyph, x: number) => number;
  /** Points per text-space unit along the baseline. */
  dirLen: number;
  emPts: number;
}

/**
 * The re-spacing that lets the target's last glyph end `overflow` points further than it did, or
 * null where the gaps after it on the line cannot give that much (each keeps `keepGapEm`).
 * `wordGapEm`: a gap this wide between letters is a word gap even without a space glyph.
 * `restOfWord`: the target's word may go on after it (new letters drawn in another font, tier 4):
 * the rest of the word moves by the whole `overflow` and the gaps after the word give it; a
 * negative `overflow` (narrower new letters) moves the rest left and widens the gaps after it.
 * `before`: where the gaps after it cannot give enough, the word gaps before it on the line give
 * too, all alike (as a typesetter shrinks a justified line's spaces): the line's first word stays,
 * the words after it move left by what the gaps before them gave up, and so does the target (with
 * the start of its word), so a line's last word can grow without passing the line's right edge.
 */
export function planRespacing(
  target: Glyph[],
  interp: Interpretation,
  lineChars: TextChar[],
  index: GlyphIndex,
  overflow: number,
  geo: Geometry,
  limits: RespacingLimits,
): Respacing | null {
  const last = target[target.length - 1]!;
  const s = last.state;
  if (!(s.Tfs > 0 && s.Th > 0) || last.font.wmode === 1) return null;
  const charOf = charsByGlyph(lineChars, index);
  const after = wordsAfter(last, interp, charOf, geo, limits);
  if (!after) return null;
  const { words, rest } = after;
  const ahead =
    limits.before && overflow > 0 ? wordsBefore(target, interp, charOf, geo, limits.wordGapEm) : null;
  if (!words.length && !rest.length && !ahead?.moving.length) return null;
  if (overflow < 0 && !rest.length) return null;
  // The glyphs the pen is put back after: the last word's, else the rest of the target's word, else the target.
  const tail = words.length ? words[words.length - 1]!.glyphs : rest.length ? rest : target;
  const shares = gapShares(after, ahead, tail, overflow, geo, limits);
  if (!shares) return null;
  const { givenBefore, given } = shares;
  // Thousandths of text space per point along the baseline, written whole and summing to zero, so
  // the pen after the last word is put back by numbers that cancel exactly.
  const perPt = 1000 / (geo.dirLen * s.Tfs * s.Th);
  const shifted = shiftWords(target, after, ahead, shares, tail, overflow, perPt);
  const { targetShift, written } = shifted;
  const targetEnd = overflow + targetShift;
  const restShift = rest.length ? (shifted.moved.find((m) => m.glyph === rest[0])?.shift ?? 0) : 0;
  return {
    kerns: shifted.kerns,
    moved: shifted.moved,
    gaps: words.map((w, i) => ({ before: w.gap, after: w.gap - given[i]! })),
    gapsBefore: (ahead?.moving ?? []).map((w, i) => ({ before: w.gap, after: w.gap - givenBefore[i]! })),
    targetShift,
    // With no word after it, the target is the line's last: its end moves as far as it grows (less
    // than the rounding of a thousandth is none).
    endShift: shifted.groups ? (written === 0 ? 0 : -written / perPt) : targetEnd > 0.01 ? targetEnd : 0,
    rest: { glyphs: rest.length, shift: restShift },
  };
}

/** planRespacing's limits (its comment says what each means). */
interface RespacingLimits {
  keepGapEm: number;
  wordGapEm: number;
  roomAfter: (g: Glyph) => number;
  restOfWord?: boolean;
  before?: boolean;
}

/** The words after the target on its line, the rest of its own word, and where the reading stopped. */
interface WordsAfter {
  words: { start: Glyph; glyphs: Glyph[]; gap: number }[];
  /** The rest of the target's word (restOfWord only). */
  rest: Glyph[];
  /** Space glyphs placed afresh between the target and the first word after it: they move with the target's end. */
  lead: Glyph[];
  /** Glyphs of operators placed afresh (their own Td or Tm), which start from their own position. */
  afresh: Set<Glyph>;
  /** The last word's operator goes on with glyphs that cannot move: no room after it. */
  stopped: boolean;
}

/** The words before the target that can move left (wordsBefore). */
type WordsAhead = NonNullable<ReturnType<typeof wordsBefore>>;

/**
 * Characters MuPDF read on the line, by the glyph that draws them: a glyph it did not read there
 * (another line, a glyph drawn over another) ends the part of the operator that can move.
 */
function charsByGlyph(lineChars: TextChar[], index: GlyphIndex): Map<Glyph, string> {
  const charOf = new Map<Glyph, string>();
  for (const ch of lineChars) {
    const g = index.at(ch);
    if (g && !charOf.has(g)) charOf.set(g, ch.c);
  }
  return charOf;
}

/**
 * The glyphs after the target in its stream: its operator's, then later operators' on the same line
 * (Ghostscript and word processors place each word with its own Td or Tm), read into words with the
 * gap before each. Null where nothing after it can move (the target's word goes on in a glyph that
 * cannot move, or, without restOfWord, at all).
 */
function wordsAfter(
  last: Glyph,
  interp: Interpretation,
  charOf: Map<Glyph, string>,
  geo: Geometry,
  limits: RespacingLimits,
): WordsAfter | null {
  const s = last.state;
  const afresh = new Set<Glyph>();
  const after = interp.glyphs.filter((g) => g.unit === last.unit && g.index > last.index);
  const ops = interp.units[last.unit]!.ops;
  const words: WordsAfter['words'] = [];
  const rest: Glyph[] = [];
  let inkEnd = geo.along(last, last.advance);
  let spaced = false;
  let stopped = false;
  let prev = last;
  // Space glyphs placed afresh (Chromium draws each glyph, spaces too, with its own Td) keep their
  // place unless given a number: they go with the word before them once a word follows, as a pen
  // would carry them in one operator, or MuPDF reads a space drawn inside the moved word and ends
  // the line there.
  let spaces: Glyph[] = [];
  const lead: Glyph[] = [];
  for (const g of after) {
    const c = charOf.get(g);
    const at = geo.along(g, 0);
    // Kerning may pull a letter back a little; a string that goes back further is another line. A
    // later operator's glyph after a gap of COLUMN_GAP_EM is another column or a table's cell.
    if (
      !movesWith(g, c, s) ||
      at < inkEnd - 0.3 * geo.emPts ||
      (g.opIndex !== last.opIndex && (at - inkEnd > COLUMN_GAP_EM * geo.emPts || !inTextSpace(g, geo)))
    ) {
      // Inside the last word's operator: the glyphs after it there cannot move, nor it into room
      // they would be drawn over. A later operator's glyph off the line is the next line.
      stopped = g.opIndex === prev.opIndex;
      // The word goes on in a glyph that cannot move (another size, another line of MuPDF's): the
      // part before it cannot move either, or a gap would open in the word or glyphs overlap.
      const glued = at >= inkEnd - 0.3 * geo.emPts && at - inkEnd < limits.wordGapEm * geo.emPts;
      if (!words.length && glued) return null;
      // The last word goes on in a glyph MuPDF reads on this line that cannot move (TeX's roman
      // parenthesis, a size smaller, after a slanted argument): that word stays where it is, and
      // nothing before it may take room from after it.
      if (glued && c !== undefined) {
        words.pop();
        stopped = true;
      }
      break;
    }
    if (g.opIndex !== prev.opIndex && placedAfresh(ops, prev.opIndex, g.opIndex)) afresh.add(g);
    prev = g;
    if (/\s/u.test(c)) {
      spaced = true;
      if (afresh.has(g)) spaces.push(g);
      continue;
    }
    const gap = at - inkEnd;
    if (spaced || gap >= limits.wordGapEm * geo.emPts) {
      (words.length ? words[words.length - 1]!.glyphs : rest.length ? rest : lead).push(...spaces);
      words.push({ start: g, glyphs: [g], gap });
    } else if (words.length) words[words.length - 1]!.glyphs.push(g);
    else if (limits.restOfWord) rest.push(g);
    else return null; // the target's word goes on: no gap to take from
    spaced = false;
    spaces = [];
    inkEnd = geo.along(g, g.advance);
  }
  return { words, rest, lead, afresh, stopped };
}

/**
 * What each gap gives: the gaps before the target (`givenBefore`), then those after it and, last,
 * the room after the line's last word (`given`). Null where together they cannot give `overflow`.
 */
function gapShares(
  after: WordsAfter,
  ahead: WordsAhead | null,
  tail: Glyph[],
  overflow: number,
  geo: Geometry,
  limits: RespacingLimits,
): { givenBefore: number[]; given: number[] } | null {
  const { words, stopped } = after;
  const keep = limits.keepGapEm * geo.emPts;
  const beforeRoom = (ahead?.moving ?? []).map((w) => Math.max(0, w.gap - keep));
  const room = words.map((w) => Math.max(0, w.gap - keep));
  // The last word may also move right where the line's text ends (or the space after it is wide):
  // a number after it puts the pen back, so what is drawn after it stays.
  const end = stopped ? 0 : Math.max(0, limits.roomAfter(tail[tail.length - 1]!));
  const rooms = [...beforeRoom, ...room, end];
  // Narrower: a line not set flush (room after its last word) is shorter by as much, every word
  // after moving left; a justified one keeps its right edge, and the word gaps after the word widen
  // alike (one gap widened by the whole difference reads as a column break). With no gap after it,
  // a number after the word puts the pen back.
  // Wider: free space after the line's last word is taken first, whole, where it is enough: every
  // word after moves right alike and the line's spacing stays as set; else every gap gives alike.
  const allGiven =
    overflow < 0
      ? words.length && end <= 0
        ? [...words.map(() => overflow / words.length), 0]
        : [...words.map(() => 0), overflow]
      : end >= overflow
        ? [...rooms.slice(0, -1).map(() => 0), overflow]
        : waterFill(rooms, overflow);
  if (!allGiven) return null;
  return { givenBefore: allGiven.slice(0, beforeRoom.length), given: allGiven.slice(beforeRoom.length) };
}

/**
 * The numbers that move the words: those before the target left by what the gaps before them gave,
 * the target with them, then the rest of its word and the words after it right by what the gaps
 * after them kept; a closing number after `tail` puts the pen back. Answers the numbers, every glyph
 * moved, the target's shift, the pen's shift left after the last word (`written`, before the closing
 * number) and how many word groups moved after the target.
 */
function shiftWords(
  target: Glyph[],
  after: WordsAfter,
  ahead: WordsAhead | null,
  shares: { givenBefore: number[]; given: number[] },
  tail: Glyph[],
  overflow: number,
  perPt: number,
): { kerns: Kern[]; moved: Respacing['moved']; targetShift: number; written: number; groups: number } {
  const { words, rest, lead, afresh } = after;
  const { givenBefore, given } = shares;
  const kerns: Kern[] = [];
  const moved: Respacing['moved'] = [];
  // The shift the pen carries, in thousandths: a glyph of an operator placed afresh starts from its
  // own position (the Td or Tm before it), not from the pen the glyphs before it left.
  let written = 0;
  // The words before the target, then the start of its word and the target, move left by what the
  // gaps before them gave up (a positive number moves left), rounded as a running total.
  let left = 0;
  const kernTo = (g: Glyph, total: number) => {
    if (ahead?.afresh.has(g)) written = 0;
    if (total !== written) kerns.push({ glyph: g, adjustment: total - written });
    written = total;
  };
  (ahead?.moving ?? []).forEach((w, i) => {
    left += givenBefore[i]!;
    const total = Math.round(left * perPt);
    for (const g of w.glyphs) {
      kernTo(g, total);
      if (total !== 0) moved.push({ glyph: g, shift: -total / perPt });
    }
  });
  // The target's new text is drawn where the pen is: a number before it (unless the start of its
  // word, moved above, took it) carries it as far.
  const targetTotal = Math.round(left * perPt);
  if (ahead) kernTo(target[0]!, targetTotal);
  const targetShift = -targetTotal / perPt;
  let shift = overflow + targetShift;
  // The rest of the word first (no gap before it gives anything), then the words after it.
  const groups = [
    ...(lead.length ? [{ start: lead[0]!, glyphs: lead, given: 0 }] : []),
    ...(rest.length ? [{ start: rest[0]!, glyphs: rest, given: 0 }] : []),
    ...words.map((w, i) => ({ start: w.start, glyphs: w.glyphs, given: given[i]! })),
  ];
  groups.forEach((w, i) => {
    // Word i moves right by what the gaps after it give up (the pen was put back at the target's
    // old end). Rounded as a running total, so no word drifts left of where it stood.
    shift -= w.given;
    const stays = i === groups.length - 1 && Math.abs(given[words.length]!) < 1e-9;
    const total = stays ? 0 : Math.round(-shift * perPt);
    const at = -total / perPt;
    // A word put back where it stood by a number before it is drawn at its place to a renderer's
    // float precision only (MuPDF places glyphs in single precision and caches them by subpixel
    // offset: a last word pulled back by 0.32 pt drew its letters anti-aliased otherwise): its
    // glyphs are declared, at no shift, as the others moved.
    let putBack = false;
    for (const g of w.glyphs) {
      if (afresh.has(g)) written = 0;
      if (total !== written) {
        kerns.push({ glyph: g, adjustment: total - written });
        putBack = true;
      }
      written = total;
      if (Math.abs(at) > 1e-9 || putBack) moved.push({ glyph: g, shift: at });
    }
  });
  if (written !== 0) kerns.push({ glyph: tail[tail.length - 1]!, adjustment: -written, after: true });
  return { kerns, moved, targetShift, written, groups: groups.length };
}

/**
 * The words before the target on its line, in its stream, that can move left: every word after the
 * line's first (which stays), each with the gap before it, in the order they are drawn; the start
 * of the target's word is one of them, moving with it. Null where no word before it can move (the
 * target's word starts the line, or the line cannot be read back so far).
 */
function wordsBefore(
  target: Glyph[],
  interp: Interpretation,
  charOf: Map<Glyph, string>,
  geo: Geometry,
  wordGapEm: number,
): { moving: { glyphs: Glyph[]; gap: number }[]; afresh: Set<Glyph> } | null {
  const first = target[0]!;
  const s = first.state;
  const ops = interp.units[first.unit]!.ops;
  const earlier = interp.glyphs.filter((g) => g.unit === first.unit && g.index < first.index).reverse();
  const afresh = new Set<Glyph>();
  // Built from the target back: each word's glyphs, and the gap before it once the word before is seen.
  const found: { glyphs: Glyph[]; gap: number | null }[] = [{ glyphs: [], gap: null }];
  let inkStart = geo.along(first, 0);
  let spaced = false;
  let next = first;
  // Space glyphs placed afresh go with the word before them (wordsAfter says why).
  let spaces: Glyph[] = [];
  for (const g of earlier) {
    const c = charOf.get(g);
    const end = geo.along(g, g.advance);
    if (
      !movesWith(g, c, s) ||
      end > inkStart + 0.3 * geo.emPts ||
      (g.opIndex !== next.opIndex && (inkStart - end > COLUMN_GAP_EM * geo.emPts || !inTextSpace(g, geo)))
    )
      break;
    if (g.opIndex !== next.opIndex && placedAfresh(ops, g.opIndex, next.opIndex)) afresh.add(next);
    next = g;
    if (/\s/u.test(c)) {
      spaced = true;
      spaces.unshift(g);
      continue;
    }
    const word = found[found.length - 1]!;
    const gap = inkStart - end;
    if (spaced || gap >= wordGapEm * geo.emPts) {
      word.gap = gap;
      // (Whether a space is placed afresh is known once the glyph before it is read: now.)
      found.push({ glyphs: [g, ...spaces.filter((sp) => afresh.has(sp))], gap: null });
    } else word.glyphs.unshift(g);
    spaced = false;
    spaces = [];
    inkStart = geo.along(g, 0);
  }
  // The earliest word found stays (the line's first, or one next to what cannot move).
  const moving = found.filter((w): w is { glyphs: Glyph[]; gap: number } => w.gap !== null).reverse();
  return moving.length ? { moving, afresh } : null;
}

/**
 * A glyph that can move with the target's line: MuPDF read it on the line (`c`), it is drawn, at
 * the target's size and horizontal scale.
 */
const movesWith = (g: Glyph, c: string | undefined, s: Glyph['state']): c is string =>
  c !== undefined && !g.lost && g.state.Tfs === s.Tfs && g.state.Th === s.Th;

/** Numbers are written in the target's text space: a glyph of another scale or direction is not in it. */
const inTextSpace = (g: Glyph, geo: Geometry) =>
  Math.abs(geo.along(g, 1) - geo.along(g, 0) - geo.dirLen) <= 1e-6 * geo.dirLen;

/** A gap this wide (em) before a later operator's glyph is another column or a table's cell. */
const COLUMN_GAP_EM = 2;

/**
 * The text operator at `to` starts from a position of its own rather than from the pen the one at
 * `from` left: a Td, TD, Tm, T* or BT between them, or it is ' or " (which move to the next line).
 */
function placedAfresh(ops: { op: string }[], from: number, to: number): boolean {
  if (ops[to]!.op === "'" || ops[to]!.op === '"') return true;
  for (let k = from + 1; k < to; k += 1) if (['Td', 'TD', 'Tm', 'T*', 'BT'].includes(ops[k]!.op)) return true;
  return false;
}

/**
 * Water-filling: every room gives the same amount λ (a room with less gives all it has) so that
 * together they give `overflow`; null when they cannot.
 */
function waterFill(rooms: number[], overflow: number): number[] | null {
  if (rooms.reduce((a, b) => a + b, 0) < overflow) return null;
  const sorted = [...rooms].sort((a, b) => a - b);
  let lambda = 0;
  let left = overflow;
  for (let i = 0; i < sorted.length; i += 1) {
    const share = left / (sorted.length - i);
    if (sorted[i]! >= share) {
      lambda = share;
      break;
    }
    left -= sorted[i]!;
  }
  return rooms.map((r) => Math.min(r, lambda));
}

/** The most any gap gave up and any glyph moved, in points. */
export function respacingExtent(r: Respacing): { given: number; moved: number; glyphs: number } {
  return {
    given: Math.max(0, ...r.gaps.map((g) => g.before - g.after)),
    moved: Math.max(0, ...r.moved.map((m) => Math.abs(m.shift))),
    // Glyphs put back where they stood (declared, at no shift) do not move.
    glyphs: r.moved.filter((m) => Math.abs(m.shift) > 1e-9).length,
  };
}
