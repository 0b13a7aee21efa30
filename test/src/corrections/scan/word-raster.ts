// A grey raster of one word made from letter images (a face's glyphs as tier 5 draws them), for the
// pixel patch's letter tests: letters on one baseline, `gap` px apart, dark ink on light paper.
import type { DrawnLetter, ScanRaster } from '../../../../src/corrections/scan/scan-raster.ts';

/**
 * The word's raster, each letter's column range (`cells`) and the word's box; `cut` erases the
 * pixels it returns true for (a letter broken at a faint joint).
 */
export function wordRaster(
  glyphs: DrawnLetter[],
  gap: number,
  cut: (x: number, y: number) => boolean = () => false,
) {
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
