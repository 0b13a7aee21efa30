// The style of a scan's letters and drawn letters matched to it (issue 32 items 2, 3 and 5): the
// measures are right on a page made with a known stem width, x-height, slant and noise; a letter
// drawn from a lighter or heavier face is reweighted to the page's stem width (measured by the module
// and, independently, by counting ink runs in poppler's render of the patched page); the patch's
// paper keeps the page's noise (poppler's render); a page heavier than the allowed faces can be made
// is refused `letter_style_mismatch`; native tesseract reads the patched word.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  patchWord,
  rasterImage,
  type Box,
  type ScanRaster,
} from '../../../../src/corrections/scan/pixel-patch.ts';
import { patchLetterFaces, rasteriseLetter } from '../../../../src/corrections/scan/letter-drawing.ts';
import {
  letterStyle,
  paperNoise,
  type MeasuredLetter,
} from '../../../../src/corrections/scan/letter-style.ts';
import { faceById } from '../../../../src/fonts/catalog.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { seededRandom } from '../../../../fixtures/seeded-random.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-letter-style-'));
if (process.env.KEEP) console.log(work);
const LEVELS = { paper: 245, ink: 25, threshold: 135 };

/** Gaussian noise of `sigma` smoothed over 2×2 blocks (a JPEG-like grain, correlated like a scan's). */
function grain(width: number, height: number, sigma: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const coarse = new Float32Array(Math.ceil(width / 2) * Math.ceil(height / 2)).map(() => gauss() * sigma);
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) out[y * width + x] = coarse[(y >> 1) * Math.ceil(width / 2) + (x >> 1)];
  return out;
}

/** Coverage (0 … 255) painted as ink on paper, with grain added. */
function rasterOfCoverage(cov: Uint8Array, width: number, height: number, noise = 0, seed = 1): ScanRaster {
  const g = noise ? grain(width, height, noise, seed) : null;
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) {
    const v = LEVELS.paper - (cov[i] / 255) * (LEVELS.paper - LEVELS.ink) + (g ? g[i] : 0);
    data[i] = Math.max(0, Math.min(255, Math.round(v)));
  }
  return { width, height, channels: 1, data, bilevel: false };
}

/**
 * Letters made of rectangles (n, u, m: stems `stem` px wide, `xh` px tall, bars as thick as the
 * stems), slanted by `slant` and box-blurred by `blur` px: a page whose style is known exactly.
 */
function geometricPage(stem: number, xh: number, slant: number, blur: number, noise: number) {
  const width = 420;
  const height = 120;
  const baseline = 90;
  const ink = new Uint8Array(width * height);
  const letters: MeasuredLetter[] = [];
  const rect = (x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        const sx = Math.round(x + slant * (baseline - y));
        ink[y * width + sx] = 255;
      }
  };
  let x = 30;
  'nun mum nun'.split(' ').forEach((w, wi) => {
    for (const ch of w) {
      const stems = ch === 'm' ? 3 : 2;
      const lw = stems === 3 ? Math.round(xh * 0.95) : Math.round(xh * 0.6);
      for (let s = 0; s < stems; s++) {
        const sx = x + Math.round(((lw - stem) * s) / (stems - 1));
        rect(sx, baseline - xh, sx + stem, baseline);
      }
      if (ch === 'u') rect(x, baseline - stem, x + lw, baseline);
      else rect(x, baseline - xh, x + lw, baseline - xh + stem);
      const shift = Math.round(slant * xh);
      letters.push({
        ch,
        x0: x,
        y0: baseline - xh,
        x1: x + lw + shift + 1,
        y1: baseline,
        baseline,
        word: wi,
      });
      x += lw + Math.round(xh * 0.25) + shift;
    }
    x += xh;
  });
  // A box blur of `blur` px, then the ink painted on noisy paper.
  let cov = ink;
  if (blur) {
    const out = new Uint8Array(ink.length);
    const k = (2 * blur + 1) ** 2;
    for (let y = blur; y < height - blur; y++)
      for (let xx = blur; xx < width - blur; xx++) {
        let sum = 0;
        for (let dy = -blur; dy <= blur; dy++)
          for (let dx = -blur; dx <= blur; dx++) sum += ink[(y + dy) * width + xx + dx];
        out[y * width + xx] = Math.round(sum / k);
      }
    cov = out;
  }
  return { raster: rasterOfCoverage(cov, width, height, noise, 7), letters };
}

