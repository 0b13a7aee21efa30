// The line reads as before, except the word (issue 32, item 1). Reading the patched word with some
// of its line around it says the new word is there; it does not say the line still reads as it did:
// a patch can open a gap inside a word ("artil ce"), close the space after it, or change how a
// neighbour is read ("1 artilcea" for "article about"). So the same band of the line — the word and
// both its neighbours — is recognised before and after the patch, and the two readings must be the
// same word for word, word boundaries and punctuation included, except the target, which must read
// the replacement. And the gaps before and after the new word must stay within the line's own range
// of word gaps.
import type { RgbImage } from '../../pdf/mupdf-adapter.ts';
import { matchForm } from '../../ocr/page-ocr.ts';
import { recogniseWords, type RecognisedWord } from '../../ocr/recognizer.ts';
import type { GuardResult } from '../proof/verify.ts';
import { cropPpm, greyLevels, type Box } from '../proof/render-diff.ts';

/** The target's line on the page before the patch, in working (300 dpi) render pixels. */
export interface LineContext {
  /** The band read before and after: the word and its nearest neighbour on each side. */
  band: Box;
  /** The gaps between consecutive words of the line, as recognition measured them on the page. */
  gaps: number[];
  /** Neighbours the band holds (0, 1 or 2). */
  neighbours: number;
}

/** Gaps may differ from the line's own range by this much before they count (recognition's boxes move). */
const GAP_SLACK_PX = 3;
const GAP_SLACK_SHARE = 0.15;

/**
 * The line of `target` among the page's recognised words (boxes in render pixels at `renderDpi`):
 * the words sharing most of its height, sorted left to right, and of them the run around the target
 * whose gaps stay under one and a half word heights; the band runs from the left
 * neighbour's left edge to the right neighbour's right edge (two word heights beyond the word where
 * it has none), over the line's height.
 */
export function lineContext(
  words: { box_render: number[] }[],
  targetRender: Box,
  renderDpi: number,
  page: { width: number; height: number },
  working: number,
): LineContext {
  const s = working / renderDpi;
  const scale = (b: number[]): Box => [b[0] * s, b[1] * s, b[2] * s, b[3] * s];
  const target = scale(targetRender);
  const h = target[3] - target[1];
  const { left, right, gaps } = lineRun(
    words.map((w) => scale(w.box_render)),
    target,
  );
  const before = left[0];
  const after = right[0];
  const inBand = [target, ...(before ? [before] : []), ...(after ? [after] : [])];
  const pad = Math.round(0.3 * h);
  const band: Box = [
    Math.max(0, Math.floor(before ? before[0] - pad : target[0] - 2 * h)),
    Math.max(0, Math.floor(Math.min(...inBand.map((b) => b[1])) - 0.15 * h)),
    Math.min(page.width, Math.ceil(after ? after[2] + pad : target[2] + 2 * h)),
    Math.min(page.height, Math.ceil(Math.max(...inBand.map((b) => b[3])) + 0.15 * h)),
  ];
  return { band, gaps, neighbours: (before ? 1 : 0) + (after ? 1 : 0) };
}

/**
 * The target's run of words on its line: of `boxes`, those sharing most of its height, chained to it
 * by gaps under one and a half word heights (a gutter to another column, or a tab stop, is not a word
 * gap of this line), nearest first on each side; and the gaps between consecutive words of the run.
 * The target's own box may be among `boxes` (a box overlapping it across is on neither side).
 */
export function lineRun(boxes: Box[], target: Box): { left: Box[]; right: Box[]; gaps: number[] } {
  const h = target[3] - target[1];
  const onLine = boxes
    .filter((b) => {
      const shared = Math.min(b[3], target[3]) - Math.max(b[1], target[1]);
      return shared >= 0.5 * Math.min(h, b[3] - b[1]);
    })
    .sort((a, b) => a[0] - b[0]);
  const maxGap = 1.5 * h;
  const left: Box[] = [];
  for (const b of onLine.filter((o) => o[2] <= target[0] + 1).reverse()) {
    const edge = left.length ? left[left.length - 1][0] : target[0];
    if (edge - b[2] > maxGap) break;
    left.push(b);
  }
  const right: Box[] = [];
  for (const b of onLine.filter((o) => o[0] >= target[2] - 1)) {
    const edge = right.length ? right[right.length - 1][2] : target[2];
    if (b[0] - edge > maxGap) break;
    right.push(b);
  }
  const run = [...[...left].reverse(), target, ...right];
  const gaps: number[] = [];
  for (let i = 1; i < run.length; i++) {
    const gap = run[i][0] - run[i - 1][2];
    if (gap > 0) gaps.push(gap);
  }
  return { left, right, gaps };
}

const LEADING = /^[\p{P}\p{S}]*/u;
const TRAILING = /[\p{P}\p{S}]*$/u;
const edges = (text: string) => `${LEADING.exec(text)![0]}|${TRAILING.exec(text)![0]}`;
const said = (r: RecognisedWord[]) => `“${r.map((w) => w.text).join(' ')}”`;

