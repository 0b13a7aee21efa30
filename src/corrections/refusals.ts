// Refusals are answers: each carries advice (what, why, what to do) and the chain of tiers the
// engine passed over. Codes are listed in docs/engine.md.
import type { RefusalAdvice, TierRejection } from '../schemas.ts';

export const TIER_NAMES: Record<number, string> = {
  1: 'glyph_reuse',
  2: 'encoding_extension',
  3: 'sibling_subset',
  4: 'matched_font',
  5: 'pixel_patch',
};

/**
 * Tier 5 as it stands for text drawn from a font: its pixels are not the document's own (the font
 * draws them), so they are never patched. Listed in `rejected` when a text page reaches it.
 */
export const NOT_BUILT: TierRejection[] = [
  {
    tier: 5,
    tier_name: TIER_NAMES[5],
    code: 'not_a_scan',
    reason:
      'Pixel patches are for words in a scanned image; this text is drawn from a font, so its pixels are corrected by rewriting the text.',
  },
];

/** Thrown inside the engine to stop with a refusal; turned into a proposal with tier -1. */
export class Refusal extends Error {
  override readonly name = 'Refusal';
  readonly advice: RefusalAdvice;
  readonly rejected: TierRejection[];
  readonly evidence: Record<string, unknown>;

  constructor(advice: RefusalAdvice, rejected: TierRejection[] = [], evidence: Record<string, unknown> = {}) {
    super(advice.what);
    this.advice = advice;
    this.rejected = rejected;
    this.evidence = evidence;
  }
}

export function refuse(
  code: string,
  what: string,
  why: string,
  todo: string[],
  options: { worth_reporting?: boolean; rejected?: TierRejection[]; evidence?: Record<string, unknown> } = {},
): never {
  throw new Refusal(
    { code, what, why, do: todo, worth_reporting: options.worth_reporting ?? false },
    options.rejected ?? [],
    options.evidence ?? {},
  );
}
