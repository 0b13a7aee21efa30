// Refusals for people: every advice code the engine defines has a headline and a try-line; real
// refusals provoked through a real daemon (a replacement far too wide, a character no font draws, a
// line that would not read back, a cost over --max-cost, an edits file) print one headline and one
// `try:` line on stderr, while --verbose adds the engine's advice and --json keeps the API object.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  failedGuards,
  REFUSAL_WORDS,
  refusalLines,
  refusalText,
  type RefusalContext,
} from '../../cli/refusal-text.ts';
import { REFUSAL_CODES } from '../../src/refusal-codes.ts';
import { ROOT, startDaemon, type RunResult, type TestDaemon } from './helpers.ts';

const LETTER = join(ROOT, 'fixtures/sample/letter.pdf');
const advice = (code: string, over: Partial<RefusalContext> = {}): RefusalContext => ({
  advice: { code, what: 'What.', why: 'Why.', do: ['Do this.'], worth_reporting: false },
  find: 'Jonh',
  replacement: 'John',
  page: 0,
  ...over,
});

test('every advice code the engine defines has words, in plain language', () => {
  for (const code of REFUSAL_CODES) {
    assert.type(REFUSAL_WORDS[code], 'function', code);
    const words = refusalText(advice(code));
    assert.ok(words.headline.length > 10 && !words.headline.includes('\n'), `${code}: ${words.headline}`);
    assert.ok(words.tryLine.length > 5 && !words.tryLine.includes('\n'), `${code}: ${words.tryLine}`);
    // Not the engine's vocabulary: no code names, no API fields.
    for (const text of [words.headline, words.tryLine])
      assert.not.match(text, /\b[a-z]+_[a-z_]+\b|match_index|font_attempt|method "/, `${code}: ${text}`);
  }
});

test('a code without words gets a generic sentence; details only with verbose', () => {
  const words = refusalText(advice('a_code_from_the_future'));
  assert.is(words.headline, 'this correction cannot be made safely');
  assert.match(words.tryLine, /--verbose shows why/);
  const plain = refusalLines('Refused', advice('replacement_too_wide'));
  assert.equal(plain, [
    'Refused: "John" is too wide: the line has no room for it',
    '  try: a shorter replacement, about as wide as "Jonh"',
  ]);
  const verbose = refusalLines('Refused', advice('replacement_too_wide'), { verbose: true });
  assert.equal(verbose.slice(2), [
    '  code:  replacement_too_wide',
    '  what:  What.',
    '  why:   Why.',
    '  do:    Do this.',
  ]);
});

test('try-lines follow the evidence: capitals, occurrences, matched fonts, the failing guard', () => {
  assert.match(
    refusalText(advice('text_not_found', { measurements: { case_insensitive_hits: 2 } })).tryLine,
    /--ignore-case/,
  );
  assert.match(refusalText(advice('text_not_found')).tryLine, /docfix search DOC "Jonh"/);
  assert.is(
    refusalText(advice('match_index_out_of_range', { measurements: { occurrences: 3 } })).tryLine,
    '--match 0 to 2',
  );
  assert.match(
    refusalText(advice('glyph_not_available', { fontAlternatives: 3, fontAttempt: 0 })).tryLine,
    /^--font-attempt 1 /,
  );
  assert.match(
    refusalText(advice('glyph_not_available', { fontAlternatives: 1, fontAttempt: 0 })).tryLine,
    /characters the document already shows/,
  );
  const widths: RefusalContext = {
    ...advice('would_not_verify'),
    rejected: [
      {
        tier: 1,
        tier_name: 'glyph_reuse',
        code: 'would_not_verify',
        reason: 'widths_read_alike: …',
        evidence: {
          guards: [
            { name: 'text_layer_true', passed: true },
            { name: 'widths_read_alike', passed: false },
          ],
        },
      },
    ],
  };
  assert.equal(failedGuards(widths), ['widths_read_alike']);
  assert.match(refusalText(widths).headline, /PDF viewers would shift the rest of the line/);
  assert.match(refusalText(widths).tryLine, /the same letters in another order/);
  assert.match(refusalText(advice('max_cost', { cost: 'low', maxCost: 'none' })).tryLine, /^--max-cost low$/);
  assert.match(refusalText(advice('drawn_over_scan', { inReview: true })).tryLine, /j\/k/);
  // Tier 5's line read-back: the guard named at the head of the engine's reason.
  const line = (why: string) =>
    refusalText({ ...advice('would_not_verify'), advice: { ...advice('would_not_verify').advice!, why } });
  assert.match(line('line_reads_as_before: …').headline, /words around it would no longer read as they do/);
  assert.match(line('word_spacing_kept: …').headline, /would change the spacing of its line/);
  assert.match(line('word_spacing_kept: …').tryLine, /about as wide as "Jonh"/);
  // A language the daemon has no data for: what installs it, by its name.
  const lang = refusalText(advice('ocr_language_unavailable', { measurements: { lang: 'chi_sim' } }));
  assert.match(lang.headline, /"chi_sim"/);
  assert.match(lang.tryLine, /apt-get install tesseract-ocr-chi-sim/);
  assert.match(lang.tryLine, /DOCFIX_TESSDATA_DIRS/);
  assert.not.match(lang.tryLine, /@tesseract/);
});

let d: TestDaemon;
let id: string;

/**
 * stderr without the lines every run may print: the daemon in use (--verbose) and which match of the
 * document is being corrected (cli/text-match.ts).
 */
const said = (r: RunResult) =>
  r.stderr
    .replace(/^Using .*\n/m, '')
    .replace(/^".*" \(.*\): match \d+ (of the document|on page \d+), on page .*\n/m, '');

test('through a real daemon: a replacement far too wide', async () => {
  d = await startDaemon();
  const up = await d.run(['upload', LETTER, '--json']);
  assert.is(up.code, 0, up.stderr);
  id = JSON.parse(up.stdout).document_id;
  const edit = ['propose', id, '--find', 'Jonh', '--replace', 'Jonathan Maximilian Wolfeschlegelstein'];
  const r = await d.run(edit);
  assert.is(r.code, 5, r.stderr);
  assert.equal(said(r).trim().split('\n'), [
    'Refused "Jonh" → "Jonathan Maximilian Wolfeschlegelstein" on page 0: "Jonathan Maximilian Wolfeschlegelstein" is too wide: the line has no room for it',
    '  try: a shorter replacement, about as wide as "Jonh"',
  ]);
  const verbose = await d.run([...edit, '--verbose']);
  assert.is(verbose.code, 5);
  assert.match(verbose.stderr, /try: a shorter replacement/);
  assert.match(verbose.stderr, /code: {2}replacement_too_wide/);
  assert.match(verbose.stderr, /why: {3}The rest of the word is redrawn/);
  assert.match(verbose.stderr, /tiers passed over:\n.*glyph_reuse: .*\(does_not_fit\)/);
  const json = await d.run([...edit, '--json']);
  assert.is(json.code, 5);
  const p = JSON.parse(json.stdout);
  assert.is(p.advice.code, 'replacement_too_wide');
  assert.match(p.advice.why, /The rest of the word is redrawn/);
  assert.ok(p.rejected.length > 0);
});

test('through a real daemon: a character no font draws, and a line that would not read back', async () => {
  const glyph = await d.run(['propose', id, '--find', 'Jonh', '--replace', 'Jo\u{13000}n']);
  assert.is(glyph.code, 5);
  assert.match(said(glyph), /: neither the document's font nor a bundled font can draw "\u{13000}"\n/u);
  assert.match(said(glyph), /\n {2}try: a replacement made of characters the document already shows\n$/);
  assert.not.match(said(glyph), /font alternative|--font-attempt 1/, 'no matched font left to try');
  const gap = await d.run(['propose', id, '--find', 'Jonh', '--replace', 'J']);
  assert.is(gap.code, 5);
  assert.match(said(gap), /: after the change, copying or searching the line would not give "J"\n/);
  assert.match(said(gap), /\n {2}try: a replacement about as wide as "Jonh"\n$/);
  assert.not.match(gap.stderr, /text_layer_true|worth reporting|gap in docfix/);
  const verbose = await d.run(['propose', id, '--find', 'Jonh', '--replace', 'J', '--verbose']);
  assert.match(verbose.stderr, /why: {3}text_layer_true: expected the line to extract as/);
  assert.match(verbose.stderr, /worth reporting/);
});

test('through a real daemon: a cost over --max-cost, in apply and in fix', async () => {
  // "Smyth" is wider than "Smith": the line is re-spaced, cost low.
  const apply = await d.run([
    'apply',
    id,
    '--find',
    'Smith',
    '--replace',
    'Smyth',
    '--yes',
    '--max-cost',
    'none',
  ]);
  assert.is(apply.code, 5, apply.stderr);
  assert.match(
    said(apply),
    /Not applied "Smith" → "Smyth" on page 0: the correction would show \(visibility cost low\), more than --max-cost none\n {2}try: --max-cost low\n$/,
  );
  const out = join(d.dir, 'fixed');
  const fix = await d.run(['fix', LETTER, '--replace', 'Smith=Smyth', '-o', out]);
  assert.is(fix.code, 5, fix.stderr);
  assert.match(
    fix.stdout,
    / {4}X page 0 #0 refused: the correction would show \(visibility cost low\), more than --max-cost none\n {6}try: --max-cost low\n/,
  );
  const json = await d.run(['fix', LETTER, '--replace', 'Smith=Smyth', '-o', out, '--json']);
  const occurrence = JSON.parse(json.stdout).files[0].edits[0].occurrences[0];
  assert.equal([occurrence.status, occurrence.advice.code], ['refused', 'max_cost']);
});

test('through a real daemon: the edits file runner prints the same headline and try-line', async () => {
  const edits = join(d.dir, 'edits.json');
  await writeFile(
    edits,
    JSON.stringify({
      version: 1,
      edits: [{ find: 'Jonh', replace: 'Jonathan Maximilian Wolfeschlegelstein' }],
    }),
  );
  const out = join(d.dir, 'fixed-edits');
  const r = await d.run(['fix', LETTER, '--edits', edits, '-o', out]);
  assert.is(r.code, 5, r.stderr);
  assert.match(
    r.stdout,
    /X page 0 #0 refused: "Jonathan Maximilian Wolfeschlegelstein" is too wide: the line has no room for it\n {6}try: a shorter replacement, about as wide as "Jonh"\n/,
  );
  assert.not.match(r.stdout, /what:|why:|do:/);
  const verbose = await d.run(['fix', LETTER, '--edits', edits, '-o', out, '--verbose']);
  assert.match(verbose.stdout, /why: {3}The rest of the word is redrawn/, verbose.stdout + verbose.stderr);
});

// The daemon is stopped also when a test above failed: a live child process would keep this file's
// process running until the runner's limit.
test.after(async () => {
  await d?.stop();
});

test.run();
