// The edit stage, first half: the content-stream edits that draw the new codes where the fit rule
// put them, and the fingerprint that names the correction by them.
import { createHash } from 'node:crypto';
import type { TierRejection } from '../../schemas.ts';
import { respacedPhrase, type Fit } from '../fit/fit-rule.ts';
import { respacingExtent } from '../fit/line-respacing.ts';
import type { Located } from '../locate/located.ts';
import type { StreamUnit } from '../locate/text-interpreter.ts';
import { NOT_BUILT, refuse } from '../refusals.ts';
import { planEdits, type OperandChange, type StreamEdit } from '../rewrite/rewrite.ts';
import type { ResourceOverrides } from '../rewrite/write.ts';
import type { Code, TierProduct } from '../tiers/tier.ts';
import { freshFontName, planMatchedEdits } from '../tiers/tier4.ts';

const round = (v: number) => Math.round(v * 1000) / 1000;

export interface EditPlan {
  edits: Map<number, StreamEdit[]>;
  changes: OperandChange[];
  overrides: ResourceOverrides;
}

/**
 * The content-stream edits: the codes swapped in the operators that draw the old ones, or (a font
 * inserted by tier 3 or 4) the operator split around a run in that font under a fresh resource name.
 * A tier 2 font copy takes the place of the page's font under its own resource name.
 */
export function planEdit(
  t: Located,
  product: TierProduct,
  fit: Fit,
  rejected: TierRejection[],
  warnings: string[],
): EditPlan {
  const { measurements, respacing } = fit;
  const { interp, glyphs, g0 } = t;
  const { codes, widthFont, draw } = product;
  const overrides: ResourceOverrides = new Map();
  const owner = resourceOwner(interp.units, g0.unit);
  let edits: Map<number, StreamEdit[]>;
  let changes: OperandChange[];
  if (draw.use === 'inserted') {
    const newName = freshFontName(interp.units[g0.unit].resources);
    const plan = planMatchedEdits(
      interp.units,
      glyphs,
      codes,
      widthFont,
      newName,
      product.squeeze ?? null,
      respacing?.kerns,
    );
    if (!plan) {
      refuse(
        'split_drawing',
        'The letters to change are drawn by more than one text operator.',
        'A matched font is drawn by splitting the one operator that holds the changed letters; here they are spread over several.',
        ['Correct a shorter part of the word, one letter run at a time.'],
        { rejected: [...rejected, ...NOT_BUILT], evidence: measurements },
      );
    }
    overrides.set(owner, { XObject: new Map(), Font: new Map([[newName, draw.ref]]) });
    edits = plan.edits;
    changes = [
      {
        unit: g0.unit,
        opIndex: g0.opIndex,
        element: g0.element,
        oldAdvance: plan.oldExtent,
        newAdvance: plan.newAdvance,
        adjustment: plan.adjustment,
      },
    ];
    measurements.inserted_font_resource = newName;
  } else
    ({ edits, changes } = planEdits(interp.units, glyphs, codes, widthFont, respacing?.kerns, interp.glyphs));
  if (respacing)
    warnings.push(
      respacing.rest.glyphs > 0 && respacing.gaps.length <= 1 && respacing.rest.shift !== 0
        ? `The rest of the word moves with “${measurements.new_text as string}”: ${respacedPhrase(respacing)}; ${respacingExtent(respacing).glyphs} glyph(s) move by up to ${round(respacingExtent(respacing).moved)} pt.`
        : `The line is re-spaced: “${measurements.new_text as string}” is wider than the gap after it allows, so ${respacedPhrase(respacing)}; ${respacingExtent(respacing).glyphs} glyph(s) move by up to ${round(respacingExtent(respacing).moved)} pt.`,
    );
  warnings.push(...product.warnings);
  if (draw.use === 'replacement')
    overrides.set(owner, { XObject: new Map(), Font: new Map([[g0.fontName, draw.ref]]) });
  measurements.compensation = changes.map((c: OperandChange) => ({
    operator: interp.units[c.unit].ops[c.opIndex].op,
    tj_adjustment: round(c.adjustment),
  }));
  return { edits, changes, overrides };
}

/** Same tier, page, font, codes and stream edits: the same correction. */
export function fingerprintOf(
  tier: number,
  t: Located,
  codes: Code[],
  edits: Map<number, StreamEdit[]>,
): string {
  return createHash('sha256')
    .update(
      JSON.stringify({
        tier,
        page: t.pageIndex,
        font: t.font.baseFont,
        codes: codes.map((c) => c.code),
        edits: [...edits.entries()].map(([u, list]) => [u, list]),
      }),
    )
    .digest('hex');
}

/**
 * The stream whose /Resources a unit draws with (-1: the page's): a form without resources of its
 * own uses those of the stream that drew it (MuPDF's mutool convert writes its pages so). A font the
 * correction adds goes there: giving the form a /Resources it never had would change what it is.
 */
function resourceOwner(units: readonly StreamUnit[], id: number): number {
  let unit = units[id];
  while (unit.kind === 'form' && !unit.ownResources && unit.parent) unit = units[unit.parent.unit];
  return unit.kind === 'page' ? -1 : unit.id;
}
