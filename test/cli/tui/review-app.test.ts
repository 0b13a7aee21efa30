// The running screen (store + effects + Ink) driven through its keyboard with ink-testing-library,
// against a fake /v1 client that answers like the daemon and records the calls it got.
import { render } from 'ink-testing-library';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReviewStore, overlayFor, ReviewApp } from '../../../cli/tui/review/review-app.ts';
import {
  lineOf,
  problemOf,
  ReviewEffects,
  type ReviewClient,
} from '../../../cli/tui/review/review-effects.ts';
import { lineRegion, selectedMatch } from '../../../cli/tui/review/review-state.ts';
import { initialState, review } from '../../../cli/tui/review/review-workflow.ts';
import { DocfixError } from '../../../src/errors.ts';
import { correction, linePng, proposal, textMatch, verification } from './review-fixtures.ts';

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
const tick = (ms = 30) => new Promise((r) => setTimeout(r, ms));

/** Waits until the last frame matches. */
async function until(
  frame: () => string | undefined,
  pattern: RegExp,
  what = String(pattern),
): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const f = strip(frame() ?? '');
    if (pattern.test(f)) return f;
    await tick(20);
  }
  throw new Error(`the screen never showed ${what}:\n${strip(frame() ?? '')}`);
}

interface Call {
  route: string;
  input: any;
}

/** A fake client: a one-page text document with "Jonh" twice and a scanned second page with "This". */
function fakeClient(
  options: { corrections?: () => any[]; matchIndex?: number } = {},
): ReviewClient & { calls: Call[] } {
  const calls: Call[] = [];
  let standing: any[] = [];
  const words = [
    { text: 'Dear', confidence: 100, box_render: [200, 300, 300, 350], line: 0 },
    { text: 'Mr', confidence: 100, box_render: [320, 300, 380, 350], line: 0 },
    { text: 'Jonh', confidence: 100, box_render: [400, 300, 520, 350], line: 0 },
    { text: 'Smith,', confidence: 100, box_render: [540, 300, 700, 350], line: 0 },
  ];
  const client = {
    calls,
    async call(route: string, input: any = {}) {
      calls.push({ route, input });
      switch (route) {
        case 'getDocument':
          return {
            document_id: 'doc_1',
            filename_hint: 'letter.pdf',
            page_count: 2,
            pages: [{ kind: 'text' }, { kind: 'scanned' }],
          };
        case 'listCorrections':
          return options.corrections?.() ?? standing;
        case 'searchDocument':
          return {
            query: input.query.q,
            matches:
              input.query.q === 'Jonh' || (input.query.ignore_case && input.query.q === 'jonh')
                ? [
                    {
                      page_index: 0,
                      text: 'Jonh',
                      box_render: [400, 300, 520, 350],
                      confidence: 1,
                      match_index: options.matchIndex ?? 0,
                    },
                  ]
                : [],
            pages_searched: [0],
            pages_needing_recognition: [1],
          };
        case 'ocrPage':
          if (input.params.page_index === 0)
            return { available: true, render_dpi: 300, word_source: 'text_layer', words, matches: [] };
          return {
            available: true,
            render_dpi: 300,
            // The language the page was read in: the one asked for, else the page's own.
            lang: input.body.lang ?? 'eng',
            word_source: 'recognised',
            words: [
              { text: 'This', confidence: 72, box_render: [250, 300, 360, 350], line: 3 },
              { text: 'is', confidence: 90, box_render: [380, 300, 420, 350], line: 3 },
            ],
            matches:
              input.body.find === 'This'
                ? [
                    {
                      index: 0,
                      text: 'This',
                      confidence: 72,
                      box_render: [250, 300, 360, 350],
                      competing: 1,
                      needs_confirmation: true,
                    },
                  ]
                : [],
          };
        case 'pageCrop': {
          const { x, y, w, h, dpi } = input.query;
          const m = textMatch();
          return linePng(m, [x, y, x + w, y + h], dpi || 300);
        }
        case 'createAttestation':
          return { attestation_id: 'att_1' };
        case 'proposeEdit':
          if (input.body.target.method === 'ocr')
            return proposal({
              tier: 0,
              tier_name: '',
              refusal: 'The word cannot be patched: the page draws 1 other thing(s) over the scan.',
              advice: {
                code: 'drawn_over_scan',
                what: 'The word cannot be patched: the page draws 1 other thing(s) over the scan.',
                why: 'Tier 5 only patches scan pixels that nothing else covers.',
                do: ['Correct another occurrence.'],
                worth_reporting: false,
              },
            });
          return proposal();
        case 'applyEdit':
          standing = [correction()];
          return verification();
        case 'undo':
          standing = [];
          return { document: {}, undone: correction(), corrections: [] };
        case 'redo':
          standing = [correction()];
          return { document: {}, undone: correction(), corrections: standing };
        case 'exportDocument':
          return {
            revision_id: 'rev_1',
            output_sha256: 'x',
            verification_id: 'ver_1',
            marking_applied: null,
            bytes_available: true,
          };
        default:
          throw new Error(`unexpected route ${route}`);
      }
    },
    async download(route: string, input: any, dest: string) {
      calls.push({ route, input });
      await writeFile(dest, '%PDF-1.7 corrected');
      return { bytes: 18 };
    },
  };
  return client as unknown as ReviewClient & { calls: Call[] };
}

