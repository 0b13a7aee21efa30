// Tier 5's pixel patch (issue 11 item 4): the replacement word's pixels for a scanned page, made
// from the page's own glyph images where it can (cloning, cost low) and from a bundled face drawn
// at the page's measured size and blur where a letter never occurs on the page (cost medium).
// Pure image work: the engine decodes the scan, writes the returned pixels over `box` and verifies.
// Letters are told apart by columns of ink (broken or touching letters shared out by a face's
// widths), cut with their own grey levels and laid over a paper colour measured around the word,
// spaced by the word's own gaps or the face's side bearings.

import {
  faceFootRatio,
  faceKind,
  matchDrawing,
  pageFigures,
  SANS_FEET,
  SERIF_FEET,
  STYLE_TOLERANCE,
  styleFigures,
  type MatchedDrawing,
  type PageLetters,
  type StyleTolerance,
} from './letter-matching.ts';
import { letterStyle, paperNoise, type GreyImage, type MeasuredLetter } from './letter-style.ts';
import { lineRun } from './line-readback.ts';
import { paperTexture, type PaperAt } from './paper-texture.ts';

export type { Box, DrawnLetter, LetterFace, ScanRaster } from './scan-raster.ts';
import type { Box, DrawnLetter, LetterFace, ScanRaster } from './scan-raster.ts';

export interface RasterWord {
  text: string;
  box: Box;
  confidence: number;
}
export interface PatchRequest {
  raster: ScanRaster;
  words: RasterWord[];
  target: RasterWord;
  replacement: string;
  /** Faces to draw letters the page never shows (cost medium); none: such words are refused. */
  letterFaces?: LetterFace[];
  /** How near drawn letters must come to the page's (default STYLE_TOLERANCE). */
  tolerance?: Partial<StyleTolerance>;
}
export type PatchResult =
  | {
      box: Box;
      pixels: Uint8Array;
      method: 'clone' | 'drawn';
      cost: 'low' | 'medium';
      measurements: Record<string, unknown>;
    }
  | {
      refused: string;
      code: string;
      evidence: Record<string, unknown>;
      /** What to do instead, when the refusal knows better than the general advice. */
      advice?: string[];
    };

/** Least (paper − ink) / paper for letters to be cloned (darkest 2 % of the word's pixels as ink). */
export const MIN_CONTRAST = 0.5;

/** Grey level of a pixel (the mean of its channels). */
function greyAt(r: ScanRaster, x: number, y: number): number {
  const n = r.channels;
  const i = (y * r.width + x) * n;
  return n === 1 ? r.data[i] : (r.data[i] + r.data[i + 1] + r.data[i + 2]) / 3;
}

const clampBox = (b: Box, r: ScanRaster): Box => [
  Math.max(0, Math.floor(b[0])),
  Math.max(0, Math.floor(b[1])),
  Math.min(r.width, Math.ceil(b[2])),
  Math.min(r.height, Math.ceil(b[3])),
];

/** Paper and ink levels around a word: the light and dark ends of its pixels' grey histogram. */
function levels(r: ScanRaster, box: Box): { paper: number; ink: number; threshold: number } {
  const values: number[] = [];
  for (let y = box[1]; y < box[3]; y++) for (let x = box[0]; x < box[2]; x++) values.push(greyAt(r, x, y));
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 255;
  const paper = at(0.9);
  const ink = at(0.02);
  return { paper, ink, threshold: (paper + ink) / 2 };
}

