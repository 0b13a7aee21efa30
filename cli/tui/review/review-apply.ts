// The review's corrections: a replacement proposed for the selected match, the proposal applied, a
// match skipped, and corrections stepped back and forth (undo, redo); with the answers of each. A new
// revision (applied, undone, redone) drops what was made of the old one.
import type { EditRequest } from '../../../src/schemas.ts';
import {
  ask,
  lineRegion,
  look,
  RENDER_DPI,
  say,
  select,
  updateMatch,
  withoutKey,
  type ProposalState,
  type ReviewAction,
  type ReviewMatch,
  type ReviewState,
} from './review-state.ts';

function editTarget(m: ReviewMatch): EditRequest['target'] {
  if (m.source === 'recognised') {
    return {
      method: 'ocr',
      find: m.text,
      match_index: m.matchIndex,
      render_dpi: m.readDpi,
      ...(m.lang ? { lang: m.lang } : {}),
      ...(m.confirmed ? { confirmed: true } : {}),
    };
  }
  return { method: 'text_layer', find: m.text, match_index: m.matchIndex };
}

export function startPropose(state: ReviewState, m: ReviewMatch, replacement: string): ReviewState {
  const next: ReviewState = {
    ...state,
    mode: 'browse',
    input: '',
    proposals: { ...state.proposals, [m.id]: { matchId: m.id, replacement, status: 'proposing' } },
    applied: withoutKey(state.applied, m.id),
    message: null,
  };
  return ask(next, {
    kind: 'propose',
    matchId: m.id,
    page: m.page,
    lineRegion: lineRegion(m, RENDER_DPI),
    request: { page_index: m.page, target: editTarget(m), replacement, font_attempt: 0 },
  });
}

/** y: the match's proposal applied, when there is one ready and not refused. */
export function startApply(state: ReviewState, m: ReviewMatch): ReviewState {
  const proposal = state.proposals[m.id];
  const p = proposal?.proposal;
  if (proposal?.status === 'proposing') return say(state, 'The proposal is on its way.');
  if (!p) return say(state, 'Nothing to apply: press Enter to propose a correction.', 'warn');
  if (p.refusal)
    return say(state, 'This correction was refused: the try: line says what would help.', 'warn');
  if (state.applied[m.id]?.status === 'applying') return state;
  const next: ReviewState = {
    ...state,
    applied: { ...state.applied, [m.id]: { matchId: m.id, status: 'applying' } },
    message: null,
  };
  return ask(next, {
    kind: 'apply',
    matchId: m.id,
    request: {
      page_index: m.page,
      target: editTarget(m),
      replacement: proposal.replacement,
      font_attempt: 0,
    },
    proposalId: p.proposal_id,
    confirmToken: p.confirm_token,
  });
}

/** n: the match left as it is (its proposal dropped), the next open one selected. */
export function skipMatch(state: ReviewState, m: ReviewMatch): ReviewState {
  const skipped = updateMatch(
    { ...state, proposals: withoutKey(state.proposals, m.id) },
    m.id,
    m.status === 'open' ? { status: 'skipped' } : {},
  );
  return say(select(skipped, nextOpen(skipped, state.selected)), `Skipped "${m.text}" on page ${m.page}.`);
}

/** u, r: the last correction undone, or the last undone one made again. */
export function startStep(state: ReviewState, direction: 'undo' | 'redo'): ReviewState {
  if (state.stepping) return state;
  if (direction === 'undo' && state.corrections.length === 0) return say(state, 'Nothing to undo.', 'warn');
  if (direction === 'redo' && state.undone.length === 0) return say(state, 'Nothing to redo.', 'warn');
  return ask({ ...state, stepping: direction, message: null }, { kind: direction });
}

/** The match after `from` still open, else the one before, else `from`. */
function nextOpen(state: ReviewState, from: number): number {
  for (let i = from + 1; i < state.matches.length; i++) if (state.matches[i].status === 'open') return i;
  for (let i = 0; i < from; i++) if (state.matches[i].status === 'open') return i;
  return from;
}

