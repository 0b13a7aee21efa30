// The pixel patch's letter work on a raster made from known glyphs (Liberation Serif drawn by
// MuPDF): a word whose letters break at faint joints or touch is still cut into its letters (the
// faces' widths share the runs of ink out), so a permutation lays the same glyph images in the new
// order; a letter nowhere on the raster is drawn.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_DRAWN_MISMATCH,
  patchWord,
  type ScanRaster,
} from '../../../../src/corrections/scan/pixel-patch.ts';
import { patchLetterFaces, rasteriseLetter } from '../../../../src/corrections/scan/letter-drawing.ts';
import type { LetterFace } from '../../../../src/corrections/scan/scan-raster.ts';
import { wordRaster } from './word-raster.ts';
import { faceById } from '../../../../src/fonts/catalog.ts';
import { SERIF_FEET } from '../../../../src/corrections/scan/letter-matching.ts';
import { footRatio } from '../../../../src/corrections/scan/letter-style.ts';

const FACE = faceById('liberation-serif-regular')!;
const EM = 60;

/** A grey raster with `word` set in the face at EM px, each letter `gap` px after the last one's ink. */
function rasterOf(
  word: string,
  gap: number,
  cut: (x: number, y: number) => boolean = () => false,
  face = FACE,
) {
  return wordRaster(
    [...word].map((c) => rasteriseLetter(face, c, EM)!),
    gap,
    cut,
  );
}

/** The patch of `word` (alone on `page`) spelling `replacement`, with the bundled faces or none. */
function patchOf(page: ReturnType<typeof rasterOf>, word: string, replacement: string, faces = true) {
  return patchWord({
    raster: page.raster,
    words: [],
    target: { text: word, box: page.box, confidence: 95 },
    replacement,
    ...(faces ? { letterFaces: patchLetterFaces() } : {}),
  });
}

/** Runs of ink columns (darker than mid-grey) of a patch. */
function inkRuns(pixels: Uint8Array, w: number, h: number): [number, number][] {
  const runs: [number, number][] = [];
  for (let x = 0; x < w; x++) {
    let ink = false;
    for (let y = 0; y < h; y++) if (pixels[y * w + x] < 128) ink = true;
    if (!ink) continue;
    if (runs.length && runs[runs.length - 1][1] === x) runs[runs.length - 1][1] = x + 1;
    else runs.push([x, x + 1]);
  }
  return runs;
}

test('letters broken at a faint joint are joined by the widths a face gives them', () => {
  // "round" with the thin bottom joints of u and n and the bowl of d erased: 8 runs for 5 letters.
  const probe = rasterOf('round', 4);
  const [, , u, n] = probe.cells;
  const broken = rasterOf('round', 4, (x, y) => {
    const mid = (c: [number, number]) => x > c[0] + (c[1] - c[0]) * 0.3 && x < c[0] + (c[1] - c[0]) * 0.7;
    return (mid(u) && y > 60) || (mid(n) && y < 70);
  });
  const result = patchOf(broken, 'round', 'ruond');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'clone');
  // The o moved after the u: the patch's first letters are r, then the u's two stems, then o.
  const w = result.box[2] - result.box[0];
  const runs = inkRuns(result.pixels, w, result.box[3] - result.box[1]);
  const width = (c: [number, number]) => c[1] - c[0];
  const o = probe.cells[1];
  // r, u (two stems), o, n (two stems), d (bowl and stem): the o is the third run and as wide as o.
  assert.ok(runs.length >= 5, JSON.stringify(runs));
  assert.ok(Math.abs(width(runs[3]) - width(o)) <= 2, `${JSON.stringify(runs)} vs o ${width(o)}`);
});