/** One letter of a word: its columns and the rows its ink spans, in raster pixels. */
interface LetterCell {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Letters forming a word's characters: counted ink columns split (touching) or merged (broken). */
interface Segmented {
  letters: LetterCell[];
  ink: Box;
  baseline: number;
  adjusted: number;
}

const DESCENDERS = new Set([...'gjpqyQ,;']);

/** Splits a word's ink into as many column runs as it has characters, or null. */
function segment(
  r: ScanRaster,
  box: Box,
  chars: string[],
  threshold: number,
  widthOf?: (c: string) => number | null,
): Segmented | null {
  const cols: number[] = [];
  let iy0 = Infinity;
  let iy1 = -1;
  let ix0 = Infinity;
  let ix1 = -1;
  for (let x = box[0]; x < box[2]; x++) {
    let c = 0;
    for (let y = box[1]; y < box[3]; y++) {
      if (greyAt(r, x, y) < threshold) {
        c++;
        iy0 = Math.min(iy0, y);
        iy1 = Math.max(iy1, y);
      }
    }
    cols.push(c);
    if (c > 0) {
      ix0 = Math.min(ix0, x);
      ix1 = Math.max(ix1, x);
    }
  }
  if (ix1 < 0) return null;
  let runs: [number, number][] = [];
  for (let i = 0; i < cols.length; i++) {
    if (cols[i] === 0) continue;
    if (runs.length && runs[runs.length - 1][1] === i) runs[runs.length - 1][1] = i + 1;
    else runs.push([i, i + 1]);
  }
  // Specks (a column or two of a few pixels) are noise, not letters.
  const height = iy1 - iy0 + 1;
  runs = runs.filter(([a, b]) => b - a > 1 || cols.slice(a, b).some((c) => c > height * 0.15));
  let adjusted = 0;
  if (runs.length !== chars.length && widthOf) {
    const shared = shareByWidths(runs, cols, chars, widthOf);
    if (shared) {
      adjusted += Math.abs(chars.length - runs.length);
      runs = shared;
    }
  }
  while (runs.length > chars.length && runs.length > 1) {
    // Broken letters: join the two runs with the narrowest gap.
    let k = 0;
    for (let i = 1; i < runs.length - 1; i++)
      if (runs[i + 1][0] - runs[i][1] < runs[k + 1][0] - runs[k][1]) k = i;
    runs.splice(k, 2, [runs[k][0], runs[k + 1][1]]);
    adjusted++;
  }
  while (runs.length < chars.length) {
    // Touching letters: split the widest run at its thinnest column, away from its edges.
    let k = 0;
    for (let i = 1; i < runs.length; i++) if (runs[i][1] - runs[i][0] > runs[k][1] - runs[k][0]) k = i;
    const [a, b] = runs[k];
    if (b - a < 4) return null;
    let cut = -1;
    for (let x = a + Math.ceil((b - a) * 0.25); x < b - Math.ceil((b - a) * 0.25); x++)
      if (cut < 0 || cols[x] < cols[cut]) cut = x;
    runs.splice(k, 1, [a, cut], [cut, b]);
    adjusted++;
  }
  if (runs.length !== chars.length) return null;
  const letters = runs.map(([a, b]) => {
    let y0 = Infinity;
    let y1 = -1;
    for (let x = box[0] + a; x < box[0] + b; x++)
      for (let y = box[1]; y < box[3]; y++)
        if (greyAt(r, x, y) < threshold) {
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y + 1);
        }
    return { x0: box[0] + a, x1: box[0] + b, y0, y1 };
  });
  // The baseline: the lowest ink of the letters that do not descend.
  const feet = letters.filter((_, i) => !DESCENDERS.has(chars[i])).map((l) => l.y1);
  const baseline = feet.length ? median(feet) : Math.max(...letters.map((l) => l.y1));
  return { letters, ink: [ix0 + 0, iy0, ix1 + 1, iy1 + 1], baseline, adjusted };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const lettersOf = (text: string) => Array.from(text.normalize('NFC'));

/** A letter image to place: where to cut it from and where its baseline is. */
interface Source {
  cell: LetterCell;
  baseline: number;
  /** A letter drawn from a face (its cell is then in the coverage's own pixels). */
  drawn?: DrawnLetter;
}

export function patchWord(req: PatchRequest): PatchResult {
  const word = wordInk(req);
  if ('refused' in word) return word;
  const letters = letterSources(req, word);
  if ('refused' in letters) return letters;
  const layout = placeLetters(req, word, letters);
  if ('refused' in layout) return layout;
  const paperColour = paperAround(req.raster, layout.box, word);
  const paper = paperOf(req.raster, layout.box, word, paperColour);
  const pixels = erasedOldLetters(req.raster, layout.box, letters.own, layout.kept, paper);
  keepOtherLinesInk(pixels, req.raster, layout.box, word.lv.threshold);
  layNewLetters(pixels, req.raster, layout, word, letters);
  const seen = visibilityOf(req, word, letters, layout, pixels);
  if (letters.drawing && seen.refusal) return seen.refusal;
  return patched(word, letters, layout, paperColour, pixels, seen.figures);
}

type Refused = Extract<PatchResult, { refused: string }>;

/** The word's letters, old and new, and its own ink: its box, its height and the scan's levels there. */
interface WordInk {
  oldChars: string[];
  newChars: string[];
  h: number;
  around: Box;
  lv: { paper: number; ink: number; threshold: number };
}

function wordInk(req: PatchRequest): WordInk | Refused {
  const r = req.raster;
  const target = req.target;
  const oldChars = lettersOf(target.text).filter((c) => !/\s/.test(c));
  const newChars = lettersOf(req.replacement).filter((c) => !/\s/.test(c));
  if (lettersOf(req.replacement).some((c) => /\s/.test(c)))
    return {
      refused: 'the replacement has a space; a patch replaces one word with one word',
      code: 'patch_one_word',
      evidence: {},
    };
  const h = target.box[3] - target.box[1];
  // The word's own ink: its recognised box widened a little sideways (recognition boxes can clip
  // serifs) but hardly at all up and down, where the lines above and below may come close.
  const vpad = Math.max(2, h * 0.04);
  const around = clampBox(
    [target.box[0] - h * 0.1, target.box[1] - vpad, target.box[2] + h * 0.1, target.box[3] + vpad],
    r,
  );
  const lv = levels(
    r,
    clampBox([around[0] - h * 0.5, around[1] - h * 0.3, around[2] + h * 0.5, around[3] + h * 0.3], r),
  );
  // Faint or blurred letters (a low-quality JPEG, a soft scan) cut and moved are read as other
  // letters by some readers: below this contrast the engine does not rearrange them. (At 0.8, with
  // letters split by columns alone and spaced by cell, native tesseract misread 3 of 8 soft patches
  // tesseract.js read right; split and spaced by a face's widths, it read all 6 that verified at 0.5.)
  if ((lv.paper - lv.ink) / Math.max(1, lv.paper) < MIN_CONTRAST)
    return {
      refused: `the scan's letters are too faint or blurred here (ink ${Math.round(lv.ink)} on paper ${Math.round(lv.paper)}) to be cut and moved surely`,
      code: 'patch_faint_scan',
      evidence: { ink: Math.round(lv.ink), paper: Math.round(lv.paper), min_contrast: MIN_CONTRAST },
    };
  if (lv.paper - lv.ink < 60)
    return {
      refused: 'the word has too little contrast with its paper to cut letters from',
      code: 'patch_low_contrast',
      evidence: lv,
    };
  return { oldChars, newChars, h, around, lv };
}

/** A face's letters matched to the page, and how near its shapes came to the word's own. */
type Drawing = MatchedDrawing & { mismatch: number };

/** Where each new letter comes from: the word itself, clearly read words of its size, or a face. */
interface LetterSources {
  own: NonNullable<ReturnType<typeof segment>>;
  sources: Map<string, Source>;
  /** The face whose letters look most like the word's own, and the one drawing missing letters. */
  fit: FaceChoice | null;
  drawing: Drawing | null;
  /** The page's letters the drawing was matched to (when letters were drawn). */
  page: PageLetters | null;
}

function letterSources(req: PatchRequest, word: WordInk): LetterSources | Refused {
  const r = req.raster;
  const target = req.target;
  const { oldChars, newChars, h, around, lv } = word;
  // Touching letters are split where a face's widths put their edges (then at the thinnest column
  // near there): the bundled faces' widths averaged, as nothing is known of the scan's face yet.
  const widthOf = letterWidths(req.letterFaces ?? []);
  const own = segment(r, around, oldChars, lv.threshold, widthOf);
  if (!own)
    return {
      refused: `the letters of “${target.text}” could not be told apart on the scan`,
      code: 'patch_unsegmented',
      evidence: { letters: oldChars.length },
    };
  // Letters cut from the word itself first, then from clearly read words of the same size.
  const sources = new Map<string, Source>();
  oldChars.forEach((c, i) => {
    if (!sources.has(c)) sources.set(c, { cell: own.letters[i], baseline: own.baseline });
  });
  const ownHeight = own.baseline - Math.min(...own.letters.map((l) => l.y0));
  const missing = () => newChars.filter((c) => !sources.has(c));
  for (const w of req.words) {
    if (!missing().length) break;
    if (w.confidence < 90 || w === target) continue;
    const wh = w.box[3] - w.box[1];
    if (Math.abs(wh - h) > 0.25 * h) continue;
    const chars = lettersOf(w.text).filter((c) => !/\s/.test(c));
    if (!chars.some((c) => missing().includes(c))) continue;
    const box = clampBox(
      [w.box[0] - wh * 0.1, w.box[1] - wh * 0.15, w.box[2] + wh * 0.1, w.box[3] + wh * 0.15],
      r,
    );
    const seg = segment(r, box, chars, lv.threshold, widthOf);
    if (!seg || seg.adjusted > 0) continue; // only words whose letters stand apart on their own
    const segHeight = seg.baseline - Math.min(...seg.letters.map((l) => l.y0));
    if (Math.abs(segHeight - ownHeight) > 0.2 * ownHeight) continue;
    chars.forEach((c, i) => {
      if (!sources.has(c)) sources.set(c, { cell: seg.letters[i], baseline: seg.baseline });
    });
  }
  // The face whose letters look most like the word's own: it spaces moved letters. Letters the page
  // never shows are drawn by the near face whose letters, adjusted to the page's measured style, look
  // most like the page's (and refused when none comes within the tolerance).
  const faces = req.letterFaces?.length ? chooseFaces(r, own, oldChars, lv, req.letterFaces) : [];
  const fit = faces[0] ?? null;
  let drawing: Drawing | null = null;
  let page: PageLetters | null = null;
  if (missing().length && fit) {
    if (fit.mismatch > MAX_DRAWN_MISMATCH) return faceTooFar(fit, missing());
    page = pageLetters(req, word, own, widthOf);
    const tolerance = { ...STYLE_TOLERANCE, ...req.tolerance };
    // Faces of the other kind (serif, sans) go before the nearest is taken: at body sizes a sans
    // letter can cover a serif word's letters nearly as well (its feet are a few pixels), and its
    // drawn letter is then the one seen to be foreign.
    const pageKind = faceKind(page.footRatio);
    let ofKind = faces.filter((f) => f.mismatch <= MAX_DRAWN_MISMATCH);
    if (pageKind) {
      const feet = new Map(faces.map((f) => [f, faceFootRatio(f.face, page!.heightChars)]));
      ofKind = ofKind.filter((f) => faceKind(feet.get(f)!) !== otherKind(pageKind));
      if (!ofKind.length) return kindMismatch(page, missing(), feet);
    }
    const matched = ofKind
      .filter((f) => f.mismatch <= ofKind[0].mismatch + 0.1)
      .map((f) => {
        const m = matchDrawing(f.face, page!, missing(), f.emPx, r.bilevel, tolerance, blurred);
        return m && { ...m, mismatch: f.mismatch };
      })
      .filter((m): m is Drawing => m !== null && newChars.every((c) => sources.has(c) || !!m.draw(c)))
      // Within the tolerance, the look of the word: how far the face's shapes are from the word's own
      // plus how far its measured style still is from the page's (both shares; the shapes count for
      // more: faces adjusted to the page differ by a few hundredths in style, by tenths in shape).
      .sort((a, b) => a.differs.length - b.differs.length || a.mismatch + a.error - (b.mismatch + b.error));
    if (matched.length && matched[0].differs.length) return styleMismatch(matched[0], page, missing());
    drawing = matched[0] ?? null;
  }
  for (const c of drawing ? missing() : []) {
    const d = drawing!.draw(c);
    if (!d) continue;
    sources.set(c, { cell: { x0: 0, x1: d.width, y0: 0, y1: d.height }, baseline: d.baseline, drawn: d });
  }
  if (missing().length)
    return {
      refused: `${missing()
        .map((c) => `“${c}”`)
        .join(', ')} ${missing().length > 1 ? 'are' : 'is'} not shown clearly anywhere on the page`,
      code: 'letter_not_on_page',
      evidence: { missing: missing() },
    };
  return { own, sources, fit, drawing, page };
}

/** Recognised words on the target's line (overlapping most of its height), but the target. */
function lineWords(req: PatchRequest): RasterWord[] {
  const t = req.target.box;
  return req.words.filter((w) => {
    if (w === req.target || w.text === req.target.text) return false;
    const overlap = Math.min(w.box[3], t[3]) - Math.max(w.box[1], t[1]);
    return overlap > 0.5 * Math.min(w.box[3] - w.box[1], t[3] - t[1]);
  });
}

/** The letters of a segmented word, for measuring: character, ink box and baseline. */
const measuredOf = (seg: Segmented, chars: string[], word: number): MeasuredLetter[] =>
  seg.letters.map((l, i) => ({
    ch: chars[i],
    x0: l.x0,
    y0: l.y0,
    x1: l.x1,
    y1: l.y1,
    baseline: seg.baseline,
    word,
  }));

/** The line's other words, cut into letters where they stand apart on their own (for measuring). */
function lineLetters(
  req: PatchRequest,
  word: WordInk,
  widthOf: ((c: string) => number | null) | undefined,
): MeasuredLetter[] {
  const out: MeasuredLetter[] = [];
  lineWords(req).forEach((w, k) => {
    if (w.confidence < 80) return;
    const chars = lettersOf(w.text).filter((c) => !/\s/.test(c));
    const wh = w.box[3] - w.box[1];
    const box = clampBox(
      [w.box[0] - wh * 0.1, w.box[1] - wh * 0.04, w.box[2] + wh * 0.1, w.box[3] + wh * 0.04],
      req.raster,
    );
    const seg = segment(req.raster, box, chars, word.lv.threshold, widthOf);
    if (seg && seg.adjusted === 0)
      out.push(...measuredOf(seg, chars, k + 1).filter((l) => /^[\p{L}\p{N}]$/u.test(l.ch)));
  });
  return out;
}

/** The page's letters a drawing is matched to: the word's own style, the line's x-height and cap height. */
function pageLetters(
  req: PatchRequest,
  word: WordInk,
  own: Segmented,
  widthOf: ((c: string) => number | null) | undefined,
): PageLetters {
  const img = rasterImage(req.raster);
  const ownLetters = measuredOf(own, word.oldChars, 0).filter((l) => /^[\p{L}\p{N}]$/u.test(l.ch));
  const wordStyle = letterStyle(img, ownLetters, word.lv);
  const measured = [...ownLetters, ...lineLetters(req, word, widthOf)];
  const all = letterStyle(img, measured, word.lv);
  return {
    chars: ownLetters.map((l) => l.ch),
    heightChars: measured.map((l) => l.ch),
    word: wordStyle,
    xHeightPx: all.x_height_px,
    capHeightPx: all.cap_height_px,
    footRatio: all.foot_ratio,
  };
}

const otherKind = (k: 'serif' | 'sans') => (k === 'serif' ? 'sans' : 'serif');

/** A refusal for a page whose kind of face (serif, sans) none of the near faces is. */
function kindMismatch(page: PageLetters, missing: string[], feet: Map<FaceChoice, number | null>): Refused {
  const kind = faceKind(page.footRatio);
  return {
    refused: `${missing.map((c) => `“${c}”`).join(', ')} would be drawn in a ${kind === 'serif' ? 'sans' : 'serif'} face on a ${kind} page: no face near the word's letters is of the page's kind`,
    code: 'letter_style_mismatch',
    evidence: {
      missing,
      page_foot_ratio: page.footRatio,
      face_foot_ratios: Object.fromEntries(
        [...feet].map(([f, r]) => [f.face.id, r === null ? null : Math.round(r * 100) / 100]),
      ),
      serif_at_least: SERIF_FEET,
      sans_at_most: SANS_FEET,
    },
    advice: ['Choose a replacement made of letters the page already shows (they are cloned, not drawn).'],
  };
}

/** A refusal for letters the page never shows when even the nearest face is too far from the word's own. */
function faceTooFar(nearest: FaceChoice, missing: string[]): Refused {
  const share = Math.round(nearest.mismatch * 100);
  return {
    refused: `${missing.map((c) => `“${c}”`).join(', ')} would be drawn in ${nearest.face.id}, the face nearest the word's letters, whose letters still differ from them in ${share} % of their ink (at most ${Math.round(MAX_DRAWN_MISMATCH * 100)} % is drawn: beyond it the drawn letter is seen, and read, as another face's)`,
    code: 'letter_style_mismatch',
    evidence: {
      missing,
      face: nearest.face.id,
      drawn_face_mismatch: Math.round(nearest.mismatch * 1000) / 1000,
      max_drawn_mismatch: MAX_DRAWN_MISMATCH,
    },
    advice: ['Choose a replacement made of letters the page already shows (they are cloned, not drawn).'],
  };
}

/** A refusal naming what still differs between the drawn letters and the page's, with the figures. */
function styleMismatch(best: Drawing, page: PageLetters, missing: string[]): Refused {
  return {
    refused: `${missing.map((c) => `“${c}”`).join(', ')} would be drawn in ${best.face.id}, whose letters, adjusted as far as they can be, still differ from the page's: ${best.differs.join('; ')}`,
    code: 'letter_style_mismatch',
    evidence: {
      missing,
      face: best.face.id,
      differs: best.differs,
      page: pageFigures(page),
      drawn: styleFigures({ ...best.after, foot_ratio: best.footRatio }),
      stroke_change_px: Math.round(best.strokeDeltaPx * 100) / 100,
    },
    advice: [
      'Choose a replacement made of letters the page already shows (they are cloned, not drawn).',
      `Or offer a face nearer the page's letters (measured stroke ${styleFigures(page.word).stroke_px} px, x-height ${page.xHeightPx ?? 'unknown'} px).`,
    ],
  };
}

/** A scan raster as grey pixels to measure. */
export const rasterImage = (r: ScanRaster): GreyImage => ({
  width: r.width,
  height: r.height,
  grey: (x, y) => greyAt(r, x, y),
});

/** The new letters placed along the word's baseline, the box the patch covers, and how they are spaced. */
interface Layout {
  placed: { src: Source; x: number }[];
  /** The old letters (indices) left on the page as scanned: the new word's unchanged ends, in place. */
  kept: number[];
  box: Box;
  /** The line's other words' letters (measured once: the spacing and the visibility figures use them). */
  lineLetters: MeasuredLetter[];
  spacing: Record<string, unknown>;
}

function placeLetters(req: PatchRequest, word: WordInk, letters: LetterSources): Layout | Refused {
  const r = req.raster;
  const { own } = letters;
  const lineLetterList = lineLetters(req, word, letterWidths(req.letterFaces ?? []));
  const pairs = pairFloorOf(r, word, own, lineLetterList);
  const oldLeft = own.letters[0].x0;
  const oldRight = own.letters[own.letters.length - 1].x1;
  const edges = neighbourEdges(req);
  const words = wordGapRange(req);
  const arrange = (asScanned: boolean) => {
    const spaced = spacedLetters(r, word, letters, pairs, asScanned);
    return { spaced, ...arranged(spaced, edges, oldLeft, oldRight, words) };
  };
  let { spaced, placed, kept } = arrange(true);
  // Touching letters of an unchanged end that do not stay where they stood are spaced as moved ones.
  const touchingMoved = spaced.gaps.some(
    (g, i) =>
      g.own &&
      g.gap <= 0 &&
      spaced.ends[i] >= 0 &&
      !(kept.includes(spaced.ends[i]) && kept.includes(spaced.ends[i + 1])),
  );
  if (touchingMoved) ({ spaced, placed, kept } = arrange(false));
  const span = spanOf(spaced);
  const newLeft = placed.length ? placed[0].x : oldLeft;
  const newRight = newLeft + span;
  const spaceOf = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
  const spacing = {
    letter_pair_floor_px: pairs.floor === null ? null : Math.round(pairs.floor.any * 10) / 10,
    stem_pair_floor_px: pairs.floor === null ? null : Math.round(pairs.floor.flat * 10) / 10,
    letter_pairs_measured: pairs.measured,
    new_letter_gaps_px: spaced.inset.map((c, i) =>
      c === null ? null : Math.round((c + spaced.gaps[i].gap) * 10) / 10,
    ),
    word_gaps_px: words,
    drawn_facing_px:
      spaced.drawnFacing === null
        ? null
        : {
            median: Math.round(spaced.drawnFacing.median * 10) / 10,
            widest: Math.round(spaced.drawnFacing.widest * 10) / 10,
            closest: spaced.drawnFacing.closest,
            closest_widest: spaced.drawnFacing.closestWidest,
            from: spaced.drawnFacing.from,
          },
    space_before_px: [spaceOf(edges.before, oldLeft), spaceOf(edges.before, newLeft)],
    space_after_px: [spaceOf(oldRight, edges.after), spaceOf(newRight, edges.after)],
  };
  const top = Math.min(own.ink[1], ...placed.map((p) => own.baseline - (p.src.baseline - p.src.cell.y0)));
  const bottom = Math.max(own.ink[3], ...placed.map((p) => own.baseline + (p.src.cell.y1 - p.src.baseline)));
  const margin = 2;
  const box = clampBox(
    [
      Math.min(own.ink[0], oldLeft, newLeft) - margin,
      top - margin,
      Math.max(own.ink[2], newRight) + margin,
      bottom + margin,
    ],
    r,
  );
  const tooWide = spacingRefusal(edges, box, margin, words, [
    spacing.space_before_px[1],
    spacing.space_after_px[1],
  ]);
  if (tooWide) return { ...tooWide, evidence: { ...tooWide.evidence, spacing } };
  return {
    placed,
    kept,
    box,
    lineLetters: lineLetterList,
    spacing: { ...spacing, letters_kept: kept.length },
  };
}

/**
 * The new word's letters placed: a narrower word widens its changed gaps to the old extent; a word
 * whose first letters stay as scanned keeps its left edge while the space after it stays in the
 * line's range (a pixel under its narrowest, a little over its widest); else placed by `placeGrowth`
 * (which may give back letter gaps: the letters are laid out after). With the old letters that stay
 * as scanned: unchanged ones at either end that land where they stood (not erased, not laid again).
 */
function arranged(
  spaced: Spaced,
  edges: { before: number | null; after: number | null },
  oldLeft: number,
  oldRight: number,
  words: [number, number] | null,
): { placed: { src: Source; x: number }[]; kept: number[] } {
  const left = fitExtent(spaced, oldRight - oldLeft);
  const after = edges.after === null ? null : edges.after - (oldRight - left);
  const slack = (g: number) => Math.max(1, WORD_GAP_SLACK * g);
  const keepLeft =
    spaced.ends[0] === 0 &&
    (after === null || words === null || (after >= words[0] - 1 && after <= words[1] + slack(words[1])));
  const shift = keepLeft ? 0 : placeGrowth(spaced, edges, oldLeft, oldRight, words);
  const placed = lettersFrom(spaced, oldLeft + shift);
  const kept = placed.flatMap((p, i) =>
    spaced.ends[i] >= 0 && p.x === p.src.cell.x0 ? [spaced.ends[i]] : [],
  );
  return { placed, kept };
}

/**
 * A wider word refused when it would run into a word beside it, or leave a space narrower than the
 * line's narrowest word gap (less a slack of 15 %, at least 1 px): a space closed that far reads as
 * no space ("more" → "moer" read "omoer" with the space before it closed).
 */
function spacingRefusal(
  edges: { before: number | null; after: number | null },
  box: Box,
  margin: number,
  words: [number, number] | null,
  spaces: (number | null)[],
): Refused | null {
  const advice = [
    'Choose a replacement no wider than the old word (the same letters in another order keep its width).',
  ];
  if (edges.after !== null && edges.after < box[2] - margin)
    return {
      refused: 'the new word would run into the next word on its line',
      code: 'patch_too_wide',
      evidence: { right: box[2] },
      advice,
    };
  if (edges.before !== null && edges.before > box[0] + margin)
    return {
      refused: 'the new word would run into the word before it on its line',
      code: 'patch_too_wide',
      evidence: { left: box[0] },
      advice,
    };
  if (!words) return null;
  const least = Math.min(...spaces.filter((s): s is number => s !== null));
  const lo = words[0] - Math.max(1, WORD_GAP_SLACK * words[0]);
  if (least < lo)
    return {
      refused: `the new word is too wide for its place: the space beside it would be ${least} px where the line's word gaps are ${words[0]}–${words[1]} px, and its letters are already as close as the page sets its own`,
      code: 'patch_too_wide',
      evidence: { space_px: least, word_gaps_px: words },
      advice,
    };
  return null;
}

/** Share of the line's narrowest word gap a space beside the new word may lose and still read as one. */
const WORD_GAP_SLACK = 0.15;

/** A letter's ink row by row: its first and last ink column from its cell's left edge, keyed by row from the baseline. */
type InkRows = Map<number, [number, number]>;

function inkRowsOf(cell: LetterCell, baseline: number, isInk: (x: number, y: number) => boolean): InkRows {
  const rows: InkRows = new Map();
  for (let y = cell.y0; y < cell.y1; y++) {
    let first = -1;
    let last = -1;
    for (let x = cell.x0; x < cell.x1; x++)
      if (isInk(x, y)) {
        if (first < 0) first = x - cell.x0;
        last = x - cell.x0;
      }
    if (first >= 0) rows.set(y - baseline, [first, last]);
  }
  return rows;
}

/** Share of a pair's rows within 1 px of its closest: a pair facing this flat is two stems ("dl"). */
const FLAT_SHARE = 0.6;

/** How far two letters stand apart along their facing sides, and whether those sides are flat. */
interface Facing {
  gap: number;
  flat: boolean;
  /** The least of the rows' gaps: where the two come closest (what splits a word in columns). */
  closest: number;
}

/**
 * How far two letters stand apart along their facing sides: the median, over the rows both have ink
 * in, of the paper between the first letter's last ink and the second's first, with the second's cell
 * `dx` pixels right of the first's. Two stems ("dl") face each other on every row, so this is their
 * column gap (and the pair is `flat`); two rounds ("oo") meet at one point and stand further off
 * elsewhere. Null when no row holds ink of both.
 */
function facingGap(a: InkRows, b: InkRows, dx: number): Facing | null {
  const gaps: number[] = [];
  for (const [row, [, last]] of a) {
    const other = b.get(row);
    if (other) gaps.push(dx + other[0] - last - 1);
  }
  if (!gaps.length) return null;
  const s = gaps.sort((x, y) => x - y);
  const m = s.length >> 1;
  const near = s.filter((g) => g <= s[0] + 1).length;
  return {
    gap: s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2,
    flat: near >= FLAT_SHARE * s.length,
    closest: s[0],
  };
}

/**
 * How close two letters come with the second's cell `dx` right of the first's, counting ink within
 * `reach` rows above or below as facing: a j's tail reaching under the letter before shares no row
 * with its foot, yet set under it the two read as one shape ("modjfying" read "modifying"). Null when
 * no such rows hold ink of both.
 */
function nearestGap(a: InkRows, b: InkRows, dx: number, reach: number): number | null {
  let least: number | null = null;
  for (const [row, [, last]] of a)
    for (let d = -reach; d <= reach; d++) {
      const other = b.get(row + d);
      if (!other) continue;
      const gap = dx + other[0] - last - 1;
      if (least === null || gap < least) least = gap;
    }
  return least;
}

/** The page's closest pairs: of all kinds, and of flat-facing pairs (two stems). */
interface PairFloor {
  any: number;
  flat: number;
}

/**
 * The closest the page sets its own letters along their facing sides (issue 32 item 2), by kind: the
 * least facing gap of the line's other words' letter pairs that stand apart on their own, and the
 * least of those that face each other with two stems (when at least two were measured; else the
 * least of all). The old word's pairs count only when the line has fewer than three: its letters are
 * the ones rearranged. A new pair set closer than the page sets its kind can merge into one letter for
 * a reader: d and l set closer than the page sets two stems read as one ("woudl" read "woud" with d–l
 * at 5 px where the page's closest pair, a round one, was 4). Null when fewer than three pairs were
 * measured.
 */
function pairFloorOf(
  r: ScanRaster,
  word: WordInk,
  own: Segmented,
  line: MeasuredLetter[],
): { floor: PairFloor | null; measured: number; lineFacing: OwnFacing | null } {
  const threshold = word.lv.threshold;
  const isInk = (x: number, y: number) => greyAt(r, x, y) < threshold;
  const rowsOf = (l: LetterCell) => inkRowsOf(l, 0, isInk);
  const facings: Facing[] = [];
  const measure = (a: LetterCell, b: LetterCell) => {
    if (b.x0 <= a.x1 - 1) return;
    const f = facingGap(rowsOf(a), rowsOf(b), b.x0 - a.x0);
    if (f !== null && f.gap > 0) facings.push(f);
  };
  for (let i = 1; i < line.length; i++) if (line[i].word === line[i - 1].word) measure(line[i - 1], line[i]);
  const lineFacing = facings.length >= 3 ? facingSpread(facings) : null;
  if (facings.length < 3 && own.adjusted === 0)
    for (let i = 1; i < own.letters.length; i++) measure(own.letters[i - 1], own.letters[i]);
  if (facings.length < 3) return { floor: null, measured: facings.length, lineFacing };
  const any = Math.min(...facings.map((f) => f.gap));
  const flat = facings.filter((f) => f.flat).map((f) => f.gap);
  return {
    floor: { any, flat: flat.length >= 2 ? Math.min(...flat) : any },
    measured: facings.length,
    lineFacing,
  };
}

/** A new word's letters and the gaps after each (the word's own pairs marked), with their least gaps. */
interface Spaced {
  srcs: Source[];
  gaps: { gap: number; own: boolean }[];
  /** Per new letter, the old letter it is (an unchanged first or last letter of the word), else -1. */
  ends: number[];
  /** The word's usual gap between its letters' cells (a change of a gap is bounded by half of it). */
  usual: number;
  least: number[];
  /** Each pair's facing gap at a column gap of 0 (null: no row holds ink of both). */
  inset: (number | null)[];
  /** The widest column gap a pair may be widened to (a drawn letter's: the word's widest facing). */
  most: number[];
  /** The facing gaps a drawn letter is set at: the word's own, or the line's. */
  drawnFacing: (OwnFacing & { from: 'word' | 'line' }) | null;
}

/** A source letter's ink rows (from its baseline): a cloned letter's own ink, a drawn letter's coverage. */
function sourceInkRows(r: ScanRaster, src: Source, threshold: number): InkRows {
  const d = src.drawn;
  if (d) return inkRowsOf(src.cell, d.baseline, (x, y) => d.coverage[y * d.width + x] >= 128);
  const cw = src.cell.x1 - src.cell.x0;
  const mine = ownInk(r, src.cell, threshold);
  return inkRowsOf(
    src.cell,
    src.baseline,
    (x, y) => mine[(y - src.cell.y0) * cw + x - src.cell.x0] === 1 && greyAt(r, x, y) < threshold,
  );
}

/**
 * The new word's letters laid out from the old word's left edge. Spacing: the word's own gap where
 * the new word keeps a pair of its letters; elsewhere the face's side bearings for the new pair (a
 * narrow "i" before a "d" stands further off than its cell suggests), shifted by how the scan's gaps
 * differ from the face's on the word's own pairs; without a face, the word's own gaps in order.
 * Letters that touched (split at their thinnest column) have no gap of their own: moved elsewhere
 * they would touch another letter and read as one, so every gap is at least half the word's usual,
 * and no new pair stands closer along its facing sides than the page's own closest pairs (`floor`).
 * (A wider word's growth is placed by `placeGrowth`.)
 */
function spacedLetters(
  r: ScanRaster,
  word: WordInk,
  letters: LetterSources,
  pairs: { floor: PairFloor | null; lineFacing: OwnFacing | null },
  asScanned: boolean,
): Spaced {
  const { floor } = pairs;
  const { oldChars, newChars, h } = word;
  const { own, sources, fit } = letters;
  const measured = own.letters.slice(1).map((l, i) => l.x0 - own.letters[i].x1);
  const positive = measured.filter((g) => g > 0);
  const usual = positive.length ? median(positive) : Math.max(1, Math.round(h * 0.06));
  const minGap = Math.max(1, Math.round(usual / 2));
  const gaps = measured.map((g) => Math.max(g, minGap));
  const meanGap = gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : usual;
  const ownPair = new Map<string, number>();
  measured.forEach((g, i) => {
    if (g > 0 && !ownPair.has(oldChars[i] + oldChars[i + 1])) ownPair.set(oldChars[i] + oldChars[i + 1], g);
  });
  const spacing = fit ? pairSpacing(fit, oldChars, measured) : null;
  const ends = keptEnds(oldChars, newChars, measured);
  const srcs = newChars.map((c, i) =>
    ends[i] >= 0 ? { cell: own.letters[ends[i]], baseline: own.baseline } : sources.get(c)!,
  );
  const rows = srcs.map((s) => sourceInkRows(r, s, word.lv.threshold));
  const widthOf = (i: number) => srcs[i].cell.x1 - srcs[i].cell.x0;
  // The facing gap of new pair i with a column gap of 0; the least column gap the floor allows.
  const facing = srcs.slice(1).map((_, i) => facingGap(rows[i], rows[i + 1], widthOf(i)));
  const inset = facing.map((f) => f?.gap ?? null);
  const insetClosest = facing.map((f) => f?.closest ?? null);
  // A drawn letter's ink is known to the pixel: it may reach under its neighbour's cell (a j's tail
  // under the letter before, set apart by its cell it stood 4 px off at its closest: "pre jent") as
  // long as a column of paper stays between the two on every row both have ink in.
  // Near: ink within a few rows above or below counts, so a tail under a neighbour's foot stays clear
  // of it by as much paper as the word's own closest pair keeps.
  const ownFacing = ownFacingGap(r, word, own, measured);
  const reach = Math.max(2, Math.round(h * 0.08));
  const clear = Math.max(1, ownFacing?.tightest ?? pairs.lineFacing?.tightest ?? 1);
  const clearOf = facing.map((f, i) =>
    f === null ? 0 : clear - (nearestGap(rows[i], rows[i + 1], widthOf(i), reach) ?? f.closest),
  );
  const least = facing.map((f, i) => {
    const byFloor = floor === null || f === null ? 0 : Math.ceil((f.flat ? floor.flat : floor.any) - f.gap);
    const drawn = !!(srcs[i].drawn || srcs[i + 1].drawn) && f !== null;
    return Math.max(drawn ? clearOf[i] : minGap, byFloor);
  });
  // A drawn letter's facing gaps come from the page, never from its face's bearings: a face's
  // bearings fitted on other pairs set it apart ("argumqnt" read "argum qnt" by native tesseract,
  // the q 5-7 px off where the word's own letters face each other at 4-5). The word's own pairs;
  // when its letters touch (none standing apart), the line's other words' pairs.
  // Both along the facing sides (the median row) and where the two come closest: a stem beside a
  // round letter set at the word's median facing gap still stands apart at its closest ("prej ent").
  const drawnFacing =
    ownFacing !== null
      ? { ...ownFacing, from: 'word' as const }
      : pairs.lineFacing !== null
        ? { ...pairs.lineFacing, from: 'line' as const }
        : null;
  const isDrawnPair = (i: number) =>
    drawnFacing !== null && !!(srcs[i].drawn || srcs[i + 1].drawn) && inset[i] !== null;
  const drawnGap = (i: number, facingAt: number, closestAt: number) =>
    Math.max(least[i], Math.min(facingAt - inset[i]!, closestAt - insetClosest[i]!));
  // And in columns: the paper between the two letters' ink across all their rows (what a reader
  // segmenting a line by columns takes for a space) no wider than the word's widest own column gap.
  const ownColumns = measured.filter((g) => g > 0);
  const columnCap = ownColumns.length ? Math.max(...ownColumns) : Infinity;
  const most = newChars.slice(1).map((_, i) =>
    isDrawnPair(i)
      ? // Kept clear of its neighbour; the column cap before the page's closest facing pair (a
        // round letter beside a stem faces it far at a small column gap: "prejent" opened 8 px).
        Math.max(
          clearOf[i],
          Math.min(
            Math.floor(drawnGap(i, drawnFacing!.widest, drawnFacing!.closestWidest)),
            columnCap -
              paperBeside(rows[i], widthOf(i), 'right') -
              paperBeside(rows[i + 1], widthOf(i + 1), 'left'),
          ),
        )
      : Infinity,
  );
  const newGaps = newChars.slice(1).map((_, i) => {
    // A pair of unchanged letters at either end keeps its gap as scanned (touching ones touch, unless
    // they are to be moved: `asScanned` false).
    if (ends[i] >= 0 && ends[i + 1] === ends[i] + 1 && (asScanned || measured[ends[i]] > 0))
      return { gap: measured[ends[i]], own: true };
    const pair = newChars[i] + newChars[i + 1];
    const kept = ownPair.get(pair);
    if (kept !== undefined) return { gap: kept, own: true };
    if (isDrawnPair(i))
      return {
        gap: Math.min(most[i], Math.round(drawnGap(i, drawnFacing!.median, drawnFacing!.closest))),
        own: false,
      };
    // Elsewhere the face's spacing for the pair (fitted to the word's own pairs), else the word's own
    // median along facing sides; never wider along its facing sides than the word's widest own pair:
    // a narrow letter moved beside a wide one keeps the word's look ("internlaly" read "int ernialy").
    const byFacing =
      ownFacing !== null && inset[i] !== null ? Math.round(ownFacing.median - inset[i]!) : null;
    const modelled = spacing?.(newChars[i], newChars[i + 1]);
    const gap =
      modelled !== undefined && modelled !== null
        ? Math.round(modelled)
        : (byFacing ?? Math.round(gaps[i] ?? meanGap));
    const widest =
      ownFacing !== null && inset[i] !== null ? Math.ceil(ownFacing.widest - inset[i]!) : Infinity;
    return { gap: Math.max(least[i], Math.min(widest, gap)), own: false };
  });
  return { srcs, gaps: newGaps, least, inset, ends, usual, most, drawnFacing };
}

/** The paper columns of a letter's cell beside its ink on one side (a drawn letter's soft edge). */
function paperBeside(rows: InkRows, width: number, side: 'left' | 'right'): number {
  let first = width;
  let last = -1;
  for (const [a, b] of rows.values()) {
    first = Math.min(first, a);
    last = Math.max(last, b);
  }
  if (last < 0) return 0;
  return side === 'left' ? first : width - 1 - last;
}

/**
 * Which new letters are the old word's own, unchanged at its start or end (the old letter's index;
 * -1 for the changed middle): those stay on the page as scanned where the new word keeps its extent.
 * Only letters standing apart from the changed letters beside them (a column of paper between): a
 * kept letter cut from its neighbour would keep the neighbour's ink in its cell.
 */
function keptEnds(oldChars: string[], newChars: string[], measured: number[]): number[] {
  const most = Math.min(oldChars.length, newChars.length);
  let prefix = 0;
  while (prefix < most && oldChars[prefix] === newChars[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < most - prefix &&
    oldChars[oldChars.length - 1 - suffix] === newChars[newChars.length - 1 - suffix]
  )
    suffix++;
  // measured[i] is the gap after old letter i.
  while (prefix > 0 && prefix < oldChars.length && !(measured[prefix - 1] > 0)) prefix--;
  while (suffix > 0 && suffix < oldChars.length && !(measured[oldChars.length - 1 - suffix] > 0)) suffix--;
  return newChars.map((_, i) =>
    i < prefix ? i : i >= newChars.length - suffix ? i - newChars.length + oldChars.length : -1,
  );
}

/**
 * The median and widest facing gaps of the old word's letter pairs that stand apart (null: fewer than
 * two): how far apart along their facing sides the word sets its letters, whatever their shapes.
 */
function ownFacingGap(r: ScanRaster, word: WordInk, own: Segmented, measured: number[]): OwnFacing | null {
  const rows = own.letters.map((l) =>
    sourceInkRows(r, { cell: l, baseline: own.baseline }, word.lv.threshold),
  );
  const facings = measured
    .map((g, i) =>
      g > 0 ? facingGap(rows[i], rows[i + 1], own.letters[i + 1].x0 - own.letters[i].x0) : null,
    )
    .filter((f): f is Facing => f !== null && f.gap > 0);
  return facings.length >= 2 ? facingSpread(facings) : null;
}

/** How far apart a word (or line) sets its letters: along facing sides and at their closest. */
interface OwnFacing {
  /** The pairs' median and widest facing gaps. */
  median: number;
  widest: number;
  /** The pairs' median and widest closest approach. */
  closest: number;
  closestWidest: number;
  /** The least closest approach of the pairs. */
  tightest: number;
}

function facingSpread(facings: Facing[]): OwnFacing {
  const gaps = facings.map((f) => f.gap);
  const closest = facings.map((f) => f.closest);
  return {
    median: median(gaps),
    widest: Math.max(...gaps),
    closest: median(closest),
    closestWidest: Math.max(...closest),
    tightest: Math.min(...closest),
  };
}

/**
 * A new word narrower than the old one widens its changed gaps to the old word's extent, each by at
 * most half the word's usual gap: a permutation of the same letters then leaves the spaces around the
 * word and its unchanged letters where they were. (A wider one is placed by `placeGrowth`: its
 * changed gaps set closer to fit read as one letter, "woudl" read "woud]".) How much is left (negative:
 * the word is wider). A word with a drawn letter may then widen its own gaps by a pixel each.
 */
function fitExtent(spaced: Spaced, extent: number): number {
  const free = spaced.gaps.map((g, i) => (g.own ? -1 : i)).filter((i) => i >= 0);
  const cap = Math.max(1, Math.round(spaced.usual / 2));
  const moved = new Map<number, number>(free.map((i) => [i, 0]));
  let room = extent - spanOf(spaced);
  while (room > 0) {
    // Widen the narrowest changed gap that can still give, one pixel at a time.
    const open = free.filter((i) => moved.get(i)! < cap && spaced.gaps[i].gap < spaced.most[i]);
    if (!open.length) break;
    const i = open.reduce((a, b) => (spaced.gaps[b].gap < spaced.gaps[a].gap ? b : a));
    spaced.gaps[i].gap++;
    moved.set(i, moved.get(i)! + 1);
    room--;
  }
  // A word narrower by a drawn letter (a j for an m) that its changed gaps cannot fill, without
  // setting the drawn letter apart, shares the rest a pixel to each of the word's own gaps standing
  // apart, as a typesetter letterspaces a line: else the spaces around it open wider than the line's
  // ("prejent" left 17 px spaces on a line of 10–13).
  if (room > 0 && spaced.srcs.some((src) => src.drawn))
    for (const g of spaced.gaps.filter((x) => x.own && x.gap > 0)) {
      if (room <= 0) break;
      g.gap++;
      room--;
    }
  return room;
}

/**
 * Gives back up to `want` pixels of a new word's modelled letter gaps, one at a time from the widest,
 * none under its least (the word's own pairs keep theirs); how many it gave.
 */
function giveBackGaps(spaced: Spaced, want: number): number {
  let given = 0;
  while (given < want) {
    let widest = -1;
    spaced.gaps.forEach((g, i) => {
      if (!g.own && g.gap > spaced.least[i] && (widest < 0 || g.gap > spaced.gaps[widest].gap)) widest = i;
    });
    if (widest < 0) break;
    spaced.gaps[widest].gap--;
    given++;
  }
  return given;
}

/** The new word's letters at `left`, each after the last by its cell and gap. */
function lettersFrom(spaced: Spaced, left: number): { src: Source; x: number }[] {
  const placed: { src: Source; x: number }[] = [];
  let x = left;
  spaced.srcs.forEach((src, i) => {
    placed.push({ src, x });
    if (i + 1 < spaced.srcs.length) x += src.cell.x1 - src.cell.x0 + spaced.gaps[i].gap;
  });
  return placed;
}

/** The new word's span with its gaps as they stand. */
const spanOf = (spaced: Spaced): number =>
  spaced.srcs.reduce((a, s) => a + s.cell.x1 - s.cell.x0, 0) + spaced.gaps.reduce((a, g) => a + g.gap, 0);

/** The right edge of the word before the target on its line and the left edge of the word after. */
function neighbourEdges(req: PatchRequest): { before: number | null; after: number | null } {
  const t = req.target.box;
  const onLine = req.words.filter((w) => w !== req.target && w.box[1] < t[3] && w.box[3] > t[1]);
  const after = onLine.filter((w) => w.box[0] >= t[2] - 1).map((w) => w.box[0]);
  const before = onLine.filter((w) => w.box[2] <= t[0] + 1).map((w) => w.box[2]);
  return {
    before: before.length ? Math.max(...before) : null,
    after: after.length ? Math.min(...after) : null,
  };
}

/**
 * The narrowest and widest gap between neighbouring recognised words of the target's run on its line
 * (line-readback.ts, lineRun: a gutter to another column is not one of them; null: none), as the
 * proof measures the spacing the patch must keep.
 */
function wordGapRange(req: PatchRequest): [number, number] | null {
  const { gaps } = lineRun(
    req.words.map((w) => w.box),
    req.target.box,
  );
  return gaps.length ? [Math.min(...gaps), Math.max(...gaps)] : null;
}

/**
 * Where a new word goes (its left edge from the old word's, in pixels), giving back its letter gaps
 * as needed. A narrower word is centred on the old one: the spaces before and after it share what it
 * gives up (left-aligned, all of it went to the space after the word: "заботе  отдела"). A wider one
 * disturbs the line as little as it can: its growth goes first to the space after it, then to the one
 * before, each down to the line's narrowest word gap; then its modelled letter gaps give back what is
 * left, down to their least (the same letters swapped are the same width, as a typesetter sets them);
 * then both spaces share the rest, so the smaller stays as large as it can ("baout" set from the old
 * left edge closed the space after it to 8 px where the line's are 12–16; "azked" ran into "about").
 * The first word of a line (nothing before it) keeps its left edge, the margin it is set against.
 */
function placeGrowth(
  spaced: Spaced,
  edges: { before: number | null; after: number | null },
  oldLeft: number,
  oldRight: number,
  words: [number, number] | null,
): number {
  const room = oldRight - oldLeft - spanOf(spaced);
  if (room >= 0) return Math.round(room / 2);
  const narrowest = words ? words[0] : 0;
  let spaceBefore = edges.before === null ? -Infinity : oldLeft - edges.before;
  let spaceAfter = edges.after === null ? Infinity : edges.after - oldRight;
  let grow = -room;
  const take = (space: number) => Math.min(grow, Math.max(0, Math.floor(space - narrowest)));
  const fromAfter = take(spaceAfter);
  grow -= fromAfter;
  spaceAfter -= fromAfter;
  let left = take(spaceBefore);
  grow -= left;
  spaceBefore -= left;
  grow -= giveBackGaps(spaced, grow);
  if (grow > 0 && edges.before !== null)
    left += Math.min(grow, Math.max(0, Math.round((spaceBefore - spaceAfter + grow) / 2)));
  return -left;
}

/** The paper: the median colour of the light pixels in a ring around the word. */
function paperAround(r: ScanRaster, box: Box, word: WordInk): number[] {
  const { h, lv } = word;
  const n = r.channels;
  const ring: number[][] = Array.from({ length: n }, () => []);
  const outer = clampBox([box[0] - h * 0.4, box[1] - h * 0.3, box[2] + h * 0.4, box[3] + h * 0.3], r);
  for (let yy = outer[1]; yy < outer[3]; yy++)
    for (let xx = outer[0]; xx < outer[2]; xx++) {
      if (xx >= box[0] && xx < box[2] && yy >= box[1] && yy < box[3]) continue;
      if (greyAt(r, xx, yy) < lv.threshold + (lv.paper - lv.threshold) * 0.5) continue;
      const i = (yy * r.width + xx) * n;
      for (let k = 0; k < n; k++) ring[k].push(r.data[i + k]);
    }
  const paperColour = ring.map((v) => (v.length ? median(v) : 255));
  return paperColour;
}

/**
 * Start from the scan itself, erase the old letters (their cells and the edge pixels around them)
 * to the paper, then lay the new letters over it: whatever else the box holds (a descender of the
 * line above, a speck) stays as it was.
 */
function erasedOldLetters(
  r: ScanRaster,
  box: Box,
  own: LetterSources['own'],
  kept: number[],
  paper: PaperAt,
): Uint8Array {
  const n = r.channels;
  const bw = box[2] - box[0];
  const bh = box[3] - box[1];
  const pixels = new Uint8Array(bw * bh * n);
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      const si = ((box[1] + y) * r.width + box[0] + x) * n;
      for (let k = 0; k < n; k++) pixels[(y * bw + x) * n + k] = r.data[si + k];
    }
  const paperAt = (x: number, y: number) => {
    const o = ((y - box[1]) * bw + x - box[0]) * n;
    for (let k = 0; k < n; k++) pixels[o + k] = r.bilevel ? 255 : paper(x, y, k);
  };
  // Letters kept as scanned are left alone: erasing stops at their cells.
  const isKept = (i: number) => kept.includes(i);
  let lead = 0;
  while (isKept(lead)) lead++;
  let tail = own.letters.length;
  while (tail > lead && isKept(tail - 1)) tail--;
  const from = lead > 0 ? own.letters[lead - 1].x1 : -Infinity;
  const upTo = tail < own.letters.length ? own.letters[tail].x0 : Infinity;
  const x0Of = (x: number) => Math.max(box[0], from, x);
  const x1Of = (x: number) => Math.min(box[2], upTo, x);
  own.letters.forEach((l, i) => {
    if (isKept(i)) return;
    for (let y = Math.max(box[1], l.y0 - 2); y < Math.min(box[3], l.y1 + 2); y++)
      for (let x = x0Of(l.x0 - 2); x < x1Of(l.x1 + 2); x++) paperAt(x, y);
  });
  for (let i = 1; i < own.letters.length; i++) {
    // The gaps between the old letters too (a kerned pair leaves edge pixels there).
    const a = own.letters[i - 1];
    const b = own.letters[i];
    if (isKept(i - 1) && isKept(i)) continue;
    for (let y = Math.max(box[1], Math.min(a.y0, b.y0)); y < Math.min(box[3], Math.max(a.y1, b.y1)); y++)
      for (let x = x0Of(a.x1); x < x1Of(b.x0); x++) paperAt(x, y);
  }
  return pixels;
}

/**
 * Ink of the lines above and below that reaches into the patch (a "g"'s tail over an ascender of the
 * word, an accent of the line below) is put back as scanned after the old letters are erased: a
 * piece of ink that leaves the patch's box upwards or downwards is not the word's, whose letters lie
 * wholly inside it. Erasing by letter cells had cut "dpkg"'s tail flat over "maekn". With the paper
 * next to it where it is darker (its soft edge).
 */
function keepOtherLinesInk(pixels: Uint8Array, r: ScanRaster, box: Box, threshold: number): void {
  const bw = box[2] - box[0];
  const bh = box[3] - box[1];
  const win = clampBox([box[0] - bh, box[1] - bh, box[2] + bh, box[3] + bh], r);
  const { label, width: ww, count } = inkPieces(r, win, threshold);
  const leaves = new Uint8Array(count);
  for (let i = 0; i < label.length; i++) {
    if (label[i] < 0) continue;
    const gy = win[1] + Math.floor(i / ww);
    if (gy < box[1] || gy >= box[3]) leaves[label[i]] = 1;
  }
  const foreign = new Uint8Array(bw * bh);
  let any = false;
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      const l = label[(box[1] + y - win[1]) * ww + box[0] + x - win[0]];
      if (l >= 0 && leaves[l]) {
        foreign[y * bw + x] = 1;
        any = true;
      }
    }
  if (!any) return;
  const n = r.channels;
  const HALO = 2;
  for (let y = 0; y < bh; y++)
    for (let x = 0; x < bw; x++) {
      let near = false;
      for (let dy = -HALO; dy <= HALO && !near; dy++)
        for (let dx = -HALO; dx <= HALO && !near; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          near = nx >= 0 && ny >= 0 && nx < bw && ny < bh && foreign[ny * bw + nx] === 1;
        }
      if (!near) continue;
      const si = ((box[1] + y) * r.width + box[0] + x) * n;
      const o = (y * bw + x) * n;
      for (let k = 0; k < n; k++) pixels[o + k] = Math.min(pixels[o + k], r.data[si + k]);
    }
}

