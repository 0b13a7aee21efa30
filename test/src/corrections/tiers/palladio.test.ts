// A clone judged on its letters: pdfLaTeX's mathpazo sets text in URW Palladio L, whose bundled
// clone TeX Gyre Pagella has the same letter widths but redrawn parentheses, brackets and signs
// (100–400/1000 em apart). Judged on every character, a page that draws them refused a letter its
// subset lacks (`glyph_not_available`); judged on its letters and figures, Pagella draws it. The page
// was made by pdfTeX from palladio-line.tex (fixtures/tex-fonts/manifest.json says how).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput } from '../fixtures.ts';
import { popplerProblemsOf } from '../poppler.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/palladio-line.pdf', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'docfix-palladio-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

interface MatchedFacts {
  matched_font: { face: string; family: string };
}

test('"wall:" → "way:" on a URW Palladio page with ( ) [ ] + = |: the y is drawn with TeX Gyre Pagella; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const { proposal, output, verification } = await applyEdit(editInput(pdf, 'wall:', 'way:'));
  assert.ok(verification.passed, verification.failure_reason ?? proposal.refusal ?? '');
  assert.is(proposal.tier_name, 'matched_font');
  assert.is(proposal.visibility_cost, 'low');
  const m = (proposal.measurements as unknown as MatchedFacts).matched_font;
  assert.is(m.face, 'texgyre-pagella-regular');
  const after = join(dir, 'palladio-after.pdf');
  writeFileSync(after, output);
  const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
  assert.ok(text.includes('jumps over the way: 3+4=7'), text);
  assert.equal(popplerProblemsOf(pdf, output, 'wall:', 'way:', verification.declared_box!), []);
});

test.run();
