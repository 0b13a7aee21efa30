// The review's keys: what each key does in each mode (browse, typing a search, a page, a replacement
// or an export path, confirming a reading, help). Keys typed faster than they are read arrive as one
// chunk and are taken one at a time.
import { skipMatch, startApply, startPropose, startStep } from './review-apply.ts';
import { defaultExportPath, startExport } from './review-export.ts';
import { startSearch } from './review-search.ts';
import {
  cropShownFor,
  look,
  say,
  select,
  selectedMatch,
  updateMatch,
  ZOOMS,
  type KeyPress,
  type ReviewState,
} from './review-state.ts';

/** A chunk of keys as Ink reports it, taken key by key. */
export function onKeys(state: ReviewState, input: string, key: KeyPress | undefined): ReviewState {
  // Keys typed faster than they are read arrive together ("/John\r", "\x15Tihs"): one at a
  // time, with Enter, Ctrl-U and backspace inside the chunk read as the keys they are.
  const chars = [...input];
  if (chars.length > 1 && !key?.ctrl && !key?.escape) {
    let next = state;
    for (const ch of chars) next = onKey(next, ...keyOf(ch));
    return next;
  }
  return onKey(state, input, key ?? {});
}

/** One character of a chunk of keys, as the key press it stands for. */
function keyOf(ch: string): [string, KeyPress] {
  if (ch === '\r' || ch === '\n') return ['', { return: true }];
  if (ch === '\u007f' || ch === '\b') return ['', { backspace: true }];
  if (ch >= '\u0001' && ch <= '\u001a') return [String.fromCharCode(ch.charCodeAt(0) + 96), { ctrl: true }];
  return [ch, {}];
}

function typing(
  state: ReviewState,
  input: string,
  key: KeyPress,
  accept: (ch: string) => boolean,
): ReviewState {
  if (key.backspace || key.delete) return { ...state, input: [...state.input].slice(0, -1).join('') };
  if (key.ctrl && input === 'u') return { ...state, input: '' };
  if (key.ctrl || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return state;
  const text = [...input].filter((ch) => ch >= ' ' && accept(ch)).join('');
  return text ? { ...state, input: state.input + text } : state;
}

function onKey(state: ReviewState, input: string, key: KeyPress): ReviewState {
  if (key.ctrl && input === 'c') return { ...state, quit: true };
  switch (state.mode) {
    case 'help':
      return { ...state, mode: 'browse' };
    case 'search':
      if (key.escape) return { ...state, mode: 'browse', input: '' };
      if (key.return) {
        const query = state.input.trim();
        return query
          ? startSearch(state, query)
          : say({ ...state, mode: 'browse' }, 'Nothing to search for.');
      }
      return typing(state, input, key, () => true);
    case 'page': {
      if (key.escape) return { ...state, mode: 'browse', input: '' };
      if (key.return) return goToPage({ ...state, mode: 'browse', input: '' }, state.input);
      return typing(state, input, key, (ch) => /\d/.test(ch));
    }
    case 'replace': {
      if (key.escape) return say({ ...state, mode: 'browse', input: '' }, 'Nothing proposed.');
      const m = selectedMatch(state);
      if (key.return && m) return startPropose(state, m, state.input);
      return typing(state, input, key, () => true);
    }
    case 'confirm-reading': {
      const m = selectedMatch(state);
      if (!m) return { ...state, mode: 'browse' };
      if (input === 'y' || input === 'Y') {
        const confirmed = updateMatch(state, m.id, { confirmed: true });
        return say(
          { ...confirmed, mode: 'replace', input: m.text },
          `Confirmed: the crop reads "${m.text}".`,
          'ok',
        );
      }
      if (input === 'n' || input === 'N' || key.escape) {
        return say({ ...state, mode: 'browse' }, `Not confirmed: "${m.text}" will not be corrected.`, 'warn');
      }
      return state;
    }
    case 'export':
      if (key.escape) return { ...state, mode: 'browse', input: '' };
      if (key.return) return startExport(state);
      return typing(state, input, key, () => true);
    case 'browse':
      return onBrowseKey(state, input, key);
  }
}

function goToPage(state: ReviewState, typed: string): ReviewState {
  if (!/^\d+$/.test(typed)) return say(state, 'A page is a number (0 for the first page).', 'warn');
  const page = Number(typed);
  if (state.doc && page >= state.doc.pageCount) {
    return say(state, `There is no page ${page}: pages go from 0 to ${state.doc.pageCount - 1}.`, 'warn');
  }
  const index = state.matches.findIndex((m) => m.page === page);
  if (index >= 0) return say(select({ ...state, page }, index), `Page ${page}.`);
  if (state.query) return say(startSearch({ ...state, page }, state.query), `Searching page ${page}…`);
  return say({ ...state, page }, `Page ${page}: press / to search it.`);
}

function onBrowseKey(state: ReviewState, input: string, key: KeyPress): ReviewState {
  const m = selectedMatch(state);
  if (input === 'q' || key.escape)
    return input === 'q' ? { ...state, quit: true } : { ...state, message: null };
  if (input === '?') return { ...state, mode: 'help' };
  if (input === '/') return { ...state, mode: 'search', input: state.query };
  if (input === 'g') return { ...state, mode: 'page', input: state.page === null ? '' : String(state.page) };
  if (input === 'j' || key.downArrow) return select(state, state.selected + 1);
  if (input === 'k' || key.upArrow) return select(state, state.selected - 1);
  if (key.pageDown) return select(state, state.selected + 5);
  if (key.pageUp) return select(state, state.selected - 5);
  if (input === '+' || input === '=') {
    if (state.zoom >= ZOOMS.length - 1)
      return say(state, `Already at the largest zoom (${ZOOMS[state.zoom]}×).`);
    return look({ ...state, zoom: state.zoom + 1, message: null });
  }
  if (input === '-' || input === '_') {
    if (state.zoom <= 0) return say(state, `Already at the smallest zoom (${ZOOMS[state.zoom]}×).`);
    return look({ ...state, zoom: state.zoom - 1, message: null });
  }
  if (input === 'u') return startStep(state, 'undo');
  if (input === 'r') return startStep(state, 'redo');
  if (input === 'e') {
    if (state.exportState?.status === 'working') return say(state, 'An export is under way.');
    return { ...state, mode: 'export', input: defaultExportPath(state), message: null };
  }
  if (!m) {
    if (key.return || input === 'y' || input === 'n')
      return say(state, 'No match selected: press / to search.');
    return state;
  }
  const proposal = state.proposals[m.id];
  if (key.return) {
    if (m.status === 'applied') return say(state, 'This match is corrected; press u to undo it.');
    // A recognised reading is confirmed by a person who saw it magnified (every one, not only the uncertain).
    if (m.source === 'recognised' && !m.confirmed) {
      if (!cropShownFor(state, m)) {
        return say(look(state), 'Look at the magnified crop first: it is on its way.', 'warn');
      }
      return { ...state, mode: 'confirm-reading', message: null };
    }
    return { ...state, mode: 'replace', input: proposal?.replacement ?? m.text, message: null };
  }
  if (input === 'y') return startApply(state, m);
  if (input === 'n') return skipMatch(state, m);
  return state;
}
