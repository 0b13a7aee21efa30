// The pixels a pixel patch works on and the letters it draws: shared by the patch (pixel-patch.ts),
// the paper under it (paper-texture.ts) and the drawn letters' matching (letter-matching.ts).

export type Box = [number, number, number, number]; // x0, y0, x1, y1 in raster pixels, x1/y1 exclusive, top-left origin
export interface ScanRaster {
  width: number;
  height: number;
  channels: 1 | 3;
  data: Uint8Array;
  /** 1-bit source (CCITT/JBIG2): the patch must be pure 0/255 */
  bilevel: boolean;
}
/** A letter drawn from a face: ink coverage (0 none … 255 full) cropped to its ink. */
export interface DrawnLetter {
  width: number;
  height: number;
  coverage: Uint8Array;
  /** Row of the baseline, counted from the top of `coverage`. */
  baseline: number;
  /** Advance width in pixels. */
  advance: number;
  /** Pixels from the glyph's origin to its ink's left edge (the left side bearing). */
  left: number;
}
/** A face that can draw letters at a size in pixels per em (null: no glyph). */
export interface LetterFace {
  id: string;
  draw: (ch: string, emPx: number) => DrawnLetter | null;
  /** Every letter as wide as the next (Courier, typewriter faces). */
  fixedPitch?: boolean;
}
