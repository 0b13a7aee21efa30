// Accents belong to their line (issue 33 item 3): the guard `edit_on_own_line` takes the line's band
// from its glyphs' ink when the em box MuPDF reports is lower than the marks (proof/line-band.ts).
// Pages are set in DejaVu Serif (bundled, with polytonic Greek); a font descriptor declaring a small
// ascent (500/1000) makes MuPDF's line box end below the breathings and accents, as in documents
// whose fonts declare their metrics so. A change that lands on a neighbouring line is still refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { readPageText, toRender } from '../../../../src/corrections/locate/page-text.ts';
import { loadPage, mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFont, editInput, withDoc } from '../fixtures.ts';
import { pdftotext } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-line-band-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const GREEK = ['καὶ ἐνθέδε λέγει', 'ὁ ἄνθρωπος ἔφη', 'τῶν ἀνθρώπων ἦν'];

/** Lines of text at 10 pt, `leading` apart, in a subset of DejaVu Serif; `ascent` rewrites the descriptor's. */
function greekPdf(
  lines: string[],
  options: { ascent?: [number, number]; leading?: number } = {},
): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('DejaVuSerif', bundledFont('dejavu-serif-regular'));
    const ref = doc.addFont(font);
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    const hex = (t: string) =>
      [...t].map((c) => font.encodeCharacter(c.codePointAt(0)!).toString(16).padStart(4, '0')).join('');
    const body = `BT /F1 10 Tf ${options.leading ?? 14} TL 20 80 Td ${lines.map((l) => `<${hex(l)}> Tj T*`).join(' ')} ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, resources, body));
    doc.subsetFonts();
    if (options.ascent) {
      const descriptor = ref.resolve().get('DescendantFonts').get(0).get('FontDescriptor');
      descriptor.put('Ascent', options.ascent[0]);
      descriptor.put('Descent', options.ascent[1]);
    }
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

const guard = (guards: { name: string; passed: boolean; detail: string }[], name: string) =>
  guards.find((g) => g.name === name)!;

test('an accent above the em box MuPDF reports: the band is the line’s ink, the correction verifies', async () => {
  const pdf = greekPdf(GREEK, { ascent: [500, -100] });
  // The premise: MuPDF's box of the first line ends below the ink of its accents.
  withDoc(pdf, (doc) => {
    const page = loadPage(doc, 0);
    const [nominal] = readPageText(page);
    const [inked] = readPageText(page, true);
    assert.ok(toRender(inked.bbox)[1] < toRender(nominal.bbox)[1] - 8, `${nominal.bbox} vs ${inked.bbox}`);
  });
  // Only an accent changes: the last ε of “ἐνθέδε” takes one (tier 1, the line's own έ).
  const input = editInput(pdf, 'ἐνθέδε', 'ἐνθέδέ');
  const proposal = await proposeEdit(input);
  assert.is(proposal.refusal, null, proposal.explanation);
  assert.is(proposal.visibility_cost, 'none');
  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  const own = guard(verification.guards, 'edit_on_own_line');
  assert.ok(own.passed);
  assert.match(own.detail, /within its glyphs' ink/);
  const path = join(dir, 'accent.pdf');
  writeFileSync(path, output);
  assert.match(pdftotext(path, 0, ''), /ἐνθέδέ/);
});

test('a swap whose letters rise above the em box (θ, δ) verifies on the line’s ink too', async () => {
  const pdf = greekPdf(GREEK, { ascent: [500, -100] });
  const { verification } = await applyEdit(editInput(pdf, 'ἐνθέδε', 'ἐνθδέε'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.match(guard(verification.guards, 'edit_on_own_line').detail, /glyphs' ink/);
});

test('the font’s own metrics: the em band holds the change, as before', async () => {
  const { verification } = await applyEdit(editInput(greekPdf(GREEK), 'ἐνθέδε', 'ἐνθέδέ'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.match(guard(verification.guards, 'edit_on_own_line').detail, /within the line band \[/);
});

test('a change reaching a neighbouring line’s ink is still refused', async () => {
  // 8 pt leading: the accent rises into the rows where the line above hangs its ρ's tails.
  const pdf = greekPdf(['ρρρρρρρρρρρρρρρρρρ', 'καὶ ἐνθέδε λέγει'], { ascent: [500, -100], leading: 8 });
  const proposal = await proposeEdit(editInput(pdf, 'ἐνθέδε', 'ἐνθέδέ'));
  assert.is(proposal.visibility_cost, 'refused');
  const guards = (
    proposal.rejected![0].evidence as { guards: { name: string; passed: boolean; detail: string }[] }
  ).guards;
  const own = guard(guards, 'edit_on_own_line');
  assert.not.ok(own.passed);
  assert.match(own.detail, /where a neighbouring line inks/);
});

test.run();