test('touching letters are split where the widths put their edges', () => {
  const touching = rasterOf('never', -2);
  const result = patchOf(touching, 'never', 'nveer');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.ok((result.measurements.segmentation_adjusted as number) > 0, 'the letters had to be split');
  // Without faces the split falls at the thinnest column of the widest run and the letters come
  // apart wrong (measured runs 13, 25, 37, 37, 14 px); with them each letter is cut whole but for
  // the columns it shares with its neighbour: the patch spells n, v, e, e, r.
  const w = result.box[2] - result.box[0];
  const runs = inkRuns(result.pixels, w, result.box[3] - result.box[1]);
  const glyphWidth = (c: string) => rasteriseLetter(FACE, c, EM)!.width;
  const widths = runs.map((r) => r[1] - r[0]);
  const expected = [...'nveer'].map(glyphWidth);
  assert.is(widths.length, 5, JSON.stringify(widths));
  widths.forEach((v, i) =>
    assert.ok(Math.abs(v - expected[i]) <= 5, `${JSON.stringify(widths)} vs ${JSON.stringify(expected)}`),
  );
});

test('a letter nowhere on the raster is drawn in the face nearest the word (cost medium)', () => {
  const page = rasterOf('dated', 4);
  const result = patchOf(page, 'dated', 'dazed');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'drawn');
  assert.is(result.cost, 'medium');
  assert.is(result.measurements.drawn_face, 'liberation-serif-regular');
  assert.ok(
    (result.measurements.drawn_face_mismatch as number) < 0.3,
    'the face the word is set in fits (thin strokes a pixel off count as mismatch)',
  );
  const without = patchOf(page, 'dated', 'dazed', false);
  assert.ok('refused' in without && without.code === 'letter_not_on_page');
});

test('a typewriter page gets its missing letter from a fixed-pitch face', () => {
  // Before fixed-pitch faces were offered, the “z” of a Courier-like word came from Liberation Sans.
  const page = rasterOf('dated', 4, undefined, faceById('liberation-mono-regular')!);
  const result = patchOf(page, 'dated', 'dazed');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'drawn');
  assert.is(result.measurements.drawn_face, 'liberation-mono-regular');
  // A proportional page still gets a proportional face.
  const serif = patchOf(rasterOf('dated', 4), 'dated', 'dazed');
  assert.ok(!('refused' in serif) && serif.measurements.drawn_face === 'liberation-serif-regular');
});

test('a DejaVu Serif page gets its missing letter from DejaVu Serif', () => {
  // (A machine's own DejaVu is never offered, the bundle having DejaVu's PostScript names: before
  // the bundled DejaVu faces were offered, the z came from another face.)
  const page = rasterOf('dated', 4, undefined, faceById('dejavu-serif-regular')!);
  const result = patchOf(page, 'dated', 'dazed');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.measurements.drawn_face, 'dejavu-serif-regular');
});

test('a fixed-pitch face no nearer than a proportional one by the margin is not taken', () => {
  // A proportional twin drawing exactly the fixed-pitch face's letters comes exactly as near: the
  // proportional one is taken (on coarse scans all faces come near alike, and a typewriter letter
  // in a proportional line is seen at once). Alone, the fixed-pitch face draws.
  const page = rasterOf('dated', 4, undefined, faceById('liberation-mono-regular')!);
  const mono = patchLetterFaces().find((f) => f.id === 'liberation-mono-regular')!;
  assert.ok(mono.fixedPitch);
  const twin = { id: 'proportional-twin', draw: mono.draw, fixedPitch: false };
  const drawnBy = (letterFaces: LetterFace[]) => {
    const r = patchWord({
      raster: page.raster,
      words: [],
      target: { text: 'dated', box: page.box, confidence: 95 },
      replacement: 'dazed',
      letterFaces,
    });
    return 'refused' in r ? r.refused : r.measurements.drawn_face;
  };
  assert.is(drawnBy([mono, twin]), 'proportional-twin');
  assert.is(drawnBy([mono]), 'liberation-mono-regular');
});

