// The review screen's only way to the service: it takes the requests the reducer leaves in the state,
// runs them through the typed /v1 client and answers with actions. Search reads the text layer
// (search route) and recognises scanned pages (ocr route); Look fetches crop.png; Propose and Apply go
// through edits:propose and edits with one attestation; Export goes through the gate, then downloads.
import { resolve } from 'node:path';
import type { ApiClient } from '../../../src/api-client.ts';
import { DocfixError } from '../../../src/errors.ts';
import type { OcrPageOut, RefusalAdvice, TierRejection } from '../../../src/schemas.ts';
import { refusalDetails, refusalText, sentence } from '../../refusal-text.ts';
import type {
  Box,
  DocumentSummary,
  ProblemText,
  Request,
  ReviewAction,
  ReviewMatch,
} from './review-state.ts';
import { RENDER_DPI } from './review-state.ts';
import { decodePng, encodePng, pasteBitmap, scaleBitmap } from './terminal-graphics.ts';

/** What the screen needs of the API client (tests give a fake with the same shape). */
export type ReviewClient = Pick<ApiClient, 'call' | 'download'>;

type OcrWord = NonNullable<OcrPageOut['words']>[number];
type FoundMatch = Omit<ReviewMatch, 'id' | 'confirmed' | 'status'>;

/**
 * An error as the screen shows it: the message and its code; a refusal (an error carrying advice)
 * as its headline and try-line, with the engine's advice under them when `verbose`.
 */
