// The run of words a scanned word's line spacing is judged by (scan/line-readback.ts, lineRun), shared
// by the patch's layout and its proof: neighbours chained by gaps under one and a half word heights,
// so a gutter to another column is not a word gap of the line (the layout once took a two-column
// page's 64 px gutter for one, and left a space the proof refused); words of other lines are not on it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lineRun } from '../../../../src/corrections/scan/line-readback.ts';
import type { Box } from '../../../../src/corrections/proof/render-diff.ts';

// One text line across two columns, 20 px high: three words, a 300 px gutter, two words; a word of
// the next line below.
const left: Box[] = [
  [0, 100, 50, 120],
  [60, 100, 110, 120],
  [122, 101, 170, 121],
];
const right: Box[] = [
  [470, 100, 520, 120],
  [534, 100, 580, 120],
];
const below: Box = [180, 130, 230, 150];
const all = [...left, ...right, below];

test('the last word of a column: its gaps are the column’s, not the gutter', () => {
  const run = lineRun(all, left[2]);
  assert.equal(run.left, [left[1], left[0]]);
  assert.equal(run.right, []);
  assert.equal(run.gaps, [10, 12]);
});

test('the first word of the next column: the gutter before it is no word gap', () => {
  const run = lineRun(all, right[0]);
  assert.equal(run.left, []);
  assert.equal(run.right, [right[1]]);
  assert.equal(run.gaps, [14]);
});

test('a word with a tab stop before it and words after it: only the gaps after count', () => {
  const tabbed: Box[] = [
    [0, 0, 40, 20],
    [200, 0, 250, 20],
    [262, 0, 300, 20],
  ];
  const run = lineRun(tabbed, tabbed[1]);
  assert.equal(run.left, []);
  assert.equal(run.gaps, [12]);
});

test.run();