test('a letter is not drawn by a face far from the word: refused letter_style_mismatch, naming it', () => {
  // Liberation Sans Bold's letters share about half their ink with Liberation Serif's: its “z”,
  // bold and without feet on a regular serif word, was drawn before MAX_DRAWN_MISMATCH.
  const page = rasterOf('dated', 4);
  const far = patchLetterFaces().filter((f) => f.id === 'liberation-sans-bold');
  const r = patchWord({
    raster: page.raster,
    words: [],
    target: { text: 'dated', box: page.box, confidence: 95 },
    replacement: 'dazed',
    letterFaces: far,
  });
  assert.ok('refused' in r && r.code === 'letter_style_mismatch', 'refused' in r ? r.code : 'drawn');
  if (!('refused' in r)) return;
  assert.is(r.evidence.face, 'liberation-sans-bold');
  const mismatch = r.evidence.drawn_face_mismatch as number;
  assert.ok(mismatch > MAX_DRAWN_MISMATCH && mismatch <= 0.55, `mismatch ${mismatch}`);
  assert.match(r.refused, /liberation-sans-bold/);
  // The same page's own face still draws it (the test above: mismatch under 0.3).
  const near = patchWord({
    raster: page.raster,
    words: [],
    target: { text: 'dated', box: page.box, confidence: 95 },
    replacement: 'dazed',
    letterFaces: [...far, ...patchLetterFaces().filter((f) => f.id === 'liberation-serif-regular')],
  });
  assert.ok(!('refused' in near), 'refused' in near ? near.refused : '');
});

/**
 * A line of words set in the face at EM px: words `spaces[k]` px after the one before, letters
 * `gaps[k][i]` px after the letter before (4 when not given), letter i of word k raised `lift(k, i)`
 * px above the baseline (none when not given).
 */
function lineOf(
  words: string[],
  spaces: number[],
  gaps: number[][] = [],
  lift: (word: number, letter: number) => number = () => 0,
) {
  const height = 120;
  const baseline = 90;
  const glyphs = words.map((w) => [...w].map((c) => rasteriseLetter(FACE, c, EM)!));
  const gapOf = (k: number, i: number) => gaps[k]?.[i] ?? 4;
  const width =
    40 +
    spaces.reduce((a, b) => a + b, 0) +
    glyphs.reduce((t, g, k) => t + g.reduce((u, l, i) => u + l.width + gapOf(k, i), 0), 0);
  const data = new Uint8Array(width * height).fill(250);
  const boxes: [number, number, number, number][] = [];
  let x = 20;
  glyphs.forEach((word, k) => {
    const x0 = x;
    word.forEach((g, i) => {
      if (i > 0) x += gapOf(k, i - 1);
      for (let y = 0; y < g.height; y++)
        for (let j = 0; j < g.width; j++) {
          const ty = baseline - lift(k, i) - g.baseline + y;
          const v = 250 - Math.round((g.coverage[y * g.width + j] / 255) * 230);
          data[ty * width + x + j] = Math.min(data[ty * width + x + j], v);
        }
      x += g.width;
    });
    boxes.push([x0, baseline - 48, x, baseline + 4]);
    x += spaces[k] ?? 0;
  });
  const raster: ScanRaster = { width, height, channels: 1, data, bilevel: false };
  return { raster, words: words.map((text, i) => ({ text, box: boxes[i], confidence: 95 })) };
}

/** The patch of word `k` of `line` spelling `replacement`, with the bundled faces. */
function patchOnLine(line: ReturnType<typeof lineOf>, k: number, replacement: string) {
  return patchWord({
    raster: line.raster,
    words: line.words,
    target: line.words[k],
    replacement,
    letterFaces: patchLetterFaces(),
  });
}

/** The raster with a patch written over its box (the patch's grey pixels). */
function patchedRaster(raster: ScanRaster, box: number[], pixels: Uint8Array): ScanRaster {
  const data = new Uint8Array(raster.data);
  const w = box[2] - box[0];
  for (let y = box[1]; y < box[3]; y++)
    for (let x = box[0]; x < box[2]; x++) data[y * raster.width + x] = pixels[(y - box[1]) * w + x - box[0]];
  return { ...raster, data };
}

/**
 * How far apart neighbouring letters (runs of ink columns) within `x0..x1` stand along their facing
 * sides: per pair, the median over the rows both have ink in of the paper between them.
 */