/** The new letters laid over the erased word: cloned cells as they are, drawn ones in the ink colour. */
function layNewLetters(
  pixels: Uint8Array,
  r: ScanRaster,
  layout: Layout,
  word: WordInk,
  letters: LetterSources,
): void {
  const { box, placed } = layout;
  const { lv } = word;
  const { own, drawing } = letters;
  const n = r.channels;
  const bw = box[2] - box[0];
  const bh = box[3] - box[1];
  const inkColour = drawing ? inkColourOf(r, own, lv) : [];
  const keptCells = new Set(layout.kept.map((i) => own.letters[i]));
  for (const p of placed) {
    // A kept letter where it stood (its cell may also be the source of the same letter elsewhere).
    if (keptCells.has(p.src.cell) && p.x === p.src.cell.x0) continue;
    const dy = own.baseline - p.src.baseline;
    const d = p.src.drawn;
    if (d) {
      // A drawn letter: its coverage mixes the word's ink colour into the paper under it (the
      // scan's own grain shows through its soft edges).
      for (let sy = 0; sy < d.height; sy++)
        for (let sx = 0; sx < d.width; sx++) {
          const cov = d.coverage[sy * d.width + sx] / 255;
          const tx = p.x + sx - box[0];
          const ty = sy + dy - box[1];
          if (cov <= 0.02 || tx < 0 || ty < 0 || tx >= bw || ty >= bh) continue;
          const o = (ty * bw + tx) * n;
          if (r.bilevel) {
            if (cov >= 0.5) pixels[o] = 0;
            continue;
          }
          for (let k = 0; k < n; k++)
            pixels[o + k] = Math.min(
              pixels[o + k],
              Math.round(pixels[o + k] - cov * (pixels[o + k] - inkColour[k])),
            );
        }
      continue;
    }
    const mine = ownInk(r, p.src.cell, lv.threshold);
    const cw = p.src.cell.x1 - p.src.cell.x0;
    for (let sy = p.src.cell.y0; sy < p.src.cell.y1; sy++) {
      for (let sx = p.src.cell.x0; sx < p.src.cell.x1; sx++) {
        const tx = p.x + (sx - p.src.cell.x0) - box[0];
        const ty = sy + dy - box[1];
        if (tx < 0 || ty < 0 || tx >= bw || ty >= bh) continue;
        // Ink of a neighbour reaching into the cell (an f's hood over the next letter) stays behind.
        if (!mine[(sy - p.src.cell.y0) * cw + sx - p.src.cell.x0]) continue;
        const g = greyAt(r, sx, sy);
        const o = (ty * bw + tx) * n;
        if (r.bilevel) {
          if (g < 128) pixels[o] = 0;
          continue;
        }
        // The source pixel as it is where it is darker than the paper (the letter's own ink and
        // edges, at their own strength); the paper elsewhere, so a cut cell leaves no seam.
        if (g >= lv.paper - 0.1 * (lv.paper - lv.ink)) continue;
        const si = (sy * r.width + sx) * n;
        for (let k = 0; k < n; k++) pixels[o + k] = Math.min(pixels[o + k], r.data[si + k]);
      }
    }
  }
}

