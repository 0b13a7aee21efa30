// How API objects read for people: proposals (tier, cost, explanation, warnings, refusals with advice),
// verifications and corrections. Pure functions from data to lines; commands decide where they go.
import type { CorrectionOut, ProposalOut, VerificationOut } from '../src/schemas.ts';
import { c } from './context.ts';
import { refusalLines, type RefusalContext } from './refusal-text.ts';

export const COSTS = ['none', 'low', 'visible'] as const;
export type Cost = (typeof COSTS)[number];

/** Whether a proposal's visibility cost is within the allowed one (unknown costs are not). */
export function withinCost(cost: string, max: Cost): boolean {
  const rank = COSTS.indexOf(cost as Cost);
  return rank >= 0 && rank <= COSTS.indexOf(max);
}

const costColour = (cost: string) =>
  cost === 'none' ? c.green(cost) : cost === 'low' ? c.yellow(cost) : c.red(cost);

/** How a proposal is printed: with --verbose, the engine's details too. */
export interface ProposalPrinting {
  verbose?: boolean;
  /** The document as the person named it (for commands in a refusal's try-line). */
  document?: string;
  ocr?: boolean;
}

/** What the CLI knows of a refused proposal, for its headline and try-line (cli/refusal-text.ts). */
export function proposalRefusal(
  p: ProposalOut,
  edit?: { find?: string; replacement?: string | null },
  o: ProposalPrinting = {},
): RefusalContext {
  return {
    advice: p.advice,
    refusal: p.refusal,
    page: p.page_index,
    rejected: p.rejected,
    measurements: p.measurements,
    fontAlternatives: p.font_alternatives,
    fontAttempt: p.font_attempt,
    ...(edit?.find !== undefined ? { find: edit.find } : {}),
    ...(edit?.replacement !== undefined && edit.replacement !== null
      ? { replacement: edit.replacement }
      : {}),
    ...(o.document ? { document: o.document } : {}),
    ...(o.ocr ? { ocr: true } : {}),
  };
}

/** A proposal for people: what would happen, or why it would not and what to try. */
export function proposalLines(
  p: ProposalOut,
  edit?: { find?: string; replacement?: string | null },
  o: ProposalPrinting = {},
): string[] {
  const lines: string[] = [];
  const what = edit?.find !== undefined ? `"${edit.find}" → "${edit.replacement ?? ''}" ` : '';
  if (p.refusal) {
    const label = `${c.red('Refused')} ${what}on page ${p.page_index}`;
    lines.push(...refusalLines(label, proposalRefusal(p, edit, o), { verbose: o.verbose }));
    for (const w of p.warnings ?? []) lines.push(`  ${c.yellow('!')} ${w}`);
    return lines;
  }
  lines.push(`${c.bold('Proposal')} ${what}on page ${p.page_index}`);
  lines.push(`  tier ${p.tier} ${c.bold(p.tier_name)} · visibility cost ${costColour(p.visibility_cost)}`);
  if (p.explanation) lines.push(`  ${p.explanation}`);
  for (const w of p.warnings ?? []) lines.push(`  ${c.yellow('!')} ${w}`);
  const predicted = (p.predicted_diff ?? []).filter((d) => !d.identical);
  for (const d of predicted) {
    lines.push(
      c.dim(
        `  page ${d.page_index}: ${d.changed_pixels} pixels would change${d.bbox ? ` in [${d.bbox.join(', ')}]` : ''}, ${d.outside_pixels} outside`,
      ),
    );
  }
  // font_alternatives counts the matched fonts; font_attempt numbers them from 0.
  const next = (p.font_attempt ?? 0) + 1;
  if ((p.font_alternatives ?? 0) > next) {
    lines.push(c.dim(`  ${p.font_alternatives} matched fonts; try another with --font-attempt ${next}`));
  }
  if (o.verbose && p.rejected?.length) {
    lines.push(c.dim('  tiers passed over:'));
    for (const r of p.rejected) lines.push(c.dim(`    ${r.tier} ${r.tier_name}: ${r.reason} (${r.code})`));
  }
  return lines;
}

/** A verification for people. */
export function verificationLines(v: VerificationOut): string[] {
  const lines: string[] = [];
  const changed = v.pages.filter((p) => !p.identical);
  const outside = v.pages.reduce((n, p) => n + p.outside_pixels, 0);
  if (v.passed) {
    lines.push(
      `${c.green('✓')} Verified at ${v.dpi} dpi: ${v.pages.length} page(s) compared, ${changed.length} changed, ${outside} pixels outside the edit`,
    );
  } else {
    lines.push(`${c.red('X')} Verification failed: ${v.failure_reason ?? 'see the pages and guards below'}`);
  }
  for (const p of changed) {
    lines.push(
      `  page ${p.page_index}: ${p.changed_pixels} pixels changed${p.bbox ? ` in [${p.bbox.join(', ')}]` : ''}, ${p.outside_pixels} outside${p.proven_by ? ` (${p.proven_by})` : ''}`,
    );
  }
  const failed = v.guards.filter((g) => !g.passed);
  if (failed.length === 0) lines.push(c.dim(`  ${v.guards.length} guard(s) passed`));
  for (const g of failed) lines.push(`  ${c.red('X')} guard ${g.name}: ${g.detail}`);
  lines.push(c.dim(`  revision ${v.revision_id}  sha256 ${v.output_sha256}`));
  return lines;
}

export function correctionRow(k: CorrectionOut): string[] {
  return [
    String(k.seq),
    String(k.page_index),
    `${k.text_before ?? '?'} → ${k.text_after ?? ''}`,
    k.visibility_cost ?? 'none',
    k.verified ? c.green('verified') : c.red(k.failure_reason ?? 'not verified'),
    k.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
  ];
}
export const CORRECTION_HEADERS = ['SEQ', 'PAGE', 'CHANGE', 'COST', 'VERIFIED', 'CREATED'];
