// Drawn letters made to look like the page's (issue 32 item 2): a face's letters scaled to the page's
// measured x-height (or cap height), made heavier or lighter to its stroke width, slanted by its
// slant and blurred to its edge width; then measured again the same way, on the page's own letters
// drawn through the same steps, and compared with the page within a tolerance.
import type { DrawnLetter, LetterFace } from './scan-raster.ts';
import {
  COVERAGE_LEVELS,
  coverageImage,
  letterStyle,
  reweighted,
  sheared,
  type LetterStyle,
  type MeasuredLetter,
} from './letter-style.ts';

/** How near drawn letters must come to the page's. */
export interface StyleTolerance {
  /** Largest difference of stroke width, as a share of the page's (0.25: ±25 %). */
  stroke: number;
  /** Largest difference of x-height and of cap height, as a share of the page's (0.08: ±8 %). */
  height: number;
  /** Differences below this many pixels always pass (a pixel is the scan's own unit of error). */
  floorPx: number;
  /** Largest change of a face's stroke width by dilation or erosion, as a share of it (0.6). */
  reweight: number;
}

/**
 * ±25 % of stroke and ±8 % of height: at a usual 300 dpi body size (stems 3–4 px, x-height 25–30 px)
 * that is about one pixel of stem and two of height, the differences the reader did not see
 * ("a bold, taller q" was 60 % heavier and 15 % taller). A face is thickened or thinned by at most
 * 60 % of its own stems: beyond that a light face's counters close up or a bold one's hairlines vanish.
 */
export const STYLE_TOLERANCE: StyleTolerance = { stroke: 0.25, height: 0.08, floorPx: 0.75, reweight: 0.6 };

/** A face's letters adjusted to the page, and how they measure against it. */
export interface MatchedDrawing {
  face: LetterFace;
  emPx: number;
  /** Stroke width added (> 0) or taken (< 0), pixels. */
  strokeDeltaPx: number;
  slant: number;
  /** Box-blur radius, pixels (quarters: the blurs of the whole radii either side mixed). */
  blur: number;
  /** The face's letters before adjustment and after, measured on the word's own characters. */
  before: LetterStyle;
  after: LetterStyle;
  /** What still differs beyond the tolerance (empty: the letters match). */
  differs: string[];
  /** Relative error of stroke and height together (0: the same): the best-looking face has least. */
  error: number;
  /** The adjusted letters' foot ratio on the page's measured letters (serif or sans, letter-style.ts). */
  footRatio: number | null;
  draw: (ch: string) => DrawnLetter | null;
}

/** The page's letters the drawing is matched to: the target word's own (stroke, slant, blur) and the line's heights. */
export interface PageLetters {
  chars: string[];
  /** The letters the heights were measured on (the word's and the line's). */
  heightChars: string[];
  word: LetterStyle;
  /** Foot ratio of the word's and the line's letters (serif or sans, letter-style.ts). */
  footRatio: number | null;
  xHeightPx: number | null;
  capHeightPx: number | null;
}

const round2 = (v: number | null) => (v === null ? null : Math.round(v * 100) / 100);

/** Letters set side by side on one baseline, as one coverage image, with each one's ink box. */
function setSideBySide(letters: { ch: string; d: DrawnLetter }[]): {
  image: ReturnType<typeof coverageImage>;
  measured: MeasuredLetter[];
} {
  const base = Math.max(0, ...letters.map((l) => l.d.baseline));
  const below = Math.max(0, ...letters.map((l) => l.d.height - l.d.baseline));
  const height = base + below;
  const width = letters.reduce((t, l) => t + l.d.width + 4, 4);
  const coverage = new Uint8Array(width * height);
  const measured: MeasuredLetter[] = [];
  let x = 4;
  for (const { ch, d } of letters) {
    const top = base - d.baseline;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -1;
    let y1 = -1;
    for (let y = 0; y < d.height; y++)
      for (let i = 0; i < d.width; i++) {
        const v = d.coverage[y * d.width + i];
        coverage[(top + y) * width + x + i] = v;
        if (v >= 128) {
          x0 = Math.min(x0, x + i);
          x1 = Math.max(x1, x + i + 1);
          y0 = Math.min(y0, top + y);
          y1 = Math.max(y1, top + y + 1);
        }
      }
    // Each letter its own word: the gaps between them here are the layout's, not the face's.
    if (x1 > 0) measured.push({ ch, x0, y0, x1, y1, baseline: base, word: measured.length });
    x += d.width + 4;
  }
  return { image: coverageImage(coverage, width, height), measured };
}

