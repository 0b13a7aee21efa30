// The style of a scan's letters (issue 32 item 2), measured the same way on the page's own words and
// on letters a patch draws, so the two can be compared: stroke width, x-height, cap height, slant,
// edge blur, ink density, letter gaps and the paper's noise. Pure functions on grey pixels and boxes.

/** Grey pixels to measure: 0 black … 255 white. */
export interface GreyImage {
  width: number;
  height: number;
  grey: (x: number, y: number) => number;
}

/** The paper and ink levels of the place measured, and the grey between them that counts as ink. */
export interface InkLevels {
  paper: number;
  ink: number;
  threshold: number;
}

/** One recognised letter: its character, the box of its ink (x1/y1 exclusive), its word's baseline. */
export interface MeasuredLetter {
  ch: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  /** Which word it belongs to (gaps are measured between letters of one word). */
  word: number;
}

/** What the letters of a word or line look like, in pixels (null: nothing to measure it on). */
export interface LetterStyle {
  /** Median width of the horizontal runs of ink: the width of vertical stems. */
  stroke_px: number | null;
  /** Median height above the baseline of letters without ascenders (a c e m n o r s u v w x z). */
  x_height_px: number | null;
  /** Median height of capitals and figures. */
  cap_height_px: number | null;
  /** Horizontal shift per pixel up that makes the stems upright (0 upright, 0.2 a usual italic). */
  slant: number;
  /** Mean width of the grey ramp between paper and ink across the letters' edges. */
  edge_px: number | null;
  /** Share of ink pixels within the letters' boxes. */
  ink_density: number | null;
  /** Median gap between neighbouring letters' ink. */
  letter_gap_px: number | null;
  /**
   * Median, over letters whose stems stand on the baseline (h i l m n …), of the ink's width at the
   * stem feet over its width up the stems: about 1 on a sans page, 2 and more where serifs end them.
   */
  foot_ratio: number | null;
  letters: number;
}

/** Letters whose stems end on the baseline, where a serif face sets feet (none descends). */
const FOOTED_LETTERS = new Set([...'hiklmnrıłHIKLMNRTгиклмнпшщьГИКЛМНПТШЩ']);

const X_LETTERS = new Set([...'acemnorsuvwxzаеосхиклмнпртвгжзэюяшщцчьыъй']);
const CAPS_FIGURES = /^[\p{Lu}0-9]$/u;

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Dark pixels of row `y` between x0 and x1 (a row's ink width, all its runs together). */
function rowInk(img: GreyImage, y: number, x0: number, x1: number, lv: InkLevels): number {
  let n = 0;
  for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) if (img.grey(x, y) < lv.threshold) n++;
  return n;
}

/**
 * What tells a serif face from a sans at any size: the ink's width at the foot of each stem over its
 * width from a quarter to 45 % up the letter (below the arches of n and m), on letters whose stems
 * stand on the baseline. A serif's foot is a slab 2–4 stems wide; a sans stem ends as wide as it
 * stands. Median over the letters (k's leg or r's arm put ink in both bands alike); null when the
 * letters include none with feet or are too small to tell (under 8 px high).
 */
export function footRatio(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): number | null {
  const ratios: number[] = [];
  for (const l of letters) {
    if (!FOOTED_LETTERS.has(l.ch)) continue;
    const h = l.y1 - l.y0;
    if (h < 8) continue;
    // The foot: the widest of the lowest rows (a slab is a row or two thick at small sizes).
    let foot = 0;
    for (let y = l.y1 - Math.max(2, Math.round(0.1 * h)); y < l.y1; y++)
      foot = Math.max(foot, rowInk(img, y, l.x0, l.x1, lv));
    const stems: number[] = [];
    for (let y = l.y1 - Math.round(0.45 * h); y <= l.y1 - Math.round(0.25 * h); y++)
      stems.push(rowInk(img, y, l.x0, l.x1, lv));
    const stem = median(stems);
    if (stem && stem > 0) ratios.push(foot / stem);
  }
  return median(ratios);
}

/**
 * Widths of the horizontal runs of ink inside each letter's box, to a fraction of a pixel: each run
 * (pixels darker than the threshold) counts the darkness of its pixels and of one pixel either side
 * as a share of the way from paper to ink, so a stem 2.4 px wide measures 2.4, not 2 or 3.
 */
