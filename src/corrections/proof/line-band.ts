// The guard `edit_on_own_line`: the pixels a correction changes stay in its line's band, across the
// text direction. The band is first the line's box as MuPDF reports it — its characters' em boxes,
// from the font's ascent and descent — widened by a quarter of its height. Marks above or below the
// letters (polytonic Greek's breathings and accents, a font whose declared ascent is small) can ink
// beyond that box: then the band is the ink of the line's own glyphs (their outline boxes, fit/ink.ts),
// before and after, and the edit must also stay clear of every other line's ink in the rows it
// reaches beyond the em box. A change that lands on a neighbouring line is refused either way.
// A line at any other angle than a multiple of 90° (rotated text, a rotated form or CTM) has its
// band in its own frame: the characters' quads measured across the line's direction, against which
// every changed pixel (not their upright bounding box, which a slanted word fills only in part) is
// measured.
import type { mupdf, RgbImage } from '../../pdf/mupdf-adapter.ts';
import { nearAny, pageGlyphs } from '../fit/ink.ts';
import { toRender, WORKING_DPI, type TextLine } from '../locate/page-text.ts';
import type { Box } from './render-diff.ts';

export interface LineBandInput {
  line: TextLine;
  /** Origins (points) of glyphs the correction drew or moved: they belong to the line. */
  drawn: [number, number][];
  tolerance: number;
  /** Ink boxes (render pixels) of the glyphs the correction erased, read from the input. */
  oldInk: () => Box[];
  /** Antialiasing margin, render pixels. */
  pad: number;
  /** The page rendered before and after (WORKING_DPI): a slanted line's band reads the changed pixels. */
  renders?: { before: RgbImage; after: RgbImage };
}

export interface LineBandGuard {
  name: 'edit_on_own_line';
  passed: boolean;
  detail: string;
}

const toPoints = (b: Box): [number, number, number, number] =>
  b.map((v) => (v * 72) / WORKING_DPI) as [number, number, number, number];

const meets = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** Whether the changed pixels `changed` (render pixels, null: none) stay on the line. */
export function editOnOwnLine(page: mupdf.Page, changed: Box | null, v: LineBandInput): LineBandGuard {
  const band = toRender(v.line.bbox);
  const name = 'edit_on_own_line' as const;
  if (!changed) return { name, passed: true, detail: 'no pixel changed' };
  if (slanted(v.line) && v.renders) return slantedBand(v.line, changed, v.renders, v.pad);
  // Across the text direction: rows for a horizontal line, columns for a vertical one.
  const [lo, hi] = Math.abs(v.line.dir[0]) >= Math.abs(v.line.dir[1]) ? [1, 3] : [0, 2];
  const slack = Math.ceil((band[hi] - band[lo]) * 0.25) + v.pad;
  const within = (from: number, to: number) => changed[lo] >= from && changed[hi] <= to;
  if (within(band[lo] - slack, band[hi] + slack))
    return {
      name,
      passed: true,
      detail: `changed pixels ${JSON.stringify(changed)} within the line band ${JSON.stringify(band)}`,
    };

  // Beyond the em box: the line's ink decides, and no other line's ink may be where the edit reached.
  const reach = band[hi] - band[lo];
  const area = toPoints([changed[0] - reach, changed[1] - reach, changed[2] + reach, changed[3] + reach]);
  const own = [...v.line.chars.map((c) => c.origin), ...v.drawn];
  const glyphs = pageGlyphs(page, area, () => true, true);
  try {
    const mine = glyphs.filter((g) => nearAny(own, g.origin, v.tolerance)).map((g) => toRender(g.box));
    const others = glyphs.filter((g) => !nearAny(own, g.origin, v.tolerance)).map((g) => toRender(g.box));
    const ink = [...mine, ...v.oldInk()];
    const inkLo = Math.min(band[lo], ...ink.map((b) => b[lo]));
    const inkHi = Math.max(band[hi], ...ink.map((b) => b[hi]));
    const inkBand: Box = [...band];
    inkBand[lo] = inkLo;
    inkBand[hi] = inkHi;
    // The rows (columns) the edit reaches beyond the em box and its slack, over the edit's extent.
    const beyond: Box[] = [];
    if (changed[lo] < band[lo] - slack) {
      const b: Box = [...changed];
      b[hi] = band[lo] - slack;
      beyond.push(b);
    }
    if (changed[hi] > band[hi] + slack) {
      const b: Box = [...changed];
      b[lo] = band[hi] + slack;
      beyond.push(b);
    }
    const neighbour = others.find((o) => beyond.some((b) => meets(o, b)));
    const inInk = within(inkLo - v.pad, inkHi + v.pad);
    const passed = inInk && !neighbour;
    return {
      name,
      passed,
      detail: !inInk
        ? `changed pixels ${JSON.stringify(changed)} outside the line band ${JSON.stringify(band)} and outside its glyphs' ink ${JSON.stringify(inkBand)}`
        : neighbour
          ? `changed pixels ${JSON.stringify(changed)} reach beyond the line band ${JSON.stringify(band)} where a neighbouring line inks ${JSON.stringify(neighbour)}`
          : `changed pixels ${JSON.stringify(changed)} beyond the line's em band ${JSON.stringify(band)} but within its glyphs' ink ${JSON.stringify(inkBand)} (marks above or below the letters), clear of other lines`,
    };
  } finally {
    for (const g of glyphs) g.text.destroy();
  }
}

const SCALE = WORKING_DPI / 72;

