// Changed pixels outside declared boxes, grouped into regions (src/verify/changed-regions.ts), on
// renders made here: what a box covers is not counted, nearby pixels join one region, far ones
// make two, noise within the allowance counts as outside but not against the page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changesOutside, type Render } from '../../../src/verify/changed-regions.ts';

function white(width: number, height: number): Render {
  return { width, height, stride: width * 3, pixels: new Uint8Array(width * height * 3).fill(255) };
}

function paint(img: Render, x: number, y: number, level = 0): void {
  const i = y * img.stride + x * 3;
  img.pixels.set([level, level, level], i);
}

test('identical renders: nothing outside, no region', () => {
  const r = changesOutside(white(40, 30), white(40, 30), []);
  assert.equal(r, {
    outside_pixels: 0,
    outside_max_delta: 0,
    beyond_noise_pixels: 0,
    regions: [],
    region_count: 0,
  });
});

test('pixels inside a box are not counted; near ones join, far ones are a region of their own', () => {
  const a = white(200, 100);
  const b = white(200, 100);
  paint(b, 10, 10); // inside the box
  paint(b, 60, 20);
  paint(b, 66, 25); // a few pixels from the one before: same region
  paint(b, 150, 80); // far away: another region
  const r = changesOutside(a, b, [[5, 5, 20, 20]]);
  assert.is(r.outside_pixels, 3);
  assert.is(r.outside_max_delta, 255);
  assert.is(r.region_count, 2);
  assert.equal(r.regions, [
    [60, 20, 67, 26],
    [150, 80, 151, 81],
  ]);
});

test('several boxes on a page each cover their pixels', () => {
  const a = white(100, 100);
  const b = white(100, 100);
  paint(b, 10, 10);
  paint(b, 80, 80);
  const r = changesOutside(a, b, [
    [0, 0, 20, 20],
    [70, 70, 90, 90],
  ]);
  assert.is(r.outside_pixels, 0);
  const one = changesOutside(a, b, [[0, 0, 20, 20]]);
  assert.is(one.outside_pixels, 1);
  assert.equal(one.regions, [[80, 80, 81, 81]]);
});

test('noise within the allowance is outside but not counted', () => {
  const a = white(50, 50);
  const b = white(50, 50);
  paint(b, 30, 30, 254); // one level
  paint(b, 40, 40, 250); // five levels
  const r = changesOutside(a, b, [], 1);
  assert.is(r.outside_pixels, 2);
  assert.is(r.beyond_noise_pixels, 1);
  assert.equal(r.regions, [[40, 40, 41, 41]]);
  assert.is(r.outside_max_delta, 5);
});

test('renders of different sizes differ everywhere', () => {
  const r = changesOutside(white(40, 30), white(30, 40), [[0, 0, 10, 10]]);
  assert.equal(r.regions, [[0, 0, 40, 40]]);
  assert.is(r.beyond_noise_pixels, 1600);
});

test.run();