function facingGaps(r: ScanRaster, x0: number, x1: number): number[] {
  const ink = (x: number, y: number) => r.data[y * r.width + x] < 135;
  const runs: [number, number][] = [];
  for (let x = x0; x < x1; x++) {
    let any = false;
    for (let y = 0; y < r.height && !any; y++) any = ink(x, y);
    if (!any) continue;
    if (runs.length && runs[runs.length - 1][1] === x) runs[runs.length - 1][1] = x + 1;
    else runs.push([x, x + 1]);
  }
  return runs.slice(1).map(([b0, b1], i) => {
    const [a0, a1] = runs[i];
    const gaps: number[] = [];
    for (let y = 0; y < r.height; y++) {
      let last = -1;
      let first = -1;
      for (let x = a0; x < a1; x++) if (ink(x, y)) last = x;
      for (let x = b1 - 1; x >= b0; x--) if (ink(x, y)) first = x;
      if (last >= 0 && first >= 0) gaps.push(first - last - 1);
    }
    gaps.sort((p, q) => p - q);
    return gaps[gaps.length >> 1];
  });
}

test('a wider new word takes its growth from both spaces around it, not only the one after it', () => {
  // "tone" → "tome": the m is wider than the n (by 17 px). Set from the old left edge, the whole
  // growth closed the space after the word to 13 px, under the line's narrowest (16); now the space
  // after gives down to the line's narrowest, and the space before the rest.
  const line = lineOf(['on', 'them', 'tone', 'side', 'of'], [30, 30, 30, 16]);
  const [, before, target, after] = line.words;
  const result = patchOnLine(line, 2, 'tome');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  const w = result.box[2] - result.box[0];
  const runs = inkRuns(result.pixels, w, result.box[3] - result.box[1]);
  const left = result.box[0] + runs[0][0];
  const right = result.box[0] + runs[runs.length - 1][1];
  const grow = right - left - (target.box[2] - target.box[0]);
  assert.ok(grow >= 8, `the new word is wider (${grow} px)`);
  const gapBefore = left - before.box[2];
  const gapAfter = after.box[0] - right;
  assert.ok(gapBefore < 30 && gapAfter < 30, `both spaces give: ${gapBefore} and ${gapAfter} px`);
  assert.ok(Math.min(gapBefore, gapAfter) >= 16, `gaps ${gapBefore}, ${gapAfter} px within the line's 16–30`);
  const spacing = result.measurements.spacing as Record<string, unknown>;
  // The measurements report the spaces before and after the patch (the ink's edge to a pixel).
  const [before0, before1] = spacing.space_before_px as number[];
  const [after0, after1] = spacing.space_after_px as number[];
  assert.ok(Math.abs(before0 - 30) <= 1 && Math.abs(before1 - gapBefore) <= 1, JSON.stringify(spacing));
  assert.ok(Math.abs(after0 - 30) <= 1 && Math.abs(after1 - gapAfter) <= 1, JSON.stringify(spacing));
});

test('a wider new word with no room left in the spaces of a line set that tight is refused patch_too_wide', () => {
  // The same word on a line whose spaces are all 18 px: shared, each would lose 8 px or more.
  const line = lineOf(['on', 'them', 'tone', 'side', 'of'], [18, 18, 18, 18]);
  const result = patchOnLine(line, 2, 'tome');
  assert.ok('refused' in result && result.code === 'patch_too_wide', JSON.stringify(result));
  if (!('refused' in result)) return;
  const spacing = result.evidence.spacing as Record<string, unknown>;
  assert.equal(spacing.word_gaps_px, [18, 18]);
  assert.ok((result.evidence.space_px as number) < 18 - 2, JSON.stringify(result.evidence));
});

