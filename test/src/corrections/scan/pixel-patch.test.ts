// The pixel patch's letter work on a raster made from known glyphs (Liberation Serif drawn by
// MuPDF): a word whose letters break at faint joints or touch is still cut into its letters (the
// faces' widths share the runs of ink out), so a permutation lays the same glyph images in the new
// order; a letter nowhere on the raster is drawn.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { patchWord, type ScanRaster } from '../../../../src/corrections/scan/pixel-patch.ts';
import { patchLetterFaces, rasteriseLetter } from '../../../../src/corrections/scan/letter-drawing.ts';
import { faceById } from '../../../../src/fonts/catalog.ts';

const FACE = faceById('liberation-serif-regular')!;
const EM = 60;

/** A grey raster with `word` set in the face at EM px, each letter `gap` px after the last one's ink. */
function rasterOf(word: string, gap: number, cut: (x: number, y: number) => boolean = () => false) {
  const glyphs = [...word].map((c) => rasteriseLetter(FACE, c, EM)!);
  const width = glyphs.reduce((t, g) => t + g.width + gap, 40);
  const height = 120;
  const baseline = 90;
  const data = new Uint8Array(width * height).fill(250);
  const cells: [number, number][] = [];
  let x = 20;
  for (const g of glyphs) {
    for (let y = 0; y < g.height; y++)
      for (let i = 0; i < g.width; i++) {
        const ty = baseline - g.baseline + y;
        const v = 250 - Math.round((g.coverage[y * g.width + i] / 255) * 230);
        if (!cut(x + i, ty)) data[ty * width + x + i] = Math.min(data[ty * width + x + i], v);
      }
    cells.push([x, x + g.width]);
    x += g.width + gap;
  }
  const raster: ScanRaster = { width, height, channels: 1, data, bilevel: false };
  return {
    raster,
    cells,
    glyphs,
    box: [18, baseline - 48, x + 2, baseline + 4] as [number, number, number, number],
  };
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

test.run();
