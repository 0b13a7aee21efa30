// Bitstream Charter is bundled (fonts/charter, converted from TeX's Type 1 faces): pdfTeX documents
// set in it (the charter package: KOMA-Script, many LaTeX classes) embed subsets named
// CharterBT-Roman, CharterBT-Italic …, and a letter the subset lacks was refused with
// `glyph_not_available` (Charis SIL, its extension, is 17/1000 em wider: rightly refused). The page
// was made by pdfTeX from charter-line.tex (fixtures/tex-fonts/manifest.json says how).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/charter-line.pdf', import.meta.url));

for (const { find, replace, face, line } of [
  { find: 'wall,', replace: 'way,', face: 'charter-regular', line: 'The fox jumps over the way, the wall.' },
  {
    find: 'the wall.',
    replace: 'the way.',
    face: 'charter-italic',
    line: 'The fox jumps over the wall, the way.',
  },
]) {
  test(`"${find}" → "${replace}": the y the subset lacks is drawn with the bundled ${face}; poppler's text and pixels agree`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const text = await appliedWithStandIn(pdf, find, replace, { face, family: 'Bitstream Charter' });
    assert.ok(text.includes(line), text);
  });
}

test.run();