function inkRuns(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): number[] {
  const span = Math.max(1, lv.paper - lv.ink);
  const dark = (x: number, y: number) => Math.min(1, Math.max(0, (lv.paper - img.grey(x, y)) / span));
  const runs: number[] = [];
  for (const l of letters) {
    const x0 = Math.max(0, l.x0);
    const x1 = Math.min(img.width, l.x1);
    for (let y = Math.max(0, l.y0); y < Math.min(img.height, l.y1); y++) {
      let start = -1;
      for (let x = x0; x <= x1; x++) {
        const ink = x < x1 && img.grey(x, y) < lv.threshold;
        if (ink && start < 0) start = x;
        if (ink || start < 0) continue;
        let w = 0;
        for (let i = Math.max(0, start - 1); i < Math.min(img.width, x + 1); i++) w += dark(i, y);
        runs.push(w);
        start = -1;
      }
    }
  }
  return runs;
}

/**
 * The stem width: the median horizontal ink run. Runs along horizontal strokes are long and few;
 * most rows of a letter cross its stems, so the median is a stem's width.
 */
export function strokeWidth(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): number | null {
  return median(inkRuns(img, letters, lv));
}

/**
 * The edge ramp: pixels clearly neither paper nor ink (15 % … 85 % of the way), divided by the
 * number of places a row or column crosses the threshold (each crossing has one ramp across it).
 */
export function edgeWidth(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): number | null {
  const span = lv.paper - lv.ink;
  if (span <= 0) return null;
  let soft = 0;
  let crossings = 0;
  for (const l of letters) {
    const x0 = Math.max(0, l.x0 - 2);
    const x1 = Math.min(img.width, l.x1 + 2);
    const y0 = Math.max(0, l.y0 - 2);
    const y1 = Math.min(img.height, l.y1 + 2);
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        const g = img.grey(x, y);
        if (g > lv.ink + 0.15 * span && g < lv.paper - 0.15 * span) soft++;
        const ink = g < lv.threshold;
        if (x + 1 < x1 && img.grey(x + 1, y) < lv.threshold !== ink) crossings++;
        if (y + 1 < y1 && img.grey(x, y + 1) < lv.threshold !== ink) crossings++;
      }
  }
  return crossings ? soft / crossings : null;
}

/**
 * The slant: the shear that, taking back `s` pixels per pixel above the baseline, puts the letters'
 * ink into the sharpest columns (their column histogram has the largest sum of squares).
 */
export function slantOf(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): number {
  const ink: [number, number][] = [];
  for (const l of letters)
    for (let y = Math.max(0, l.y0); y < Math.min(img.height, l.y1); y++)
      for (let x = Math.max(0, l.x0); x < Math.min(img.width, l.x1); x++)
        if (img.grey(x, y) < lv.threshold) ink.push([x, y - l.baseline]);
  if (ink.length < 20) return 0;
  let best = 0;
  let bestScore = -1;
  // Shears tried from upright outwards; a wider one must beat the best so far clearly (a few
  // letters of an upright face score much the same a little either side of upright).
  const shears = [0];
  for (let k = 1; k <= 20; k++) shears.push(k * 0.025, -k * 0.025);
  for (const s of shears) {
    const cols = new Map<number, number>();
    for (const [x, dy] of ink) {
      const c = Math.round(x + s * dy);
      cols.set(c, (cols.get(c) ?? 0) + 1);
    }
    let score = 0;
    for (const v of cols.values()) score += v * v;
    if (score > bestScore * 1.01) {
      bestScore = score;
      best = s;
    }
  }
  return Math.round(best * 1000) / 1000;
}

/** The style of `letters` (boxes of their ink, each on its word's baseline). */
export function letterStyle(img: GreyImage, letters: MeasuredLetter[], lv: InkLevels): LetterStyle {
  const xs = letters.filter((l) => X_LETTERS.has(l.ch)).map((l) => l.baseline - l.y0);
  const caps = letters.filter((l) => CAPS_FIGURES.test(l.ch)).map((l) => l.baseline - l.y0);
  let ink = 0;
  let area = 0;
  for (const l of letters) {
    area += Math.max(0, l.x1 - l.x0) * Math.max(0, l.y1 - l.y0);
    for (let y = Math.max(0, l.y0); y < Math.min(img.height, l.y1); y++)
      for (let x = Math.max(0, l.x0); x < Math.min(img.width, l.x1); x++)
        if (img.grey(x, y) < lv.threshold) ink++;
  }
  const gaps = letters
    .slice(1)
    .map((l, i) => (l.word === letters[i].word ? l.x0 - letters[i].x1 : -1))
    .filter((g) => g >= 0);
  return {
    stroke_px: strokeWidth(img, letters, lv),
    x_height_px: median(xs),
    cap_height_px: median(caps),
    slant: slantOf(img, letters, lv),
    edge_px: edgeWidth(img, letters, lv),
    ink_density: area ? ink / area : null,
    letter_gap_px: median(gaps),
    foot_ratio: footRatio(img, letters, lv),
    letters: letters.length,
  };
}

