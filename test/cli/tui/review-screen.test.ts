// Frames of every review screen at 80×24 (and one wider), rendered with ink-testing-library from states
// the reducer made, compared whole against test/cli/tui/frames/*.txt. Regenerate them on purpose only:
// UPDATE_FRAMES=1 node test/run.ts review-screen
import { render } from 'ink-testing-library';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import React from 'react';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { takeKittyImages } from '../../../cli/tui/review/crop-image.ts';
import { ReviewScreen, helpLine, screenLayout } from '../../../cli/tui/review/review-screen.ts';
import { lineRegion, selectedMatch, type ReviewState } from '../../../cli/tui/review/review-state.ts';
import { initialState } from '../../../cli/tui/review/review-workflow.ts';
import {
  correction,
  enter,
  key,
  linePng,
  ocrMatch,
  proposal,
  run,
  take,
  textMatch,
  type,
  verification,
} from './review-fixtures.ts';

const FRAMES = fileURLToPath(new URL('./frames/', import.meta.url));

const strip = (frame: string) =>
  frame
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');

function frameOf(state: ReviewState): string {
  const app = render(React.createElement(ReviewScreen, { state }));
  const frame = strip(app.lastFrame() ?? '');
  app.unmount();
  return frame;
}

function checkFrame(name: string, state: ReviewState): string {
  const frame = frameOf(state);
  const file = `${FRAMES}${name}.txt`;
  if (process.env.UPDATE_FRAMES === '1') {
    mkdirSync(FRAMES, { recursive: true });
    writeFileSync(file, `${frame}\n`);
  }
  assert.ok(existsSync(file), `no frame ${file}: make it with UPDATE_FRAMES=1 and read it before committing`);
  assert.fixture(frame, readFileSync(file, 'utf8').replace(/\n$/, ''), name);
  const width = Math.max(...frame.split('\n').map((l) => [...l].length));
  assert.ok(width <= state.columns, `${name}: ${width} columns in a ${state.columns}-column terminal`);
  assert.ok(frame.split('\n').length <= state.rows, `${name}: taller than ${state.rows} rows`);
  return frame;
}

const doc = { id: 'doc_1', name: 'letter.pdf', pageCount: 2, kinds: ['text', 'scanned'] };

/** A screen with matches found and the first one's crop shown. */
function looking(over: { columns?: number; rows?: number } = {}): ReviewState {
  let [s] = take(
    initialState({ documentRef: 'doc_1', find: 'Jonh', colour: false, graphics: 'grey', ...over }),
  );
  s = run(
    s,
    { type: 'document', doc, corrections: [] },
    {
      type: 'matches',
      generation: 1,
      matches: [
        textMatch(),
        textMatch({
          matchIndex: 1,
          box: [600, 900, 720, 950],
          line: { text: 'Kind regards to Mr Jonh and family', box: [200, 900, 1400, 950] },
        }),
      ],
    },
    { type: 'search-done', generation: 1, note: 'text layer: 2 on 1 page(s)' },
  );
  [s] = take(s);
  const m = selectedMatch(s)!;
  const region = lineRegion(m, 600);
  return run(s, { type: 'crop', matchId: m.id, dpi: 600, png: linePng(m, region, 600) });
}

test('no search yet', () => {
  let [s] = take(initialState({ documentRef: 'doc_1', colour: false, graphics: 'grey' }));
  s = run(s, { type: 'document', doc, corrections: [] });
  const frame = checkFrame('empty', s);
  assert.match(frame, /No search yet: press \/ to find text/);
  assert.match(frame, /\? keys/);
});

test('searching, with a search typed', () => {
  let [s] = take(initialState({ documentRef: 'doc_1', colour: false, graphics: 'grey' }));
  s = run(s, { type: 'document', doc, corrections: [] }, key('/'), ...type('Jonh'));
  const frame = checkFrame('search-input', s);
  assert.match(frame, /Find: Jonh█/);
  s = run(s, enter, { type: 'search-progress', generation: 1, note: 'recognising page 1 (1 of 1)…' });
  assert.match(checkFrame('searching', s), /… recognising page 1 \(1 of 1\)…/);
});

