// The guard `edit_on_own_line`: the pixels a correction changes stay in its line's band, across the
// text direction. The band is first the line's box as MuPDF reports it — its characters' em boxes,
// from the font's ascent and descent — widened by a quarter of its height. Marks above or below the
// letters (polytonic Greek's breathings and accents, a font whose declared ascent is small) can ink
// beyond that box: then the band is the ink of the line's own glyphs (their outline boxes, fit/ink.ts),
// before and after, and the edit must also stay clear of every other line's ink in the rows it
// reaches beyond the em box. A change that lands on a neighbouring line is refused either way.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
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
