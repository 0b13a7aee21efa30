// The patched word's confidence bar (issue 32, kind a): the replacement must be read in every
// reading, the old word in none, and at CONFIRM_THRESHOLD — or, when every reader agrees (the three
// widths of line, the band of the word and its neighbours after the patch, and the word alone as an
// outside reader crops it), at 60: recognition gives a non-word, as a typo fix is, a far lower
// confidence than a word. The readings are those the recogniser gives (text, confidence, box); the
// guard's verdict and its detail are asserted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { _internals } from '../../../../src/corrections/scan/tier5.ts';
import type { RecognisedWord } from '../../../../src/ocr/recognizer.ts';

const { readsReplacement } = _internals;
const v = { find: 'Sonstiges', replacement: 'Sonstiegs' };
const read = (...words: [string, number][]): RecognisedWord[] =>
  words.map(([text, confidence], i) => ({ text, confidence, box: [i * 100, 0, i * 100 + 90, 40], line: 0 }));
const lines = [
  read(['.3', 63], ['Sonstiegs', 63]),
  read(['1.3', 68], ['Sonstiegs', 68]),
  read(['1.3', 68], ['Sonstiegs', 68]),
];
const band = { before: 87, after: 68 };

test('without the band read after the patch the bar is the absolute threshold: 68 refused', () => {
  const g = readsReplacement(lines, read(['Sonstiegs', 66]), v, null);
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 85; read in 3 of 3/);
});

test('every reader agreeing, alone and in the band: 68 passes, the bar and the band named', () => {
  const g = readsReplacement(lines, read(['Sonstiegs', 66]), v, band);
  assert.ok(g.passed, g.detail);
  assert.match(
    g.detail,
    /threshold 60: read so alone and in the band of its neighbours too, there at 68 after the patch where the old word read at 87/,
  );
});

test('read at 85 or more, the word passes as before whatever the band read after the patch', () => {
  const sure = [read(['Varijs', 91]), read(['Varijs', 91]), read(['Varijs', 92])];
  const g = readsReplacement(
    sure,
    read(['Varijs', 90]),
    { find: 'Varias', replacement: 'Varijs' },
    {
      before: 91,
      after: 38,
    },
  );
  assert.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 85;/);
});

test('alone, the new word read joined to a piece of its neighbour (however unsurely): refused', () => {
  const sure = [read(['если', 93], ['хэчет', 91]), read(['если', 93], ['хэчет', 91]), read(['хэчет', 92])];
  const x = { find: 'хочет', replacement: 'хэчет' };
  const g = readsReplacement(sure, read(['ля', 35], ['хэчетве', 14.5]), x, { before: 93, after: 92 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /alone it reads “хэчетве” \(14\.5\), joined to a neighbour's ink/);
  // Read alone as itself (a piece of the neighbour apart), it passes.
  assert.ok(
    readsReplacement(sure, read(['ля', 35], ['хэчет', 60], ['в', 40]), x, { before: 93, after: 92 }).passed,
  );
});

test('alone it reads something else (even not surely): the absolute threshold', () => {
  const g = readsReplacement(lines, read(['Sonstieg', 70]), v, band);
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 85;/);
});

test('the band after the patch reading the new word under the bar: refused', () => {
  const g = readsReplacement(lines, read(['Sonstiegs', 66]), v, { before: 87, after: 55 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /threshold 60/);
});

test('every reading a guess (under 60): refused though they agree', () => {
  const weak = [read(['Sonstiegs', 45]), read(['Sonstiegs', 44]), read(['Sonstiegs', 40])];
  const g = readsReplacement(weak, read(['Sonstiegs', 40]), v, { before: 80, after: 65 });
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /“Sonstiegs” at 45 \(threshold 60/);
});

test('the lower bar never accepts a reading that is not the replacement, nor the old word still read', () => {
  const once = [lines[0], read(['Sonstiegs', 68]), read(['Sonstigs', 70])];
  const g = readsReplacement(once, read(['Sonstiegs', 66]), v, band);
  assert.not.ok(g.passed, g.detail);
  assert.match(g.detail, /read in 2 of 3/);
  const old = readsReplacement(lines, read(['Sonstiegs', 66], ['Sonstiges', 70]), v, band);
  assert.not.ok(old.passed, old.detail);
  assert.match(old.detail, /still “Sonstiges”/);
});

test.run();
