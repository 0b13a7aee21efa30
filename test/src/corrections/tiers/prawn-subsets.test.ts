// Prawn (asciidoctor-pdf) subsets: a lowercase hex subset tag, a symbolic TrueType program whose cmap
// maps only the codes drawn, and a /Widths entry for every other code with the .notdef's advance.
// Read as widths of letters, those made the bundled Noto Serif look 130/1000 em off and no face
// matched; read through the program's cmap, Noto Serif matches and draws a letter the subset lacks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { fontFactsFromPdf } from '../../../../src/fonts/pdf-font-facts.ts';
import type { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, withDoc } from '../fixtures.ts';
import { popplerProblemsOf } from '../poppler.ts';

const FILE = fileURLToPath(new URL('../../../../fixtures/prawn/prawn-noto-serif.pdf', import.meta.url));
const pdf = new Uint8Array(readFileSync(FILE));
const dir = mkdtempSync(join(tmpdir(), 'docfix-prawn-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** The facts of the body font (the regular Noto Serif subset that draws the sentence). */
function bodyFacts(doc: mupdf.PDFDocument) {
  const fonts = doc.findPage(0).get('Resources').get('Font');
  const facts: ReturnType<typeof fontFactsFromPdf>[] = [];
  fonts.forEach((ref) => facts.push(fontFactsFromPdf(ref.resolve())));
  return facts.find((f) => /\+NotoSerif$/.test(f.baseFont) && f.widths.has('O'))!;
}

test('widths are read only for the codes the program maps: the sentence’s letters, not the .notdef fill', () => {
  withDoc(pdf, (doc) => {
    const facts = bodyFacts(doc);
    assert.ok(facts, 'the body font');
    assert.is(facts.widths.has('x'), false, 'x is not in the subset');
    assert.is(facts.widths.has('@'), false, '@ is not in the subset');
    for (const ch of 'Ovarenijst') assert.ok(facts.widths.has(ch), ch);
  });
});

test('a letter the subset lacks (“x”) is drawn with the bundled Noto Serif at cost low; poppler reads it, nothing else moves', async () => {
  const { proposal, output, verification } = await applyEdit(editInput(pdf, 'test', 'text'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.tier_name, 'matched_font');
  assert.is(proposal.visibility_cost, 'low');
  const m = (proposal.measurements as unknown as { matched_font: { family: string } }).matched_font;
  assert.is(m.family, 'Noto Serif');
  const after = join(dir, 'after.pdf');
  writeFileSync(after, output);
  const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
  assert.ok(text.includes('napisana za text, bez'), text);
  assert.equal(popplerProblemsOf(pdf, output, 'test', 'text', verification.declared_box!), []);
});

test.run();