export function problemOf(error: unknown, verbose = false): ProblemText {
  if (error instanceof DocfixError) {
    const advice = error.extra.advice as RefusalAdvice | null | undefined;
    if (!advice) return { message: `${error.message} (${error.code})`, code: error.code };
    const context = {
      advice,
      inReview: true,
      refusal: error.message,
      rejected: error.extra.rejected as TierRejection[] | undefined,
    };
    const words = refusalText(context);
    const details = verbose ? refusalDetails(context, '').map(plain) : [];
    return {
      message: `${sentence(words.headline)} (${error.code})`,
      code: error.code,
      advice: [`try: ${words.tryLine}`, ...details],
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');

const union = (boxes: number[][]): Box => [
  Math.min(...boxes.map((b) => b[0])),
  Math.min(...boxes.map((b) => b[1])),
  Math.max(...boxes.map((b) => b[2])),
  Math.max(...boxes.map((b) => b[3])),
];

/** The line of `words` a box sits on (by vertical overlap), as text and box. */
export function lineOf(words: OcrWord[], box: number[]): { text: string; box: Box } | null {
  let best: OcrWord | undefined;
  let bestOverlap = 0;
  for (const w of words) {
    const overlapY = Math.min(w.box_render[3], box[3]) - Math.max(w.box_render[1], box[1]);
    const overlapX = Math.min(w.box_render[2], box[2]) - Math.max(w.box_render[0], box[0]);
    const score = overlapY > 0 ? overlapY + (overlapX > 0 ? 1000 : 0) : 0;
    if (score > bestOverlap) {
      bestOverlap = score;
      best = w;
    }
  }
  if (!best) return null;
  const line = words.filter((w) => w.line === best.line).sort((a, b) => a.box_render[0] - b.box_render[0]);
  return { text: line.map((w) => w.text).join(' '), box: union(line.map((w) => w.box_render)) };
}

export interface ReviewEffectsOptions {
  client: ReviewClient;
  documentId: string;
  dispatch: (action: ReviewAction) => void;
  /** Where relative export paths are written. */
  cwd?: string;
  /** Told each API call, in order. */
  onLog?: (line: string) => void;
  /** --verbose: a refused apply shows the engine's advice too. */
  verbose?: boolean;
  /** The matching rule of the / search (--ignore-case, --word), the same as `docfix search`'s. */
  match?: { ignoreCase: boolean; word: boolean };
  /** --lang: the language scanned pages are recognised in (default: the page's own). */
  lang?: string;
}

export class ReviewEffects {
  readonly #o: ReviewEffectsOptions;
  #attestation: string | undefined;
  #kinds: string[] = [];
  #generation = 0;
  /** API calls made, in order (tests check that a crop comes before `confirmed: true`). */
  readonly calls: string[] = [];

  constructor(options: ReviewEffectsOptions) {
    this.#o = options;
  }

  #log(line: string): void {
    this.calls.push(line);
    this.#o.onLog?.(line);
  }

  get #id(): string {
    return this.#o.documentId;
  }

  /** Runs one request; its outcome arrives as actions (never throws). */
  async run(request: Request): Promise<void> {
    const dispatch = this.#o.dispatch;
    try {
      switch (request.kind) {
        case 'load':
          return await this.#load();
        case 'search':
          return await this.#search(request);
        case 'crop':
          return await this.#crop(request);
        case 'propose':
          return await this.#propose(request);
        case 'apply':
          return await this.#apply(request);
        case 'undo':
        case 'redo':
          return await this.#step(request.kind);
        case 'export':
          return await this.#export(request.path);
      }
    } catch (error) {
      const problem = problemOf(error, this.#o.verbose);
      switch (request.kind) {
        case 'load':
          return dispatch({ type: 'load-failed', problem });
        case 'search':
          return dispatch({ type: 'search-failed', generation: request.generation, problem });
        case 'crop':
          return dispatch({ type: 'crop-failed', matchId: request.matchId, dpi: request.dpi, problem });
        case 'propose':
          return dispatch({ type: 'propose-failed', matchId: request.matchId, problem });
        case 'apply':
          return dispatch({ type: 'apply-failed', matchId: request.matchId, problem });
        case 'undo':
        case 'redo':
          return dispatch({ type: 'step-failed', direction: request.kind, problem });
        case 'export':
          return dispatch({ type: 'export-failed', problem });
      }
    }
  }

  async #load(): Promise<void> {
    this.#log('getDocument');
    const doc = await this.#o.client.call('getDocument', { params: { document_id: this.#id } });
    this.#kinds = doc.pages?.map((p) => p.kind) ?? [];
    this.#log('listCorrections');
    const corrections = await this.#o.client.call('listCorrections', { params: { document_id: this.#id } });
    const summary: DocumentSummary = {
      id: doc.document_id,
      name: doc.filename_hint,
      pageCount: doc.page_count,
      kinds: this.#kinds,
    };
    this.#o.dispatch({ type: 'document', doc: summary, corrections });
  }

  async #search(r: Extract<Request, { kind: 'search' }>): Promise<void> {
    const { client, dispatch } = this.#o;
    const generation = r.generation;
    this.#generation = generation;
    this.#log(`searchDocument ${r.query}`);
    const found = await client.call('searchDocument', {
      params: { document_id: this.#id },
      query: {
        q: r.query,
        ...(this.#o.match?.ignoreCase ? { ignore_case: true } : {}),
        ...(this.#o.match?.word ? { word: true } : {}),
      },
    });
    const inPage = (p: number) => r.page === null || p === r.page;
    const hits = (found.matches ?? []).filter((m) => inPage(m.page_index));
    const scanned = (found.pages_needing_recognition ?? []).filter(inPage);
    const pages = [...new Set(hits.map((m) => m.page_index))];
    for (const page of pages) {
      // The page's words (from its text layer: fast) give each hit its line.
      let words: OcrWord[] = [];
      try {
        this.#log(`ocrPage ${page} words`);
        const read = await client.call('ocrPage', {
          params: { document_id: this.#id, page_index: page },
          body: {},
        });
        words = read.words ?? [];
      } catch {
        words = [];
      }
      const seen = new Map<string, number>();
      const matches: FoundMatch[] = hits
        .filter((m) => m.page_index === page)
        .map((m) => {
          // The search numbers each hit as a correction of its text on its page counts it.
          const index = m.match_index ?? seen.get(m.text) ?? 0;
          seen.set(m.text, index + 1);
          return {
            page,
            text: m.text,
            box: m.box_render as Box,
            line: lineOf(words, m.box_render),
            source: 'text_layer',
            confidence: Math.round(m.confidence * 100),
            competing: 0,
            needsConfirmation: false,
            matchIndex: index,
            readDpi: RENDER_DPI,
          };
        });
      dispatch({ type: 'matches', generation, matches });
    }
    let recognised = 0;
    for (const [i, page] of scanned.entries()) {
      // A newer search started: stop recognising pages for this one.
      if (this.#generation !== generation) return;
      dispatch({
        type: 'search-progress',
        generation,
        note: `recognising page ${page} (${i + 1} of ${scanned.length})…`,
      });
      this.#log(`ocrPage ${page} find ${r.query}`);
      const read = await client.call('ocrPage', {
        params: { document_id: this.#id, page_index: page },
        body: { find: r.query, ...(this.#o.lang ? { lang: this.#o.lang } : {}) },
      });
      if (!read.available) continue;
      recognised++;
      const words = read.words ?? [];
      const matches: FoundMatch[] = (read.matches ?? []).map((m) => ({
        page,
        text: m.text,
        box: m.box_render as Box,
        line: lineOf(words, m.box_render),
        source: read.word_source === 'text_layer' ? 'text_layer' : 'recognised',
        confidence: m.confidence,
        competing: m.competing,
        needsConfirmation: m.needs_confirmation,
        matchIndex: m.index,
        readDpi: read.render_dpi,
        ...(read.lang ? { lang: read.lang } : {}),
      }));
      dispatch({ type: 'matches', generation, matches });
    }
    const parts: string[] = [];
    if (pages.length) parts.push(`text layer: ${hits.length} on ${pages.length} page(s)`);
    if (scanned.length) parts.push(`recognised ${recognised} scanned page(s)`);
    if (parts.length === 0) parts.push('searched the text layer');
    if (found.truncated) parts.push('more matches than shown');
    dispatch({ type: 'search-done', generation, note: parts.join(' · ') });
  }

  async #crop(r: Extract<Request, { kind: 'crop' }>): Promise<void> {
    const [x0, y0, x1, y1] = r.region;
    this.#log(`pageCrop ${r.page} ${r.dpi}`);
    const png = await this.#o.client.call('pageCrop', {
      params: { document_id: this.#id, page_index: r.page },
      query: { x: x0, y: y0, w: Math.max(1, x1 - x0), h: Math.max(1, y1 - y0), dpi: r.dpi },
    });
    this.#o.dispatch({ type: 'crop', matchId: r.matchId, dpi: r.dpi, png });
  }

  async #attestationId(): Promise<string> {
    if (!this.#attestation) {
      this.#log('createAttestation');
      const made = await this.#o.client.call('createAttestation', { body: { document_id: this.#id } });
      this.#attestation = made.attestation_id;
    }
    return this.#attestation;
  }

  async #propose(r: Extract<Request, { kind: 'propose' }>): Promise<void> {
    const { client, dispatch } = this.#o;
    const request = { ...r.request, attestation_id: await this.#attestationId() };
    const confirmed = request.target.method === 'ocr' && request.target.confirmed === true;
    this.#log(`proposeEdit ${request.target.method}${confirmed ? ' confirmed' : ''}`);
    const proposal = await client.call('proposeEdit', { params: { document_id: this.#id }, body: request });
    let line: { before?: Uint8Array; after?: Uint8Array; box?: Box } = {};
    const preview = proposal.preview;
    if (preview && !proposal.refusal) {
      try {
        line = await this.#lineImages(r.page, r.lineRegion, preview);
      } catch {
        line = {};
      }
    }
    dispatch({
      type: 'proposed',
      matchId: r.matchId,
      proposal,
      lineBefore: line.before,
      lineAfter: line.after,
      lineMatchBox: line.box,
    });
  }

  /** The whole line before, and with the preview's after-pixels pasted in: the predicted line. */
  async #lineImages(
    page: number,
    region: Box,
    preview: { box_render: number[]; render_dpi: number; after_png: string },
  ): Promise<{ before: Uint8Array; after: Uint8Array; box: Box }> {
    const dpi = preview.render_dpi;
    const [x0, y0, x1, y1] = [
      Math.min(region[0], preview.box_render[0]),
      Math.min(region[1], preview.box_render[1]),
      Math.max(region[2], preview.box_render[2]),
      Math.max(region[3], preview.box_render[3]),
    ];
    this.#log(`pageCrop ${page} ${dpi} line`);
    const before = await this.#o.client.call('pageCrop', {
      params: { document_id: this.#id, page_index: page },
      query: { x: x0, y: y0, w: x1 - x0, h: y1 - y0, dpi },
    });
    const s = dpi / RENDER_DPI;
    const [px0, py0, px1, py1] = preview.box_render;
    const box: Box = [
      Math.round((px0 - x0) * s),
      Math.round((py0 - y0) * s),
      Math.round((px1 - x0) * s),
      Math.round((py1 - y0) * s),
    ];
    let patch = decodePng(Buffer.from(preview.after_png, 'base64'));
    const w = box[2] - box[0];
    const h = box[3] - box[1];
    if (w > 0 && h > 0 && (patch.width !== w || patch.height !== h)) patch = scaleBitmap(patch, w, h);
    const after = encodePng(pasteBitmap(decodePng(before), patch, box[0], box[1]));
    return { before, after: new Uint8Array(after), box };
  }

  async #apply(r: Extract<Request, { kind: 'apply' }>): Promise<void> {
    const { client, dispatch } = this.#o;
    const request = { ...r.request, attestation_id: await this.#attestationId() };
    const confirmed = request.target.method === 'ocr' && request.target.confirmed === true;
    this.#log(`applyEdit ${request.target.method}${confirmed ? ' confirmed' : ''}`);
    const verification = await client.call('applyEdit', {
      params: { document_id: this.#id },
      body: { request, apply: { proposal_id: r.proposalId, confirm_token: r.confirmToken } },
    });
    const corrections = await client.call('listCorrections', { params: { document_id: this.#id } });
    dispatch({
      type: 'applied',
      matchId: r.matchId,
      verification,
      corrections,
      replacement: r.request.replacement ?? undefined,
    });
  }

  async #step(direction: 'undo' | 'redo'): Promise<void> {
    const { client, dispatch } = this.#o;
    this.#log(direction);
    const result = await client.call(direction, { params: { document_id: this.#id } });
    const corrections =
      result.corrections ?? (await client.call('listCorrections', { params: { document_id: this.#id } }));
    dispatch({ type: 'stepped', direction, correction: result.undone, corrections });
  }

  async #export(path: string): Promise<void> {
    const { client, dispatch } = this.#o;
    const dest = resolve(this.#o.cwd ?? process.cwd(), path);
    dispatch({ type: 'export-progress', stage: 'checking the gate', fraction: 0.1 });
    this.#log('exportDocument');
    const result = await client.call('exportDocument', { params: { document_id: this.#id } });
    dispatch({ type: 'export-progress', stage: 'downloading', fraction: 0.4 });
    this.#log('downloadDocument');
    const { bytes } = await client.download('downloadDocument', { params: { document_id: this.#id } }, dest);
    dispatch({ type: 'exported', path, bytes, result });
  }
}