/** Pieces of ink (8-connected pixels of at least half coverage, specks of under 3 px left out) of a letter. */
function inkPieces(d: DrawnLetter): number {
  const seen = new Uint8Array(d.width * d.height);
  let count = 0;
  for (let start = 0; start < seen.length; start++) {
    if (seen[start] || d.coverage[start] < 128) continue;
    let size = 0;
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      size++;
      const x = i % d.width;
      const y = (i - x) / d.width;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          const j = ny * d.width + nx;
          if (nx < 0 || ny < 0 || nx >= d.width || ny >= d.height || seen[j] || d.coverage[j] < 128) continue;
          seen[j] = 1;
          stack.push(j);
        }
    }
    if (size >= 3) count++;
  }
  return count;
}

/** Measures `chars` as `draw` draws them. */
function measureDrawn(chars: string[], draw: (ch: string) => DrawnLetter | null): LetterStyle | null {
  const letters = chars
    .map((ch) => ({ ch, d: draw(ch) }))
    .filter((l): l is { ch: string; d: DrawnLetter } => !!l.d);
  if (!letters.length) return null;
  const { image, measured } = setSideBySide(letters);
  return letterStyle(image, measured, COVERAGE_LEVELS);
}

/** Reference measures by face, by letters: matchDrawing's heights and the face's feet read one measurement. */
const referenceStyles = new WeakMap<LetterFace, Map<string, LetterStyle | null>>();

/** `chars` as `face` draws them at 100 px per em (the size a face's heights and feet are measured at). */
function referenceStyle(face: LetterFace, chars: string[]): LetterStyle | null {
  let byChars = referenceStyles.get(face);
  if (!byChars) referenceStyles.set(face, (byChars = new Map()));
  const key = chars.join('\u0000');
  if (!byChars.has(key))
    byChars.set(
      key,
      measureDrawn(chars, (ch) => face.draw(ch, 100)),
    );
  return byChars.get(key)!;
}

/** A face's letter at `emPx`, reweighted by `delta` px of stroke, slanted and blurred. */
function adjustedLetter(
  face: LetterFace,
  ch: string,
  emPx: number,
  delta: number,
  slant: number,
  blur: number,
  box: (d: DrawnLetter, radius: number) => DrawnLetter,
): DrawnLetter | null {
  const d = face.draw(ch, emPx);
  if (!d) return null;
  // Room for the strokes to grow: a pixel beyond half the change on every side.
  const pad = Math.ceil(Math.abs(delta) / 2) + 1;
  const w = d.width + 2 * pad;
  const h = d.height + 2 * pad;
  let cov: Uint8Array = new Uint8Array(w * h);
  for (let y = 0; y < d.height; y++)
    cov.set(d.coverage.subarray(y * d.width, (y + 1) * d.width), (y + pad) * w + pad);
  if (Math.abs(delta) > 0.05) cov = reweighted(cov, w, h, delta);
  const baseline = d.baseline + pad;
  const s = sheared(cov, w, h, baseline, slant);
  const out: DrawnLetter = {
    width: s.width,
    height: h,
    coverage: s.coverage,
    baseline,
    advance: d.advance,
    left: d.left - pad - s.shift,
  };
  return croppedToInk(blur ? softened(out, blur, box) : out);
}

/**
 * A letter cropped to its visible coverage (the room left for growing is not the letter's: the
 * layout spaces letters by their width, and empty margins would open the word's gaps).
 */
