// cairo (Graphviz, gnuplot, rsvg) starts its TJ arrays with an empty string: `[<> -3 <0008> …] TJ`.
// PDFium counts it as a segment but files the numbers by the non-empty strings, so a number left at
// the end of such an array is dropped and everything after it drawn off by that much, where MuPDF
// and poppler draw it in place. A correction that ends a split array with a number (the kerning
// before the replaced letter; the adjustment after a wider letter) was refused by the second
// renderer (holdout-2's Graphviz Greek "έγκρισης" → "έγκρισηx"). The writers now leave the empty
// strings out of an array they rewrite.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { bundledFacePdf, editInput } from '../fixtures.ts';
import { popplerProblemsOf } from '../poppler.ts';

/** "Approval of orders" as cairo writes it: a flipped text matrix, size 1, `<>` first, kerning. */
function cairoLinePdf(): Uint8Array {
  return bundledFacePdf({ name: 'DejaVuSans', id: 'dejavu-sans-regular' }, [0, 0, 300, 80], (hex) =>
    [
      '1 0 0 -1 0 80 cm BT 14.000244 0 0 -14.000244 20.179688 40.808594 Tm /F1 1 Tf',
      `[<> -3 <${hex('Approva')}> -40 <${hex('l')}>] TJ`,
      `[<${hex(' of orders')}>] TJ ET`,
    ].join('\n'),
  );
}

interface Guard {
  name: string;
  passed: boolean;
  detail: string;
}

for (const [replace, tier] of [
  ['Approvai', 'matched_font'], // i (as wide as l) is not in the subset: drawn with the bundled DejaVu Sans
  ['Approvao', 'glyph_reuse'], // o is: a wider letter, the adjustment after it ends the array
] as const) {
  test(`cairo's array with <> first: "Approval" → "${replace}" (${tier}) verifies, PDFium agrees`, async () => {
    const pdf = cairoLinePdf();
    const { proposal, output, verification } = await applyEdit(editInput(pdf, 'Approval', replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, tier);
    const pdfium = (verification.guards as Guard[]).find((g) => g.name === 'second_renderer_pdfium');
    assert.ok(pdfium?.passed, pdfium?.detail);
    assert.equal(popplerProblemsOf(pdf, output, 'Approval', replace, verification.declared_box!), []);
  });
}

test.run();