/**
 * The pieces of ink (8-connected pixels darker than `threshold`) of the raster within `win`: each
 * pixel's piece (-1: paper), in the window's own coordinates, and how many pieces there are.
 */
function inkPieces(
  r: ScanRaster,
  win: Box,
  threshold: number,
): { label: Int32Array; width: number; height: number; count: number } {
  const ww = win[2] - win[0];
  const wh = win[3] - win[1];
  const label = new Int32Array(ww * wh).fill(-1);
  const isInk = (x: number, y: number) => greyAt(r, win[0] + x, win[1] + y) < threshold;
  let count = 0;
  for (let y0 = 0; y0 < wh; y0++)
    for (let x0 = 0; x0 < ww; x0++) {
      if (label[y0 * ww + x0] >= 0 || !isInk(x0, y0)) continue;
      const id = count++;
      const stack = [y0 * ww + x0];
      label[y0 * ww + x0] = id;
      while (stack.length) {
        const i = stack.pop()!;
        const x = i % ww;
        const y = (i - x) / ww;
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= ww || ny >= wh) continue;
            const j = ny * ww + nx;
            if (label[j] >= 0 || !isInk(nx, ny)) continue;
            label[j] = id;
            stack.push(j);
          }
      }
    }
  return { label, width: ww, height: wh, count };
}

