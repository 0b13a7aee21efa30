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
  assert.equal(
    results.filter((r) => r.tier < 0 && !r.advice_ok).map((r) => `${r.file} ${r.find}→${r.replace}`),
    [],
  );
  assert.ok(results.length >= 60, `enough derived tasks (${results.length})`);
  // Issue #5 target for same-character-set tasks (reached). The absent-character target (80 % at
  // cost low or better) is not reached: 16/30 (53.3 %) since Latin Modern, Roboto and DejaVu Sans
  // Condensed stand in for their fonts; of the 14 refused, 11 are would_not_verify (8 by PDFium, 3 by
  // MuPDF: glyphs after the split operator land a pixel apart, docs/engine.md Known gaps), 2 have no
  // matched font (a 14.40 pt cm-super italic 11.6/1000 em from LM Roman 12, a Type3 font), 1 is
  // invisible text. What holds is asserted so a regression shows.
  assert.ok(
    Number(summary.same_pct) >= 95,
    `same-character-set tasks verified at cost none: ${summary.same_pct} %`,
  );
  assert.ok(
    Number(summary.absent_pct) >= 50,
    `absent-character tasks verified at cost low or better: ${summary.absent_pct} %`,
  );
});

test.run();
