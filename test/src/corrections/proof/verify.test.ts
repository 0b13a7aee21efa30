// The text layer's reading rules of the verification (verify.ts), on lines MuPDF read from real
// TeX Live documents after a correction: a space where a Latin letter meets CJK text passes, a space
// inside a run of one script fails.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cjkBoundarySpaced } from '../../../../src/corrections/proof/verify.ts';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

function spaced(line: string, find: string, replacement: string, got: string): boolean {
  const at = line.indexOf(find);
  const prefix = line.slice(0, at);
  const expected = prefix + replacement + line.slice(at + find.length);
  return cjkBoundarySpaced(got, { prefix, find, replacement, expected }, norm);
}

test('a space after a Latin letter set in a hangul cell passes (pmhanguljamo-kdoc, Noto Serif KR)', () => {
  const line = '지키려다보니부득이했다.';
  assert.ok(spaced(line, '지키려다', '지키려Z', '지키려Z 보니부득이했다.'));
  assert.ok(spaced(line, '지키려다', 'Z키려다', 'Z 키려다보니부득이했다.'));
  // A space anywhere else is a word the text layer no longer has.
  assert.not.ok(spaced(line, '지키려다', '지키려Z', '지키려Z보니 부득이했다.'));
  assert.not.ok(spaced(line, '지키려다', '지키려Z', '지 키려Z보니부득이했다.'));
});

test('a space where the old ideograph met Latin text passes (asymptote-faq-zh-cn, SimSun)', () => {
  const line = '参考例子http://asymptote.sourceforge.net/gallery/log2graph.asy。';
  assert.ok(
    spaced(line, '参考例子', '参考例Å', '参考例Å http://asymptote.sourceforge.net/gallery/log2graph.asy。'),
  );
  assert.ok(
    spaced(line, '参考例子', '参考例Å', '参考例 Å http://asymptote.sourceforge.net/gallery/log2graph.asy。'),
  );
});

test('a space inside a Latin word, or between ideographs, fails', () => {
  assert.not.ok(spaced('the word correction here', 'correction', 'corrextion', 'the word corr extion here'));
  assert.not.ok(spaced('我们用排版', '们', '门', '我 门用排版'));
  // The same reading is not a boundary case at all.
  assert.not.ok(spaced('我们用排版', '们', 'Z', '我Z用排版 x'));
});

test.run();
