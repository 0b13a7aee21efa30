// The review's workflow: the state a review starts in, and `review`, the one reducer that changes it.
// Each action goes to the part that owns it (review-keys.ts, review-search.ts, review-apply.ts,
// review-export.ts; crops in review-state.ts). Nothing here does I/O, so tests drive the whole
// workflow — find, look, confirm, propose, apply, step back, export — by calling `review`.
import { applyAnswer, proposeAnswer, stepAnswer } from './review-apply.ts';
import { exportAnswer } from './review-export.ts';
import { onKeys } from './review-keys.ts';
import { searchAnswer, startSearch } from './review-search.ts';
import {
  ask,
  cropAnswer,
  DEFAULT_ZOOM,
  say,
  ZOOMS,
  type InitialOptions,
  type ReviewAction,
  type ReviewState,
} from './review-state.ts';

export function initialState(o: InitialOptions): ReviewState {
  let state: ReviewState = {
    documentRef: o.documentRef,
    doc: null,
    exportPath: o.exportPath ?? null,
    verbose: o.verbose ?? false,
    columns: o.columns ?? 80,
    rows: o.rows ?? 24,
    colour: o.colour ?? true,
    graphics: o.graphics ?? 'blocks',
    mode: 'browse',
    input: '',
    query: '',
    page: o.page ?? null,
    generation: 0,
    searching: false,
    searchNote: '',
    matches: [],
    selected: 0,
    zoom: ZOOMS.indexOf(DEFAULT_ZOOM),
    crops: {},
    proposals: {},
    applied: {},
    corrections: [],
    undone: [],
    stepping: null,
    exportState: null,
    message: { text: 'Press / to search the document.', tone: 'info' },
    requests: [],
    nextRequestId: 1,
    quit: false,
  };
  state = ask(state, { kind: 'load' });
  if (o.find) state = startSearch(state, o.find);
  return state;
}

export function review(state: ReviewState, action: ReviewAction): ReviewState {
  switch (action.type) {
    case 'key':
      return onKeys(state, action.input, action.key);
    case 'resize':
      return { ...state, columns: action.columns, rows: action.rows };
    case 'requests-taken': {
      const taken = new Set(action.ids);
      return { ...state, requests: state.requests.filter((r) => !taken.has(r.id)) };
    }
    case 'document':
      return { ...state, doc: action.doc, corrections: action.corrections };
    case 'load-failed':
      return say(state, action.problem.message, 'error');
    case 'search-progress':
    case 'matches':
    case 'search-done':
    case 'search-failed':
      return searchAnswer(state, action);
    case 'crop':
    case 'crop-failed':
      return cropAnswer(state, action);
    case 'proposed':
    case 'propose-failed':
      return proposeAnswer(state, action);
    case 'applied':
    case 'apply-failed':
      return applyAnswer(state, action);
    case 'stepped':
    case 'step-failed':
      return stepAnswer(state, action);
    case 'export-progress':
    case 'exported':
    case 'export-failed':
      return exportAnswer(state, action);
  }
}
