// The patched word's confidence bar (issue 32, kind a): the replacement must be read in every
// reading, the old word in none, and at CONFIRM_THRESHOLD — or, on a page its own recognition reads
// less surely, at the old word's confidence in the same band before the patch less a margin, never
// under 50, with the band after the patch reading the new word as surely. The readings are those
// the recogniser gives (text, confidence, box); the guard's verdict and its detail are asserted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { _internals } from '../../../../src/corrections/scan/tier5.ts';
import type { RecognisedWord } from '../../../../src/ocr/recognizer.ts';

const { readsReplacement } = _internals;
const v = { find: 'Sonstiges', replacement: 'Sonstiegs' };
const read = (...words: [string, number][]): RecognisedWord[] =>
  words.map(([text, confidence], i) => ({ text, confidence, box: [i * 100, 0, i * 100 + 90, 40], line: 0 }));
const lowPage = [
  read(['.3', 63], ['Sonstiegs', 63]),
  read(['1.3', 68], ['Sonstiegs', 68]),
  read(['1.3', 68], ['Sonstiegs', 68]),
];

test('without a reading before the patch the bar is the absolute threshold: 68 refused', () => {
  const g = readsReplacement(lowPage, read(['Sonstiegs', 66]), v, null);
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 85; read in 3 of 3/);
});

test('the old word read at 71 in the same band before: the new one at 68 passes, the bar named', () => {
  const g = readsReplacement(lowPage, read(['Sonstiegs', 66]), v, { before: 71, after: 67 });
  assert.ok(g.passed, g.detail);
  assert.match(
    g.detail,
    /threshold 66: the band read the old word at 71 before the patch and the new one at 67 after it/,
  );
});

test('the band after the patch reading the new word less surely than the bar: refused', () => {
  const g = readsReplacement(lowPage, read(['Sonstiegs', 66]), v, { before: 80, after: 60 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 75/);
});

test('a page read surely before keeps the absolute threshold', () => {
  const g = readsReplacement(lowPage, read(['Sonstiegs', 66]), v, { before: 95, after: 70 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 85;/);
});

test('a page read at a guess before does not lower the bar under 50', () => {
  const weak = [read(['Sonstiegs', 45]), read(['Sonstiegs', 44]), read(['Sonstiegs', 40])];
  const g = readsReplacement(weak, read(['Sonstiegs', 40]), v, { before: 40, after: 45 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 50:/);
});

test('a lower bar never accepts a reading that is not the replacement, nor the old word still read', () => {
  const once = [lowPage[0], read(['Sonstiegs', 68]), read(['Sonstigs', 70])];
  const g = readsReplacement(once, read(['Sonstiegs', 66]), v, { before: 71, after: 67 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /read in 2 of 3/);
  const old = readsReplacement(lowPage, read(['Sonstiges', 70]), v, { before: 71, after: 67 });
  assert.not.ok(old.passed, old.detail);
  assert.match(old.detail, /still “Sonstiges”/);
});

test.run();