/** Which word of the band's reading before the patch is the target: the old word nearest its box. */
function targetIndex(reading: RecognisedWord[], find: string, patchInBand: Box): number {
  const centre = (b: number[]) => (b[0] + b[2]) / 2;
  const mid = centre(patchInBand);
  let best = -1;
  for (const [i, w] of reading.entries()) {
    if (matchForm(w.text) !== matchForm(find)) continue;
    if (best < 0 || Math.abs(centre(w.box) - mid) < Math.abs(centre(reading[best].box) - mid)) best = i;
  }
  return best;
}

export interface LineReadback {
  reading: GuardResult;
  spacing: GuardResult;
  /**
   * How surely the band read the old word before the patch and the new one after it (same band,
   * same recogniser), when both were read; null otherwise. A word the page's own recognition reads
   * at 65 cannot be expected at 85 once patched: tier 5 measures the patched word against this.
   */
  word: { before: number; after: number } | null;
}

/** Whether any pixel of `box` (band coordinates, padded by a pixel) differs between the two renders. */
function inkChanged(was: RgbImage, now: RgbImage, band: Box, box: number[]): boolean {
  const x0 = Math.max(0, Math.floor(band[0] + box[0]) - 1);
  const y0 = Math.max(0, Math.floor(band[1] + box[1]) - 1);
  const x1 = Math.min(was.width, now.width, Math.ceil(band[0] + box[2]) + 1);
  const y1 = Math.min(was.height, now.height, Math.ceil(band[1] + box[3]) + 1);
  for (let y = y0; y < y1; y++) {
    const a = y * was.stride;
    const b = y * now.stride;
    for (let x = x0 * 3; x < x1 * 3; x++) if (was.pixels[a + x] !== now.pixels[b + x]) return true;
  }
  return false;
}

/** Whether two boxes share any pixel. */
const overlaps = (a: number[], b: number[]) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/**
 * Recognises the band before and after the patch and judges the two readings: the same words at
 * the same boundaries except the target, which reads `replacement` with the punctuation it had;
 * the gaps on both sides of the new word within the line's range (widened by a little slack).
 */
export async function readLineBack(
  before: RgbImage,
  after: RgbImage,
  line: LineContext,
  patch300: Box,
  v: { find: string; replacement: string; lang: string; dpi: number },
): Promise<LineReadback> {
  const was = await recogniseWords(cropPpm(before, line.band), v.lang, 'line', v.dpi);
  const now = await recogniseWords(cropPpm(after, line.band), v.lang, 'line', v.dpi);
  const patchInBand: Box = [
    patch300[0] - line.band[0],
    patch300[1] - line.band[1],
    patch300[2] - line.band[0],
    patch300[3] - line.band[1],
  ];
  const k = targetIndex(was, v.find, patchInBand);
  const wanted = matchForm(v.replacement);
  const problems: string[] = [];
  // A neighbour read differently although not one of its pixels changed, and clear of the patch,
  // is the recogniser reading the same ink otherwise in another context (a line is recognised as a
  // whole), not the patch changing it: noted, not counted. A neighbour whose ink changed counts.
  const unstable: string[] = [];
  if (k < 0) problems.push(`before the patch the band does not read “${v.find}”`);
  else if (now.length !== was.length)
    problems.push(`${now.length} word(s) where there were ${was.length}: a word boundary moved`);
  else {
    for (const [i, w] of now.entries()) {
      if (i === k) {
        if (matchForm(w.text) !== wanted) problems.push(`the word reads “${w.text}”, not “${v.replacement}”`);
        else if (edges(w.text) !== edges(was[k].text))
          problems.push(`the punctuation around the word changed (“${was[k].text}” → “${w.text}”)`);
      } else if (w.text !== was[i].text) {
        const seen = [...was[i].box, ...w.box];
        const box = [
          Math.min(seen[0], seen[4]),
          Math.min(seen[1], seen[5]),
          Math.max(seen[2], seen[6]),
          Math.max(seen[3], seen[7]),
        ];
        const said = `a neighbour reads “${w.text}” where it read “${was[i].text}”`;
        if (overlaps(box, patchInBand) || inkChanged(before, after, line.band, box)) problems.push(said);
        else unstable.push(`${said}, its pixels unchanged`);
      }
    }
  }
  const reading: GuardResult = {
    name: 'line_reads_as_before',
    passed: problems.length === 0,
    detail: `the line around the word (band ${JSON.stringify(line.band)}, ${line.neighbours} neighbour(s)) read ${said(was)} before and ${said(now)} after${
      problems.length ? `: ${problems.join('; ')}` : ': the same except the word'
    }${unstable.length ? ` (${unstable.join('; ')}: the recogniser's, not the patch's)` : ''}`,
  };
  const word =
    problems.length === 0 && k >= 0 ? { before: was[k].confidence, after: now[k].confidence } : null;
  const ink = { before, after, band: line.band, threshold: inkThreshold(before, line.band) };
  return { reading, spacing: spacingGuard(line, problems.length === 0 ? now : null, was, k, ink), word };
}

