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
import { loadPage } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFacePdf, editInput, withDoc } from '../fixtures.ts';
import { pdftotext } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-line-band-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const GREEK = ['καὶ ἐνθέδε λέγει', 'ὁ ἄνθρωπος ἔφη', 'τῶν ἀνθρώπων ἦν'];

/** Lines of text at 10 pt, `leading` apart, in a subset of DejaVu Serif; `ascent` rewrites the descriptor's. */
function greekPdf(
  lines: string[],
  options: { ascent?: [number, number]; leading?: number } = {},
): Uint8Array {
  return bundledFacePdf(
    { name: 'DejaVuSerif', id: 'dejavu-serif-regular' },
    [0, 0, 300, 100],
    (hex) =>
      `BT /F1 10 Tf ${options.leading ?? 14} TL 20 80 Td ${lines.map((l) => `<${hex(l)}> Tj T*`).join(' ')} ET`,
    (font) => {
      if (!options.ascent) return;
      const descriptor = font.get('DescendantFonts').get(0).get('FontDescriptor');
      descriptor.put('Ascent', options.ascent[0]);
      descriptor.put('Descent', options.ascent[1]);
    },
  );
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
