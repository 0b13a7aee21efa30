// Exact pixel comparison of two renders of the same page. Any channel difference counts. Rows are
// compared with Buffer.compare first; per-pixel work happens only in rows that differ, so two
// identical 300 dpi pages cost about one pass over memory.
import { PNG } from 'pngjs';
import type { RgbImage } from '../../pdf/mupdf-adapter.ts';

/** [x0, y0, x1, y1] in render pixels, x1/y1 exclusive. */
export type Box = [number, number, number, number];

export interface DiffResult {
  identical: boolean;
  changed_pixels: number;
  changed_fraction: number;
  bbox: Box | null;
  outside_pixels: number;
  max_delta: number;
  /** Largest channel difference of a pixel changed outside `declared` (0 when none). */
  outside_max_delta: number;
  histogram: Record<string, number>;
}

/** Buckets of the largest channel difference of a changed pixel. */
export const HISTOGRAM_BUCKETS: [string, number, number][] = [
  ['1-7', 1, 7],
  ['8-31', 8, 31],
  ['32-127', 32, 127],
  ['128-255', 128, 255],
];

const bucketOf = (d: number) => (d < 8 ? 0 : d < 32 ? 1 : d < 128 ? 2 : 3);

/**
 * Compares two RGB renders. Pixels changed outside `declared` (a box in render pixels, or null for
 * "nothing may change") count as `outside_pixels`. Renders of different sizes count every pixel
 * as changed. `rows`, when given, are the row ranges [y0, y1) outside which the two renders are
 * already known equal byte for byte (`renderPageOver` compared them): only those rows are read.
 */
export function diffRenders(
  a: RgbImage,
  b: RgbImage,
  declared: Box | null,
  rows?: [number, number][] | null,
): DiffResult {
  if (a.width !== b.width || a.height !== b.height) {
    // Pages of different sizes: every pixel of the larger extent counts as changed.
    const w = Math.max(a.width, b.width);
    const h = Math.max(a.height, b.height);
    const total = w * h;
    return {
      identical: false,
      changed_pixels: total,
      changed_fraction: 1,
      bbox: [0, 0, w, h],
      outside_pixels: total,
      max_delta: 255,
      outside_max_delta: 255,
      histogram: { '1-7': 0, '8-31': 0, '32-127': 0, '128-255': total },
    };
  }
  const bufA = Buffer.from(a.pixels.buffer, a.pixels.byteOffset, a.pixels.byteLength);
  const bufB = Buffer.from(b.pixels.buffer, b.pixels.byteOffset, b.pixels.byteLength);
  const rowBytes = a.width * 3;
  const counts = [0, 0, 0, 0];
  let changed = 0;
  let outside = 0;
  let maxDelta = 0;
  let outsideMax = 0;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  const [dx0, dy0, dx1, dy1] = declared ?? [0, 0, 0, 0];
  // Blocks of rows first (one memcmp each when strides match), rows only inside differing blocks.
  const sameStride = a.stride === b.stride && a.stride === rowBytes;
  const BLOCK = 32;
  const ranges = rows ?? [[0, a.height]];
  for (const [from, to] of ranges) {
    for (let y = Math.max(0, from); y < Math.min(a.height, to); y += 1) {
      if (sameStride && (y - from) % BLOCK === 0) {
        const end = Math.min(a.height, to, y + BLOCK) * a.stride;
        if (bufA.compare(bufB, y * a.stride, end, y * a.stride, end) === 0) {
          y += BLOCK - 1;
          continue;
        }
      }
      const rowA = y * a.stride;
      const rowB = y * b.stride;
      if (bufA.compare(bufB, rowB, rowB + rowBytes, rowA, rowA + rowBytes) === 0) continue;
      const rowInside = y >= dy0 && y < dy1;
      for (let x = 0; x < a.width; x += 1) {
        const i = rowA + x * 3;
        const j = rowB + x * 3;
        const d0 = Math.abs(a.pixels[i] - b.pixels[j]);
        const d1 = Math.abs(a.pixels[i + 1] - b.pixels[j + 1]);
        const d2 = Math.abs(a.pixels[i + 2] - b.pixels[j + 2]);
        const d = d0 > d1 ? (d0 > d2 ? d0 : d2) : d1 > d2 ? d1 : d2;
        if (d === 0) continue;
        changed += 1;
        counts[bucketOf(d)] += 1;
        if (d > maxDelta) maxDelta = d;
        if (x < x0) x0 = x;
        if (x >= x1) x1 = x + 1;
        if (y < y0) y0 = y;
        if (y >= y1) y1 = y + 1;
        if (!(rowInside && x >= dx0 && x < dx1)) {
          outside += 1;
          if (d > outsideMax) outsideMax = d;
        }
      }
    }
  }
  const histogram: Record<string, number> = {};
  HISTOGRAM_BUCKETS.forEach(([name], k) => {
    histogram[name] = counts[k];
  });
  return {
    identical: changed === 0,
    changed_pixels: changed,
    changed_fraction: a.width * a.height ? changed / (a.width * a.height) : 0,
    bbox: changed ? [x0, y0, x1, y1] : null,
    outside_pixels: outside,
    max_delta: maxDelta,
    outside_max_delta: outsideMax,
    histogram,
  };
}

