// A tier-4 stand-in checked from outside, for tests of font matching on real producers' pages: the
// correction applied and verified, drawn by the matched font the test names at cost low, and
// poppler's pixels agreeing (poppler.ts); poppler's text of the output is returned for the test's
// own line.
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../src/corrections/engine.ts';
import { editInput } from './fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from './poppler.ts';

interface MatchedFacts {
  matched_font: { face: string; family: string };
}

export async function appliedWithStandIn(
  pdf: Uint8Array,
  find: string,
  replace: string,
  expected: { face: string; family?: string },
): Promise<string> {
  const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
  assert.ok(verification.passed, verification.failure_reason ?? proposal.refusal ?? '');
  assert.is(proposal.tier_name, 'matched_font');
  assert.is(proposal.visibility_cost, 'low');
  const m = (proposal.measurements as unknown as MatchedFacts).matched_font;
  assert.is(m.face, expected.face);
  if (expected.family) assert.is(m.family, expected.family);
  assert.equal(popplerProblemsOf(pdf, output, find, replace, verification.declared_box!), []);
  return pdftotextOf(output);
}