function start(
  client: ReviewClient,
  options: {
    find?: string;
    cwd?: string;
    match?: { ignoreCase: boolean; word: boolean };
    lang?: string;
  } = {},
) {
  const effects = new ReviewEffects({
    client,
    documentId: 'doc_1',
    dispatch: (a) => store.dispatch(a),
    cwd: options.cwd,
    ...(options.match ? { match: options.match } : {}),
    ...(options.lang ? { lang: options.lang } : {}),
  });
  const store = createReviewStore(
    initialState({
      documentRef: 'doc_1',
      find: options.find,
      colour: false,
      graphics: 'grey',
      columns: 80,
      rows: 24,
    }),
    (r) => void effects.run(r),
  );
  const app = render(React.createElement(ReviewApp, { store }));
  return { app, store, effects, type: (keys: string) => app.stdin.write(keys) };
}

test('review -i: the / search asks with the same rule as `docfix search -i`, and a hit is corrected as the search numbers it', async () => {
  const client = fakeClient({ matchIndex: 2 });
  const { app, type } = start(client, { match: { ignoreCase: true, word: true } });
  const frame = app.lastFrame;
  await until(frame, /No search yet/);
  type('/');
  await until(frame, /Find: █/);
  type('jonh');
  type('\r');
  await until(frame, /Dear Mr \[Jonh\] Smith,/);
  const search = client.calls.find((c) => c.route === 'searchDocument')!.input.query;
  assert.equal(search, { q: 'jonh', ignore_case: true, word: true });
  type('\r');
  await until(frame, /Replace "Jonh" with: Jonh█/);
  type('\x15');
  type('John');
  type('\r');
  await until(frame, /● Proposal "Jonh" → "John" on page 0/);
  const propose = client.calls.find((c) => c.route === 'proposeEdit')!.input.body;
  // The page's own text and the search's per-page number: what the engine will find.
  assert.equal(propose.target, { method: 'text_layer', find: 'Jonh', match_index: 2 });
  app.unmount();
});