function croppedToInk(d: DrawnLetter): DrawnLetter {
  let x0 = d.width;
  let y0 = d.height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < d.height; y++)
    for (let x = 0; x < d.width; x++)
      if (d.coverage[y * d.width + x] > 5) {
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y);
      }
  if (x1 < 0) return d;
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const coverage = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    coverage.set(d.coverage.subarray((y0 + y) * d.width + x0, (y0 + y) * d.width + x0 + w), y * w);
  return { width: w, height: h, coverage, baseline: d.baseline - y0, advance: d.advance, left: d.left + x0 };
}

/**
 * A letter box-blurred by a radius that may be fractional: the blurs of the whole radii either side,
 * mixed (a 3×3 box is already a wide step from a sharp edge; a scan's softness often lies between).
 */
function softened(
  d: DrawnLetter,
  blur: number,
  box: (d: DrawnLetter, radius: number) => DrawnLetter,
): DrawnLetter {
  const lo = Math.floor(blur);
  const hi = Math.ceil(blur);
  const b = box(d, hi);
  if (lo === hi) return b;
  const a = lo ? box(d, lo) : d;
  const t = blur - lo;
  const off = hi - lo; // a is smaller than b by this on every side
  const coverage = new Uint8Array(b.coverage.length);
  for (let y = 0; y < b.height; y++)
    for (let x = 0; x < b.width; x++) {
      const ax = x - off;
      const ay = y - off;
      const av = ax >= 0 && ay >= 0 && ax < a.width && ay < a.height ? a.coverage[ay * a.width + ax] : 0;
      coverage[y * b.width + x] = Math.round(av * (1 - t) + b.coverage[y * b.width + x] * t);
    }
  return { ...b, coverage };
}

/**
 * The face's letters matched to the page: scaled, reweighted, slanted and blurred, then measured.
 * `box` blurs a drawn letter by a radius (the patch's own box blur). Null when the face cannot draw
 * the word's letters.
 */