/**
 * The paper's noise: the standard deviation of the paper pixels of `box` (lighter than halfway from
 * the ink threshold to the paper, with nothing darker within 2 px: letters' soft edges are not
 * paper), leaving out `hole` (the patch, when measuring around it).
 */
export function paperNoise(
  img: GreyImage,
  box: [number, number, number, number],
  lv: InkLevels,
  hole?: [number, number, number, number],
): number | null {
  const cut = lv.threshold + 0.5 * (lv.paper - lv.threshold);
  const x0 = Math.max(0, box[0]);
  const y0 = Math.max(0, box[1]);
  const w = Math.min(img.width, box[2]) - x0;
  const h = Math.min(img.height, box[3]) - y0;
  if (w <= 0 || h <= 0) return null;
  const light = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) light[y * w + x] = img.grey(x0 + x, y0 + y) >= cut ? 1 : 0;
  let n = 0;
  let sum = 0;
  let sq = 0;
  for (let y = 2; y < h - 2; y++)
    for (let x = 2; x < w - 2; x++) {
      if (hole && x0 + x >= hole[0] && x0 + x < hole[2] && y0 + y >= hole[1] && y0 + y < hole[3]) continue;
      let clear = true;
      for (let dy = -2; dy <= 2 && clear; dy++)
        for (let dx = -2; dx <= 2 && clear; dx++) if (!light[(y + dy) * w + x + dx]) clear = false;
      if (!clear) continue;
      const g = img.grey(x0 + x, y0 + y);
      n++;
      sum += g;
      sq += g * g;
    }
  if (n < 10) return null;
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sq / n - mean * mean));
}

/** Grey pixels of a coverage mask (0 none … 255 full ink) on white paper. */
export function coverageImage(coverage: Uint8Array, width: number, height: number): GreyImage {
  return { width, height, grey: (x, y) => 255 - coverage[y * width + x] };
}

/** The levels of a coverage mask: white paper, black ink, the threshold halfway. */
export const COVERAGE_LEVELS: InkLevels = { paper: 255, ink: 0, threshold: 127.5 };

/**
 * A coverage mask made heavier (`px` > 0) or lighter (`px` < 0) by about `px` pixels of stroke width:
 * grey-level dilation (max filter) or erosion (min filter) over a 3×3 cross, each whole step adding
 * or taking about two pixels, a fraction blended between one step and the next.
 */
export function reweighted(coverage: Uint8Array, width: number, height: number, px: number): Uint8Array {
  const steps = Math.abs(px) / 2;
  const grow = px > 0;
  let cur = coverage;
  const whole = Math.floor(steps);
  const step = (src: Uint8Array) => {
    const out = new Uint8Array(src.length);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        let v = src[y * width + x];
        for (const [dx, dy] of [
          [1, 0],
          [-1, 0],
          [0, 1],
          [0, -1],
        ]) {
          const sx = x + dx;
          const sy = y + dy;
          const n = sx >= 0 && sy >= 0 && sx < width && sy < height ? src[sy * width + sx] : 0;
          v = grow ? Math.max(v, n) : Math.min(v, n);
        }
        out[y * width + x] = v;
      }
    return out;
  };
  for (let i = 0; i < whole; i++) cur = step(cur);
  const frac = steps - whole;
  if (frac > 0.01) {
    const next = step(cur);
    const out = new Uint8Array(cur.length);
    for (let i = 0; i < cur.length; i++) out[i] = Math.round(cur[i] + frac * (next[i] - cur[i]));
    cur = out;
  }
  return cur;
}

/**
 * A coverage mask sheared by `slant` (x moved right by `slant` per pixel above `baseline`), grown
 * sideways to hold it; returns the new mask, its width and how far its origin moved left.
 */
export function sheared(
  coverage: Uint8Array,
  width: number,
  height: number,
  baseline: number,
  slant: number,
): { coverage: Uint8Array; width: number; shift: number } {
  if (Math.abs(slant) < 0.01) return { coverage, width, shift: 0 };
  const top = slant * baseline;
  const bottom = slant * (baseline - height);
  const shift = Math.ceil(Math.max(0, -Math.min(top, bottom)));
  const w = width + Math.ceil(Math.abs(top - bottom)) + 2;
  const out = new Uint8Array(w * height);
  for (let y = 0; y < height; y++) {
    const dx = slant * (baseline - y) + shift;
    for (let x = 0; x < w; x++) {
      // Linear interpolation between the two source pixels this one falls between.
      const sx = x - dx;
      const a = Math.floor(sx);
      const t = sx - a;
      const at = (i: number) => (i >= 0 && i < width ? coverage[y * width + i] : 0);
      out[y * w + x] = Math.round(at(a) * (1 - t) + at(a + 1) * t);
    }
  }
  return { coverage: out, width: w, shift };
}
