// A code a standard font's encoding leaves undefined, in a font dictionary without /Widths (libharu
// writes a tab into a Times-Roman line so): MuPDF advances it by the font's .notdef (Times 250/1000
// em), poppler by nothing, so the glyphs after it stand 2.75 pt apart in the two renderers at 11 pt.
// A word after it is refused `text_not_mapped` with that cause and advice that fits it (not "a
// space MuPDF inferred" nor a form field); a word before it is corrected, checked by poppler.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { editInput, pageText, standardTimesPdf } from '../fixtures.ts';
import { popplerProblemsOf as popplerProblems } from '../poppler.ts';

/** One line at 11 pt in non-embedded Times-Roman (WinAnsi, no /Widths) with a tab inside it. */
const tabbedLine = () =>
  standardTimesPdf(
    'BT /T 11 Tf 20 100 Td (Copying is allowed\t"You" is you, if you are distributing it) Tj ET',
    'WinAnsiEncoding',
  );

test('a word after an undefined code: refused with the cause named and advice that fits it', async () => {
  const pdf = tabbedLine();
  assert.ok(pageText(pdf).includes('are distributing it'));
  const p = await proposeEdit(editInput(pdf, 'distributing', 'distributnig'));
  assert.is(p.visibility_cost, 'refused');
  assert.is(p.advice?.code, 'text_not_mapped');
  assert.match(p.advice!.why, /U\+FFFD/);
  assert.match(p.advice!.why, /renderers disagree/);
  assert.match(p.advice!.do[0], /before that character/);
  assert.is((p.measurements as { undefined_char_index: number }).undefined_char_index, 18);
});

test('a word before the undefined code is corrected and poppler reads it', async () => {
  const pdf = tabbedLine();
  const r = await applyEdit(editInput(pdf, 'allowed', 'alowled'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pageText(r.output).includes('Copying is alowled'));
  assert.equal(popplerProblems(pdf, r.output, 'allowed', 'alowled', r.verification.declared_box!), []);
});

test.run();