test('no new letter pair stands closer than the page sets its own: "would" → "woudl"', () => {
  // "would" with u–l and l–d set tight (2 and 1 px between their serifs, a kerned pair); the line's
  // letters 6 px apart. The swapped word is wider (u–d and d–l modelled by the face where u–l and l–d
  // were), and giving all of the growth back from the new pairs set u and d closer along their facing
  // sides (9 px) than any two letters of the line (11 px): the pair a reader may take for one letter
  // ("woudl" read "woud" on the project's scans). The new pairs stand at least as far apart as the
  // line's closest, and the word's growth goes to the spaces around it.
  const line = lineOf(['the', 'would', 'side', 'of'], [30, 30, 30], [[6, 6], [6, 6, 2, 1], [6, 6, 6], [6]]);
  const result = patchOnLine(line, 1, 'woudl');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  const page = [0, 2, 3].flatMap((k) => facingGaps(line.raster, line.words[k].box[0], line.words[k].box[2]));
  const after = patchedRaster(line.raster, result.box, result.pixels);
  const word = facingGaps(after, result.box[0], result.box[2]);
  assert.is(word.length, 4, JSON.stringify(word));
  const tightest = Math.min(...page);
  // u–d and d–l, the new pairs.
  for (const [name, gap] of [
    ['u–d', word[2]],
    ['d–l', word[3]],
  ] as const)
    assert.ok(
      gap >= tightest,
      `${name} ${gap} px along their facing sides; the line's tightest pair ${tightest} px`,
    );
  const spacing = result.measurements.spacing as Record<string, unknown>;
  assert.ok((spacing.letter_pair_floor_px as number) >= tightest - 0.5, JSON.stringify(spacing));
});

/** Gaps between runs of ink columns (darker than mid-grey) of `r` within `x0..x1`. */
function columnGaps(r: ScanRaster, x0: number, x1: number): number[] {
  const runs: [number, number][] = [];
  for (let x = x0; x < x1; x++) {
    let ink = false;
    for (let y = 0; y < r.height && !ink; y++) ink = r.data[y * r.width + x] < 135;
    if (!ink) continue;
    if (runs.length && runs[runs.length - 1][1] === x) runs[runs.length - 1][1] = x + 1;
    else runs.push([x, x + 1]);
  }
  return runs.slice(1).map(([a], i) => a - runs[i][1]);
}

