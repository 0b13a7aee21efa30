// The one box format of the command line: "x0,y0,x1,y1" in points (1/72 inch) from the top-left
// corner of the page as displayed, as `docfix search` prints a match's box. Every --box takes it;
// the API's boxes are render pixels (300 dpi unless a route says otherwise), converted here.
import { InvalidArgumentError } from 'commander';

export type PointBox = [number, number, number, number];
export type PixelBox = [number, number, number, number];

const NUMBER = /^\d+(\.\d+)?$/;

/** Why a text is not a box, or null when it is one. */
export function boxProblem(value: string): string | null {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length !== 4 || parts.some((p) => !NUMBER.test(p))) {
    return `a box is four numbers "x0,y0,x1,y1" in points (as docfix search prints), got "${value}"`;
  }
  const [x0, y0, x1, y1] = parts.map(Number);
  if (x1 <= x0 || y1 <= y0) {
    const which = x1 <= x0 ? `x1 (${x1}) is not right of x0 (${x0})` : `y1 (${y1}) is not below y0 (${y0})`;
    return `${which}: a box is "x0,y0,x1,y1" (two corners in points), not x,y,width,height, got "${value}"`;
  }
  return null;
}

/** commander argParser of --box. */
export function parseBox(value: string): PointBox {
  const problem = boxProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value.split(',').map((p) => Number(p.trim())) as PointBox;
}

/** Points → render pixels at `dpi`, rounded outwards (the pixels that cover the box). */
export function toPixels(box: PointBox, dpi = 300): PixelBox {
  const s = dpi / 72;
  return [Math.floor(box[0] * s), Math.floor(box[1] * s), Math.ceil(box[2] * s), Math.ceil(box[3] * s)];
}

/** Render pixels at `dpi` → points. */
export function toPoints(box: readonly number[], dpi = 300): PointBox {
  const s = 72 / dpi;
  return [box[0] * s, box[1] * s, box[2] * s, box[3] * s];
}

/** "x0,y0,x1,y1" with at most two decimals: what every --box reads back. */
export function formatBox(box: readonly number[]): string {
  return box
    .slice(0, 4)
    .map((v) => String(Math.round(v * 100) / 100))
    .join(',');
}
