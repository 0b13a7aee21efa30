// The review screen's state and the one reducer that changes it. Keys and the answers of the API arrive
// as actions; work for the API leaves as `requests` that the effects layer (review-effects.ts) takes,
// runs through the typed client and answers with more actions. Nothing here does I/O, so tests drive
// the whole workflow — find, look, confirm, propose, apply, step back, export — by calling `review`.
import type {
  CorrectionOut,
  EditRequest,
  ExportOut,
  ProposalOut,
  VerificationOut,
} from '../../../src/schemas.ts';
import type { GraphicsKind } from './terminal-graphics.ts';

/** A box in 300 dpi render pixels: x0, y0, x1, y1. */
export type Box = [number, number, number, number];

export type MatchSource = 'text_layer' | 'recognised';

export interface ReviewMatch {
  /** Stable id within one search: page, source and occurrence. */
  id: string;
  page: number;
  /** The text as it stands on the page (the edit's `find`). */
  text: string;
  box: Box;
  /** The line the match sits on, when the page's words say it. */
  line: { text: string; box: Box } | null;
  source: MatchSource;
  /** 0..100 (the text layer: 100). */
  confidence: number;
  /** Near-misses recognised on the page (another reading competes). */
  competing: number;
  needsConfirmation: boolean;
  /** Which occurrence of `text` on its page (the edit's match_index). */
  matchIndex: number;
  /** Resolution the words were read at: a crop must be sharper for a confirmation to count. */
  readDpi: number;
  /** The language a recognised match was read in: its correction is recognised in the same. */
  lang?: string;
  /** The person said the crop reads as the match text. */
  confirmed: boolean;
  status: 'open' | 'skipped' | 'applied';
  /** What the match reads since it was corrected (status 'applied'). */
  correctedTo?: string;
}

export interface CropState {
  matchId: string;
  dpi: number;
  /** The region fetched (300 dpi render pixels). */
  region: Box;
  status: 'loading' | 'shown' | 'failed';
  png?: Uint8Array;
  error?: string;
}

export interface ProblemText {
  message: string;
  code?: string;
  /** What/why/do lines of a refusal's advice. */
  advice?: string[];
}

export interface ProposalState {
  matchId: string;
  replacement: string;
  status: 'proposing' | 'ready' | 'failed';
  proposal?: ProposalOut;
  /** The whole line before, and as predicted after (the preview pasted into it). */
  lineBefore?: Uint8Array;
  lineAfter?: Uint8Array;
  /** Where the preview sits inside the line images (their pixels). */
  lineMatchBox?: Box;
  problem?: ProblemText;
}

export interface ApplyState {
  matchId: string;
  status: 'applying' | 'done' | 'failed';
  verification?: VerificationOut;
  problem?: ProblemText;
}

export interface ExportState {
  status: 'working' | 'done' | 'failed';
  path: string;
  /** 0..1 over the stages: gate, download, written. */
  fraction: number;
  stage: string;
  bytes?: number;
  result?: ExportOut;
  problem?: ProblemText;
}

export interface DocumentSummary {
  id: string;
  name: string;
  pageCount: number;
  /** Page kinds from classification (text, scanned, ...). */
  kinds: string[];
}

export type Mode = 'browse' | 'search' | 'page' | 'replace' | 'confirm-reading' | 'export' | 'help';

export type Request =
  | { id: number; kind: 'load' }
  | { id: number; kind: 'search'; generation: number; query: string; page: number | null }
  | { id: number; kind: 'crop'; matchId: string; page: number; region: Box; dpi: number }
  | {
      id: number;
      kind: 'propose';
      matchId: string;
      page: number;
      lineRegion: Box;
      request: Omit<EditRequest, 'attestation_id'>;
    }
  | {
      id: number;
      kind: 'apply';
      matchId: string;
      request: Omit<EditRequest, 'attestation_id'>;
      proposalId: string;
      confirmToken: string;
    }
  | { id: number; kind: 'undo' | 'redo' }
  | { id: number; kind: 'export'; path: string };

type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

