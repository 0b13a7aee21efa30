// A word the pen draws one letter after another from two fonts of one face (Prawn and ReportLab
// split a TrueType face into 256-glyph subsets: Turkish “BİÇİM” drawn `… B) Tj /F1.1 10 Tf (") Tj
// /F1.0 10 Tf …`). A swap of two of its letters across the fonts was refused split_drawing; now the
// word's own glyphs are redrawn in the other order, each in its own font, the string that held one
// of them split around it, and poppler sees only the two letters change. With a move between the
// letters (a kern: the pen does not flow), the swap is still refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFont, editInput } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

/** “geçerli BİÇİM belirtimleri” in two fonts of DejaVu Sans: the first İ alone in F2. */
function pagePdf(kernAfterB = ''): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('DejaVuSans', bundledFont('dejavu-sans-regular'));
    const fonts = doc.newDictionary();
    const f1 = doc.addFont(font);
    // A second font dictionary over the same program: two fonts, as two subsets of one face are.
    const f2 = doc.newDictionary();
    f1.resolve().forEach((value, key) => f2.put(key, value));
    fonts.put('F1', f1);
    fonts.put('F2', doc.addObject(f2));
    const res = doc.newDictionary();
    res.put('Font', fonts);
    const hex = (s: string) =>
      `<${[...s].map((c) => font.encodeCharacter(c.codePointAt(0)!).toString(16).padStart(4, '0')).join('')}>`;
    const content =
      `BT /F1 12 Tf 20 50 Td [${hex('geçerli')} -40 ${hex(' B')}${kernAfterB}] TJ ` +
      `/F2 12 Tf ${hex('İ')} Tj /F1 12 Tf ${hex('ÇİM belirtimleri')} Tj ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, res, content));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

test('two letters swapped across the fonts the pen draws them in: tier 1, cost none, only they change', async () => {
  const pdf = pagePdf();
  const { proposal, output, verification } = await applyEdit(editInput(pdf, 'BİÇİM', 'İBÇİM'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.tier, 1);
  assert.is(proposal.visibility_cost, 'none');
  assert.match(pdftotextOf(output), /geçerli İBÇİM belirtimleri/);
  assert.equal(popplerProblemsOf(pdf, output, 'BİÇİM', 'İBÇİM', verification.declared_box!), []);
});

test('a kern between the letters (the pen does not flow from one to the next): still refused', async () => {
  const proposal = await proposeEdit(editInput(pagePdf(' -30'), 'BİÇİM', 'İBÇİM'));
  assert.is(proposal.tier, -1);
  assert.is(proposal.advice?.code, 'split_drawing');
});

test.run();