/** A line neither upright nor vertical in the page frame (its direction off both axes). */
export function slanted(line: TextLine): boolean {
  return Math.min(Math.abs(line.dir[0]), Math.abs(line.dir[1])) > 1e-3;
}

/**
 * The band of a slanted line in its own frame: the extent of its characters' quads across its
 * direction (render pixels), widened by a quarter of its height and the antialiasing margin; every
 * changed pixel, measured across the line the same way, must lie in it.
 */
function slantedBand(
  line: TextLine,
  changed: Box,
  renders: { before: RgbImage; after: RgbImage },
  pad: number,
): LineBandGuard {
  const name = 'edit_on_own_line' as const;
  // Across the line: the direction turned a quarter (page frame, y down), in render pixels.
  const n: [number, number] = [-line.dir[1], line.dir[0]];
  const across = (x: number, y: number) => x * n[0] + y * n[1];
  let lo = Infinity;
  let hi = -Infinity;
  for (const ch of line.chars)
    for (let k = 0; k < 8; k += 2) {
      const a = across(ch.quad[k]! * SCALE, ch.quad[k + 1]! * SCALE);
      lo = Math.min(lo, a);
      hi = Math.max(hi, a);
    }
  const slack = Math.ceil((hi - lo) * 0.25) + pad;
  const reach = changedAcross(changed, renders, across, (Math.abs(n[0]) + Math.abs(n[1])) / 2);
  const round = (v: number) => Math.round(v * 10) / 10;
  const band = `[${round(lo)}, ${round(hi)}] across the line's direction ${JSON.stringify(line.dir.map(round))}`;
  if (!reach) return { name, passed: true, detail: 'no pixel changed' };
  const passed = reach.lo >= lo - slack && reach.hi <= hi + slack;
  const where = `changed pixels ${JSON.stringify(changed)} reach [${round(reach.lo)}, ${round(reach.hi)}]`;
  return {
    name,
    passed,
    detail: passed
      ? `${where}, within the slanted line's band ${band} (± ${slack} px)`
      : `${where}, outside the slanted line's band ${band} (± ${slack} px): the edit reaches off its line`,
  };
}

/**
 * The extent across the line of the pixels that differ between the renders inside `box` (each
 * pixel's centre, widened by half its own extent across), or null where none differs.
 */
function changedAcross(
  box: Box,
  renders: { before: RgbImage; after: RgbImage },
  across: (x: number, y: number) => number,
  halfPixel: number,
): { lo: number; hi: number } | null {
  const { before: a, after: b } = renders;
  if (a.width !== b.width || a.height !== b.height) return { lo: -Infinity, hi: Infinity };
  let lo = Infinity;
  let hi = -Infinity;
  for (let y = Math.max(0, box[1]); y < Math.min(a.height, box[3]); y += 1) {
    const ra = y * a.stride;
    const rb = y * b.stride;
    for (let x = Math.max(0, box[0]); x < Math.min(a.width, box[2]); x += 1) {
      const i = ra + x * 3;
      const j = rb + x * 3;
      if (
        a.pixels[i] === b.pixels[j] &&
        a.pixels[i + 1] === b.pixels[j + 1] &&
        a.pixels[i + 2] === b.pixels[j + 2]
      )
        continue;
      const at = across(x + 0.5, y + 0.5);
      lo = Math.min(lo, at - halfPixel);
      hi = Math.max(hi, at + halfPixel);
    }
  }
  return lo <= hi ? { lo, hi } : null;
}

/**
 * Whether `got`, the edited line as MuPDF now reads it, is the expected line joined with whole
 * lines of the same row that were read apart before the edit (or not joined to it at all): MuPDF
 * groups a row's runs into lines by their gaps and fonts, and a correction that changes a run's
 * font or spacing (a justified line's typewriter word after it) can change that grouping while
 * every character stays what and where it was. The joined lines must read exactly as before,
 * in their order along the row; nothing else qualifies. Horizontal lines only.
 */
export function rowRegrouped(
  beforeLines: TextLine[],
  line: TextLine,
  expected: string,
  got: string,
  norm: (s: string) => string,
): boolean {
  if (Math.abs(line.dir[1]) > 1e-3 || line.dir[0] <= 0) return false;
  const height = line.bbox[3] - line.bbox[1];
  const sameRow = (l: TextLine) => {
    if (l === line || Math.abs(l.dir[1]) > 1e-3 || l.dir[0] <= 0 || !l.text.trim()) return false;
    // Beside the edited line, not over it (the same line read another way is not a neighbour).
    if (Math.min(l.bbox[2], line.bbox[2]) - Math.max(l.bbox[0], line.bbox[0]) > 0.5) return false;
    const overlap = Math.min(l.bbox[3], line.bbox[3]) - Math.max(l.bbox[1], line.bbox[1]);
    return overlap >= 0.5 * Math.min(height, l.bbox[3] - l.bbox[1]);
  };
  const row = [...beforeLines.filter(sameRow), line].sort((a, b) => a.bbox[0] - b.bbox[0]);
  const at = row.indexOf(line);
  const target = norm(got);
  const texts = row.map((l) => (l === line ? expected : l.text));
  // Contiguous runs of the row that hold the edited line, read with and without a space between.
  for (let from = 0; from <= at; from += 1)
    for (let to = at + 1; to <= row.length; to += 1) {
      if (to - from < 2) continue;
      const part = texts.slice(from, to);
      if (norm(part.join(' ')) === target || norm(part.join('')) === target) return true;
    }
  return false;
}