export function matchDrawing(
  face: LetterFace,
  page: PageLetters,
  missing: string[],
  fallbackEmPx: number,
  bilevel: boolean,
  tolerance: StyleTolerance,
  box: (d: DrawnLetter, radius: number) => DrawnLetter,
): MatchedDrawing | null {
  // The face's heights at 100 px per em, measured on the same letters as the page's (overshoots of
  // round letters included alike).
  const at100 = referenceStyle(face, page.heightChars);
  const xPer100 = at100?.x_height_px ?? null;
  const capPer100 = at100?.cap_height_px ?? null;
  let emPx = fallbackEmPx;
  if (page.xHeightPx && xPer100) emPx = (page.xHeightPx / xPer100) * 100;
  else if (page.capHeightPx && capPer100) emPx = (page.capHeightPx / capPer100) * 100;
  const before = measureDrawn(page.chars, (ch) => face.draw(ch, emPx));
  if (!before?.stroke_px || !page.word.stroke_px) return null;
  const limit = tolerance.reweight * before.stroke_px;
  let delta = Math.max(-limit, Math.min(limit, page.word.stroke_px - before.stroke_px));
  // Thinning wears the hairlines first (a bold m's arches): no more than keeps every letter, the
  // page's and the missing ones, in as many pieces of ink as the face draws it.
  const checked = [...new Set([...page.chars, ...missing])];
  const pieces = (ch: string, d: number) => {
    const l = adjustedLetter(face, ch, emPx, d, 0, 0, box);
    return l ? inkPieces(l) : 0;
  };
  const whole = new Map(checked.map((ch) => [ch, pieces(ch, 0)]));
  for (let tries = 0; delta < -0.25 && tries < 8; tries++) {
    if (checked.every((ch) => pieces(ch, delta) === whole.get(ch))) break;
    delta *= 0.7;
  }
  if (delta < 0 && delta >= -0.25) delta = 0;
  // Dilation grows a letter by half the added stroke above its x-height too: scaled down to keep it.
  const target = page.xHeightPx ?? page.capHeightPx;
  if (target) emPx *= Math.max(0.5, (target - delta / 2) / target);
  const slant = page.word.slant;
  // The blur whose edge ramp is nearest the page's (none on a 1-bit scan).
  let blur = 0;
  if (!bilevel && page.word.edge_px !== null) {
    let gap = Infinity;
    for (let radius = 0; radius <= 3; radius += 0.25) {
      const m = measureDrawn(page.chars, (ch) => adjustedLetter(face, ch, emPx, delta, slant, radius, box));
      const off = m?.edge_px === null || !m ? Infinity : Math.abs(m.edge_px - page.word.edge_px);
      if (off < gap) {
        gap = off;
        blur = radius;
      }
    }
  }
  const draw = (ch: string) => adjustedLetter(face, ch, emPx, delta, slant, blur, box);
  const after = measureDrawn(page.chars, draw);
  if (!after) return null;
  const differs: string[] = [];
  let error = 0;
  const compare = (what: string, drawn: number | null, want: number | null, share: number) => {
    if (drawn === null || want === null || want <= 0) return;
    const off = Math.abs(drawn - want) / want;
    error += off;
    if (off > share && Math.abs(drawn - want) > tolerance.floorPx)
      differs.push(`${what} ${round2(drawn)} px against the page's ${round2(want)} px`);
  };
  compare('stroke width', after.stroke_px, page.word.stroke_px, tolerance.stroke);
  compare('x-height', after.x_height_px, page.xHeightPx, tolerance.height);
  compare('cap height', after.cap_height_px, page.capHeightPx, tolerance.height);
  // A face of the other kind is no match however near its measures come: serifs are seen first.
  const footRatio = measureDrawn(page.heightChars, draw)?.foot_ratio ?? null;
  const pageKind = faceKind(page.footRatio);
  const drawnKind = faceKind(footRatio);
  if (pageKind && drawnKind && pageKind !== drawnKind)
    differs.push(
      `stem feet ${round2(footRatio)} stems wide against the page's ${round2(page.footRatio)} (a ${drawnKind} face on a ${pageKind} page)`,
    );
  return { face, emPx, strokeDeltaPx: delta, slant, blur, before, after, differs, error, footRatio, draw };
}

/**
 * Foot ratios that tell the kinds apart (letter-style.ts footRatio): at or above SERIF_FEET serifs,
 * at or below SANS_FEET none; between, the letters are too few or too small to tell.
 */
export const SERIF_FEET = 1.6;
export const SANS_FEET = 1.3;

/** Serif or sans by the letters' feet, null when they do not tell. */
export function faceKind(footRatio: number | null): 'serif' | 'sans' | null {
  if (footRatio === null) return null;
  if (footRatio >= SERIF_FEET) return 'serif';
  return footRatio <= SANS_FEET ? 'sans' : null;
}

/** A face's foot ratio as it draws `chars` at 100 px per em (the size its heights are measured at). */
export function faceFootRatio(face: LetterFace, chars: string[]): number | null {
  return referenceStyle(face, chars)?.foot_ratio ?? null;
}

/** The page's measured style as a proposal reports it (styleFigures), heights and feet included. */
export function pageFigures(page: PageLetters): Record<string, number | null> {
  return styleFigures({
    ...page.word,
    x_height_px: page.xHeightPx,
    cap_height_px: page.capHeightPx,
    foot_ratio: page.footRatio,
  });
}

/** The measurements a proposal reports of a style: rounded, in pixels. */
export function styleFigures(s: LetterStyle): Record<string, number | null> {
  return {
    stroke_px: round2(s.stroke_px),
    x_height_px: round2(s.x_height_px),
    cap_height_px: round2(s.cap_height_px),
    slant: s.slant,
    edge_px: round2(s.edge_px),
    ink_density: round2(s.ink_density),
    letter_gap_px: round2(s.letter_gap_px),
    foot_ratio: round2(s.foot_ratio),
  };
}