export interface ReviewState {
  documentRef: string;
  doc: DocumentSummary | null;
  /** Where export writes by default: beside the file reviewed; null: the document's name in the cwd. */
  exportPath: string | null;
  /** --verbose: refusals show the engine's advice (what, why, do) under the headline and try-line. */
  verbose: boolean;
  columns: number;
  rows: number;
  colour: boolean;
  graphics: GraphicsKind;
  mode: Mode;
  /** The field being typed (search text, page number, replacement, export path). */
  input: string;
  query: string;
  /** The page searches are limited to (--page, g), or null for every page. */
  page: number | null;
  /** Bumped by each search: answers of older searches are dropped. */
  generation: number;
  searching: boolean;
  searchNote: string;
  matches: ReviewMatch[];
  selected: number;
  /** Magnification: index into ZOOMS (times the 300 dpi render). */
  zoom: number;
  crops: Record<string, CropState>;
  proposals: Record<string, ProposalState>;
  applied: Record<string, ApplyState>;
  corrections: CorrectionOut[];
  /** Corrections stepped back and not yet redone (newest last). */
  undone: CorrectionOut[];
  stepping: 'undo' | 'redo' | null;
  exportState: ExportState | null;
  message: { text: string; tone: 'info' | 'ok' | 'warn' | 'error' } | null;
  requests: Request[];
  nextRequestId: number;
  quit: boolean;
}

/** Magnifications offered by +/-, times the 300 dpi render; 2× is the default. */
export const ZOOMS = [1, 1.5, 2, 3, 4] as const;
export const DEFAULT_ZOOM = 2;
export const RENDER_DPI = 300;
/** Crops are kept under this many output pixels (the daemon refuses above 4 megapixels). */
const CROP_PIXELS = 3_500_000;

export interface InitialOptions {
  documentRef: string;
  exportPath?: string;
  verbose?: boolean;
  page?: number;
  find?: string;
  columns?: number;
  rows?: number;
  colour?: boolean;
  graphics?: GraphicsKind;
}

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

/** A key as Ink reports it (the fields the screen uses). */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  tab?: boolean;
}

export type ReviewAction =
  | { type: 'key'; input: string; key?: KeyPress }
  | { type: 'resize'; columns: number; rows: number }
  | { type: 'requests-taken'; ids: number[] }
  | { type: 'document'; doc: DocumentSummary; corrections: CorrectionOut[] }
  | { type: 'load-failed'; problem: ProblemText }
  | { type: 'search-progress'; generation: number; note: string }
  | { type: 'matches'; generation: number; matches: Omit<ReviewMatch, 'id' | 'confirmed' | 'status'>[] }
  | { type: 'search-done'; generation: number; note: string }
  | { type: 'search-failed'; generation: number; problem: ProblemText }
  | { type: 'crop'; matchId: string; dpi: number; png: Uint8Array }
  | { type: 'crop-failed'; matchId: string; dpi: number; problem: ProblemText }
  | {
      type: 'proposed';
      matchId: string;
      proposal: ProposalOut;
      lineBefore?: Uint8Array;
      lineAfter?: Uint8Array;
      lineMatchBox?: Box;
    }
  | { type: 'propose-failed'; matchId: string; problem: ProblemText }
  | {
      type: 'applied';
      matchId: string;
      verification: VerificationOut;
      corrections: CorrectionOut[];
      /** The text applied (default: the match's proposal's replacement). */
      replacement?: string;
    }
  | { type: 'apply-failed'; matchId: string; problem: ProblemText }
  | { type: 'stepped'; direction: 'undo' | 'redo'; correction: CorrectionOut; corrections: CorrectionOut[] }
  | { type: 'step-failed'; direction: 'undo' | 'redo'; problem: ProblemText }
  | { type: 'export-progress'; stage: string; fraction: number }
  | { type: 'exported'; path: string; bytes: number; result: ExportOut }
  | { type: 'export-failed'; problem: ProblemText };

// ───────────────────────────── helpers ─────────────────────────────

function ask(state: ReviewState, body: RequestBody): ReviewState {
  const request = { ...body, id: state.nextRequestId } as Request;
  return { ...state, requests: [...state.requests, request], nextRequestId: state.nextRequestId + 1 };
}

const say = (
  state: ReviewState,
  text: string,
  tone: 'info' | 'ok' | 'warn' | 'error' = 'info',
): ReviewState => ({
  ...state,
  message: { text, tone },
});

/** The match's text as the page now reads it: once corrected, the text applied. */
export function currentText(m: Pick<ReviewMatch, 'text' | 'status' | 'correctedTo'>): string {
  return m.status === 'applied' && m.correctedTo !== undefined ? m.correctedTo : m.text;
}

