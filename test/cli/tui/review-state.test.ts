// The review screen's reducer, driven directly: keys and API answers in, state and requests out.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  cropShownFor,
  lineRegion,
  selectedMatch,
  type Request,
} from '../../../cli/tui/review/review-state.ts';
import { initialState } from '../../../cli/tui/review/review-workflow.ts';
import {
  correction,
  enter,
  key,
  ocrMatch,
  proposal,
  run,
  take,
  textMatch,
  type,
  verification,
} from './review-fixtures.ts';

test('the first state asks for the document, and searches at once with --find', () => {
  const s = initialState({ documentRef: 'doc_1', find: 'Jonh', page: 2 });
  assert.equal(
    s.requests.map((r) => r.kind),
    ['load', 'search'],
  );
  const search = s.requests[1] as Extract<Request, { kind: 'search' }>;
  assert.is(search.query, 'Jonh');
  assert.is(search.page, 2);
  assert.is(s.searching, true);
});

test('search → select → zoom: matches arrive, the first is looked at, zoom asks for a sharper crop', () => {
  let [s] = take(initialState({ documentRef: 'd' }));
  s = run(s, key('/'), ...type('Jonh'));
  assert.is(s.mode, 'search');
  assert.is(s.input, 'Jonh');
  let requests: Request[];
  [s, requests] = take(run(s, enter));
  assert.equal(requests, [{ id: 2, kind: 'search', generation: 1, query: 'Jonh', page: null }]);
  [s, requests] = take(
    run(s, {
      type: 'matches',
      generation: 1,
      matches: [textMatch(), textMatch({ matchIndex: 1, box: [400, 600, 520, 650] })],
    }),
  );
  // The first match is looked at: its line, at twice the render resolution.
  assert.is(requests.length, 1);
  const crop = requests[0] as Extract<Request, { kind: 'crop' }>;
  assert.is(crop.kind, 'crop');
  assert.is(crop.dpi, 600);
  assert.equal(crop.region, lineRegion(selectedMatch(s)!, 600));
  assert.ok(crop.region[0] <= 200 && crop.region[2] >= 900, 'the crop covers the whole line');
  // Answers of an older search are dropped.
  s = run(s, { type: 'matches', generation: 0, matches: [textMatch({ text: 'old' })] });
  assert.is(s.matches.length, 2);
  s = run(s, { type: 'search-done', generation: 1, note: 'text layer: 2 on 1 page(s)' });
  assert.is(s.searching, false);
  [s, requests] = take(run(s, key('j')));
  assert.is(s.selected, 1);
  assert.is(requests[0].kind, 'crop');
  [s, requests] = take(run(s, key('k', { upArrow: false }), key('', { downArrow: true })));
  assert.is(s.selected, 1);
  [s, requests] = take(run(s, key('+')));
  assert.is((requests[0] as Extract<Request, { kind: 'crop' }>).dpi, 900);
  [s, requests] = take(run(s, key('-'), key('-'), key('-'), key('-')));
  assert.is(s.zoom, 0);
  assert.match(s.message!.text, /smallest zoom/);
  // Once fetched, a crop is not asked for again.
  assert.ok(!requests.some((r) => r.kind === 'crop' && r.dpi === 600));
});

