// A whole TrueType program in a Type0/Identity-H font whose /W lists only the glyphs drawn, with a
// ToUnicode for every glyph, as PDF::API2 and PDF::Builder write them: a letter the page never drew
// has a code and a glyph, but its width is /DW (1000), not its own. Reusing that code (tier 1) would
// draw it a whole em wide; the engine leaves it to tier 2, which adds the glyph's own width to a
// copy of the font. Checked by poppler: the new word is read, and nothing moves outside the box.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFont, editInput, identityToUnicode } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const LINE = 'The Manager starts it';

/** The line in full DejaVu Sans, /W for its own glyphs only, /DW 1000, ToUnicode for a–z and A–Z. */
function defaultWidthPdf(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('DejaVuSans', bundledFont('dejavu-sans-regular'));
    const ref = doc.addFont(font);
    const gid = (c: string) => font.encodeCharacter(c.codePointAt(0)!);
    const hex = (t: string) => [...t].map((c) => gid(c).toString(16).padStart(4, '0')).join('');
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    doc.insertPage(
      -1,
      doc.addPage([0, 0, 300, 100], 0, resources, `BT /F1 12 Tf 20 50 Td <${hex(LINE)}> Tj ET`),
    );
    const type0 = ref.resolve();
    const cid = type0.get('DescendantFonts').get(0).resolve();
    const w = doc.newArray();
    for (const g of [...new Set([...LINE].map(gid))].sort((a, b) => a - b)) {
      const one = doc.newArray();
      one.push(Math.round(font.advanceGlyph(g) * 1000));
      w.push(g);
      w.push(one);
    }
    cid.put('W', w);
    cid.put('DW', 1000);
    const letters = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ '];
    const entries = letters.map((c) => `<${hex(c)}> <${c.codePointAt(0)!.toString(16).padStart(4, '0')}>`);
    const cmap = identityToUnicode(entries);
    type0.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

test('a letter the font has but whose width /W leaves to /DW: drawn at its own width by tier 2', async () => {
  const pdf = defaultWidthPdf();
  assert.ok(pdftotextOf(pdf).includes(LINE));
  const r = await applyEdit(editInput(pdf, 'Manager', 'Manzger'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier, 2);
  assert.is(r.proposal.visibility_cost, 'none');
  assert.ok(pdftotextOf(r.output).includes('The Manzger starts it'), pdftotextOf(r.output));
  assert.equal(popplerProblemsOf(pdf, r.output, 'Manager', 'Manzger', r.verification.declared_box!), []);
});

test('a letter drawn on the page keeps its code (tier 1), whatever /DW says', async () => {
  const pdf = defaultWidthPdf();
  const r = await applyEdit(editInput(pdf, 'Manager', 'Mangaer'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier, 1);
  assert.ok(pdftotextOf(r.output).includes('The Mangaer starts it'));
});

test.run();
