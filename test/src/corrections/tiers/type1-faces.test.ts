// TeX's Type 1 faces bundled converted to CFF: pdfTeX documents set in them embed subsets, and a
// letter the subset lacks was refused with `glyph_not_available` ("no bundled font matches it").
// - Bitstream Charter (fonts/charter; the charter package: KOMA-Script, many LaTeX classes), subsets
//   named CharterBT-Roman, CharterBT-Italic … (Charis SIL, its extension, is 17/1000 em wider:
//   rightly refused).
// - Adobe Utopia (fonts/nowhere-serif: renamed Nowhere Serif as its licence asks of a modified
//   font; the utopia and fourier packages), subsets named Utopia-Regular, Utopia-Italic ….
// The pages were made by pdfTeX from charter-line.tex and utopia-line.tex
// (fixtures/tex-fonts/manifest.json says how); both set the same line in regular and italic.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliedWithStandIn } from '../stand-in.ts';

const page = (name: string) =>
  fileURLToPath(new URL(`../../../../fixtures/tex-fonts/${name}`, import.meta.url));

for (const { file, family, faceOf } of [
  { file: 'charter-line.pdf', family: 'Bitstream Charter', faceOf: (s: string) => `charter-${s}` },
  { file: 'utopia-line.pdf', family: 'Nowhere Serif', faceOf: (s: string) => `nowhere-serif-${s}` },
]) {
  for (const { find, replace, style, line } of [
    { find: 'wall,', replace: 'way,', style: 'regular', line: 'The fox jumps over the way, the wall.' },
    {
      find: 'the wall.',
      replace: 'the way.',
      style: 'italic',
      line: 'The fox jumps over the wall, the way.',
    },
  ]) {
    const face = faceOf(style);
    test(`${file}: "${find}" → "${replace}": the y the subset lacks is drawn with the bundled ${face}; poppler's text and pixels agree`, async () => {
      const pdf = new Uint8Array(readFileSync(page(file)));
      const text = await appliedWithStandIn(pdf, find, replace, { face, family });
      assert.ok(text.includes(line), text);
    });
  }
}

test.run();