test('the measures of a page made with a known stem width, x-height, slant, blur and noise', () => {
  for (const [stem, xh] of [
    [3, 22],
    [6, 30],
  ]) {
    const sharp = geometricPage(stem, xh, 0, 0, 0);
    const s = letterStyle(rasterImage(sharp.raster), sharp.letters, LEVELS);
    assert.ok(Math.abs(s.stroke_px! - stem) <= 0.1 * stem, `stroke ${s.stroke_px} for ${stem}`);
    assert.ok(Math.abs(s.x_height_px! - xh) <= 1, `x-height ${s.x_height_px} for ${xh}`);
    assert.is(s.slant, 0);
    const soft = geometricPage(stem, xh, 0, 1, 0);
    const b = letterStyle(rasterImage(soft.raster), soft.letters, LEVELS);
    // A blur widens the edge ramp but leaves the stems' width (measured as ink mass across them).
    assert.ok(b.edge_px! > s.edge_px! + 0.5, `edge ${b.edge_px} blurred, ${s.edge_px} sharp`);
    assert.ok(
      Math.abs(b.stroke_px! - stem) <= 0.15 * stem + 0.3,
      `blurred stroke ${b.stroke_px} for ${stem}`,
    );
  }
  const slanted = geometricPage(4, 26, 0.2, 0, 0);
  const sl = letterStyle(rasterImage(slanted.raster), slanted.letters, LEVELS);
  assert.ok(Math.abs(sl.slant - 0.2) <= 0.05, `slant ${sl.slant}`);
  const noisy = geometricPage(4, 26, 0, 0, 8);
  const img = rasterImage(noisy.raster);
  const sigma = paperNoise(img, [0, 0, noisy.raster.width, noisy.raster.height], LEVELS)!;
  // The grain is 8 grey levels of Gaussian noise (clipped a little at white).
  assert.ok(sigma > 6 && sigma < 9, `paper noise ${sigma}`);
  const n = letterStyle(img, noisy.letters, LEVELS);
  assert.ok(Math.abs(n.stroke_px! - 4) <= 0.6, `noisy stroke ${n.stroke_px}`);
});

const EM = 60;
// "dated" last: "mated" is wider (a drawn m for the d) and its growth goes to the margin after it;
// set between two words, it would close the space after it far under the line's (refused
// patch_too_wide), which is not what these tests look at.
const WORDS = ['hunt', 'been', 'dated'];

/**
 * A line of `WORDS` set in a face at EM px, made heavier by `grow` steps of a 3×3 cross max filter
 * (each about 2 px of stem), optionally grained; the words' boxes.
 */
function facePage(faceId: string, noise = 0, grow = 0) {
  const face = faceById(faceId)!;
  const width = 760;
  const height = 140;
  const baseline = 95;
  const cov = new Uint8Array(width * height);
  const boxes: Box[] = [];
  let x = 30;
  for (const w of WORDS) {
    const x0 = x;
    for (const c of w) {
      const g = rasteriseLetter(face, c, EM)!;
      for (let y = 0; y < g.height; y++)
        for (let i = 0; i < g.width; i++) {
          const o = (baseline - g.baseline + y) * width + x + g.left + i;
          cov[o] = Math.max(cov[o], g.coverage[y * g.width + i]);
        }
      x += Math.round(g.advance);
    }
    boxes.push([x0 - 2, baseline - 48, x + 2, baseline + 16]);
    x += 45;
  }
  let heavy = cov;
  for (let k = 0; k < grow; k++) {
    const out = new Uint8Array(heavy.length);
    for (let y = 1; y < height - 1; y++)
      for (let xx = 1; xx < width - 1; xx++) {
        const i = y * width + xx;
        out[i] = Math.max(heavy[i], heavy[i - 1], heavy[i + 1], heavy[i - width], heavy[i + width]);
      }
    heavy = out;
  }
  const raster = rasterOfCoverage(heavy, width, height, noise, 3);
  const words = WORDS.map((text, i) => ({ text, box: boxes[i], confidence: 95 }));
  return { raster, words };
}