/** The match's line as the page now reads it (null when the page's words did not say). */
export function currentLine(m: Pick<ReviewMatch, 'text' | 'status' | 'correctedTo' | 'line'>): string | null {
  if (!m.line) return null;
  const now = currentText(m);
  const at = m.line.text.indexOf(m.text);
  if (now === m.text || at < 0) return m.line.text;
  return m.line.text.slice(0, at) + now + m.line.text.slice(at + m.text.length);
}

export function selectedMatch(state: ReviewState): ReviewMatch | undefined {
  return state.matches[state.selected];
}

export function zoomDpi(state: Pick<ReviewState, 'zoom'>): number {
  return Math.round(RENDER_DPI * ZOOMS[state.zoom]);
}

export const cropKey = (matchId: string, dpi: number) => `${matchId}@${dpi}`;

/** The crop shown for the selected match at the current zoom, if any. */
export function currentCrop(state: ReviewState): CropState | undefined {
  const m = selectedMatch(state);
  return m ? state.crops[cropKey(m.id, zoomDpi(state))] : undefined;
}

/** Whether a person was shown a crop of this match sharp enough for the engine to accept a confirmation. */
export function cropShownFor(state: ReviewState, m: ReviewMatch): boolean {
  return Object.values(state.crops).some(
    (c) => c.matchId === m.id && c.status === 'shown' && c.dpi > m.readDpi,
  );
}

/** The region of a line crop: the line (or the match) padded, narrowed around the match to stay small. */
export function lineRegion(m: Pick<ReviewMatch, 'box' | 'line'>, dpi: number): Box {
  const base = m.line?.box ?? m.box;
  const height = Math.max(1, base[3] - base[1]);
  const pad = Math.max(8, Math.round(height * 0.35));
  let x0 = Math.max(0, Math.min(base[0], m.box[0]) - pad);
  let x1 = Math.max(base[2], m.box[2]) + pad;
  const y0 = Math.max(0, Math.min(base[1], m.box[1]) - pad);
  const y1 = Math.max(base[3], m.box[3]) + pad;
  const scale = (dpi / RENDER_DPI) ** 2;
  const maxWidth = Math.floor(CROP_PIXELS / scale / Math.max(1, y1 - y0));
  if (x1 - x0 > maxWidth) {
    const centre = (m.box[0] + m.box[2]) / 2;
    x0 = Math.max(0, Math.round(centre - maxWidth / 2));
    x1 = x0 + maxWidth;
  }
  return [x0, y0, x1, y1];
}

/** Asks for the selected match's crop at the current zoom unless it is already there. */
function look(state: ReviewState): ReviewState {
  const m = selectedMatch(state);
  if (!m) return state;
  const dpi = zoomDpi(state);
  const key = cropKey(m.id, dpi);
  if (state.crops[key] && state.crops[key].status !== 'failed') return state;
  const region = lineRegion(m, dpi);
  const next: ReviewState = {
    ...state,
    crops: { ...state.crops, [key]: { matchId: m.id, dpi, region, status: 'loading' } },
  };
  return ask(next, { kind: 'crop', matchId: m.id, page: m.page, region, dpi });
}

function select(state: ReviewState, index: number): ReviewState {
  if (state.matches.length === 0) return state;
  const selected = Math.max(0, Math.min(state.matches.length - 1, index));
  return look({ ...state, selected });
}