/** A crop's box clamped to the image, at least one pixel each way. */
function clampedCrop(img: RgbImage, box: Box): { x0: number; y0: number; w: number; h: number } {
  const x0 = Math.max(0, Math.min(img.width, box[0]));
  const y0 = Math.max(0, Math.min(img.height, box[1]));
  const x1 = Math.max(x0 + 1, Math.min(img.width, box[2]));
  const y1 = Math.max(y0 + 1, Math.min(img.height, box[3]));
  return { x0, y0, w: x1 - x0, h: y1 - y0 };
}

/** A crop of a render as PNG bytes (the box is clamped to the image). */
export function cropPng(img: RgbImage, box: Box): Uint8Array {
  const { x0, y0, w, h } = clampedCrop(img, box);
  const png = new PNG({ width: w, height: h, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y += 1) {
    const src = (y0 + y) * img.stride + x0 * 3;
    data.set(img.pixels.subarray(src, src + w * 3), y * w * 3);
  }
  png.data = data;
  // One filter for every row and light deflate: pngjs's default tries all five filters on each row
  // and compresses hard, 5 ms a preview crop against under 1; the pixels are the same.
  const options = {
    colorType: 2,
    inputColorType: 2,
    inputHasAlpha: false,
    filterType: 0,
    deflateLevel: 1,
  } as const;
  return new Uint8Array(PNG.sync.write(png, options));
}

/**
 * A crop of a render as a binary PPM, for recognition: the same pixels as cropPng behind a short
 * header, with nothing to deflate here or inflate in the recogniser (a PNG of a line costs more to
 * encode than the line costs to read). PPM carries no resolution: the recogniser is told it.
 */
export function cropPpm(img: RgbImage, box: Box): Uint8Array {
  const { x0, y0, w, h } = clampedCrop(img, box);
  const { out, at } = ppmOf(w, h);
  for (let y = 0; y < h; y += 1) {
    const src = (y0 + y) * img.stride + x0 * 3;
    out.set(img.pixels.subarray(src, src + w * 3), at + y * w * 3);
  }
  return out;
}

/**
 * The grey levels of a box of a render: for a share of its pixels (0.02: the darkest 2 %), the grey
 * (the mean of the three channels, rounded) that many pixels are at or under.
 */
export function greyLevels(img: RgbImage, box: Box): (share: number) => number {
  const { x0, y0, w, h } = clampedCrop(img, box);
  const counts = new Uint32Array(256);
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const i = y * img.stride + x * 3;
      counts[Math.round((img.pixels[i] + img.pixels[i + 1] + img.pixels[i + 2]) / 3)]++;
    }
  return (share) => {
    let seen = 0;
    for (let v = 0; v < 256; v++) if ((seen += counts[v]) >= share * w * h) return v;
    return 255;
  };
}

/** A binary PPM of `w` × `h` pixels, its header written, and where its samples start. */
function ppmOf(w: number, h: number): { out: Uint8Array; at: number } {
  const head = new TextEncoder().encode(`P6\n${w} ${h}\n255\n`);
  const out = new Uint8Array(head.length + w * h * 3);
  out.set(head);
  return { out, at: head.length };
}

/**
 * A crop scaled by `factor` (bilinear), as a binary PPM: the same pixels as another renderer's
 * resampling might give them, for recognition (tier 5 reads a patched word at 95%).
 */
export function scaledPpm(image: RgbImage, box: Box, factor: number): Uint8Array {
  const [x0, y0, x1, y1] = box;
  const w = Math.max(1, Math.round((x1 - x0) * factor));
  const h = Math.max(1, Math.round((y1 - y0) * factor));
  const { out, at } = ppmOf(w, h);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(image.height - 1, Math.max(0, y0 + (y + 0.5) / factor - 0.5));
    const ya = Math.floor(sy);
    const yb = Math.min(image.height - 1, ya + 1);
    const fy = sy - ya;
    for (let x = 0; x < w; x++) {
      const sx = Math.min(image.width - 1, Math.max(0, x0 + (x + 0.5) / factor - 0.5));
      const xa = Math.floor(sx);
      const xb = Math.min(image.width - 1, xa + 1);
      const fx = sx - xa;
      for (let c = 0; c < 3; c++) {
        const p = (yy: number, xx: number) => image.pixels[yy * image.stride + xx * 3 + c];
        const v =
          (p(ya, xa) * (1 - fx) + p(ya, xb) * fx) * (1 - fy) + (p(yb, xa) * (1 - fx) + p(yb, xb) * fx) * fy;
        out[at + (y * w + x) * 3 + c] = Math.round(v);
      }
    }
  }
  return out;
}

/** Union of boxes (null when none). */
export function unionBox(boxes: (Box | null)[]): Box | null {
  let out: Box | null = null;
  for (const b of boxes) {
    if (!b) continue;
    out = out
      ? [Math.min(out[0], b[0]), Math.min(out[1], b[1]), Math.max(out[2], b[2]), Math.max(out[3], b[3])]
      : [...b];
  }
  return out;
}

export function padBox(b: Box, pad: number, img?: { width: number; height: number }): Box {
  const out: Box = [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad];
  if (img) {
    out[0] = Math.max(0, out[0]);
    out[1] = Math.max(0, out[1]);
    out[2] = Math.min(img.width, out[2]);
    out[3] = Math.min(img.height, out[3]);
  }
  return out;
}
