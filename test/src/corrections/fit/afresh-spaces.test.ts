// Chromium (Skia/PDF) draws every glyph with its own Td, the space glyphs too. When a line is
// re-spaced for a wider word, a space glyph placed afresh keeps its place unless it is given a
// number: it stayed behind while the word before it moved right, so MuPDF read a space drawn inside
// the moved word, ended the line there and the text check refused ("expected the line to extract as
// … got …"; a Hungarian Chromium page's "lett" → "qett" met it). The spaces now move with the word
// before them, as the pen carries them in one operator. The page (fixtures/chromium/manifest.json)
// is a Chromium line with 1 em word gaps, as a loosely justified line has. Fails on the old code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/chromium/spaced-line.pdf', import.meta.url));

for (const [find, replace] of [
  ['lends', 'qends'],
  ['tables', 'tabqes'],
  ['all', 'aql'],
]) {
  test(`"${find}" → "${replace}": the q drawn with Noto Serif, the rest of the line re-spaced with its spaces; the line reads whole`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const text = await appliedWithStandIn(pdf, find, replace, { face: 'noto-serif-regular' });
    const line = 'The old waiting room lends its tables to all of us.'.replace(find, replace);
    assert.is(text.replace(/\s+/g, ' ').trim(), line);
  });
}

test.run();
