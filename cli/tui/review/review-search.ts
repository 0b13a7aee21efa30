// The review's search: a query asked of the effects layer (each search a new generation, so answers
// of an older one are dropped), its matches arriving page by page, sorted in reading order.
import { ask, look, say, selectedMatch, type ReviewAction, type ReviewState } from './review-state.ts';

export function startSearch(state: ReviewState, query: string): ReviewState {
  const generation = state.generation + 1;
  const next: ReviewState = {
    ...state,
    mode: 'browse',
    input: '',
    query,
    generation,
    searching: true,
    searchNote: 'Searching…',
    matches: [],
    selected: 0,
    message: null,
  };
  return ask(next, { kind: 'search', generation, query, page: state.page });
}

/** The answers of a search: its progress, its matches (the first one looked at), its end or failure. */
export function searchAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'search-progress' | 'matches' | 'search-done' | 'search-failed' }>,
): ReviewState {
  if (action.generation !== state.generation) return state;
  switch (action.type) {
    case 'search-progress':
      return { ...state, searchNote: action.note };
    case 'matches': {
      const added = action.matches.map((m) => ({
        ...m,
        id: `${m.page}:${m.source}:${m.text}:${m.matchIndex}`,
        confirmed: false,
        status: 'open' as const,
      }));
      const matches = [...state.matches, ...added].sort(
        (a, b) => a.page - b.page || a.box[1] - b.box[1] || a.box[0] - b.box[0],
      );
      const keep = selectedMatch(state)?.id;
      const selected = keep
        ? Math.max(
            0,
            matches.findIndex((m) => m.id === keep),
          )
        : 0;
      const next = { ...state, matches, selected };
      return state.matches.length === 0 && matches.length > 0 ? look(next) : next;
    }
    case 'search-done':
      return {
        ...state,
        searching: false,
        searchNote: action.note,
        message:
          state.matches.length === 0
            ? { text: `No match for "${state.query}". ${action.note}`, tone: 'warn' }
            : (state.message ?? {
                text: `${state.matches.length} match${state.matches.length === 1 ? '' : 'es'}: j/k to move, ⏎ to propose a correction.`,
                tone: 'info',
              }),
      };
    case 'search-failed':
      return say({ ...state, searching: false, searchNote: '' }, action.problem.message, 'error');
  }
}
