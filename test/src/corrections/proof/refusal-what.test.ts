// A rewrite of tiers 1–4 that would not verify said only "The rewritten text would change the page
// in a way the verification does not accept", advice nobody can act on (holdout-5's Chromium page:
// the text check had seen the line end inside the moved word). The refusal's `what` now names the
// guards that refused and quotes what the first saw, as a refused scan patch's does.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposeEdit } from '../../../../src/corrections/engine.ts';
import { editInput } from '../fixtures.ts';

const GOOGLE_DOCS = fileURLToPath(
  new URL('../../../../fixtures/corpus/pdf/google-docs.pdf', import.meta.url),
);

test('a wider letter in Google Docs’ fractional widths: the refusal names widths_read_alike and what poppler would move', async () => {
  const pdf = new Uint8Array(readFileSync(GOOGLE_DOCS));
  const p = await proposeEdit(editInput(pdf, 'better', 'bewter'));
  assert.is(p.advice?.code, 'would_not_verify');
  const what = p.advice?.what ?? '';
  assert.match(what, /^The rewritten text would not verify \(widths_read_alike\): /);
  assert.match(what, /poppler\) would move it [0-9.]+\/1000 em\.$/);
  assert.is(p.refusal, what);
});

test.run();
