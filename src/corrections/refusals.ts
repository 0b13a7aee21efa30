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

/** Tiers not built in this engine: always listed in `rejected` when reached. */
export const NOT_BUILT: TierRejection[] = [
  {
    tier: 5,
    tier_name: TIER_NAMES[5],
    code: 'not_available',
    reason: 'Pixel patches are for scanned pages and are not built in this engine.',
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
