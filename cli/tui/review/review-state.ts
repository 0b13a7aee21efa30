// The review screen's state: its shape, what the views read from it, and the small steps every part
// of the workflow takes on it (ask the effects layer for work, say a message, look at the selected
// match's crop). Keys and the answers of the API arrive as actions, taken by `review`
// (review-workflow.ts), which hands each to the part that owns it: keys (review-keys.ts), search
// (review-search.ts), propose, apply and undo (review-apply.ts), export (review-export.ts). Work for
// the API leaves as `requests` that the effects layer (review-effects.ts) takes, runs through the
// typed client and answers with more actions. Nothing here does I/O.
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

export type RequestBody = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

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

// ───────────────────────────── steps every part takes ─────────────────────────────

export function ask(state: ReviewState, body: RequestBody): ReviewState {
  const request = { ...body, id: state.nextRequestId } as Request;
  return { ...state, requests: [...state.requests, request], nextRequestId: state.nextRequestId + 1 };
}

export const say = (
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
export function look(state: ReviewState): ReviewState {
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

export function select(state: ReviewState, index: number): ReviewState {
  if (state.matches.length === 0) return state;
  const selected = Math.max(0, Math.min(state.matches.length - 1, index));
  return look({ ...state, selected });
}

export function withoutKey<T>(record: Record<string, T>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}

export function updateMatch(state: ReviewState, id: string, change: Partial<ReviewMatch>): ReviewState {
  return { ...state, matches: state.matches.map((m) => (m.id === id ? { ...m, ...change } : m)) };
}

/** A crop asked for has come (or failed): shown beside the match it was asked for. */
export function cropAnswer(
  state: ReviewState,
  action: Extract<ReviewAction, { type: 'crop' | 'crop-failed' }>,
): ReviewState {
  const key = cropKey(action.matchId, action.dpi);
  const crop = state.crops[key];
  if (!crop) return state;
  if (action.type === 'crop')
    return { ...state, crops: { ...state.crops, [key]: { ...crop, status: 'shown', png: action.png } } };
  return {
    ...state,
    crops: { ...state.crops, [key]: { ...crop, status: 'failed', error: action.problem.message } },
  };
}
