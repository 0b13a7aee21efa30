// Tier 5's pixel patch (issue 11 item 4): the replacement word's pixels for a scanned page, made
// from the page's own glyph images where it can (cloning, cost low) and from a bundled face drawn
// at the page's measured size and blur where a letter never occurs on the page (cost medium).
// Pure image work: the engine decodes the scan, writes the returned pixels over `box` and verifies.

export type Box = [number, number, number, number]; // x0, y0, x1, y1 in raster pixels, x1/y1 exclusive, top-left origin
export interface ScanRaster {
  width: number;
  height: number;
  channels: 1 | 3;
  data: Uint8Array;
  /** 1-bit source (CCITT/JBIG2): the patch must be pure 0/255 */
  bilevel: boolean;
}
export interface RasterWord {
  text: string;
  box: Box;
  confidence: number;
}
export interface DrawnLetter {
  width: number;
  height: number;
  coverage: Uint8Array;
  baseline: number;
  advance: number;
}
export interface PatchRequest {
  raster: ScanRaster;
  words: RasterWord[];
  target: RasterWord;
  replacement: string;
  drawLetter?: (ch: string, sizePx: number) => DrawnLetter | null;
}
export type PatchResult =
  | {
      box: Box;
      pixels: Uint8Array;
      method: 'clone' | 'drawn';
      cost: 'low' | 'medium';
      measurements: Record<string, unknown>;
    }
  | { refused: string; code: string; evidence: Record<string, unknown> };

export function patchWord(req: PatchRequest): PatchResult {
  return { refused: 'not implemented yet', code: 'not_implemented', evidence: { target: req.target.text } };
}