/** The band's renders before and after the patch, and the grey level under which a pixel is ink. */
interface BandInk {
  before: RgbImage;
  after: RgbImage;
  band: Box;
  threshold: number;
}

/**
 * The gaps on each side of word `k` of a reading: the paper between the words' ink where the renders
 * are given (`image`), else between recognition's boxes. Boxes move with what the recogniser makes
 * of a line: a box that took in some of its neighbour measured "maekn" 49 px into the next word
 * where 9 px of paper stood between them, as before the patch.
 */
function gapsAround(
  reading: RecognisedWord[],
  k: number,
  image?: RgbImage,
  ink?: BandInk,
): [string, number][] {
  const gap = (a: RecognisedWord, b: RecognisedWord) =>
    (image && ink ? paperBetween(image, ink, a.box, b.box) : null) ?? b.box[0] - a.box[2];
  const sides: [string, number][] = [];
  if (k > 0) sides.push(['before', gap(reading[k - 1], reading[k])]);
  if (k + 1 < reading.length) sides.push(['after', gap(reading[k], reading[k + 1])]);
  return sides;
}

/**
 * The widest run of paper columns between the middles of two words' boxes (band coordinates), over
 * the rows either box covers: the space a reader sees between them (null: the boxes do not stand in
 * that order). A column with a single dark pixel still counts as paper (a speck of the scan).
 */
function paperBetween(image: RgbImage, ink: BandInk, a: number[], b: number[]): number | null {
  const from = Math.round((a[0] + a[2]) / 2);
  const to = Math.round((b[0] + b[2]) / 2);
  if (to <= from) return null;
  const [bx, by] = ink.band;
  const y0 = Math.max(0, Math.floor(by + Math.min(a[1], b[1])));
  const y1 = Math.min(image.height, Math.ceil(by + Math.max(a[3], b[3])));
  let widest = 0;
  let run = 0;
  for (let x = Math.max(0, bx + from); x < Math.min(image.width, bx + to); x++) {
    let dark = 0;
    for (let y = y0; y < y1 && dark < 2; y++) {
      const i = y * image.stride + x * 3;
      if (image.pixels[i] + image.pixels[i + 1] + image.pixels[i + 2] < 3 * ink.threshold) dark++;
    }
    run = dark < 2 ? run + 1 : 0;
    widest = Math.max(widest, run);
  }
  return widest;
}

/** Halfway between the band's ink (its darkest 2 %) and its paper (its lightest 10 %), in grey. */
function inkThreshold(image: RgbImage, band: Box): number {
  const level = greyLevels(image, band);
  return (level(0.02) + level(0.9)) / 2;
}

/**
 * The gaps on each side of the new word, against the line's own range of word gaps: those the
 * page's recognition measured along the line, and the old word's own gaps in the band's reading
 * before the patch (the same measure as after it).
 */
function spacingGuard(
  line: LineContext,
  now: RecognisedWord[] | null,
  was: RecognisedWord[],
  k: number,
  ink?: BandInk,
): GuardResult {
  const name = 'word_spacing_kept';
  if (!now) return { name, passed: false, detail: 'not measured: the line does not read as before' };
  const sides = gapsAround(now, k, ink?.after, ink);
  if (sides.length === 0) return { name, passed: true, detail: 'no neighbour on the line to space against' };
  const wasSides = new Map(gapsAround(was, k, ink?.before, ink));
  const range = [...line.gaps, ...wasSides.values()].filter((g) => g > 0);
  const lo = Math.min(...range);
  const hi = Math.max(...range);
  const slack = (g: number) => Math.max(GAP_SLACK_PX, GAP_SLACK_SHARE * g);
  // A side measured as it was before the patch is kept, whatever the range; and where recognition's
  // boxes of the two words overlapped before the patch and still do, boxes measure no gap there (a
  // "y" whose tail reaches under the word before it: −29 px before the patch, −23 after, the ink
  // of the space untouched). A space the patch closes is read as one word (line_reads_as_before).
  const kept = (side: string, gap: number) => {
    const before = wasSides.get(side);
    if (before === undefined) return false;
    return Math.abs(gap - before) <= slack(Math.abs(before)) || (before < 0 && gap < 0);
  };
  const off = sides.filter(
    ([side, gap]) => (gap < lo - slack(lo) || gap > hi + slack(hi)) && !kept(side, gap),
  );
  const list = sides
    .map(([side, gap]) => `${side} ${gap} px${wasSides.has(side) ? ` (${wasSides.get(side)} before)` : ''}`)
    .join(', ');
  return {
    name,
    passed: off.length === 0,
    detail: `gaps around the new word${ink ? ' (paper between the words’ ink)' : ''}: ${list}; the line's word gaps ${Math.round(lo)}–${Math.round(hi)} px (${range.length} measured, slack ${Math.round(slack(lo))}/${Math.round(slack(hi))} px)${
      off.length ? `: ${off.map(([side]) => side).join(' and ')} out of range` : ''
    }`,
  };
}

export const _internals = { spacingGuard };