/**
 * A piece of ink belongs to a cell's letter with this share of its pixels inside the cell, or when
 * its part inside is this share of all the cell's ink (the middle one of three touching letters).
 */
const OWN_INK_SHARE = 0.25;
const OWN_CELL_SHARE = 0.4;

/**
 * The pixels of a letter's cell that belong to its own ink: the connected pieces of ink (8-connected,
 * followed out to a cell's width either side) with OWN_INK_SHARE of their pixels inside the cell or
 * OWN_CELL_SHARE of the cell's ink, and the edge pixels within 2 px of them. A piece mostly outside is a neighbour's (an "f"'s
 * hood, a "T"'s bar over the next letter); a piece shared about evenly is a pair of touching letters
 * split between their cells, and each keeps its part.
 */
function ownInk(r: ScanRaster, cell: LetterCell, threshold: number): Uint8Array {
  const cw = cell.x1 - cell.x0;
  const ch = cell.y1 - cell.y0;
  const win = clampBox([cell.x0 - cw, cell.y0 - 2, cell.x1 + cw, cell.y1 + 2], r);
  const { label, width: ww, height: wh, count } = inkPieces(r, win, threshold);
  const pieces = Array.from({ length: count }, () => ({ inside: 0, total: 0 }));
  for (let i = 0; i < label.length; i++) {
    if (label[i] < 0) continue;
    const rx = win[0] + (i % ww);
    const ry = win[1] + Math.floor(i / ww);
    pieces[label[i]].total++;
    if (rx >= cell.x0 && rx < cell.x1 && ry >= cell.y0 && ry < cell.y1) pieces[label[i]].inside++;
  }
  const cellInk = pieces.reduce((t, p) => t + p.inside, 0);
  const keep = pieces.map((p) => p.inside >= OWN_INK_SHARE * p.total || p.inside >= OWN_CELL_SHARE * cellInk);
  const mine = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++)
    for (let x = 0; x < cw; x++) {
      // Own ink within 2 px (its soft edge), and no ink of a neighbour's nearer.
      let own = false;
      for (let dy = -2; dy <= 2 && !own; dy++)
        for (let dx = -2; dx <= 2 && !own; dx++) {
          const wx = cell.x0 + x + dx - win[0];
          const wy = cell.y0 + y + dy - win[1];
          if (wx < 0 || wy < 0 || wx >= ww || wy >= wh) continue;
          const l = label[wy * ww + wx];
          if (l >= 0 && keep[l]) own = true;
        }
      const l = label[(cell.y0 + y - win[1]) * ww + cell.x0 + x - win[0]];
      mine[y * cw + x] = own && !(l >= 0 && !keep[l]) ? 1 : 0;
    }
  return mine;
}

