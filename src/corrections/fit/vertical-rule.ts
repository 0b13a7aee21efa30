// The fit of vertical writing: which replacements leave every other glyph of the column in place.
import type { TierRejection } from '../../schemas.ts';
import type { Located } from '../locate/located.ts';
import { NOT_BUILT, refuse } from '../refusals.ts';
import { keepsInnerKerning } from '../rewrite/rewrite.ts';
import type { Code } from '../tiers/tier.ts';

/**
 * Vertical writing: every glyph advances down the column by the same amount (DW2; fonts with /W2
 * are not mapped at all), so a replacement of the same number of glyphs from the font's own codes,
 * string for string, leaves every other glyph where it was. Anything else is refused.
 */
export function verticalRule(
  t: Located,
  tier: number,
  codes: Code[],
  rejected: TierRejection[],
  verticalStandIn = false,
  swappedInPlace = false,
): void {
  const { glyphs, g0, font } = t;
  if (font.wmode !== 1) return;
  const oneString = glyphs.every(
    (g) => g.unit === g0.unit && g.opIndex === g0.opIndex && g.element === g0.element,
  );
  // A swap of glyphs each drawn by an operator of its own (cross-font-swap.ts): every operator keeps
  // its placing, so nothing of the column moves.
  if (
    tier === 1 &&
    codes.length === glyphs.length &&
    (oneString || swappedInPlace || keepsInnerKerning(glyphs, codes))
  )
    return;
  // Tier 4's CJK face is embedded for vertical writing (Identity-V, the font's DW2, the old glyphs'
  // widths): as many glyphs as it replaces, in one string, each advancing as the old one did.
  if (tier === 4 && codes.length === glyphs.length && oneString && verticalStandIn) return;
  refuse(
    'vertical_text',
    'In vertical writing this engine only swaps glyphs the font already draws, as many as it replaces.',
    tier !== 1
      ? `A character of the replacement has no glyph in ${font.baseFont} (tiers 2–3 add glyphs with horizontal metrics only; tier 4 draws vertically only CJK characters with the bundled CJK face, as many as it replaces, in one string).`
      : 'A different number of glyphs would move the rest of the column, which the engine does not compensate vertically.',
    [
      'Replace the same number of characters with ones the column already shows.',
      'Report the file if this is needed.',
    ],
    { worth_reporting: true, rejected: [...rejected, ...NOT_BUILT] },
  );
}
