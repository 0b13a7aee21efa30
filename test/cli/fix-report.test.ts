// `docfix fix`: the exit code of a run from its report (no daemon), and output paths.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exitCodeOf, outputPath, pool, type EditReport, type FileReport } from '../../cli/commands/fix.ts';

const occ = (status: 'verified' | 'refused' | 'failed') => ({
  page_index: 0,
  match_index: 0,
  text: 'a',
  status,
  tier: 1,
  tier_name: 'glyph_reuse',
  visibility_cost: 'none',
  explanation: null,
  refusal: null,
  advice: null,
  warnings: [],
  verification_id: null,
  passed: null,
  outside_pixels: null,
  failure_reason: null,
});
const edit = (
  found: number,
  statuses: ('verified' | 'refused' | 'failed')[],
  skipped = false,
): EditReport => ({
  find: 'a',
  replace: 'b',
  page: null,
  match: null,
  ignore_case: false,
  word: false,
  method: 'text_layer',
  found,
  skipped,
  occurrences: statuses.map(occ),
});
const file = (edits: EditReport[], error: FileReport['error'] = null): FileReport => ({
  file: 'f.pdf',
  output: null,
  document_id: null,
  output_sha256: null,
  status: 'written',
  error,
  edits,
});

test('exit codes: 0 verified, 5 refused or not found, 6 failed wins, 3 connection wins', () => {
  assert.is(exitCodeOf([file([edit(2, ['verified', 'verified'])])]), 0);
  assert.is(exitCodeOf([file([edit(1, ['verified']), edit(0, [])])]), 5, 'not found');
  assert.is(exitCodeOf([file([edit(1, ['refused'])])]), 5);
  assert.is(exitCodeOf([file([edit(1, ['refused'])]), file([edit(1, ['failed']), edit(0, [], true)])]), 6);
  assert.is(
    exitCodeOf([file([edit(1, ['failed'])]), file([], { code: 'connection', message: 'x', exit_code: 3 })]),
    3,
  );
  assert.is(exitCodeOf([file([], { code: 'password_required', message: 'x', exit_code: 8 })]), 8);
  assert.is(exitCodeOf([file([edit(0, [], true)])]), 0, 'skipped edits are not "not found"');
  assert.is(exitCodeOf([]), 0);
});

test('output paths: OUTDIR/<name>.pdf', () => {
  assert.is(outputPath('out', 'in/a.pdf'), 'out/a.pdf');
  assert.is(outputPath('out', 'b.PDF'), 'out/b.pdf');
  assert.is(outputPath('out', 'c'), 'out/c.pdf');
});

test('pool: at most N at once, results in order', async () => {
  let running = 0;
  let most = 0;
  const results = await pool([5, 1, 4, 2, 3], 2, async (n) => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, n * 3));
    running--;
    return n * 10;
  });
  assert.equal(results, [50, 10, 40, 20, 30]);
  assert.is(most, 2);
});

test.run();