function startSearch(state: ReviewState, query: string): ReviewState {
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

function startPropose(state: ReviewState, m: ReviewMatch, replacement: string): ReviewState {
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

function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}

/** The match after `from` still open, else the one before, else `from`. */
function nextOpen(state: ReviewState, from: number): number {
  for (let i = from + 1; i < state.matches.length; i++) if (state.matches[i].status === 'open') return i;
  for (let i = 0; i < from; i++) if (state.matches[i].status === 'open') return i;
  return from;
}

function updateMatch(state: ReviewState, id: string, change: Partial<ReviewMatch>): ReviewState {
  return { ...state, matches: state.matches.map((m) => (m.id === id ? { ...m, ...change } : m)) };
}

/** Beside the file reviewed (review FILE.pdf), else the document's name with -fixed, in the cwd. */
export function defaultExportPath(state: Pick<ReviewState, 'exportPath' | 'doc' | 'documentRef'>): string {
  if (state.exportPath) return state.exportPath;
  const name = state.doc?.name || state.documentRef;
  return fixedName(name);
}

/** `memo.pdf` → `memo-fixed.pdf` (characters a file name should not hold become dashes). */
export function fixedName(name: string): string {
  const stem = name.replace(/\.pdf$/i, '').replace(/[^\w.-]+/g, '-') || 'document';
  return `${stem}-fixed.pdf`;
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

// ───────────────────────────── keys ─────────────────────────────

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
      if (key.return) {
        const path = state.input.trim() || defaultExportPath(state);
        const next: ReviewState = {
          ...state,
          mode: 'browse',
          input: '',
          exportState: { status: 'working', path, fraction: 0, stage: 'checking the gate' },
        };
        return ask(next, { kind: 'export', path });
      }
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
  if (input === 'u') {
    if (state.stepping) return state;
    if (state.corrections.length === 0) return say(state, 'Nothing to undo.', 'warn');
    return ask({ ...state, stepping: 'undo', message: null }, { kind: 'undo' });
  }
  if (input === 'r') {
    if (state.stepping) return state;
    if (state.undone.length === 0) return say(state, 'Nothing to redo.', 'warn');
    return ask({ ...state, stepping: 'redo', message: null }, { kind: 'redo' });
  }
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
  if (input === 'y') {
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
  if (input === 'n') {
    const skipped = updateMatch(
      { ...state, proposals: withoutKey(state.proposals, m.id) },
      m.id,
      m.status === 'open' ? { status: 'skipped' } : {},
    );
    return say(select(skipped, nextOpen(skipped, state.selected)), `Skipped "${m.text}" on page ${m.page}.`);
  }
  return state;
}

// ───────────────────────────── the reducer ─────────────────────────────

/** One character of a chunk of keys, as the key press it stands for. */
function keyOf(ch: string): [string, KeyPress] {
  if (ch === '\r' || ch === '\n') return ['', { return: true }];
  if (ch === '\u007f' || ch === '\b') return ['', { backspace: true }];
  if (ch >= '\u0001' && ch <= '\u001a') return [String.fromCharCode(ch.charCodeAt(0) + 96), { ctrl: true }];
  return [ch, {}];
}

export function review(state: ReviewState, action: ReviewAction): ReviewState {
  switch (action.type) {
    case 'key': {
      // Keys typed faster than they are read arrive together ("/John\r", "\x15Tihs"): one at a
      // time, with Enter, Ctrl-U and backspace inside the chunk read as the keys they are.
      const chars = [...action.input];
      if (chars.length > 1 && !action.key?.ctrl && !action.key?.escape) {
        let next = state;
        for (const ch of chars) next = onKey(next, ...keyOf(ch));
        return next;
      }
      return onKey(state, action.input, action.key ?? {});
    }
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
      return action.generation === state.generation ? { ...state, searchNote: action.note } : state;
    case 'matches': {
      if (action.generation !== state.generation) return state;
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
      if (action.generation !== state.generation) return state;
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
      if (action.generation !== state.generation) return state;
      return say({ ...state, searching: false, searchNote: '' }, action.problem.message, 'error');
    case 'crop': {
      const key = cropKey(action.matchId, action.dpi);
      const crop = state.crops[key];
      if (!crop) return state;
      return { ...state, crops: { ...state.crops, [key]: { ...crop, status: 'shown', png: action.png } } };
    }
    case 'crop-failed': {
      const key = cropKey(action.matchId, action.dpi);
      const crop = state.crops[key];
      if (!crop) return state;
      return {
        ...state,
        crops: { ...state.crops, [key]: { ...crop, status: 'failed', error: action.problem.message } },
      };
    }
    case 'proposed': {
      const current = state.proposals[action.matchId];
      if (!current) return state;
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
    case 'propose-failed': {
      const current = state.proposals[action.matchId];
      if (!current) return state;
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
    case 'applied': {
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
    case 'apply-failed':
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
    case 'stepped': {
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
    case 'step-failed':
      return say({ ...state, stepping: null }, action.problem.message, 'error');
    case 'export-progress':
      if (!state.exportState) return state;
      return {
        ...state,
        exportState: { ...state.exportState, stage: action.stage, fraction: action.fraction },
      };
    case 'exported':
      return say(
        {
          ...state,
          exportState: {
            status: 'done',
            path: action.path,
            fraction: 1,
            stage: 'written',
            bytes: action.bytes,
            result: action.result,
          },
        },
        `Exported ${action.path} (${action.bytes} bytes, verification ${action.result.verification_id}).`,
        'ok',
      );
    case 'export-failed':
      return say(
        {
          ...state,
          exportState: state.exportState
            ? { ...state.exportState, status: 'failed', problem: action.problem }
            : null,
        },
        action.problem.message,
        'error',
      );
  }
}
