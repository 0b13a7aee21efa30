// Table rules across a word's crop, taken out before the word is read alone (tier5.ts). A word in a
// ruled table cell is cropped with the cell's rules above and below it, and a recogniser reading a
// line reads nothing at all there (native tesseract as much as the bundled one): "cmopiled" in a
// spreadsheet's table read "" six ways. A row (or column) of ink running across nearly the whole
// crop is no letter's: it is painted with the crop's paper, as a reader looking at the word ignores it.
import type { RgbImage } from '../../pdf/mupdf-adapter.ts';
import { greyLevels, type Box } from '../proof/render-diff.ts';

/** A rule runs across at least this share of the crop (a word's letters never do: the crop has margins). */
const RULE_SHARE = 0.85;
/** ... in a band of lines at most this share of the crop's other side (at least 3 lines). */
const RULE_BAND = 0.12;

/**
 * The crop `box` of `image` as an image of its own, with the ink of the rules across it (rows or
 * columns, in thin bands, that ink covers across RULE_SHARE of it, broken or stepped as a scanned
 * rule is) painted with its paper, soft edges included. The box to read it by is the whole of it.
 */
export function withoutRules(image: RgbImage, box: Box): { image: RgbImage; box: Box } {
  const x0 = Math.max(0, Math.floor(box[0]));
  const y0 = Math.max(0, Math.floor(box[1]));
  const w = Math.max(1, Math.min(image.width, Math.ceil(box[2])) - x0);
  const h = Math.max(1, Math.min(image.height, Math.ceil(box[3])) - y0);
  const pixels = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const src = (y0 + y) * image.stride + x0 * 3;
    pixels.set(image.pixels.subarray(src, src + w * 3), y * w * 3);
  }
  const grey = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++)
    grey[i] = Math.round((pixels[i * 3] + pixels[i * 3 + 1] + pixels[i * 3 + 2]) / 3);
  const level = greyLevels(image, [x0, y0, x0 + w, y0 + h]);
  const paper = level(0.7);
  const ink = level(0.02);
  if (paper - ink < 40) return { image: { width: w, height: h, stride: w * 3, pixels }, box: [0, 0, w, h] };
  const dark = (ink + paper) / 2;
  const light = paper - 0.25 * (paper - ink);
  const isDark = (x: number, y: number) => grey[y * w + x] < dark;
  // A line (row or column) lies on a rule where, with the lines either side (a skewed rule steps
  // from one to the next), ink covers RULE_SHARE of it; and the lines so covered stand in a thin band
  // (a rule is a few pixels thick, a word's letters many).
  const ruled = (n: number, long: number, at: (line: number, k: number) => boolean) => {
    const covered: boolean[] = [];
    for (let line = 0; line < n; line++) {
      let cover = 0;
      for (let k = 0; k < long; k++)
        if (at(line, k) || (line > 0 && at(line - 1, k)) || (line + 1 < n && at(line + 1, k))) cover++;
      covered.push(cover >= RULE_SHARE * long);
    }
    const lines: number[] = [];
    const thin = Math.max(3, Math.round(RULE_BAND * n));
    for (let a = 0; a < n;) {
      if (!covered[a]) {
        a++;
        continue;
      }
      let b = a;
      while (b + 1 < n && covered[b + 1]) b++;
      if (b - a + 1 <= thin)
        for (let line = Math.max(0, a - 1); line <= Math.min(n - 1, b + 1); line++) lines.push(line);
      a = b + 1;
    }
    return lines;
  };
  const rows = ruled(h, w, (y, x) => isDark(x, y));
  const cols = ruled(w, h, (x, y) => isDark(x, y));
  // Only the rule's ink (and its soft edge) is painted over, row by row or column by column.
  const paint = (x: number, y: number) => {
    const i = y * w + x;
    if (grey[i] < light) pixels.fill(paper, i * 3, i * 3 + 3);
  };
  for (const y of rows) for (let x = 0; x < w; x++) paint(x, y);
  for (const x of cols) for (let y = 0; y < h; y++) paint(x, y);
  return { image: { width: w, height: h, stride: w * 3, pixels }, box: [0, 0, w, h] };
}
