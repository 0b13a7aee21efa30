// Tier 4: the stand-in glyph takes the replaced glyph's width in its W where the line is not
// re-spaced, so the pen after it is one addend as it was in the old text operator and no TJ
// adjustment follows. With the face's own width and an adjustment (the same advance as a sum of two
// numbers) a renderer's sub-pixel placement of a glyph further along the line could flip: poppler
// at 150 dpi on an Apache FOP page (the first page here), MuPDF at 300 dpi on a Prawn one.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { readCidWidths } from '../../../../src/corrections/locate/fonts.ts';
import { editInput, withDoc } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const fixture = (path: string) =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../../../../fixtures/${path}`, import.meta.url))));
const fop = fixture('fop/fop-dejavu-serif.pdf');
const prawn = fixture('prawn/prawn-greek.pdf');

/** The matched font's run in the first page's content stream: `/New size Tf <codes> Tj|TJ /Old size Tf`. */
function standInRun(bytes: Uint8Array): { font: string; codes: string; op: string; text: string } {
  const content = withDoc(bytes, (doc) => {
    const contents = doc.findPage(0).get('Contents');
    const streams = contents.isArray()
      ? Array.from({ length: contents.length }, (_, i) => contents.get(i))
      : [contents];
    return streams.map((s) => Buffer.from(s.readStream().asUint8Array()).toString('latin1')).join('\n');
  });
  const run = /\/(DFM\w*) [\d.]+ Tf \[?<([0-9a-f]+)>(?: [-\d.]+\])? (Tj|TJ) \/[\w.]+ [\d.]+ Tf/i.exec(
    content,
  );
  assert.ok(run, 'the matched font run between two Tf');
  return { font: run[1], codes: run[2], op: run[3], text: run[0] };
}

/** The width the W array of page font `name` (a Type0 font) gives glyph `gid`. */
function cidWidth(bytes: Uint8Array, name: string, gid: number): number | null {
  return withDoc(bytes, (doc) => {
    const widths = new Map<number, number>();
    const font = doc.findPage(0).get('Resources').get('Font').get(name);
    readCidWidths(font.get('DescendantFonts').get(0).get('W'), widths);
    return widths.get(gid) ?? null;
  });
}

for (const [find, replace] of [
  ['negustorilor', 'nygustorilor'],
  ['negustorilor', 'negystorilor'],
]) {
  test(`FOP: “${find}” → “${replace}” (y is not in the subset, narrower than the letter it replaces): poppler's pixels past the word unchanged`, async () => {
    const { proposal, output, verification } = await applyEdit(editInput(fop, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    assert.ok(pdftotextOf(output).includes(`ale ${replace} care`), pdftotextOf(output));
    assert.equal(popplerProblemsOf(fop, output, find, replace, verification.declared_box!), []);
    const run = standInRun(output);
    assert.is(run.op, 'Tj', run.text);
  });
}

test('Prawn: a word’s final sigma → “v” (wider, into the word gap): the v is written with the sigma’s width and no TJ number', async () => {
  const { proposal, output, verification } = await applyEdit(editInput(prawn, 'μέρες', 'μέρεv'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.tier_name, 'matched_font');
  const m = proposal.measurements as unknown as { width_before_pt: number; width_after_pt: number };
  assert.ok(m.width_after_pt > m.width_before_pt, 'v is wider than ς');
  assert.ok(pdftotextOf(output).includes('οι μέρεv είναι'), pdftotextOf(output));
  assert.equal(popplerProblemsOf(prawn, output, 'μέρες', 'μέρεv', verification.declared_box!), []);
  const run = standInRun(output);
  assert.is(run.op, 'Tj', run.text);
  // ς's width as the page's Noto Serif subset writes it, 1000 × 4.966 pt / 10.5 pt.
  const sigma = Math.round((m.width_before_pt / 10.5) * 1000);
  assert.is(cidWidth(output, run.font, parseInt(run.codes, 16)), sigma);
});

test.run();