/** Native tesseract's reading of a raster as one line (the fidelity harness's reader). */
function nativeLine(r: ScanRaster): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-patch-read-'));
  try {
    const pgm = join(dir, 'line.pgm');
    writeFileSync(pgm, Buffer.concat([Buffer.from(`P5 ${r.width} ${r.height} 255\n`), Buffer.from(r.data)]));
    let text: string;
    try {
      text = execFileSync('tesseract', [pgm, '-', '--psm', '7', '-l', 'eng'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (e) {
      throw new Error(`native tesseract is needed by this test (Debian: tesseract-ocr): ${String(e)}`);
    }
    return text.split(/\s+/).filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('letters reordered inside a word: its unchanged letters stay as scanned, no gap opens: "internally" → "internlaly"', () => {
  // "internally" set tight, t–e overlapping by 2 px and a–l touching, as a 150 dpi scan of Computer
  // Modern sets them. Re-laid whole, t and e were cut apart and set at the word's usual gap: a 4 px
  // hole where the word's column gaps are 2 px ("internlaly" read "int ernialy" on a real page).
  // Now "intern" and "ly" stay as scanned (their pixels untouched), and only "la" is laid between them,
  // spaced as the word spaces its letters.
  const gaps = [2, 1, -2, 1, 1, 1, 0, 1, 1];
  const line = lineOf(['used', 'internally', 'by'], [24, 30], [[], gaps, []]);
  const target = line.words[1];
  const result = patchOnLine(line, 1, 'internlaly');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  const spacing = result.measurements.spacing as Record<string, unknown>;
  assert.ok((spacing.letters_kept as number) >= 6, JSON.stringify(spacing));
  // The columns of "intern" (its cells as set) are the scan's own pixels.
  const widths = [...'intern'].map((c) => rasteriseLetter(FACE, c, EM)!.width);
  const internEnd =
    target.box[0] + widths.reduce((a, b) => a + b, 0) + gaps.slice(0, 5).reduce((a, b) => a + b, 0);
  const w = result.box[2] - result.box[0];
  let changed = 0;
  for (let y = result.box[1]; y < result.box[3]; y++)
    for (let x = result.box[0]; x < internEnd - 2; x++)
      if (
        result.pixels[(y - result.box[1]) * w + x - result.box[0]] !==
        line.raster.data[y * line.raster.width + x]
      )
        changed++;
  assert.is(changed, 0, 'pixels of the unchanged letters changed');
  // No gap inside the new word twice the word's own usual column gap.
  const after = patchedRaster(line.raster, result.box, result.pixels);
  const before = columnGaps(line.raster, target.box[0], target.box[2]).sort((a, b) => a - b);
  const usual = before[before.length >> 1];
  const now = columnGaps(after, target.box[0] - 2, target.box[2] + 2);
  assert.ok(
    Math.max(...now) < 2 * usual,
    `gaps inside the new word ${JSON.stringify(now)}; the word's own ${JSON.stringify(before)}`,
  );
  // Native tesseract reads the line with the new word as one token.
  assert.equal(nativeLine(after), ['used', 'internlaly', 'by']);
});

/**
 * The letters of a word as the eye (and native tesseract) takes them: the 8-connected pieces of ink
 * (darker than mid-grey) within `box`, left to right, without specks (an i's or j's dot) — and per
 * pair of neighbours, how far apart they stand on the rows both have ink in: the median and the
 * least of those rows' paper gaps.
 */
function letterFacings(r: ScanRaster, box: number[]): { median: number; closest: number }[] {
  const [x0, y0, x1, y1] = box;
  const w = x1 - x0;
  const label = new Int32Array(w * (y1 - y0)).fill(-1);
  const ink = (x: number, y: number) =>
    x >= x0 && x < x1 && y >= y0 && y < y1 && r.data[y * r.width + x] < 135;
  const pieces: { x: number; rows: Map<number, [number, number]>; size: number }[] = [];
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      if (!ink(x, y) || label[(y - y0) * w + x - x0] >= 0) continue;
      const id = pieces.length;
      const piece = { x, rows: new Map<number, [number, number]>(), size: 0 };
      pieces.push(piece);
      const stack = [[x, y]];
      label[(y - y0) * w + x - x0] = id;
      while (stack.length) {
        const [px, py] = stack.pop()!;
        piece.size++;
        piece.x = Math.min(piece.x, px);
        const row = piece.rows.get(py);
        piece.rows.set(py, row ? [Math.min(row[0], px), Math.max(row[1], px)] : [px, px]);
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++)
            if (ink(px + dx, py + dy) && label[(py + dy - y0) * w + px + dx - x0] < 0) {
              label[(py + dy - y0) * w + px + dx - x0] = id;
              stack.push([px + dx, py + dy]);
            }
      }
    }
  const letters = pieces.filter((p) => p.size >= 60).sort((a, b) => a.x - b.x);
  return letters.slice(1).map((b, i) => {
    const gaps: number[] = [];
    for (const [y, [, last]] of letters[i].rows) {
      const other = b.rows.get(y);
      if (other) gaps.push(other[0] - last - 1);
    }
    gaps.sort((p, q) => p - q);
    return { median: gaps[gaps.length >> 1], closest: gaps[0] };
  });
}

test('a drawn letter stands as close to its neighbours as the word’s own letters stand: "prevent" → "prejent"', () => {
  // The page shows no j: it is drawn. A j's tail reaches left under the letter before it; spaced by
  // its cell, the drawn j's stem stood apart from the e and native tesseract read "pre jent" on a
  // real scan. Its facing gaps to both neighbours (measured on the patched pixels, on the rows both
  // have ink in) are within the word's own pairs', and native tesseract reads the new word as one.
  const line = lineOf(['to', 'prevent', 'the', 'collisions'], [22, 22, 22]);
  const target = line.words[1];
  const result = patchOnLine(line, 1, 'prejent');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'drawn');
  const after = patchedRaster(line.raster, result.box, result.pixels);
  const band = [target.box[0] - 6, 0, target.box[2] + 6, line.raster.height];
  const own = letterFacings(line.raster, band);
  const now = letterFacings(after, band);
  assert.is(own.length, 6, JSON.stringify(own));
  assert.is(now.length, 6, JSON.stringify(now));
  const widest = Math.max(...own.map((f) => f.median));
  const farthest = Math.max(...own.map((f) => f.closest));
  // The j is the fourth letter: its pairs are e–j and j–e.
  for (const f of now.slice(2, 4)) {
    assert.ok(
      f.median <= widest,
      `j's facing gaps ${JSON.stringify(now)}; the word's own ${JSON.stringify(own)}`,
    );
    assert.ok(
      f.closest <= farthest,
      `j's closest ${JSON.stringify(now)}; the word's own ${JSON.stringify(own)}`,
    );
  }
  assert.equal(nativeLine(after), ['to', 'prejent', 'the', 'collisions']);
});

/**
 * A line of Liberation Serif at `em` px per em (28: 10 pt at 200 dpi), letters `em`/14 apart, words
 * `em`·0.28; bilevel: every pixel black or white, as a CCITT G4 scan holds it.
 */
function smallSerifLine(words: string[], em: number, bilevel: boolean) {
  const height = Math.round(em * 2.2);
  const baseline = Math.round(em * 1.5);
  const glyphs = words.map((w) => [...w].map((c) => rasteriseLetter(FACE, c, em)!));
  const gap = Math.max(1, Math.round(em / 14));
  const space = Math.round(em * 0.28);
  const width = 40 + words.length * space + glyphs.flat().reduce((t, g) => t + g.width + gap, 0);
  const data = new Uint8Array(width * height).fill(250);
  const boxes: [number, number, number, number][] = [];
  let x = 20;
  for (const word of glyphs) {
    const x0 = x;
    word.forEach((g, i) => {
      if (i > 0) x += gap;
      for (let y = 0; y < g.height; y++)
        for (let j = 0; j < g.width; j++) {
          const at = (baseline - g.baseline + y) * width + x + j;
          data[at] = Math.min(data[at], 250 - Math.round((g.coverage[y * g.width + j] / 255) * 230));
        }
      x += g.width;
    });
    boxes.push([x0, baseline - Math.round(em * 0.8), x, baseline + Math.round(em * 0.25)]);
    x += space;
  }
  if (bilevel) for (let i = 0; i < data.length; i++) data[i] = data[i] < 140 ? 0 : 255;
  const raster: ScanRaster = { width, height, channels: 1, data, bilevel };
  return { raster, words: words.map((text, i) => ({ text, box: boxes[i], confidence: 95 })) };
}

/** Word `k` of a smallSerifLine at 28 px per em patched to `replacement`, drawing with `faces`. */
function patchSmallSerif(
  words: string[],
  k: number,
  replacement: string,
  bilevel: boolean,
  faces: ReturnType<typeof patchLetterFaces>,
) {
  const line = smallSerifLine(words, 28, bilevel);
  return patchWord({
    raster: line.raster,
    words: line.words,
    target: line.words[k],
    replacement,
    letterFaces: faces,
  });
}

test('a serif page small or bilevel gets its drawn letters from a serif face, or none', () => {
  // At 28 px per em a sans letter covers the word's serif letters nearly as well as the serif face
  // (the feet are a pixel or two): before the faces' kinds were measured, these were drawn sans.
  const faces = patchLetterFaces();
  const cases: [string[], number, string, boolean][] = [
    [['the', 'memory', 'used'], 1, 'memojy', false],
    [['the', 'memory', 'used'], 1, 'memojy', true],
    [['dokumentu', 'tłumaczeniu', 'pliku'], 1, 'tłumaczenxu', true],
  ];
  for (const [words, k, replacement, bilevel] of cases) {
    const r = patchSmallSerif(words, k, replacement, bilevel, faces);
    assert.ok(!('refused' in r), 'refused' in r ? r.refused : '');
    if ('refused' in r) continue;
    assert.match(String(r.measurements.drawn_face), /serif/, `${replacement} (bilevel ${bilevel})`);
  }
  // Measured on the patch's own pixels: the drawn l of "memoly" stands on serif feet.
  for (const bilevel of [false, true]) {
    const r = patchSmallSerif(['the', 'memory', 'used'], 1, 'memoly', bilevel, faces);
    assert.ok(!('refused' in r), 'refused' in r ? r.refused : '');
    if ('refused' in r) continue;
    const w = r.box[2] - r.box[0];
    const h = r.box[3] - r.box[1];
    const runs = inkRuns(r.pixels, w, h);
    assert.is(runs.length, 6, 'm e m o l y stand apart');
    const [x0, x1] = runs[4];
    let y0 = h;
    let y1 = 0;
    for (let y = 0; y < h; y++)
      for (let x = x0; x < x1; x++)
        if (r.pixels[y * w + x] < 128) {
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y + 1);
        }
    const img = { width: w, height: h, grey: (x: number, y: number) => r.pixels[y * w + x] };
    const l = { ch: 'l', x0, x1, y0, y1, baseline: y1, word: 0 };
    const feet = footRatio(img, [l], { paper: 250, ink: 20, threshold: 128 });
    assert.ok(feet !== null && feet >= SERIF_FEET, `the drawn l's feet: ${feet} stems wide`);
  }
});

