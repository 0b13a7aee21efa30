// Table rules across a word's crop are taken out before the word is read alone (ruling-lines.ts):
// a ruled spreadsheet cell's word read "" six ways with its cell's rules in the crop. Here a crop
// with a broken, stepped rule above the letters and one below: the rules' ink becomes paper, the
// letters stay as they are; a crop of letters alone (however dense) is left untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withoutRules } from '../../../../src/corrections/scan/ruling-lines.ts';
import type { RgbImage } from '../../../../src/pdf/mupdf-adapter.ts';

const W = 200;
const H = 56;

function image(ink: (x: number, y: number) => boolean): RgbImage {
  const pixels = new Uint8Array(W * H * 3).fill(245);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) if (ink(x, y)) pixels.fill(15, (y * W + x) * 3, (y * W + x) * 3 + 3);
  return { width: W, height: H, stride: W * 3, pixels };
}

/** Letters: blocks 9 px wide, 3 px apart, from x 30 to 170, rows 16–40. */
const letter = (x: number, y: number) => x >= 30 && x < 170 && (x - 30) % 12 < 9 && y >= 16 && y < 40;
/** A rule 2 px thick that steps down a row every 70 px and breaks for 4 px twice. */
const rule = (top: number) => (x: number, y: number) => {
  const at = top + Math.floor(x / 70);
  return y >= at && y < at + 2 && !(x >= 60 && x < 64) && !(x >= 130 && x < 134);
};

const greyAt = (img: RgbImage, x: number, y: number) => img.pixels[y * img.stride + x * 3];

test('the rules above and below a word become paper; its letters stay', () => {
  const above = rule(4);
  const below = rule(46);
  const src = image((x, y) => letter(x, y) || above(x, y) || below(x, y));
  const { image: out, box } = withoutRules(src, [0, 0, W, H]);
  assert.equal(box, [0, 0, W, H]);
  let ruleLeft = 0;
  let letterLost = 0;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      if ((above(x, y) || below(x, y)) && greyAt(out, x, y) < 128) ruleLeft++;
      if (letter(x, y) && greyAt(out, x, y) >= 128) letterLost++;
    }
  assert.is(ruleLeft, 0, 'every rule pixel painted');
  assert.is(letterLost, 0, 'no letter pixel painted');
});

test('letters alone, set tight and tall, are no rule', () => {
  const dense = (x: number, y: number) => x >= 4 && x < 196 && (x - 4) % 10 < 9 && y >= 8 && y < 48;
  const src = image(dense);
  const { image: out } = withoutRules(src, [0, 0, W, H]);
  assert.equal(out.pixels, src.pixels);
});

test.run();