/** `faces` of the bundled patch faces. */
const facesOf = (...ids: string[]) => patchLetterFaces().filter((f) => ids.includes(f.id));

/** The page with the patch written in, as a PDF of one grey image at 72 dpi (1 px = 1 pt), and its poppler render. */
function renderedPatch(page: ReturnType<typeof facePage>, box: Box, pixels: Uint8Array, name: string) {
  const { width, height } = page.raster;
  const data = new Uint8Array(page.raster.data);
  const bw = box[2] - box[0];
  for (let y = box[1]; y < box[3]; y++)
    for (let x = box[0]; x < box[2]; x++) data[y * width + x] = pixels[(y - box[1]) * bw + x - box[0]];
  const doc = new mupdf.PDFDocument();
  try {
    const dict = doc.newDictionary();
    dict.put('Type', doc.newName('XObject'));
    dict.put('Subtype', doc.newName('Image'));
    dict.put('Width', width);
    dict.put('Height', height);
    dict.put('ColorSpace', doc.newName('DeviceGray'));
    dict.put('BitsPerComponent', 8);
    const res = doc.newDictionary();
    const xo = doc.newDictionary();
    xo.put('Im0', doc.addStream(data, dict));
    res.put('XObject', xo);
    doc.insertPage(
      -1,
      doc.addPage([0, 0, width, height], 0, res, `q ${width} 0 0 ${height} 0 0 cm /Im0 Do Q`),
    );
    const pdf = join(work, `${name}.pdf`);
    writeFileSync(pdf, takeBytes(doc.saveToBuffer('compress')));
    execFileSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', pdf, join(work, name)]);
    const pgm = readFileSync(join(work, `${name}.pgm`));
    // P5 header: magic, width, height, maxval, each followed by whitespace.
    const header = pgm
      .subarray(0, 40)
      .toString('latin1')
      .match(/^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/)!;
    assert.is(Number(header[1]), width);
    return { pdf, pgm: join(work, `${name}.pgm`), grey: pgm.subarray(header[0].length), width, height };
  } finally {
    doc.destroy();
  }
}

type Render = ReturnType<typeof renderedPatch>;

/** Median width of the horizontal runs of pixels darker than mid-grey in a region of a render. */
function medianInkRun(r: Render, b: Box): number {
  const runs: number[] = [];
  for (let y = b[1]; y < b[3]; y++) {
    let run = 0;
    for (let x = b[0]; x <= b[2]; x++) {
      if (x < b[2] && r.grey[y * r.width + x] < 128) run++;
      else if (run) {
        runs.push(run);
        run = 0;
      }
    }
  }
  runs.sort((a, c) => a - c);
  return runs[Math.floor(runs.length / 2)];
}

/** Columns of a render region holding ink, as runs (letters that stand apart). */
function inkColumns(r: Render, b: Box): [number, number][] {
  const runs: [number, number][] = [];
  for (let x = b[0]; x < b[2]; x++) {
    let ink = false;
    for (let y = b[1]; y < b[3]; y++) if (r.grey[y * r.width + x] < 128) ink = true;
    if (!ink) continue;
    if (runs.length && runs[runs.length - 1][1] === x) runs[runs.length - 1][1] = x + 1;
    else runs.push([x, x + 1]);
  }
  return runs;
}

/** Standard deviation of a render's paper pixels in `b` (outside `hole`): no pixel below 200 within 3 px. */
function renderPaperStd(r: Render, b: Box, hole?: Box): number {
  const vals: number[] = [];
  for (let y = Math.max(3, b[1]); y < Math.min(r.height - 3, b[3]); y++)
    for (let x = Math.max(3, b[0]); x < Math.min(r.width - 3, b[2]); x++) {
      if (hole && x >= hole[0] && x < hole[2] && y >= hole[1] && y < hole[3]) continue;
      let clear = true;
      for (let dy = -3; dy <= 3 && clear; dy++)
        for (let dx = -3; dx <= 3 && clear; dx++)
          if (r.grey[(y + dy) * r.width + x + dx] < 200) clear = false;
      if (clear) vals.push(r.grey[y * r.width + x]);
    }
  const mean = vals.reduce((a, c) => a + c, 0) / vals.length;
  return Math.sqrt(vals.reduce((a, c) => a + (c - mean) ** 2, 0) / vals.length);
}