test('a serif page offered only sans faces refuses letter_style_mismatch with the feet measured', () => {
  const sans = patchLetterFaces().filter((f) => /^liberation-sans/.test(f.id));
  const r = patchSmallSerif(['the', 'memory', 'used'], 1, 'memoly', true, sans);
  assert.ok('refused' in r && r.code === 'letter_style_mismatch', 'refused' in r ? r.code : 'patched');
  if (!('refused' in r)) return;
  assert.ok((r.evidence.page_foot_ratio as number) >= SERIF_FEET);
  const faceFeet = Object.values(r.evidence.face_foot_ratios as Record<string, number>);
  assert.ok(faceFeet.length === 2 && faceFeet.every((v) => v < SERIF_FEET));
});

test('the x-height check measures the drawn letters, not which cloned ones a median takes: "ferramentas" → "ferramôntas"', () => {
  // Letters set a little apart in height, as a skewed scan sets them: the first five stand 3 px
  // higher. The old word's median x-height is that of the lower letters; leaving the replaced e out
  // of the cloned ones moves the median up 3 px (11 % of the x-height) though no letter changed
  // size. The drawn ô is measured on its own, and nothing stands out.
  const line = lineOf(['ferramentas'], [], [], (_word, letter) => (letter < 5 ? 3 : 0));
  const result = patchOnLine(line, 0, 'ferramôntas');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'drawn');
});

