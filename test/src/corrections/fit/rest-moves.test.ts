// A wider letter inside a word whose rest cannot be redrawn with it (another font follows: here a
// bold letter, as Scribus draws a Vietnamese letter's mark in a font of its own) was refused as
// too wide, the line's wide gaps unused: only new letters drawn in another font (tier 4) moved the
// rest of their word. On the engine's last attempt the rest of the word now moves after the new
// letters whatever the tier, the gaps after it giving the room, at cost low. A narrower letter there
// was refused too (the gap it leaves would read as a space): the rest of the word now moves left
// after it. The page is Chromium's (fixtures/chromium/manifest.json). Both fail on the old code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/chromium/mixed-word.pdf', import.meta.url));

// A wider m moves the rest right; a narrower i moves it left (no gap left inside the word).
for (const [find, replace, moves] of [
  ['waiting', 'wmiting', 'right'],
  ['tables', 'tmbles', 'right'],
  ['waiting', 'wiiting', 'left'],
  ['tables', 'tibles', 'left'],
] as const) {
  test(`"${find}" → "${replace}": the new letter from the page's own font, the rest of the word (a bold letter in it) moved ${moves} after it; poppler agrees`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'glyph_reuse');
    assert.is(proposal.visibility_cost, 'low');
    const { respaced } = proposal.measurements as unknown as {
      respaced: { rest_of_word: { glyphs: number; move_pt: number } };
    };
    assert.ok(respaced.rest_of_word.glyphs >= 4, JSON.stringify(respaced));
    assert.is(respaced.rest_of_word.move_pt > 0, moves === 'right', JSON.stringify(respaced));
    assert.equal(popplerProblemsOf(pdf, output, find, replace, verification.declared_box!), []);
    const line = 'The old waiting room lends its tables to all of us.'.replace(find, replace);
    assert.is(pdftotextOf(output).replace(/\s+/g, ' ').trim(), line);
  });
}

test.run();