/**
 * The document has a new revision: crops, proposals (their tokens) and confirmed readings were of the
 * old one; the engine honours a confirmation only for a crop served of the current revision.
 */
function newRevision(state: ReviewState): Pick<ReviewState, 'crops' | 'proposals' | 'matches'> {
  return {
    crops: {},
    proposals: {},
    matches: state.matches.map((m) => (m.confirmed ? { ...m, confirmed: false } : m)),
  };
}

/** A proposal has come (ready, or refused with advice) or failed. */
export function proposeAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'proposed' | 'propose-failed' }>,
): ReviewState {
  const current = state.proposals[action.matchId];
  if (!current) return state;
  if (action.type === 'propose-failed') {
    return say(
      {
        ...state,
        proposals: {
          ...state.proposals,
          [action.matchId]: { ...current, status: 'failed', problem: action.problem },
        },
      },
      action.problem.message,
      'error',
    );
  }
  const p: ProposalState = {
    ...current,
    status: 'ready',
    proposal: action.proposal,
    lineBefore: action.lineBefore,
    lineAfter: action.lineAfter,
    lineMatchBox: action.lineMatchBox,
  };
  const refused = Boolean(action.proposal.refusal);
  return say(
    { ...state, proposals: { ...state.proposals, [action.matchId]: p } },
    refused
      ? 'Refused: the try: line says what would help. n skips.'
      : 'y applies this correction, n skips it.',
    refused ? 'warn' : 'info',
  );
}

/** An apply has come (a new revision, verified or not) or failed. */
export function applyAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'applied' | 'apply-failed' }>,
): ReviewState {
  if (action.type === 'apply-failed') {
    return say(
      {
        ...state,
        applied: {
          ...state.applied,
          [action.matchId]: { matchId: action.matchId, status: 'failed', problem: action.problem },
        },
      },
      action.problem.message,
      'error',
    );
  }
  const ok = action.verification.passed;
  const replacement = action.replacement ?? state.proposals[action.matchId]?.replacement;
  let next: ReviewState = {
    ...state,
    applied: {
      ...state.applied,
      [action.matchId]: { matchId: action.matchId, status: 'done', verification: action.verification },
    },
    corrections: action.corrections,
    undone: [],
    ...newRevision(state),
  };
  next = updateMatch(next, action.matchId, { status: 'applied', correctedTo: replacement });
  next = look(next);
  return say(
    next,
    ok ? 'Applied and verified.' : 'Applied, but the verification failed: u undoes it.',
    ok ? 'ok' : 'error',
  );
}

/** An undo or a redo has come (a new revision; the match it fixed open or corrected again) or failed. */
export function stepAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'stepped' | 'step-failed' }>,
): ReviewState {
  if (action.type === 'step-failed')
    return say({ ...state, stepping: null }, action.problem.message, 'error');
  const undo = action.direction === 'undo';
  let next: ReviewState = {
    ...state,
    stepping: null,
    corrections: action.corrections,
    undone: undo ? [...state.undone, action.correction] : state.undone.slice(0, -1),
    ...newRevision(state),
  };
  // The match this correction fixed is open again after an undo, corrected again after a redo.
  const fixed = state.matches.find(
    (m) => m.page === action.correction.page_index && m.text === action.correction.text_before,
  );
  if (fixed) {
    next = updateMatch(next, fixed.id, {
      status: undo ? 'open' : 'applied',
      correctedTo: undo ? undefined : (action.correction.text_after ?? undefined),
    });
    if (undo) next = { ...next, applied: withoutKey(next.applied, fixed.id) };
  }
  next = look(next);
  const what = `"${action.correction.text_before ?? '?'}" → "${action.correction.text_after ?? ''}"`;
  return say(next, undo ? `Undone: ${what} (r redoes it).` : `Redone: ${what}.`, 'ok');
}