/** The scan's own paper for the patch's box, from paper-only places within 0.6 × the word's height. */
function paperOf(r: ScanRaster, box: Box, word: WordInk, paperColour: number[]): PaperAt {
  const { h, lv } = word;
  const cut = lv.threshold + 0.5 * (lv.paper - lv.threshold);
  return paperTexture(r, box, (x, y) => greyAt(r, x, y), cut, Math.max(8, Math.round(h * 0.6)), paperColour);
}

/** The ink box of the pixels darker than `threshold` within `b` (null: none). */
function inkBoxIn(img: GreyImage, b: Box, threshold: number): Box | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  for (let y = Math.max(0, b[1]); y < Math.min(img.height, b[3]); y++)
    for (let x = Math.max(0, b[0]); x < Math.min(img.width, b[2]); x++)
      if (img.grey(x, y) < threshold) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x + 1);
        y1 = Math.max(y1, y + 1);
      }
  return x1 < 0 ? null : [x0, y0, x1, y1];
}

const ratio = (a: number | null, b: number | null) =>
  a === null || b === null || b <= 0 ? null : Math.round((a / b) * 1000) / 1000;

/**
 * How the patched word looks beside the line's other words (issue 32 item 5): its stroke width, ink
 * density, letter gaps and the paper's noise, as the same measures of the line's words (or of the old
 * word when the line has none to measure), with their ratios. A word with drawn letters is refused
 * where its stroke still differs from the old word's, or its drawn letters' x-height from the line's
 * (the old word's when the line has none to measure), beyond the tolerance.
 */
