// A clone judged on its letters: pdfLaTeX's mathpazo sets text in URW Palladio L, whose bundled
// clone TeX Gyre Pagella has the same letter widths but redrawn parentheses, brackets and signs
// (100–400/1000 em apart). Judged on every character, a page that draws them refused a letter its
// subset lacks (`glyph_not_available`); judged on its letters and figures, Pagella draws it. The page
// was made by pdfTeX from palladio-line.tex (fixtures/tex-fonts/manifest.json says how).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/palladio-line.pdf', import.meta.url));

test('"wall:" → "way:" on a URW Palladio page with ( ) [ ] + = |: the y is drawn with TeX Gyre Pagella; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const text = await appliedWithStandIn(pdf, 'wall:', 'way:', { face: 'texgyre-pagella-regular' });
  assert.ok(text.includes('jumps over the way: 3+4=7'), text);
});

test.run();