test('propose → apply → undo → redo → export, as the keys drive it', () => {
  let [s] = take(initialState({ documentRef: 'd', find: 'Jonh' }));
  let requests: Request[];
  s = run(s, { type: 'matches', generation: 1, matches: [textMatch()] });
  [s] = take(run(s, { type: 'crop', matchId: selectedMatch(s)!.id, dpi: 600, png: new Uint8Array([1]) }));
  s = run(s, enter);
  assert.is(s.mode, 'replace');
  assert.is(s.input, 'Jonh', 'the replacement starts as the match text');
  [s, requests] = take(run(s, key('u', { ctrl: true }), ...type('John'), enter));
  const propose = requests[0] as Extract<Request, { kind: 'propose' }>;
  assert.equal(propose.request, {
    page_index: 0,
    target: { method: 'text_layer', find: 'Jonh', match_index: 0 },
    replacement: 'John',
    font_attempt: 0,
  });
  const id = selectedMatch(s)!.id;
  assert.is(s.proposals[id].status, 'proposing');
  // y before the proposal is there does nothing but say so.
  [s, requests] = take(run(s, key('y')));
  assert.is(requests.length, 0);
  s = run(s, { type: 'proposed', matchId: id, proposal: proposal() });
  assert.match(s.message!.text, /y applies/);
  [s, requests] = take(run(s, key('y')));
  assert.equal(requests[0], {
    id: requests[0].id,
    kind: 'apply',
    matchId: id,
    request: propose.request,
    proposalId: 'prop_1',
    confirmToken: 'tok_1',
  });
  [s, requests] = take(
    run(s, { type: 'applied', matchId: id, verification: verification(), corrections: [correction()] }),
  );
  assert.is(selectedMatch(s)!.status, 'applied');
  assert.is(s.corrections.length, 1);
  assert.is(s.message!.tone, 'ok');
  assert.is(requests[0].kind, 'crop', 'the corrected line is looked at again');
  [s, requests] = take(run(s, key('u')));
  assert.equal(
    requests.map((r) => r.kind),
    ['undo'],
  );
  assert.is(s.stepping, 'undo');
  [s] = take(run(s, { type: 'stepped', direction: 'undo', correction: correction(), corrections: [] }));
  assert.is(selectedMatch(s)!.status, 'open');
  assert.is(s.undone.length, 1);
  assert.match(s.message!.text, /Undone: "Jonh" → "John"/);
  [s, requests] = take(run(s, key('r')));
  assert.equal(
    requests.map((r) => r.kind),
    ['redo'],
  );
  [s] = take(
    run(s, { type: 'stepped', direction: 'redo', correction: correction(), corrections: [correction()] }),
  );
  assert.is(selectedMatch(s)!.status, 'applied');
  assert.is(s.undone.length, 0);
  [s] = take(run(s, key('r')));
  assert.match(s.message!.text, /Nothing to redo/);
  s = run(s, {
    type: 'document',
    doc: { id: 'd', name: 'letter.pdf', pageCount: 1, kinds: ['text'] },
    corrections: [correction()],
  });
  s = run(s, key('e'));
  assert.is(s.mode, 'export');
  assert.is(s.input, 'letter-fixed.pdf');
  [s, requests] = take(run(s, key('u', { ctrl: true }), ...type('out.pdf'), enter));
  assert.equal(
    requests.map((r) => [r.kind, (r as { path?: string }).path]),
    [['export', 'out.pdf']],
  );
  s = run(s, { type: 'export-progress', stage: 'downloading', fraction: 0.4 });
  assert.is(s.exportState!.fraction, 0.4);
  s = run(s, {
    type: 'exported',
    path: 'out.pdf',
    bytes: 1234,
    result: {
      revision_id: 'r',
      output_sha256: 'x',
      verification_id: 'ver_1',
      marking_applied: null,
      bytes_available: true,
    },
  });
  assert.is(s.exportState!.status, 'done');
  assert.match(s.message!.text, /Exported out.pdf \(1234 bytes/);
  s = run(s, key('q'));
  assert.is(s.quit, true);
});

test('a recognised match is confirmed only after its magnified crop was shown, and only then sent confirmed', () => {
  let [s] = take(initialState({ documentRef: 'd', find: 'This' }));
  let requests: Request[];
  [s, requests] = take(run(s, { type: 'matches', generation: 1, matches: [ocrMatch()] }));
  const m = selectedMatch(s)!;
  assert.is(requests[0].kind, 'crop');
  // Enter while the crop is on its way: nothing is proposed, nothing confirmed.
  [s, requests] = take(run(s, enter));
  assert.is(s.mode, 'browse');
  assert.is(requests.length, 0);
  assert.match(s.message!.text, /Look at the magnified crop first/);
  assert.is(cropShownFor(s, m), false);
  // A crop no sharper than the reading does not count.
  s = run(s, key('-'), key('-'));
  [s] = take(s);
  s = run(s, { type: 'crop', matchId: m.id, dpi: 300, png: new Uint8Array([1]) });
  assert.is(cropShownFor(s, m), false);
  s = run(s, key('+'), key('+'));
  [s] = take(s);
  s = run(s, { type: 'crop', matchId: m.id, dpi: 600, png: new Uint8Array([1]) });
  assert.is(cropShownFor(s, m), true);
  s = run(s, enter);
  assert.is(s.mode, 'confirm-reading');
  // n: not confirmed, nothing proposed.
  [s, requests] = take(run(s, key('n')));
  assert.is(s.mode, 'browse');
  assert.is(selectedMatch(s)!.confirmed, false);
  assert.is(requests.length, 0);
  s = run(s, enter, key('y'));
  assert.is(selectedMatch(s)!.confirmed, true);
  assert.is(s.mode, 'replace');
  [s, requests] = take(run(s, key('u', { ctrl: true }), ...type('Tihs'), enter));
  const propose = requests[0] as Extract<Request, { kind: 'propose' }>;
  assert.equal(propose.request.target, {
    method: 'ocr',
    find: 'This',
    match_index: 0,
    render_dpi: 300,
    confirmed: true,
  });
  s = run(s, {
    type: 'proposed',
    matchId: m.id,
    proposal: proposal({
      tier: 0,
      tier_name: '',
      refusal: 'Target method “ocr” is not available in this engine.',
      advice: {
        code: 'x',
        what: '',
        why: 'A pixel patch (tier 5) is not built.',
        do: ['Use text_layer.'],
        worth_reporting: false,
      },
    }),
  });
  assert.is(s.message!.tone, 'warn');
  [s, requests] = take(run(s, key('y')));
  assert.is(requests.length, 0, 'a refusal cannot be applied');
  assert.match(s.message!.text, /refused/);
  s = run(s, key('n'));
  assert.is(selectedMatch(s)!.status, 'skipped');
  assert.is(s.proposals[m.id], undefined);
});

test('keys that arrive together are read one at a time; g goes to a page; ? shows the keys', () => {
  let [s] = take(initialState({ documentRef: 'd' }));
  s = run(s, {
    type: 'document',
    doc: { id: 'd', name: 'x.pdf', pageCount: 3, kinds: ['text', 'text', 'scanned'] },
    corrections: [],
  });
  let requests: Request[];
  [s, requests] = take(run(s, key('/Jonh\r')));
  assert.equal(
    requests.map((r) => r.kind),
    ['search'],
  );
  assert.is(s.query, 'Jonh');
  s = run(s, { type: 'matches', generation: 1, matches: [textMatch(), textMatch({ page: 1 })] });
  [s] = take(s);
  [s] = take(run(s, key('g'), ...type('1'), enter));
  assert.is(selectedMatch(s)!.page, 1);
  [s, requests] = take(run(s, key('g'), key('u', { ctrl: true }), ...type('2'), enter));
  assert.is(s.page, 2);
  assert.equal(
    requests.map((r) => [r.kind, (r as { page?: number }).page]),
    [['search', 2]],
  );
  // A Ctrl-U and a backspace inside one chunk act where they stand (a terminal driver sends them so).
  s = run(s, key('g'), key('17\x7f\x15\x7f0'));
  assert.is(s.input, '0');
  [s] = take(run(s, key('\x151\r')));
  assert.is(s.page, 1);
  s = run(s, key('g'), key('u', { ctrl: true }), ...type('9'), enter);
  assert.match(s.message!.text, /There is no page 9/);
  s = run(s, key('?'));
  assert.is(s.mode, 'help');
  s = run(s, key('x'));
  assert.is(s.mode, 'browse');
  s = run(s, key('c', { ctrl: true }));
  assert.is(s.quit, true);
});

test('failures are shown where they happened', () => {
  let [s] = take(initialState({ documentRef: 'd', find: 'Jonh' }));
  s = run(s, { type: 'search-failed', generation: 1, problem: { message: 'busy (busy)' } });
  assert.is(s.searching, false);
  assert.equal(s.message, { text: 'busy (busy)', tone: 'error' });
  s = run(s, { type: 'export-failed', problem: { message: 'nothing to export' } });
  assert.is(s.message!.tone, 'error');
  s = run(s, { type: 'step-failed', direction: 'undo', problem: { message: 'nothing_to_undo' } });
  assert.is(s.stepping, null);
  s = run(s, { type: 'resize', columns: 120, rows: 40 });
  assert.equal([s.columns, s.rows], [120, 40]);
});

test('a new revision (apply, undo, redo) drops crops, proposals and confirmed readings of the old one', () => {
  let [s] = take(initialState({ documentRef: 'd', find: 'x' }));
  s = run(s, { type: 'matches', generation: 1, matches: [textMatch(), ocrMatch({ page: 1 })] });
  [s] = take(s);
  const [text, ocr] = s.matches;
  s = { ...s, matches: s.matches.map((m) => (m.id === ocr.id ? { ...m, confirmed: true } : m)) };
  s = run(s, { type: 'crop', matchId: text.id, dpi: 600, png: new Uint8Array([1]) });
  s = {
    ...s,
    proposals: { [ocr.id]: { matchId: ocr.id, replacement: 'Tihs', status: 'ready', proposal: proposal() } },
  };
  s = run(s, {
    type: 'applied',
    matchId: text.id,
    verification: verification(),
    corrections: [correction()],
  });
  assert.equal(s.proposals, {});
  assert.is(s.matches.find((m) => m.id === ocr.id)!.confirmed, false);
  assert.equal(
    Object.values(s.crops).map((c) => c.status),
    ['loading'],
    'only the new look',
  );
});

test.run();
