// Where two renders of one page differ outside a set of declared boxes: the changed pixels no box
// covers, counted, and grouped into regions a person can look at. The engine's render-diff compares
// against one box; a revised file can declare several on a page (one per correction standing), and a
// pair docfix did not make declares none, so every changed pixel is outside and every region shows.
import type { Box } from '../corrections/proof/render-diff.ts';

/** Packed RGB render, as MuPDF's and PDFium's adapters both produce. */
export interface Render {
  width: number;
  height: number;
  stride: number;
  pixels: Uint8Array;
}

export interface ChangesOutside {
  /** Changed pixels (any channel difference) that no declared box covers. */
  outside_pixels: number;
  /** Their largest channel difference (0 when none). */
  outside_max_delta: number;
  /** Outside pixels changed by more than `noise` levels: the ones that count. */
  beyond_noise_pixels: number;
  /** Bounding boxes of the groups of counted pixels (pixels within a few pixels of each other join). */
  regions: Box[];
  /** How many regions there are (only the largest MAX_REGIONS are listed). */
  region_count: number;
}

/** Side of the grid cells that group changed pixels into regions, in render pixels. */
const CELL = 8;
export const MAX_REGIONS = 50;

const area = (b: Box) => (b[2] - b[0]) * (b[3] - b[1]);

/**
 * Compares two renders pixel by pixel outside `boxes` ([x0, y0, x1, y1], x1/y1 exclusive, render
 * pixels). A pixel changed by at most `noise` levels in every channel is counted in
 * `outside_pixels` but not in `beyond_noise_pixels` or the regions. Renders of different sizes
 * differ everywhere: one region, the larger extent.
 */
export function changesOutside(a: Render, b: Render, boxes: Box[], noise = 0): ChangesOutside {
  if (a.width !== b.width || a.height !== b.height) {
    const whole: Box = [0, 0, Math.max(a.width, b.width), Math.max(a.height, b.height)];
    const total = area(whole);
    return {
      outside_pixels: total,
      outside_max_delta: 255,
      beyond_noise_pixels: total,
      regions: [whole],
      region_count: 1,
    };
  }
  const grid = new CellGrid(a.width, a.height);
  const bufA = Buffer.from(a.pixels.buffer, a.pixels.byteOffset, a.pixels.byteLength);
  const bufB = Buffer.from(b.pixels.buffer, b.pixels.byteOffset, b.pixels.byteLength);
  const rowBytes = a.width * 3;
  let outside = 0;
  let beyond = 0;
  let maxDelta = 0;
  for (let y = 0; y < a.height; y += 1) {
    const rowA = y * a.stride;
    const rowB = y * b.stride;
    if (bufA.compare(bufB, rowB, rowB + rowBytes, rowA, rowA + rowBytes) === 0) continue;
    const rowBoxes = boxes.filter((box) => y >= box[1] && y < box[3]);
    for (let x = 0; x < a.width; x += 1) {
      const i = rowA + x * 3;
      const j = rowB + x * 3;
      const d = Math.max(
        Math.abs(a.pixels[i] - b.pixels[j]),
        Math.abs(a.pixels[i + 1] - b.pixels[j + 1]),
        Math.abs(a.pixels[i + 2] - b.pixels[j + 2]),
      );
      if (d === 0 || rowBoxes.some((box) => x >= box[0] && x < box[2])) continue;
      outside += 1;
      if (d > maxDelta) maxDelta = d;
      if (d <= noise) continue;
      beyond += 1;
      grid.mark(x, y);
    }
  }
  const regions = grid.regions().sort((p, q) => area(q) - area(p));
  return {
    outside_pixels: outside,
    outside_max_delta: maxDelta,
    beyond_noise_pixels: beyond,
    regions: regions.slice(0, MAX_REGIONS),
    region_count: regions.length,
  };
}

/** Marked pixels kept per grid cell as their exact bounds; touching cells (8 ways) form a region. */
class CellGrid {
  readonly #cols: number;
  readonly #rows: number;
  /** Per cell: x0, y0, x1, y1 of its marked pixels (x0 = -1 while none). */
  readonly #bounds: Int32Array;

  constructor(width: number, height: number) {
    this.#cols = Math.ceil(width / CELL);
    this.#rows = Math.ceil(height / CELL);
    this.#bounds = new Int32Array(this.#cols * this.#rows * 4).fill(-1);
  }

  mark(x: number, y: number): void {
    const k = (Math.floor(y / CELL) * this.#cols + Math.floor(x / CELL)) * 4;
    const b = this.#bounds;
    if (b[k] === -1) {
      b.set([x, y, x + 1, y + 1], k);
      return;
    }
    if (x < b[k]) b[k] = x;
    if (y < b[k + 1]) b[k + 1] = y;
    if (x + 1 > b[k + 2]) b[k + 2] = x + 1;
    if (y + 1 > b[k + 3]) b[k + 3] = y + 1;
  }

  regions(): Box[] {
    const seen = new Uint8Array(this.#cols * this.#rows);
    const out: Box[] = [];
    for (let cell = 0; cell < seen.length; cell += 1) {
      if (seen[cell] || this.#bounds[cell * 4] === -1) continue;
      out.push(this.#flood(cell, seen));
    }
    return out;
  }

  /** The union of the bounds of every marked cell connected to `start`. */
  #flood(start: number, seen: Uint8Array): Box {
    const b = this.#bounds;
    const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const cell = stack.pop()!;
      const k = cell * 4;
      box[0] = Math.min(box[0], b[k]);
      box[1] = Math.min(box[1], b[k + 1]);
      box[2] = Math.max(box[2], b[k + 2]);
      box[3] = Math.max(box[3], b[k + 3]);
      const cx = cell % this.#cols;
      const cy = (cell - cx) / this.#cols;
      for (let dy = -1; dy <= 1; dy += 1) {
        for (let dx = -1; dx <= 1; dx += 1) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= this.#cols || ny >= this.#rows) continue;
          const next = ny * this.#cols + nx;
          if (seen[next] || b[next * 4] === -1) continue;
          seen[next] = 1;
          stack.push(next);
        }
      }
    }
    return box;
  }
}
