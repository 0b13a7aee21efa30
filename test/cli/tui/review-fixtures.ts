// Shared by the review screen's tests: API objects, matches, and helpers that drive the reducer.
import {
  type KeyPress,
  type Request,
  type ReviewAction,
  type ReviewMatch,
  type ReviewState,
} from '../../../cli/tui/review/review-state.ts';
import { review } from '../../../cli/tui/review/review-workflow.ts';
import { PNG } from 'pngjs';
import type { CorrectionOut, ProposalOut, VerificationOut } from '../../../src/schemas.ts';

type Found = Omit<ReviewMatch, 'id' | 'confirmed' | 'status'>;

export const textMatch = (over: Partial<Found> = {}): Found => ({
  page: 0,
  text: 'Jonh',
  box: [400, 300, 520, 350],
  line: { text: 'Dear Mr Jonh Smith,', box: [200, 300, 900, 350] },
  source: 'text_layer',
  confidence: 100,
  competing: 0,
  needsConfirmation: false,
  matchIndex: 0,
  readDpi: 300,
  ...over,
});

export const ocrMatch = (over: Partial<Found> = {}): Found =>
  textMatch({
    text: 'This',
    source: 'recognised',
    confidence: 72,
    competing: 1,
    needsConfirmation: true,
    line: { text: 'This is quite a simple example', box: [250, 300, 1500, 350] },
    ...over,
  });

export const proposal = (over: Partial<ProposalOut> = {}): ProposalOut => ({
  proposal_id: 'prop_1',
  confirm_token: 'tok_1',
  document_id: 'doc_1',
  page_index: 0,
  tier: 1,
  tier_name: 'glyph_reuse',
  visibility_cost: 'none',
  explanation: 'Swap two glyphs the font already draws.',
  warnings: [],
  predicted_diff: [
    {
      page_index: 0,
      identical: false,
      changed_pixels: 640,
      changed_fraction: 0.0001,
      bbox: [420, 305, 510, 345],
      outside_pixels: 0,
      max_delta: 255,
    },
  ],
  ...over,
});

export const verification = (over: Partial<VerificationOut> = {}): VerificationOut => ({
  verification_id: 'ver_1',
  revision_id: 'rev_1',
  output_sha256: 'ab'.repeat(32),
  dpi: 300,
  passed: true,
  failure_reason: null,
  pages: [
    {
      page_index: 0,
      identical: false,
      proven_by: 'render',
      changed_pixels: 640,
      changed_fraction: 0.0001,
      outside_pixels: 0,
      max_delta: 255,
      bbox: [420, 305, 510, 345],
      declared_box: [400, 300, 520, 350],
    },
  ],
  guards: [{ name: 'text_layer_true', passed: true, detail: 'ok' }],
  stream_changes: {},
  ...over,
});

export const correction = (over: Partial<CorrectionOut> = {}): CorrectionOut => ({
  seq: 1,
  page_index: 0,
  text_before: 'Jonh',
  text_after: 'John',
  visibility_cost: 'none',
  verified: true,
  outside_pixels: 0,
  created_at: '2026-11-23T10:00:00.000Z',
  ...over,
});

/** Applies actions in turn; `take` also empties the request queue (as the store does) and returns it. */
export function run(state: ReviewState, ...actions: ReviewAction[]): ReviewState {
  return actions.reduce(review, state);
}
export function take(state: ReviewState): [ReviewState, Request[]] {
  const requests = state.requests;
  return [review(state, { type: 'requests-taken', ids: requests.map((r) => r.id) }), requests];
}
export const key = (input: string, k: KeyPress = {}): ReviewAction => ({ type: 'key', input, key: k });
export const enter = key('', { return: true });
export const type = (text: string): ReviewAction[] => [...text].map((ch) => key(ch));

/** A page crop: white, with dark bars where the line's words are and a darker block on the match. */
export function linePng(m: Pick<ReviewMatch, 'box' | 'line'>, region: number[], dpi: number): Uint8Array {
  const s = dpi / 300;
  const width = Math.round((region[2] - region[0]) * s);
  const height = Math.round((region[3] - region[1]) * s);
  const png = new PNG({ width, height });
  png.data.fill(255);
  const fill = (box: number[], v: number, step: number) => {
    for (let y = Math.round((box[1] - region[1]) * s); y < Math.round((box[3] - region[1]) * s); y++)
      for (let x = Math.round((box[0] - region[0]) * s); x < Math.round((box[2] - region[0]) * s); x++) {
        if (x < 0 || y < 0 || x >= width || y >= height || Math.floor(x / (step * s)) % 2) continue;
        png.data.set([v, v, v, 255], (y * width + x) * 4);
      }
  };
  if (m.line) fill(m.line.box, 96, 12);
  fill(m.box, 0, 6);
  return new Uint8Array(PNG.sync.write(png));
}