test('a drawn letter’s x-height is held to the line’s, not to the one x-height letter of the old word: "hub" → "hvb"', () => {
  // The old word's only x-height letter, its u, stands 3 px taller than the line's letters (a
  // blurred or skewed scan measures one letter so). Against it, the drawn v, sized to the line,
  // would differ by 11 %; against the line's letters it does not.
  const words = ['to', 'the', 'hub', 'common', 'mean'];
  const line = lineOf(words, [22, 22, 22, 22], [], (word, letter) => (word === 2 && letter === 1 ? 3 : 0));
  const result = patchOnLine(line, 2, 'hvb');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  assert.is(result.method, 'drawn');
});

test('ink of the line above reaching into the patch stays as scanned: "round" → "ruond" under a tail', () => {
  // A descender of the line above (a "g"'s tail) hangs into the word's box over the o, ending a few
  // pixels above the letters' ink. Erasing the moved letters by their cells had cut it flat.
  const probe = rasterOf('round', 4);
  const o = probe.cells[1];
  let inkTop = probe.raster.height;
  for (let y = 0; y < probe.raster.height && inkTop === probe.raster.height; y++)
    for (let x = o[0]; x < o[1]; x++) if (probe.raster.data[y * probe.raster.width + x] < 128) inkTop = y;
  const tail = (x: number, y: number) => Math.abs(x - (o[0] + o[1]) / 2) <= 2 && y < inkTop - 3;
  const { raster } = probe;
  for (let y = 0; y < raster.height; y++)
    for (let x = 0; x < raster.width; x++) if (tail(x, y)) raster.data[y * raster.width + x] = 20;
  const result = patchOf(probe, 'round', 'ruond');
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  const [x0, y0, x1] = result.box;
  const w = x1 - x0;
  let inside = 0;
  let kept = 0;
  for (let y = y0; y < result.box[3]; y++)
    for (let x = x0; x < x1; x++) {
      if (!tail(x, y)) continue;
      inside++;
      if (result.pixels[(y - y0) * w + x - x0] < 128) kept++;
    }
  assert.ok(inside > 0, 'the tail reaches into the patch');
  assert.is(kept, inside, `${inside - kept} of the tail's ${inside} pixels inside the patch erased`);
});

test.run();