test('look: the match list and the magnified line', () => {
  const frame = checkFrame('look', looking());
  assert.match(frame, /▸ · p0 {3}text {2}100 {2}0 {2}Dear Mr \[Jonh\] Smith,/);
  assert.match(frame, /Crop of page 0 at 600 dpi \(2×\): "Jonh" at \[400, 300, 520, 350\] \(text layer\)/);
  assert.match(frame, /[#%@]{2}/, 'the match is drawn dark');
  assert.match(frame, /Corrections standing: 0/);
});

test('help: every key', () => {
  const frame = checkFrame('help', run(looking(), key('?')));
  for (const k of ['/', 'j k ↓ ↑', 'g', '+ -', '⏎', 'y', 'n', 'u r', 'e', '?', 'q Ctrl-C'])
    assert.ok(frame.includes(`\n${k} `), k);
  assert.match(frame, /any key closes the help/);
});

test('propose: tier, cost, explanation, and the line before and after', () => {
  let s = run(looking(), enter, key('u', { ctrl: true }), ...type('John'));
  assert.match(checkFrame('replace-input', s), /Replace "Jonh" with: John█/);
  s = run(s, enter);
  [s] = take(s);
  assert.match(checkFrame('proposing', s), /… Proposing "Jonh" → "John" on page 0/);
  const m = selectedMatch(s)!;
  const region = lineRegion(m, 300);
  const before = linePng(m, region, 300);
  s = run(s, {
    type: 'proposed',
    matchId: m.id,
    proposal: proposal({ warnings: ['kerning kept as it was'] }),
    lineBefore: before,
    lineAfter: before,
    lineMatchBox: [m.box[0] - region[0], m.box[1] - region[1], m.box[2] - region[0], m.box[3] - region[1]],
  });
  const frame = checkFrame('proposal', s);
  assert.match(frame, /● Proposal "Jonh" → "John" on page 0/);
  assert.match(frame, /tier 1 glyph_reuse · visibility cost none/);
  assert.match(frame, /! kerning kept as it was/);
  assert.match(frame, /page 0: 640 pixels would change, 0 outside/);
  assert.match(frame, /before: Dear Mr \[Jonh\] Smith,/);
  assert.match(frame, /after: {2}Dear Mr \[John\] Smith,/);
  assert.match(frame, /before:.*after \(predicted\):/);
  assert.match(frame, /y apply · n skip/);
});

/** The first match applied ("Jonh" → "John"), its new crop shown; `more` corrections stand before it. */
function appliedState(over: { columns?: number; rows?: number } = {}, more = 0): ReviewState {
  let s = run(looking(over), enter, key('u', { ctrl: true }), ...type('John'), enter);
  [s] = take(s);
  const m = selectedMatch(s)!;
  s = run(s, { type: 'proposed', matchId: m.id, proposal: proposal() }, key('y'));
  [s] = take(s);
  const earlier = Array.from({ length: more }, (_, i) =>
    correction({ seq: i + 1, page_index: 1, text_before: `old${i}`, text_after: `new${i}` }),
  );
  const corrections = [...earlier, correction({ seq: more + 1 })];
  s = run(s, { type: 'applied', matchId: m.id, verification: verification(), corrections });
  [s] = take(s);
  return run(s, { type: 'crop', matchId: m.id, dpi: 600, png: linePng(m, lineRegion(m, 600), 600) });
}

test('apply: applying, then the verification in place and the corrections on their own rows', () => {
  let s = run(looking(), enter, key('u', { ctrl: true }), ...type('John'), enter);
  [s] = take(s);
  const m = selectedMatch(s)!;
  s = run(s, { type: 'proposed', matchId: m.id, proposal: proposal() }, key('y'));
  [s] = take(s);
  assert.match(checkFrame('applying', s), /… Applying and verifying "Jonh" on page 0/);
  s = run(s, { type: 'applied', matchId: m.id, verification: verification(), corrections: [correction()] });
  [s] = take(s);
  const frame = checkFrame('applied', s);
  assert.match(frame, /✓ Verified at 300 dpi: 1 page\(s\) compared, 1 changed, 0 pixels outside the edit/);
  assert.match(frame, /page 0: 640 pixels changed in \[420, 305, 510, 345\], 0 outside \(render\)/);
  assert.match(frame, /^Corrections standing: 1$/m);
  assert.match(frame, /^ {2}✓ #1 page 0: "Jonh" → "John" · verified, 0 pixels outside$/m);
  assert.match(frame, /▸ ✓ p0 {3}text {2}100 {2}0 {2}Dear Mr \[John\] Smith,/, 'the list reads the new word');
  assert.match(frame, /Crop of page 0 at 600 dpi \(2×\): "John" \(corrected from "Jonh"\)/);
  assert.match(frame, /✓ Applied and verified\./);
  s = run(s, key('u'));
  [s] = take(s);
  s = run(s, { type: 'stepped', direction: 'undo', correction: correction(), corrections: [] });
  const undone = checkFrame('undone', s);
  assert.match(undone, /^Corrections standing: 0 · none yet · 1 stepped back \(r redoes\)$/m);
  assert.match(undone, /Crop of page 0 at 600 dpi \(2×\): "Jonh" at/, 'the caption reads the old word again');
  assert.match(undone, /✓ Undone: "Jonh" → "John" \(r redoes it\)\./);
});

test('a scanned page: an uncertain reading, its confirmation, and a refusal with advice', () => {
  let [s] = take(initialState({ documentRef: 'doc_1', find: 'This', colour: false, graphics: 'grey' }));
  s = run(
    s,
    { type: 'document', doc, corrections: [] },
    { type: 'matches', generation: 1, matches: [ocrMatch({ page: 1 })] },
    { type: 'search-done', generation: 1, note: 'recognised 1 scanned page(s)' },
  );
  [s] = take(s);
  const m = selectedMatch(s)!;
  assert.match(checkFrame('ocr-loading', s), /… fetching the magnified crop/);
  s = run(s, { type: 'crop', matchId: m.id, dpi: 600, png: linePng(m, lineRegion(m, 600), 600) });
  const look = checkFrame('ocr-look', s);
  assert.match(look, /▸ \? p1 {3}ocr {4}72 {2}1 {2}\[This\] is quite a simple exa/);
  assert.match(look, /\? needs confirmation \(confidence 72, 1 competing\): ⏎ to confirm the reading/);
  s = run(s, enter);
  assert.match(checkFrame('ocr-confirm', s), /Does the magnified crop read "This"\? y yes · n no/);
  s = run(s, key('y'), key('u', { ctrl: true }), ...type('Tihs'), enter);
  [s] = take(s);
  s = run(s, {
    type: 'proposed',
    matchId: m.id,
    proposal: proposal({
      tier: 0,
      tier_name: '',
      refusal: 'The word could not be patched: the scan never shows “k”.',
      advice: {
        code: 'letter_not_on_page',
        what: 'The word could not be patched: the scan never shows “k”.',
        why: 'Tier 5 builds the new word from letters of the same page.',
        do: ['Choose a replacement made of letters the page shows.'],
        worth_reporting: false,
      },
      predicted_diff: [],
    }),
  });
  const refused = checkFrame('ocr-refused', s);
  assert.match(refused, /✗ Refused "This" → "Tihs" on page 1/);
  assert.match(refused, /^ {2}The scan never shows a letter that "Tihs" needs$/m);
  assert.match(refused, /^ {2}try: a replacement made of letters the page shows$/m);
  assert.not.match(refused, /why:|do:|Tier 5/, "the engine's advice only with --verbose");
  assert.match(refused, /▸ ✔ p1/);
  assert.match(refused, /! Refused: the try: line says what would help\. n skips\./);
  const verbose = frameOf({ ...s, verbose: true });
  assert.match(verbose, /try: a replacement made of letters the page shows/);
  assert.match(verbose, /why: {2}Tier 5 builds the new word from letters of the same page\./);
  assert.match(verbose, /do: {3}Choose a replacement made of letters the page shows\./);
});

test('export: the path, a progress bar, the result', () => {
  let s = run(looking(), key('e'));
  assert.match(checkFrame('export-input', s), /Export to: letter-fixed\.pdf█/);
  s = run(s, enter, { type: 'export-progress', stage: 'downloading', fraction: 0.4 });
  [s] = take(s);
  assert.match(checkFrame('exporting', s), /Exporting ████████░░░░░░░░░░░░ 40% downloading/);
  s = run(s, {
    type: 'exported',
    path: 'letter-fixed.pdf',
    bytes: 12609,
    result: {
      revision_id: 'r',
      output_sha256: 'x',
      verification_id: 'ver_1',
      marking_applied: null,
      bytes_available: true,
    },
  });
  assert.match(
    checkFrame('exported', s),
    /✓ Exported letter-fixed\.pdf \(12609 bytes, verification ver_1\)\./,
  );
});

test('a wider terminal: more of the line; a narrow one still fits', () => {
  const wide = checkFrame('look-120x32', run(looking(), { type: 'resize', columns: 120, rows: 32 }));
  assert.match(wide, /q quit/);
  const narrow = frameOf(run(looking(), { type: 'resize', columns: 60, rows: 20 }));
  assert.ok(Math.max(...narrow.split('\n').map((l) => [...l].length)) <= 60);
  assert.ok(helpLine(looking()).length <= 80, 'the help line fits 80 columns');
});

test('the corrections stand on rows of their own, under the matches, at 80×24, 120×40 and 60×20', () => {
  for (const [columns, rows] of [
    [80, 24],
    [120, 40],
    [60, 20],
  ]) {
    const s = appliedState({ columns, rows }, 4);
    const lines = frameOf(s).split('\n');
    const size = `${columns}×${rows}`;
    assert.ok(lines.length <= rows, `${size}: ${lines.length} rows`);
    assert.ok(Math.max(...lines.map((l) => [...l].length)) <= columns, `${size}: too wide`);
    const shown = screenLayout(columns, rows, 5).correctionRows;
    const heading = lines.findIndex((l) => l.startsWith('Corrections standing: 5'));
    assert.ok(heading > 2, `${size}: the heading has a row of its own:\n${lines.join('\n')}`);
    assert.match(lines[heading], new RegExp(`· the latest ${shown} shown`));
    // The newest corrections, oldest first, each on its own row right under the heading.
    const listed = lines.slice(heading + 1, heading + 1 + shown);
    assert.is(listed.length, shown);
    for (const [i, line] of listed.entries())
      assert.match(line, new RegExp(`^ {2}✓ #${5 - shown + i + 1} page `));
    // The matches above do not share their rows with a correction.
    for (const line of lines.slice(0, heading)) assert.not.match(line, /#\d+ page|Corrections/);
    assert.match(lines[heading + 1 + shown], /^─+$/, `${size}: the rule follows the corrections`);
  }
  assert.is(screenLayout(80, 24, 5).correctionRows, 1);
  assert.is(screenLayout(120, 40, 5).correctionRows, 3);
});

test('kitty: the crop is drawn as placeholder cells inside the layout, and its image is queued to send', () => {
  takeKittyImages();
  const s = { ...looking(), graphics: 'kitty' as const };
  const app = render(React.createElement(ReviewScreen, { state: s }));
  const frame = app.lastFrame() ?? '';
  app.unmount();
  const images = takeKittyImages();
  assert.is(images.length, 1);
  const { id, cols, rows } = images[0];
  const colour = `\x1b[38;2;${(id >> 16) & 255};${(id >> 8) & 255};${id & 255}m`;
  const cells = frame.split('\n').filter((l) => l.includes('\u{10EEEE}'));
  assert.is(cells.length, rows);
  assert.ok(cells.every((l) => l.includes(colour) && [...l.matchAll(/\u{10EEEE}/gu)].length === cols));
  assert.ok(cells[0].includes('\u{10EEEE}\u0305\u0305'), 'row 0, column 0');
  assert.ok(cells[1].includes('\u{10EEEE}\u030D\u0305'), 'row 1, column 0');
  assert.match(frame, /Crop of page 0 at 600 dpi/, 'the text alternative stays');
});

test.run();