/** Native tesseract's reading of a render region. */
function nativeReading(r: Render, b: Box, name: string): string {
  const out = join(work, `${name}-crop`);
  execFileSync('pdftoppm', [
    ...['-r', '72', '-gray', '-singlefile', '-x', String(b[0]), '-y', String(b[1])],
    ...['-W', String(b[2] - b[0]), '-H', String(b[3] - b[1]), r.pdf, out],
  ]);
  return execFileSync('tesseract', [`${out}.pgm`, '-', '--psm', '7'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
}

// A bold page drawn from the regular face (thickened), and a regular page made a little heavier drawn
// from the bold face (thinned: as far as its hairlines survive).
for (const [pageFace, grow, offered, heavier] of [
  ['liberation-serif-bold', 0, 'liberation-serif-regular', true],
  ['liberation-serif-regular', 1, 'liberation-serif-bold', false],
] as const) {
  test(`an “m” the page never shows, drawn from a ${heavier ? 'lighter' : 'heavier'} face on a grained page: reweighted to the page's stems, the paper's grain kept, read by tesseract`, () => {
    const page = facePage(pageFace, 6, grow);
    const result = patchWord({
      raster: page.raster,
      words: page.words,
      target: page.words[2],
      replacement: 'mated',
      letterFaces: facesOf(offered),
      // The offered face must be thickened or thinned by more than the default 60 % here.
      tolerance: { reweight: 1.2 },
    });
    assert.ok(!('refused' in result), 'refused' in result ? `${result.code}: ${result.refused}` : '');
    if ('refused' in result) return;
    // any: the measurements are a free-form report read field by field.
    const m = result.measurements as Record<string, any>;
    assert.is(m.drawn_face, offered);
    assert.ok(
      heavier ? m.drawn_stroke_change_px > 1 : m.drawn_stroke_change_px < -0.5,
      String(m.drawn_stroke_change_px),
    );
    const { page: pageStyle, face_before: before, face_after: after } = m.letter_style;
    // After the change the face's stems are nearer the page's, and within 25 % (the module's own measure).
    const off = (s: { stroke_px: number }) => Math.abs(s.stroke_px - pageStyle.stroke_px);
    assert.ok(off(after) < off(before), JSON.stringify(m.letter_style));
    assert.ok(
      Math.abs(after.stroke_px - pageStyle.stroke_px) <= 0.25 * pageStyle.stroke_px,
      JSON.stringify(m.letter_style),
    );
    assert.ok(
      Math.abs(after.x_height_px - pageStyle.x_height_px) <= Math.max(1, 0.08 * pageStyle.x_height_px),
    );
    // The visibility report compares the patched word with the line's other words.
    assert.ok(m.visibility.line_letters > 0);
    assert.ok(Math.abs(m.visibility.stroke_ratio - 1) <= 0.25, JSON.stringify(m.visibility));
    // Independently: poppler's render, horizontal ink runs of the drawn m (the patch's first letter)
    // against those of "hunt" (stems of the same page).
    const name = `drawn-${offered}`;
    const render = renderedPatch(page, result.box, result.pixels, name);
    const hunt = page.words[1].box;
    const pageRun = medianInkRun(render, [hunt[0], hunt[1] + 20, hunt[2], hunt[3] - 18]);
    const mCols = inkColumns(render, [result.box[0], result.box[1], result.box[2], result.box[3]])[0];
    const drawnRun = medianInkRun(render, [mCols[0], result.box[1], mCols[1], result.box[3]]);
    assert.ok(
      Math.abs(drawnRun - pageRun) <= Math.max(1, 0.25 * pageRun),
      `poppler: m stems ${drawnRun} px, page ${pageRun} px`,
    );
    // The paper inside the patch keeps the grain of the paper around it (within 30 %).
    const ring: Box = [result.box[0] - 40, result.box[1] - 30, result.box[2] + 40, result.box[3] + 30];
    const inside = renderPaperStd(render, result.box);
    const around = renderPaperStd(render, ring, result.box);
    assert.ok(around > 3, `the page is grained: ${around}`);
    assert.ok(Math.abs(inside - around) <= 0.3 * around, `paper noise inside ${inside}, around ${around}`);
    const read = nativeReading(
      render,
      [result.box[0] - 20, result.box[1] - 15, result.box[2] + 20, result.box[3] + 10],
      name,
    );
    assert.match(read.toLowerCase(), /mated/, `native tesseract read “${read}”`);
  });
}

test('a page heavier than the offered face may be made: refused letter_style_mismatch, naming the figures', () => {
  const page = facePage('liberation-serif-bold');
  const request = {
    raster: page.raster,
    words: page.words,
    target: page.words[2],
    replacement: 'mated',
    letterFaces: facesOf('liberation-serif-regular'),
  };
  // The regular face may be thickened by at most 20 % of its stems: the bold page's are ~65 % wider.
  const refused = patchWord({ ...request, tolerance: { reweight: 0.2 } });
  assert.ok(
    'refused' in refused && refused.code === 'letter_style_mismatch',
    JSON.stringify(refused).slice(0, 300),
  );
  if (!('refused' in refused)) return;
  assert.match(refused.refused, /stroke width [\d.]+ px against the page's [\d.]+ px/);
  assert.equal(refused.evidence.face, 'liberation-serif-regular');
  assert.ok(refused.advice?.some((a) => /letters the page already shows/.test(a)));
  // Allowed the bold face as well, the same request is drawn in it and passes.
  const bold = patchWord({
    ...request,
    tolerance: { reweight: 0.2 },
    letterFaces: facesOf('liberation-serif-regular', 'liberation-serif-bold'),
  });
  assert.ok(!('refused' in bold), 'refused' in bold ? bold.refused : '');
  if ('refused' in bold) return;
  assert.is(bold.measurements.drawn_face, 'liberation-serif-bold');
});

test('a cut letter leaves its neighbour’s ink behind: an f’s hood over the next letter is not cloned', () => {
  // "often" set tight: the f's hood reaches over the t's cell. "often" → "otfen" moves the t first.
  const face = faceById('liberation-serif-regular')!;
  const width = 400;
  const height = 130;
  const baseline = 95;
  const cov = new Uint8Array(width * height);
  let x = 30;
  const cells: [number, number][] = [];
  for (const c of 'often') {
    const g = rasteriseLetter(face, c, EM)!;
    for (let y = 0; y < g.height; y++)
      for (let i = 0; i < g.width; i++) {
        const o = (baseline - g.baseline + y) * width + x + g.left + i;
        cov[o] = Math.max(cov[o], g.coverage[y * g.width + i]);
      }
    cells.push([x + g.left, x + g.left + g.width]);
    x += Math.round(g.advance);
  }
  const raster = rasterOfCoverage(cov, width, height);
  const target = { text: 'often', box: [28, baseline - 48, x + 2, baseline + 4] as Box, confidence: 95 };
  const result = patchWord({
    raster,
    words: [target],
    target,
    replacement: 'otfen',
    letterFaces: patchLetterFaces(),
  });
  assert.ok(!('refused' in result), 'refused' in result ? result.refused : '');
  if ('refused' in result) return;
  // The t, moved second, must not bring the f's hood: the top rows above the t's own ascender hold
  // only the f's own hood, so the patch's dark pixels above the t's top equal the f's alone.
  const bw = result.box[2] - result.box[0];
  const dark = (b: Uint8Array, w: number, x0: number, x1: number, y0: number, y1: number) => {
    let n = 0;
    for (let y = y0; y < y1; y++) for (let xx = x0; xx < x1; xx++) if (b[y * w + xx] < 128) n++;
    return n;
  };
  const tTop = (() => {
    const g = rasteriseLetter(face, 't', EM)!;
    return baseline - g.baseline;
  })();
  const fTop = baseline - rasteriseLetter(face, 'f', EM)!.baseline;
  const hoodBefore = dark(raster.data, width, 0, width, fTop, tTop - 1);
  const hoodAfter = dark(result.pixels, bw, 0, bw, fTop - result.box[1], tTop - 1 - result.box[1]);
  assert.ok(hoodBefore > 20, `the f has a hood above the t: ${hoodBefore}`);
  assert.ok(
    hoodAfter <= hoodBefore + 3,
    `the hood's ink once, not twice: ${hoodAfter} against ${hoodBefore}`,
  );
  void cells;
});

test.after(() => {
  if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
});
test.run();