function visibilityOf(
  req: PatchRequest,
  word: WordInk,
  letters: LetterSources,
  layout: Layout,
  pixels: Uint8Array,
): { figures: Record<string, unknown>; refusal: Refused | null } {
  const r = req.raster;
  const { lv, oldChars, newChars, h } = word;
  const { own } = letters;
  const { box } = layout;
  const n = r.channels;
  const bw = box[2] - box[0];
  const scan = rasterImage(r);
  const after: GreyImage = {
    width: r.width,
    height: r.height,
    grey: (x, y) => {
      if (x < box[0] || y < box[1] || x >= box[2] || y >= box[3]) return greyAt(r, x, y);
      const o = ((y - box[1]) * bw + x - box[0]) * n;
      return n === 1 ? pixels[o] : (pixels[o] + pixels[o + 1] + pixels[o + 2]) / 3;
    },
  };
  const plain = (l: MeasuredLetter) => /^[\p{L}\p{N}]$/u.test(l.ch);
  const newLetters: MeasuredLetter[] = [];
  const drawnLetters: MeasuredLetter[] = [];
  layout.placed.forEach((p, i) => {
    const c = p.src.cell;
    const top = own.baseline - (p.src.baseline - c.y0);
    const ink = inkBoxIn(after, [p.x, top, p.x + (c.x1 - c.x0), top + (c.y1 - c.y0)], lv.threshold);
    if (!ink) return;
    const letter = {
      ch: newChars[i],
      x0: ink[0],
      y0: ink[1],
      x1: ink[2],
      y1: ink[3],
      baseline: own.baseline,
      word: 0,
    };
    newLetters.push(letter);
    if (p.src.drawn) drawnLetters.push(letter);
  });
  const patchedStyle = letterStyle(after, newLetters.filter(plain), lv);
  // The height of the letters drawn, not of the whole word: its cloned letters are the page's own,
  // and which of them a median takes moves it by a pixel on its own.
  const drawnStyle = letterStyle(after, drawnLetters.filter(plain), lv);
  const oldStyle = letterStyle(scan, measuredOf(own, oldChars, 0).filter(plain), lv);
  const lineLetterList = layout.lineLetters;
  const lineStyle = lineLetterList.length ? letterStyle(scan, lineLetterList, lv) : oldStyle;
  const ring = clampBox([box[0] - h * 0.6, box[1] - h * 0.4, box[2] + h * 0.6, box[3] + h * 0.4], r);
  const noiseInside = paperNoise(after, box, lv);
  const noiseAround = paperNoise(scan, ring, lv, box);
  const noiseBefore = paperNoise(scan, box, lv);
  const figures = {
    word: styleFigures(patchedStyle),
    line: styleFigures(lineStyle),
    line_letters: lineLetterList.length,
    stroke_ratio: ratio(patchedStyle.stroke_px, lineStyle.stroke_px),
    x_height_ratio: ratio(patchedStyle.x_height_px, lineStyle.x_height_px),
    ink_density_ratio: ratio(patchedStyle.ink_density, lineStyle.ink_density),
    letter_gap_ratio: ratio(patchedStyle.letter_gap_px, lineStyle.letter_gap_px),
    paper_noise_inside: noiseInside === null ? null : Math.round(noiseInside * 100) / 100,
    paper_noise_around: noiseAround === null ? null : Math.round(noiseAround * 100) / 100,
    paper_noise_ratio: ratio(noiseInside, noiseAround),
    // The same box on the scan before the patch (its own letters' JPEG ringing counts alike).
    paper_noise_before: noiseBefore === null ? null : Math.round(noiseBefore * 100) / 100,
  };
  const tolerance = { ...STYLE_TOLERANCE, ...req.tolerance };
  const differs: string[] = [];
  const check = (what: string, a: number | null, b: number | null, share: number, whose: string) => {
    if (
      a !== null &&
      b !== null &&
      b > 0 &&
      Math.abs(a - b) / b > share &&
      Math.abs(a - b) > tolerance.floorPx
    )
      differs.push(
        `${what} ${Math.round(a * 100) / 100} px against ${whose} ${Math.round(b * 100) / 100} px`,
      );
  };
  check('stroke width', patchedStyle.stroke_px, oldStyle.stroke_px, tolerance.stroke, "the old word's");
  // Against the line's x-height where the line has letters to measure: the old word may hold one
  // x-height letter (“будут”: its т), and one letter's height is a pixel or two off on a blurred scan.
  const lineX = lineLetterList.length ? lineStyle.x_height_px : null;
  check(
    'x-height',
    drawnStyle.x_height_px,
    lineX ?? oldStyle.x_height_px,
    tolerance.height,
    lineX !== null ? "the line's" : "the old word's",
  );
  const gaps = innerGaps(req, layout, after, lv.threshold);
  Object.assign(figures, { widest_inner_gap_px: gaps.word, line_widest_inner_gap_px: gaps.line });
  if (gaps.line !== null && gaps.word > gaps.line + 1)
    differs.push(
      `a gap of ${gaps.word} px opens inside the word where the old word and the line's other words open at most ${gaps.line} px (a reader takes it for a space)`,
    );
  const refusal: Refused | null = differs.length
    ? {
        refused: `the patched word, with its drawn letters, would stand out from the page: ${differs.join('; ')}`,
        code: 'letter_style_mismatch',
        evidence: { visibility: figures, differs },
        advice: ['Choose a replacement made of letters the page already shows (they are cloned, not drawn).'],
      }
    : null;
  return { figures, refusal };
}

/**
 * The widest run of paper columns inside the patched word (between its first and last ink, over the
 * line's rows) and the widest inside the old word or any of the line's other clearly read words
 * (null: fewer than two of those). Measured on 294 lines of scans made from seven pages: a word
 * opens a gap more than a pixel wider than every other word of its line in 8 of 1894 words; a drawn
 * letter set apart does, and native tesseract reads two words ("argum qnt").
 */
function innerGaps(
  req: PatchRequest,
  layout: Layout,
  after: GreyImage,
  threshold: number,
): { word: number; line: number | null } {
  const others = lineWords(req).filter((w) => w.confidence >= 85 && lettersOf(w.text).length >= 3);
  const boxes = [req.target.box, ...others.map((w) => w.box)];
  const y0 = Math.max(0, Math.min(...boxes.map((b) => b[1])));
  const y1 = Math.min(after.height, Math.max(...boxes.map((b) => b[3])));
  const widest = (img: GreyImage, x0: number, x1: number) => {
    let best = 0;
    let run = -1;
    for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) {
      let ink = false;
      for (let y = y0; y < y1 && !ink; y++) ink = img.grey(x, y) < threshold;
      if (ink) {
        if (run > best) best = run;
        run = 0;
      } else if (run >= 0) run++;
    }
    return best;
  };
  const last = layout.placed[layout.placed.length - 1];
  const right = last.x + last.src.cell.x1 - last.src.cell.x0;
  const word = widest(after, layout.placed[0].x, right);
  const scan = rasterImage(req.raster);
  // The old word's own widest gap counts with the line's: a gap the page opened itself is its own.
  const line = [req.target, ...others].map((w) => widest(scan, w.box[0], w.box[2]));
  return { word, line: others.length >= 2 ? Math.max(...line) : null };
}

function patched(
  word: WordInk,
  letters: LetterSources,
  layout: Layout,
  paperColour: number[],
  pixels: Uint8Array,
  visibility: Record<string, unknown>,
): PatchResult {
  const { oldChars, newChars, lv } = word;
  const { own, sources, drawing, page } = letters;
  const { box, placed } = layout;
  const drawnCount = placed.filter((p) => p.src.drawn).length;
  return {
    box,
    pixels,
    method: drawnCount ? 'drawn' : 'clone',
    cost: drawnCount ? 'medium' : 'low',
    measurements: {
      letters_cloned: newChars.length - drawnCount,
      letters_from_word: newChars.filter((c) => oldChars.includes(c)).length,
      letters_from_page: newChars.filter((c) => !oldChars.includes(c) && !sources.get(c)?.drawn).length,
      ...(drawing && drawnCount
        ? {
            letters_drawn: drawnCount,
            drawn_face: drawing.face.id,
            drawn_em_px: Math.round(drawing.emPx * 10) / 10,
            drawn_face_mismatch: Math.round(drawing.mismatch * 1000) / 1000,
            drawn_blur_px: drawing.blur,
            drawn_stroke_change_px: Math.round(drawing.strokeDeltaPx * 100) / 100,
            drawn_slant: drawing.slant,
            letter_style: {
              page: page ? pageFigures(page) : null,
              face_before: styleFigures(drawing.before),
              face_after: styleFigures({ ...drawing.after, foot_ratio: drawing.footRatio }),
            },
          }
        : {}),
      segmentation_adjusted: own.adjusted,
      spacing: layout.spacing,
      paper: paperColour,
      ink_level: Math.round(lv.ink),
      visibility,
    },
  };
}

/** A face near the word's own letters, at the word's size. */
interface FaceChoice {
  face: LetterFace;
  emPx: number;
  /** Mean share of pixels where the face's letters and the word's own disagree (0 = the same). */
  mismatch: number;
}

/** Beyond this mismatch with the word's own letters, no face is near enough to space letters by. */
const MAX_FACE_MISMATCH = 0.55;

