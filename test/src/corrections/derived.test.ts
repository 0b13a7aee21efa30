// Proof on real documents: tasks derived from the corpus pages (derived-tasks.ts) go through the
// engine; every verified correction must pass poppler's independent check, every refusal must carry
// advice with a code, and nothing may throw. Prints the per-file table and the percentages.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runDerived, summarize } from './derived-tasks.ts';

test('derived corpus tasks: poppler agrees with every verified correction, every refusal has advice', async () => {
  const results = await runDerived();
  const { table, summary } = summarize(results);
  console.log(`\n${table}\n\nderived: ${JSON.stringify(summary)}`);
  assert.equal(
    results
      .filter((r) => r.poppler_problems.length)
      .map((r) => `${r.file} ${r.find}→${r.replace}: ${r.poppler_problems.join('; ')}`),
    [],
  );
  // pdftoppm alone (a Splash quarter-pixel bucket flip of a later glyph when a rewrite re-orders the
  // advance sum) counts as a failure too, as in the fidelity harness: the letter swap that showed
  // it (cid-no-tounicode rial→rail) keeps its kerning numbers in place since the rewrite spreads
  // the new codes over the old strings. Counted apart so a return of the gap is named as such.
  const flips = results.filter((r) => r.splash_bucket_flip);
  assert.equal(
    flips.map((r) => `${r.file} ${r.find}→${r.replace}: ${r.splash_bucket_flip}`),
    [],
  );
  assert.equal(
    results.filter((r) => r.tier < 0 && !r.advice_ok).map((r) => `${r.file} ${r.find}→${r.replace}`),
    [],
  );
  assert.ok(results.length >= 60, `enough derived tasks (${results.length})`);
  // Issue #5 targets, both reached: same-character-set tasks ≥ 95 % at cost none, absent-character
  // tasks ≥ 80 % at cost low or better (24/30 since Latin Modern, Roboto and DejaVu Sans Condensed
  // stand in for their fonts and a fresh matched face takes the old glyphs' widths; 29/30 since
  // the fixes that followed, the last a pdfTeX bitmap Type 3 font drawn by the face its widths and
  // ink match). What is refused is on scanned pages.
  assert.ok(
    Number(summary.same_pct) >= 95,
    `same-character-set tasks verified at cost none: ${summary.same_pct} %`,
  );
  assert.ok(
    Number(summary.absent_pct) >= 80,
    `absent-character tasks verified at cost low or better: ${summary.absent_pct} %`,
  );
});

test.run();
