// The paper under a patch (issue 32 item 3): the scan's own paper around the word, copied block by
// block from paper-only places near it (an offset chosen per block from a seed the word's place
// gives), so the patch keeps the scan's grain and JPEG noise instead of a smooth flat rectangle.
import type { Box, ScanRaster } from './scan-raster.ts';

/** The paper's value of channel `k` at raster pixel (x, y) inside the patch. */
export type PaperAt = (x: number, y: number, k: number) => number;

/** Paper blocks are copied whole: 8 px, a JPEG block, keeps the grain's own texture. */
const BLOCKS = [8, 4];

/** A small integer hash of a seed and a block's place (deterministic, well spread). */
function hash(seed: number, a: number, b: number): number {
  let h = (seed ^ Math.imul(a + 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The paper for the pixels of `box`: each block of the box takes a block of paper-only pixels
 * (all lighter than `paperCut`, 2 px clear of anything darker) from around the box (within `reach` px of it, never inside it),
 * chosen by a seeded hash of the block's place. Where no such block exists nearby, single paper
 * pixels of the ring are drawn by the same hash; with none of those, the flat `fallback` colour.
 */
export function paperTexture(
  r: ScanRaster,
  box: Box,
  grey: (x: number, y: number) => number,
  paperCut: number,
  reach: number,
  fallback: number[],
): PaperAt {
  const n = r.channels;
  const seed = hash(box[0] * 7919 + box[1], box[2], box[3]);
  const outer: Box = [
    Math.max(0, box[0] - reach),
    Math.max(0, box[1] - reach),
    Math.min(r.width, box[2] + reach),
    Math.min(r.height, box[3] + reach),
  ];
  const ow = outer[2] - outer[0];
  const oh = outer[3] - outer[1];
  // Summed table of pixels that are not paper (ink, or inside the box): a block is usable when it holds none.
  const bad = new Int32Array((ow + 1) * (oh + 1));
  for (let y = 0; y < oh; y++)
    for (let x = 0; x < ow; x++) {
      const rx = outer[0] + x;
      const ry = outer[1] + y;
      const inBox = rx >= box[0] - 1 && rx < box[2] + 1 && ry >= box[1] - 1 && ry < box[3] + 1;
      const v = inBox || grey(rx, ry) < paperCut ? 1 : 0;
      bad[(y + 1) * (ow + 1) + x + 1] =
        v + bad[y * (ow + 1) + x + 1] + bad[(y + 1) * (ow + 1) + x] - bad[y * (ow + 1) + x];
    }
  const badIn = (x: number, y: number, s: number) =>
    bad[(y + s) * (ow + 1) + x + s] -
    bad[y * (ow + 1) + x + s] -
    bad[(y + s) * (ow + 1) + x] +
    bad[y * (ow + 1) + x];
  const value = (x: number, y: number, k: number) => r.data[(y * r.width + x) * n + k];
  for (const size of BLOCKS) {
    const origins: [number, number][] = [];
    // Blocks 2 px clear of ink too: a JPEG's ringing around letters is lighter than the cut but is
    // not the paper's grain.
    for (let y = 2; y + size + 2 <= oh; y++)
      for (let x = 2; x + size + 2 <= ow; x++)
        if (badIn(x - 2, y - 2, size + 4) === 0) origins.push([outer[0] + x, outer[1] + y]);
    if (origins.length < 4) continue;
    return (x, y, k) => {
      const bx = Math.floor((x - box[0]) / size);
      const by = Math.floor((y - box[1]) / size);
      const [sx, sy] = origins[hash(seed, bx, by) % origins.length];
      return value(sx + ((x - box[0]) % size), sy + ((y - box[1]) % size), k);
    };
  }
  const pool: [number, number][] = [];
  for (let y = 0; y < oh; y++)
    for (let x = 0; x < ow; x++) if (badIn(x, y, 1) === 0) pool.push([outer[0] + x, outer[1] + y]);
  if (pool.length) {
    return (x, y, k) => {
      const [sx, sy] = pool[hash(seed, x, y) % pool.length];
      return value(sx, sy, k);
    };
  }
  return (_x, _y, k) => fallback[k];
}
