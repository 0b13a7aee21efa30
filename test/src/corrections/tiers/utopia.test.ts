// Adobe Utopia is bundled (fonts/nowhere-serif: converted from the Type 1 faces Adobe released
// through TUG, and so renamed Nowhere Serif as their licence asks of a modified font):
// pdfTeX documents set in it (the utopia and fourier packages) embed subsets named Utopia-Regular,
// Utopia-Italic …, and a letter the subset lacks was refused with `glyph_not_available` ("no
// bundled font matches it"). The page was made by pdfTeX from utopia-line.tex
// (fixtures/tex-fonts/manifest.json says how).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/utopia-line.pdf', import.meta.url));

for (const { find, replace, face, line } of [
  {
    find: 'wall,',
    replace: 'way,',
    face: 'nowhere-serif-regular',
    line: 'The fox jumps over the way, the wall.',
  },
  {
    find: 'the wall.',
    replace: 'the way.',
    face: 'nowhere-serif-italic',
    line: 'The fox jumps over the wall, the way.',
  },
]) {
  test(`"${find}" → "${replace}": the y the subset lacks is drawn with the bundled ${face}; poppler's text and pixels agree`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const text = await appliedWithStandIn(pdf, find, replace, { face, family: 'Nowhere Serif' });
    assert.ok(text.includes(line), text);
  });
}

test.run();