test('keyboard path on a text page: search → select → zoom → propose → apply → undo → redo → export', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-review-'));
  try {
    const client = fakeClient();
    const { app, store, effects, type } = start(client, { cwd: dir });
    const frame = app.lastFrame;
    await until(frame, /No search yet/);
    type('/');
    await until(frame, /Find: █/);
    type('Jonh');
    await until(frame, /Find: Jonh█/);
    type('\r');
    await until(frame, /Dear Mr \[Jonh\] Smith,/);
    await until(frame, /Crop of page 0 at 600 dpi \(2×\)/);
    await until(frame, /@/, 'the crop');
    type('+');
    await until(frame, /Crop of page 0 at 900 dpi \(3×\)/);
    type('-');
    await until(frame, /at 600 dpi/);
    type('\r');
    await until(frame, /Replace "Jonh" with: Jonh█/);
    type('\x15'); // Ctrl-U
    type('John');
    await until(frame, /with: John█/);
    type('\r');
    let f = await until(frame, /● Proposal "Jonh" → "John" on page 0/);
    assert.match(f, /tier 1 glyph_reuse · visibility cost none/);
    assert.match(f, /before: Dear Mr \[Jonh\] Smith,/);
    assert.match(f, /after: {2}Dear Mr \[John\] Smith,/);
    type('y');
    f = await until(frame, /✓ Verified at 300 dpi/);
    assert.match(f, /✓ #1 page 0: "Jonh" → "John" · verified, 0 pixels outside/);
    assert.match(f, /Crop of page 0 at 600 dpi \(2×\): "John" \(corrected from "Jonh"\)/);
    type('u');
    f = await until(frame, /Undone: "Jonh" → "John"/);
    assert.match(f, /Corrections standing: 0/);
    type('r');
    await until(frame, /Redone: "Jonh" → "John"/);
    type('e');
    await until(frame, /Export to: letter-fixed\.pdf█/);
    type('\r');
    await until(frame, /✓ Exported letter-fixed\.pdf \(18 bytes, verification ver_1\)/);
    assert.is(await readFile(join(dir, 'letter-fixed.pdf'), 'utf8'), '%PDF-1.7 corrected');
    type('q');
    await tick();
    assert.is(store.getState().quit, true);
    // What went to the service, in order.
    const routes = client.calls.map((c) => c.route);
    for (const [a, b] of [
      ['searchDocument', 'pageCrop'],
      ['createAttestation', 'proposeEdit'],
      ['proposeEdit', 'applyEdit'],
      ['applyEdit', 'undo'],
      ['undo', 'redo'],
      ['exportDocument', 'downloadDocument'],
    ]) {
      assert.ok(
        routes.indexOf(a) >= 0 && routes.indexOf(a) < routes.indexOf(b),
        `${a} before ${b}: ${routes.join(' ')}`,
      );
    }
    const apply = client.calls.find((c) => c.route === 'applyEdit')!.input.body;
    assert.equal(apply.apply, { proposal_id: 'prop_1', confirm_token: 'tok_1' });
    assert.equal(apply.request.target, { method: 'text_layer', find: 'Jonh', match_index: 0 });
    assert.is(apply.request.attestation_id, 'att_1');
    assert.ok(effects.calls.includes('pageCrop 0 900'));
    app.unmount();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a scanned page: the crop is fetched before confirmed: true is sent, and the refusal is shown', async () => {
  const client = fakeClient();
  const { app, type } = start(client, { find: 'This' });
  const frame = app.lastFrame;
  await until(frame, /▸ \? p1 {3}ocr {4}72 {2}1/);
  await until(frame, /Crop of page 1 at 600 dpi/);
  await until(frame, /\? needs confirmation \(confidence 72, 1 competing\)/);
  await until(frame, /@/, 'the crop');
  type('\r');
  await until(frame, /Does the magnified crop read "This"\? y yes · n no/);
  type('y');
  await until(frame, /Replace "This" with: This█/);
  type('\x15');
  type('Tihs\r');
  const f = await until(frame, /✗ Refused "This" → "Tihs" on page 1/);
  assert.match(f, /Something drawn over the scan at "This" \(a stamp, a line\) would be hidden by a patch/);
  assert.match(f, /try: another match of it \(j\/k\)/);
  assert.not.match(f, /why:|Tier 5/, "the engine's advice only with --verbose");
  const routes = client.calls.map((c) => c.route);
  const crop = client.calls.findIndex((c) => c.route === 'pageCrop' && c.input.params.page_index === 1);
  const propose = client.calls.findIndex((c) => c.route === 'proposeEdit');
  assert.ok(crop >= 0 && crop < propose, routes.join(' '));
  assert.ok(client.calls[crop].input.query.dpi > 300, 'the crop is sharper than the reading');
  assert.equal(client.calls[propose].input.body.target, {
    method: 'ocr',
    find: 'This',
    match_index: 0,
    render_dpi: 300,
    lang: 'eng',
    confirmed: true,
  });
  app.unmount();
});

test('review --lang: scanned pages are recognised in it, and the correction names the language read', async () => {
  const client = fakeClient();
  const { app } = start(client, { find: 'This', lang: 'rus' });
  const frame = app.lastFrame;
  await until(frame, /▸ \? p1 {3}ocr {4}72 {2}1/);
  const read = client.calls.find((c) => c.route === 'ocrPage' && c.input.body.find === 'This')!;
  assert.is(read.input.body.lang, 'rus');
  app.unmount();
});

test('effects: lines from words, errors as the screen shows them, the iTerm2/sixel overlay', () => {
  const words = [
    { text: 'b', confidence: 90, box_render: [300, 10, 340, 40], line: 1 },
    { text: 'a', confidence: 90, box_render: [200, 10, 240, 40], line: 1 },
    { text: 'c', confidence: 90, box_render: [200, 100, 240, 140], line: 2 },
  ];
  assert.equal(lineOf(words, [300, 12, 340, 38]), { text: 'a b', box: [200, 10, 340, 40] });
  assert.is(lineOf(words, [0, 500, 10, 510]), null);
  const refused = new DocfixError('edit_refused', 'The font F has no “ǆ”.', {
    advice: {
      code: 'glyph_not_available',
      what: 'The font F has no “ǆ”.',
      why: 'no glyph',
      do: ['pick another font'],
    },
  });
  assert.equal(problemOf(refused), {
    message: 'Neither the document\'s font nor a bundled font can draw "ǆ" (edit_refused)',
    code: 'edit_refused',
    advice: ['try: a replacement made of characters the document already shows'],
  });
  assert.equal(problemOf(refused, true).advice?.slice(1), [
    'code:  glyph_not_available',
    'what:  The font F has no “ǆ”.',
    'why:   no glyph',
    'do:    pick another font',
  ]);
  const unknown = new DocfixError('edit_refused', 'Refused.', {
    advice: { code: 'new_code', why: 'x', do: [] },
  });
  assert.match(problemOf(unknown).message, /^This correction cannot be made safely \(edit_refused\)$/);
  assert.equal(problemOf(new DocfixError('not_found', 'No such document.')), {
    message: 'No such document. (not_found)',
    code: 'not_found',
  });
  let s = initialState({ documentRef: 'd', find: 'Jonh', graphics: 'iterm2', colour: true });
  s = review(s, { type: 'matches', generation: 1, matches: [textMatch()] });
  const m = selectedMatch(s)!;
  s = review(s, { type: 'crop', matchId: m.id, dpi: 600, png: linePng(m, lineRegion(m, 600), 600) });
  const overlay = overlayFor(s);
  // At 80×24: the header, the matches' heading and 4 rows, the corrections' heading, the rule and
  // the crop's words above it: the image starts on row 10.
  assert.match(
    overlay,
    /^\x1b7\x1b\[10;1H\x1b\]1337;File=inline=1;size=\d+;width=\d+;height=\d+;preserveAspectRatio=1:/,
  );
  assert.is(overlayFor({ ...s, graphics: 'sixel' }).includes('\x1bPq'), true);
  assert.is(overlayFor({ ...s, graphics: 'blocks' }), '');
});

test.run();
