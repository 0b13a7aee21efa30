// The tier ladder: the tiers that find codes for a correction's new characters, in the order the
// engine tries them. Each has the one shape of tier.ts. The first tier that produces wins; the
// refusals of the tiers passed over are reported with the answer. A new tier is one file with a
// `Tier` and one line in LADDER. docs/engine.md describes each tier.
import type { TierRejection } from '../../schemas.ts';
import { NOT_BUILT, refuse } from '../refusals.ts';
import type { Tier, TierContext, TierProduct, TierRefusal } from './tier.ts';
import { glyphReuseTier } from './tier1.ts';
import { encodingExtensionTier } from './tier2.ts';
import { siblingSubsetTier } from './tier3.ts';
import { matchedFontTier } from './tier4.ts';

export const LADDER: Tier[] = [glyphReuseTier, encodingExtensionTier, siblingSubsetTier, matchedFontTier];

/**
 * Climbs the ladder: the first tier that produces wins, with the refusals of those before it. When
 * every tier refuses, the engine refuses with the last refusal's `end` (and every tier listed).
 */
export function climb(ctx: TierContext): { tier: number; product: TierProduct; rejected: TierRejection[] } {
  const rejected: TierRejection[] = [];
  let end: TierRefusal['end'];
  for (const t of LADDER) {
    const outcome = t.attempt(ctx);
    if (!('refused' in outcome)) return { tier: t.tier, product: outcome, rejected };
    rejected.push({ tier: t.tier, tier_name: t.name, ...outcome.refused });
    end = outcome.end ?? end;
  }
  if (!end) throw new Error('Every tier refused and none said how the engine should answer.');
  refuse(end.code, end.what, end.why, end.do, {
    rejected: [...rejected, ...NOT_BUILT],
    evidence: end.evidence,
  });
}
