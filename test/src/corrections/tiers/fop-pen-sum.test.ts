// Tier 4 on an Apache FOP page: the stand-in glyph takes the replaced glyph's width in its W, so the
// pen after it is one addend as it was in the old TJ. With the face's own width and a TJ adjustment
// (the same advance as a sum of two numbers), poppler placed a glyph further along the line a
// quarter pixel off at 150 dpi and drew it with another anti-aliasing: changed pixels outside the
// correction, which the proof's renderers did not show.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput, withDoc } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const FILE = fileURLToPath(new URL('../../../../fixtures/fop/fop-dejavu-serif.pdf', import.meta.url));
const pdf = new Uint8Array(readFileSync(FILE));

/** The first page's content stream, decoded. */
function contentOf(bytes: Uint8Array): string {
  return withDoc(bytes, (doc) => {
    const contents = doc.findPage(0).get('Contents');
    const streams = contents.isArray()
      ? Array.from({ length: contents.length }, (_, i) => contents.get(i))
      : [contents];
    return streams.map((s) => Buffer.from(s.readStream().asUint8Array()).toString('latin1')).join('\n');
  });
}

for (const [find, replace] of [
  ['negustorilor', 'nygustorilor'],
  ['negustorilor', 'negystorilor'],
]) {
  test(`“${find}” → “${replace}” (y is not in the subset): drawn by a matched font, poppler's pixels past the word unchanged`, async () => {
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    assert.ok(pdftotextOf(output).includes(`ale ${replace} care`), pdftotextOf(output));
    assert.equal(popplerProblemsOf(pdf, output, find, replace, verification.declared_box!), []);
    // The new run is shown with Tj between the two Tf: no TJ number after it.
    const run = /\/(\w+) [\d.]+ Tf (\S+) (Tj|TJ) \/(\w+) [\d.]+ Tf/.exec(contentOf(output));
    assert.ok(run, 'the matched font run between two Tf');
    assert.is(run[3], 'Tj', run[0]);
  });
}

test.run();