/**
 * Beyond this mismatch, a face is not near enough to draw a letter with: its letters share less
 * than 56 % of their ink with the word's own (1 − IoU, averaged over the word's letters), and the
 * letter it draws is another face's, to a reader's eye and to recognition alike. (On four seen sets
 * of scans, 2026-11-29: of 27 drawn-letter patches that verified, the 6 drawn by faces at
 * 0.455–0.531 included the 4 that native tesseract then read as another word — “sqnse” in P052 on a
 * Computer Modern page read “Sanse”, “profondûur” read “profondüur”; none of the 21 at 0.15–0.43 was.
 * Then on an unseen set, “hardçare” drawn by Nimbus Roman at 0.446 on a Liberation Serif page, read
 * by every reader here unsurely (41–85), was “hardça re” to native tesseract: the bar went from 0.45
 * to 0.44.)
 */
export const MAX_DRAWN_MISMATCH = 0.44;

/**
 * The faces whose letters, drawn at the word's size, cover the word's own letter images within
 * MAX_FACE_MISMATCH, nearest first (none when no face comes near).
 */
function chooseFaces(
  r: ScanRaster,
  own: Segmented,
  chars: string[],
  lv: { paper: number; ink: number; threshold: number },
  faces: LetterFace[],
): FaceChoice[] {
  // Compared on plain letters and figures (marks and punctuation are too small to measure a face).
  const plain = chars.map((c, i) => ({ c, cell: own.letters[i] })).filter((l) => /^[\p{L}\p{N}]$/u.test(l.c));
  if (!plain.length) return [];
  const near: FaceChoice[] = [];
  for (const face of faces) {
    const ratios: number[] = [];
    for (const { c, cell } of plain) {
      const d = face.draw(c, 100);
      if (d && d.height > 0) ratios.push(((cell.y1 - cell.y0) / d.height) * 100);
    }
    if (ratios.length < Math.ceil(plain.length / 2)) continue;
    const emPx = median(ratios);
    const drawn = plain.map((l) => ({ ...l, d: face.draw(l.c, emPx) }));
    if (drawn.some((l) => !l.d)) continue;
    let mismatch = 0;
    for (const { cell, d } of drawn) {
      const g = d!;
      const w = Math.max(g.width, cell.x1 - cell.x0);
      const h = Math.max(g.height, cell.y1 - cell.y0);
      let both = 0;
      let either = 0;
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const a = x < g.width && y < g.height && g.coverage[y * g.width + x] >= 128;
          const sx = cell.x0 + x;
          const sy = cell.y0 + y;
          const b = sx < cell.x1 && sy < cell.y1 && greyAt(r, sx, sy) < lv.threshold;
          if (a && b) both++;
          if (a || b) either++;
        }
      mismatch += either ? 1 - both / either : 1;
    }
    mismatch /= drawn.length;
    if (mismatch <= MAX_FACE_MISMATCH) near.push({ face, emPx, mismatch });
  }
  near.sort((x, y) => x.mismatch - y.mismatch);
  // A fixed-pitch face only where it fits clearly better than every proportional one: on a coarse or
  // blurred scan all faces come near alike (a 150 dpi Helvetica word: Liberation Mono 0.354, Nimbus
  // Sans Bold 0.359), and a typewriter letter in a proportional line is seen at once.
  const proportional = near.find((f) => !f.face.fixedPitch);
  return proportional
    ? near.filter((f) => !f.face.fixedPitch || f.mismatch <= proportional.mismatch - FIXED_PITCH_MARGIN)
    : near;
}

/** How much nearer than every proportional face a fixed-pitch face must come to be taken. */
const FIXED_PITCH_MARGIN = 0.05;

/** A drawn letter softened by a box blur of `radius` pixels (grown by the radius on each side). */
function blurred(d: DrawnLetter, radius: number): DrawnLetter {
  const w = d.width + 2 * radius;
  const h = d.height + 2 * radius;
  const src = (x: number, y: number) => {
    const sx = x - radius;
    const sy = y - radius;
    return sx >= 0 && sy >= 0 && sx < d.width && sy < d.height ? d.coverage[sy * d.width + sx] : 0;
  };
  const out = new Uint8Array(w * h);
  const k = (2 * radius + 1) ** 2;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let sum = 0;
      for (let dy = -radius; dy <= radius; dy++)
        for (let dx = -radius; dx <= radius; dx++) sum += src(x + dx, y + dy);
      out[y * w + x] = Math.round(sum / k);
    }
  return {
    width: w,
    height: h,
    coverage: out,
    baseline: d.baseline + radius,
    advance: d.advance,
    left: d.left - radius,
  };
}

/** The word's ink colour: the median of its darkest pixels, per channel. */
function inkColourOf(r: ScanRaster, own: Segmented, lv: { paper: number; ink: number }): number[] {
  const n = r.channels;
  const chans: number[][] = Array.from({ length: n }, () => []);
  const dark = lv.ink + 0.2 * (lv.paper - lv.ink);
  for (const cell of own.letters)
    for (let y = cell.y0; y < cell.y1; y++)
      for (let x = cell.x0; x < cell.x1; x++) {
        if (greyAt(r, x, y) > dark) continue;
        const i = (y * r.width + x) * n;
        for (let k = 0; k < n; k++) chans[k].push(r.data[i + k]);
      }
  return chans.map((v) => (v.length ? median(v) : lv.ink));
}

/**
 * Gaps between letters as the chosen face spaces them (right side bearing of the first plus left side
 * bearing of the second, in scan pixels), offset by the median difference between the scan's measured
 * gaps and the face's on the word's own pairs. Null for a pair the face cannot draw.
 */
function pairSpacing(
  fit: FaceChoice,
  oldChars: string[],
  measured: number[],
): (a: string, b: string) => number | null {
  const bearings = new Map<string, { left: number; right: number } | null>();
  const of = (c: string) => {
    if (!bearings.has(c)) {
      const d = fit.face.draw(c, fit.emPx);
      bearings.set(c, d ? { left: d.left, right: d.advance - d.left - d.width } : null);
    }
    return bearings.get(c)!;
  };
  const face = (a: string, b: string) => {
    const x = of(a);
    const y = of(b);
    return x && y ? x.right + y.left : null;
  };
  const offsets: number[] = [];
  measured.forEach((g, i) => {
    const f = face(oldChars[i], oldChars[i + 1]);
    if (g > 0 && f !== null) offsets.push(g - f);
  });
  if (!offsets.length) return () => null;
  const offset = median(offsets);
  return (a, b) => {
    const f = face(a, b);
    return f === null ? null : f + offset;
  };
}

/** Mean advance (per 100 px em) of a character over the faces that have it, or null. */
function letterWidths(faces: LetterFace[]): ((c: string) => number | null) | undefined {
  if (!faces.length) return undefined;
  const cache = new Map<string, number | null>();
  return (c) => {
    if (!cache.has(c)) {
      const ws = faces
        .map((f) => f.draw(c, 100)?.advance)
        .filter((w): w is number => w !== undefined && w > 0);
      cache.set(c, ws.length ? ws.reduce((a, b) => a + b, 0) / ws.length : null);
    }
    return cache.get(c)!;
  };
}

/**
 * Shares a word's runs of ink out to its characters when their counts differ: a letter broken in
 * several runs (a faint joint) or several touching letters in one run. Of all the ways to join
 * neighbouring runs into one letter or split one run into several, the one whose widths best match
 * the widths a face gives the characters; inside a split run the cuts go where those widths put the
 * letters' edges, moved to the thinnest column within a third of a letter. Null when a character has
 * no width.
 */
function shareByWidths(
  runs: [number, number][],
  cols: number[],
  chars: string[],
  widthOf: (c: string) => number | null,
): [number, number][] | null {
  const w = chars.map(widthOf);
  if (w.some((v) => v === null)) return null;
  const widths = w as number[];
  const R = runs.length;
  const C = chars.length;
  // Ink is about nine tenths of a letter's advance: the scale puts the face's widths in pixels.
  const scale = (0.9 * (runs[R - 1][1] - runs[0][0])) / widths.reduce((a, b) => a + b, 0);
  const misfit = (have: number, want: number) => ((have - want) / Math.max(1, want)) ** 2;
  // cost[i][j]: best misfit of runs 0..i-1 holding chars 0..j-1; how: [previous i, previous j].
  const cost = Array.from({ length: R + 1 }, () => new Array<number>(C + 1).fill(Infinity));
  const how = Array.from({ length: R + 1 }, () => new Array<[number, number]>(C + 1));
  cost[0][0] = 0;
  const relax = (i: number, j: number, pi: number, pj: number, c: number) => {
    if (c < cost[i][j]) {
      cost[i][j] = c;
      how[i][j] = [pi, pj];
    }
  };
  for (let i = 0; i < R; i++)
    for (let j = 0; j < C; j++) {
      if (cost[i][j] === Infinity) continue;
      // One letter over runs i..i2-1 (joined across their gaps; a small price per joint).
      for (let i2 = i + 1; i2 <= R; i2++)
        relax(
          i2,
          j + 1,
          i,
          j,
          cost[i][j] + misfit(runs[i2 - 1][1] - runs[i][0], widths[j] * scale) + 0.02 * (i2 - i - 1),
        );
      // Run i holding letters j..j2-1 (split; a small price per cut).
      for (let j2 = j + 2; j2 <= C; j2++) {
        let want = 0;
        for (let q = j; q < j2; q++) want += widths[q] * scale;
        relax(i + 1, j2, i, j, cost[i][j] + misfit(runs[i][1] - runs[i][0], want) + 0.02 * (j2 - j - 1));
      }
    }
  if (cost[R][C] === Infinity) return null;
  const steps: { runs: [number, number]; chars: [number, number] }[] = [];
  for (let i = R, j = C; i > 0 || j > 0;) {
    const [pi, pj] = how[i][j];
    steps.unshift({ runs: [pi, i], chars: [pj, j] });
    i = pi;
    j = pj;
  }
  const out: [number, number][] = [];
  for (const step of steps) {
    const a = runs[step.runs[0]][0];
    const b = runs[step.runs[1] - 1][1];
    const [k, j] = step.chars;
    if (j - k === 1) {
      out.push([a, b]);
      continue;
    }
    const total = widths.slice(k, j).reduce((x, y) => x + y, 0);
    let start = a;
    let acc = 0;
    for (let q = k; q < j - 1; q++) {
      acc += widths[q];
      const guess = a + ((b - a) * acc) / total;
      const reach = ((b - a) * widths[q]) / total / 3;
      let cut = Math.round(guess);
      for (
        let x = Math.max(start + 1, Math.round(guess - reach));
        x <= Math.min(b - 1, Math.round(guess + reach));
        x++
      )
        if (cols[x] < cols[cut] || (cols[x] === cols[cut] && Math.abs(x - guess) < Math.abs(cut - guess)))
          cut = x;
      cut = Math.min(b - 1, Math.max(start + 1, cut));
      out.push([start, cut]);
      start = cut;
    }
    out.push([start, b]);
  }
  return out.length === C && out.every(([a, b]) => b > a) ? out : null;
}
