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
import type { Glyph, Interpretation } from './text-interpreter.ts';
import type { GlyphIndex } from './locate.ts';
import type { TextChar } from './page-text.ts';

/** A TJ number written before a glyph (thousandths of text space, TJ's sign: positive moves left). */
export interface Kern {
  glyph: Glyph;
  adjustment: number;
  /** Written after the glyph rather than before it (the number that puts the pen back). */
  after?: boolean;
}

export interface Respacing {
  kerns: Kern[];
  /** Every glyph after the target that moves, and how far along the baseline (points). */
  moved: { glyph: Glyph; shift: number }[];
  /** Each word gap used: its width before and after, in points. */
  gaps: { before: number; after: number }[];
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
 */
export function planRespacing(
  target: Glyph[],
  interp: Interpretation,
  lineChars: TextChar[],
  index: GlyphIndex,
  overflow: number,
  geo: Geometry,
  limits: { keepGapEm: number; wordGapEm: number; roomAfter: (g: Glyph) => number; restOfWord?: boolean },
): Respacing | null {
  const last = target[target.length - 1]!;
  const s = last.state;
  if (!(s.Tfs > 0 && s.Th > 0) || last.font.wmode === 1) return null;
  // Characters MuPDF read on the line, by the glyph that draws them: a glyph it did not read there
  // (another line, a glyph drawn over another) ends the part of the operator that can move.
  const charOf = new Map<Glyph, string>();
  for (const ch of lineChars) {
    const g = index.at(ch);
    if (g && !charOf.has(g)) charOf.set(g, ch.c);
  }
  const afresh = new Set<Glyph>();
  // The glyphs after it in its stream: its operator's, then later operators' on the same line
  // (Ghostscript and word processors place each word with its own Td or Tm).
  const after = interp.glyphs.filter((g) => g.unit === last.unit && g.index > last.index);
  const ops = interp.units[last.unit]!.ops;
  const words: { start: Glyph; glyphs: Glyph[]; gap: number }[] = [];
  const rest: Glyph[] = [];
  let inkEnd = geo.along(last, last.advance);
  let spaced = false;
  let stopped = false;
  let prev = last;
  for (const g of after) {
    const c = charOf.get(g);
    const at = geo.along(g, 0);
    // Kerning may pull a letter back a little; a string that goes back further is another line. A
    // later operator's glyph after a gap of COLUMN_GAP_EM is another column or a table's cell.
    if (
      c === undefined ||
      g.lost ||
      g.state.Tfs !== s.Tfs ||
      g.state.Th !== s.Th ||
      at < inkEnd - 0.3 * geo.emPts ||
      (g.opIndex !== last.opIndex &&
        (at - inkEnd > COLUMN_GAP_EM * geo.emPts ||
          // Numbers are written in the target's text space: another scale or direction is not it.
          Math.abs(geo.along(g, 1) - at - geo.dirLen) > 1e-6 * geo.dirLen))
    ) {
      // Inside the last word's operator: the glyphs after it there cannot move, nor it into room
      // they would be drawn over. A later operator's glyph off the line is the next line.
      stopped = g.opIndex === prev.opIndex;
      // The word goes on in a glyph that cannot move (another size, another line of MuPDF's): the
      // part before it cannot move either, or a gap would open in the word or glyphs overlap.
      if (!words.length && at >= inkEnd - 0.3 * geo.emPts && at - inkEnd < limits.wordGapEm * geo.emPts)
        return null;
      break;
    }
    if (g.opIndex !== prev.opIndex && placedAfresh(ops, prev.opIndex, g.opIndex)) afresh.add(g);
    prev = g;
    if (/\s/u.test(c)) {
      spaced = true;
      continue;
    }
    const gap = at - inkEnd;
    if (spaced || gap >= limits.wordGapEm * geo.emPts) words.push({ start: g, glyphs: [g], gap });
    else if (words.length) words[words.length - 1]!.glyphs.push(g);
    else if (limits.restOfWord) rest.push(g);
    else return null; // the target's word goes on: no gap to take from
    spaced = false;
    inkEnd = geo.along(g, g.advance);
  }
  if (!words.length && !rest.length) return null;
  if (overflow < 0 && !rest.length) return null;
  const keep = limits.keepGapEm * geo.emPts;
  const room = words.map((w) => Math.max(0, w.gap - keep));
  // The last word may also move right where the line's text ends (or the space after it is wide):
  // a number after it puts the pen back, so what is drawn after it stays.
  const tail = words.length ? words[words.length - 1]!.glyphs : rest;
  const end = stopped ? 0 : Math.max(0, limits.roomAfter(tail[tail.length - 1]!));
  const rooms = [...room, end];
  // Narrower: a line not set flush (room after its last word) is shorter by as much, every word
  // after moving left; a justified one keeps its right edge, and the word gaps after the word widen
  // alike (one gap widened by the whole difference reads as a column break). With no gap after it,
  // a number after the word puts the pen back.
  const given =
    overflow < 0
      ? words.length && end <= 0
        ? [...words.map(() => overflow / words.length), 0]
        : [...words.map(() => 0), overflow]
      : waterFill(rooms, overflow);
  if (!given) return null;
  // Thousandths of text space per point along the baseline, written whole and summing to zero, so
  // the pen after the last word is put back by numbers that cancel exactly.
  const perPt = 1000 / (geo.dirLen * s.Tfs * s.Th);
  const kerns: Kern[] = [];
  const moved: Respacing['moved'] = [];
  // The shift the pen carries, in thousandths: a glyph of an operator placed afresh starts from its
  // own position (the Td or Tm before it), not from the pen the glyphs before it left.
  let written = 0;
  let shift = overflow;
  // The rest of the word first (no gap before it gives anything), then the words after it.
  const groups = [
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
    for (const g of w.glyphs) {
      if (afresh.has(g)) written = 0;
      if (total !== written) kerns.push({ glyph: g, adjustment: total - written });
      written = total;
      if (Math.abs(at) > 1e-9) moved.push({ glyph: g, shift: at });
    }
  });
  if (written !== 0) kerns.push({ glyph: tail[tail.length - 1]!, adjustment: -written, after: true });
  const restShift = rest.length ? (moved.find((m) => m.glyph === rest[0])?.shift ?? 0) : 0;
  return {
    kerns,
    moved,
    gaps: words.map((w, i) => ({ before: w.gap, after: w.gap - given[i]! })),
    endShift: written === 0 ? 0 : -written / perPt,
    rest: { glyphs: rest.length, shift: restShift },
  };
}

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
export function respacingExtent(r: Respacing): { given: number; moved: number } {
  return {
    given: Math.max(0, ...r.gaps.map((g) => g.before - g.after)),
    moved: Math.max(0, ...r.moved.map((m) => Math.abs(m.shift))),
  };
}
