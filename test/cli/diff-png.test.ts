// `docfix verify DOC --diff-png FILE`: the picture of the latest correction, against a real daemon
// (the sample letter, "Jonh" → "John"), and the picture-making on small made-up images.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { diffPicture, pictureFile } from '../../cli/diff-picture.ts';
import { ROOT, startDaemon, type TestDaemon } from './helpers.ts';

const LETTER = join(ROOT, 'fixtures/sample/letter.pdf');
let d: TestDaemon;

test.before(async () => {
  d = await startDaemon();
});
test.after(async () => {
  await d?.stop();
});

const pixel = (png: PNG, x: number, y: number) => [
  ...png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3),
];

function blank(width: number, height: number): PNG {
  const png = new PNG({ width, height });
  png.data.fill(255);
  return png;
}

test('diffPicture: a one-pixel change is red, one outside the box magenta, the box outlined in blue', () => {
  const before = blank(40, 30);
  const after = blank(40, 30);
  // One pixel changed by one level in one channel: pixelmatch's defaults would let it pass.
  after.data[(10 * 40 + 12) * 4] = 254;
  after.data[(25 * 40 + 35) * 4 + 1] = 0;
  // The declared box at 300 dpi, shown at a quarter of that: [8, 8, 16, 14] in picture pixels.
  const picture = diffPicture(before, after, [32, 32, 64, 56], 0.25);
  assert.is(picture.changed, 2);
  assert.is(picture.outside, 1);
  assert.equal(pixel(picture.png, 12, 10), [255, 0, 0], 'inside the box: red');
  assert.equal(pixel(picture.png, 35, 25), [255, 0, 255], 'outside: magenta');
  assert.equal(pixel(picture.png, 7, 10), [0, 102, 255], 'the outline, just left of the box');
  assert.equal(pixel(picture.png, 16, 10), [0, 102, 255], 'and just right of it');
  assert.not.equal(pixel(picture.png, 8, 8), [0, 102, 255], 'the box itself is not covered');
  assert.throws(() => diffPicture(before, blank(41, 30), null, 1), /differ in size/);
});

test('pictureFile: FILE for one page, FILE-pN.png for several', () => {
  assert.is(pictureFile('out/change.png', 3, 1), 'out/change.png');
  assert.is(pictureFile('out/change.png', 3, 2), 'out/change-p3.png');
  assert.is(pictureFile('change', 0, 2), 'change-p0.png');
});

test('docfix verify --diff-png after a correction: a PNG of the page with the change in the box', async () => {
  const up = await d.run(['upload', LETTER, '--json']);
  assert.is(up.code, 0, up.stderr);
  const id = (JSON.parse(up.stdout) as { document_id: string }).document_id;
  const applied = await d.run(['apply', id, '--find', 'Jonh', '--replace', 'John', '--yes', '--json']);
  assert.is(applied.code, 0, applied.stderr);

  const file = join(d.dir, 'change.png');
  const r = await d.run(['verify', id, '--diff-png', file, '--json']);
  assert.is(r.code, 0, r.stderr);
  const v = JSON.parse(r.stdout) as { passed: boolean; pages: { page_index: number }[] };
  assert.ok(v.passed, 'stdout is still the verification');
  assert.match(r.stderr, /Wrote .*change\.png: page 0, \d+ preview pixel\(s\) changed/);
  assert.not.match(r.stderr, /outside the declared box/);
  assert.ok(existsSync(file));
  const png = PNG.sync.read(readFileSync(file));
  assert.ok(png.width > 500 && png.height > 600, `a whole page (${png.width}×${png.height})`);
  let red = 0;
  let magenta = 0;
  let blue = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r0, g, b] = [png.data[i], png.data[i + 1], png.data[i + 2]];
    if (r0 === 255 && g === 0 && b === 0) red++;
    if (r0 === 255 && g === 0 && b === 255) magenta++;
    if (r0 === 0 && g === 102 && b === 255) blue++;
  }
  assert.ok(red > 0, 'changed pixels in red');
  assert.is(magenta, 0, 'none outside the declared box');
  assert.ok(blue > 0, 'the declared box drawn');

  // Before any correction there is nothing to draw: the verification's own answer, nothing written.
  const fresh = await d.run(['upload', LETTER, '--json']);
  const freshId = (JSON.parse(fresh.stdout) as { document_id: string }).document_id;
  const none = await d.run(['verify', freshId, '--diff-png', join(d.dir, 'none.png')]);
  assert.is.not(none.code, 0);
  assert.not.ok(existsSync(join(d.dir, 'none.png')));
});

test.run();
