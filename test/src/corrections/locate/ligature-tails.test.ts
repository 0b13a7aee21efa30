// MuPDF splits a ligature glyph into its letters and places the later ones where it can: on the
// next glyph's origin, or, where the ligature ends a word and the space is a gap (LuaTeX), where no
// glyph starts at all. Those letters are the ligature's (glyphMap, locate.ts): LuaTeX's "ft" in
// "überprüft" was refused `text_not_mapped`, and pdfTeX's "ﬃ" in "affine", whose "f" and "i" MuPDF
// puts on the "n", was cut at the ligature ("affine" → "affien" read "affifien").
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { CORPUS_PDF } from '../../../../fixtures/corpus-manifest.ts';
import { bundledFacePdf, editInput } from '../fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-ligature-tails-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Corrects, checks the proof passed at cost none and what poppler reads of the output. */
async function corrected(pdf: Uint8Array, find: string, replacement: string, page = 0): Promise<string> {
  const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replacement, page));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.visibility_cost, 'none');
  const after = join(dir, `${replacement}.pdf`);
  writeFileSync(after, output);
  // poppler reads a ligature glyph as its own character ("ﬁ"): compared as letters.
  return execFileSync('pdftotext', ['-f', String(page + 1), '-l', String(page + 1), after, '-'], {
    encoding: 'utf8',
  }).normalize('NFKC');
}

test('a ligature that ends a word before a gap keeps its last letter (no glyph where MuPDF puts it)', async () => {
  // "Sufi order": the "ﬁ" glyph of LM Roman ends the word, the space is a TJ gap, as LuaTeX writes it.
  const pdf = bundledFacePdf(
    { name: 'LMRoman10-Regular', id: 'lm-roman-10-regular' },
    [0, 0, 300, 100],
    (hex) => `BT /F1 14 Tf 20 50 Td [<${hex('Suﬁ')}> -400 <${hex('order')}>] TJ ET`,
  );
  const text = await corrected(pdf, 'Sufi', 'uSfi');
  assert.ok(/uSfi\s+order/.test(text), text);
});

test('the two letters of "ﬃ" MuPDF puts on the next glyph belong to the ligature', async () => {
  const pdf = new Uint8Array(readFileSync(join(CORPUS_PDF, 'geotopo-linearized-type1c.pdf')));
  const text = await corrected(pdf, 'affine', 'affien', 1);
  assert.ok(text.includes('(affien)') && !text.includes('(affine)'), text);
});

test.run();
