// What the engine answers: a candidate correction as a proposal (its diff, its preview), a refusal
// as a proposal with advice, and a candidate that would not verify as the refusal it becomes.
import { createHash } from 'node:crypto';
import type { EditRequest, PageDiff } from '../schemas.ts';
import { costOf, type Candidate, type EngineProposal, type EngineVerification } from './correction.ts';
import { WORKING_DPI } from './locate/page-text.ts';
import { cropPng, padBox } from './proof/render-diff.ts';
import { NOT_BUILT, Refusal, TIER_NAMES } from './refusals.ts';

const PREVIEW_MARGIN_PX = 12;

/** Refusal proposal (tier -1, tier_name 'none', visibility_cost 'refused'). */
export function refusalProposal(pageIndex: number, r: Refusal, fontAttempt: number): EngineProposal {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ refused: r.advice.code, page: pageIndex }))
    .digest('hex');
  return {
    page_index: pageIndex,
    tier: -1,
    tier_name: 'none',
    visibility_cost: 'refused',
    explanation: `${r.advice.what} ${r.advice.why}`.trim(),
    measurements: Object.keys(r.evidence).length ? r.evidence : undefined,
    warnings: [],
    refusal: r.advice.what,
    advice: r.advice,
    rejected: r.rejected,
    predicted_diff: [],
    preview: null,
    font_alternatives: Number(r.evidence.font_alternatives ?? 0),
    font_attempt: fontAttempt,
    fingerprint,
  };
}

/** A verified candidate as the proposal offered: its measurements, its predicted diff and preview. */
export function proposalOf(candidate: Candidate, pageIndex: number, fontAttempt: number): EngineProposal {
  const v = candidate.verify;
  const pageDiff: PageDiff = {
    page_index: pageIndex,
    identical: v.diff.identical,
    changed_pixels: v.diff.changed_pixels,
    changed_fraction: v.diff.changed_fraction,
    bbox: v.diff.bbox,
    outside_pixels: v.diff.outside_pixels,
    max_delta: v.diff.max_delta,
    histogram: v.diff.histogram,
  };
  const previewBox = padBox(candidate.box, PREVIEW_MARGIN_PX, candidate.beforeRender);
  const warnings = [...candidate.warnings];
  return {
    page_index: pageIndex,
    tier: candidate.tier,
    tier_name: TIER_NAMES[candidate.tier],
    visibility_cost: costOf({ tier: candidate.tier, cost: candidate.cost }),
    explanation: candidate.explanation,
    measurements: candidate.measurements,
    warnings,
    refusal: null,
    advice: null,
    rejected: candidate.rejected,
    predicted_diff: [pageDiff],
    preview: {
      box_render: previewBox,
      render_dpi: WORKING_DPI,
      before_png: Buffer.from(cropPng(candidate.beforeRender, previewBox)).toString('base64'),
      after_png: Buffer.from(cropPng(v.afterRender, previewBox)).toString('base64'),
      complete: true,
    },
    font_alternatives: candidate.fontAlternatives,
    font_attempt: fontAttempt,
    fingerprint: candidate.fingerprint,
  };
}

/** Guards about the file's objects, not its pixels: a replacement of another width changes nothing there. */
const STRUCTURAL_GUARDS = ['objects_untouched', 'other_pages_identical', 'output_reopens'];

/**
 * The advice of a candidate refused by the file's structure: the save changed objects it did not
 * declare. A file saved in full (MuPDF could not update it in place) is damaged: the advice names
 * the repair (save/repair.ts) and how to make it first; otherwise it is the engine's fault.
 */
export function structuralAdvice(
  v: Pick<Candidate['verify'], 'failure_reason' | 'stream_changes'>,
  failing: string[],
): Refusal['advice'] | null {
  if (failing.length === 0) return null;
  const changes = v.stream_changes as { incremental?: boolean; repair?: { cause: string } };
  const why = v.failure_reason ?? 'verification failed';
  if (changes.incremental === false)
    return {
      code: 'would_not_verify',
      what: `The document is damaged (${changes.repair?.cause ?? 'MuPDF had to repair it to read it'}): saved repaired, it changes in ways the correction cannot declare.`,
      why: `A damaged file is saved repaired, and every object the repair changes must be declared and proven; here ${failing.join(', ')} failed: ${why}`,
      do: [
        'Repair the file and upload the repaired copy, e.g. `qpdf damaged.pdf repaired.pdf` or `mutool clean damaged.pdf repaired.pdf`; then correct the repaired copy.',
        'Check the repaired copy reads as you expect before correcting it.',
      ],
      worth_reporting: true,
    };
  return {
    code: 'would_not_verify',
    what: 'The save changed objects of the file that the correction did not declare.',
    why: `${failing.join(', ')} failed: ${why}`,
    do: ['Report this document: the engine changed what it did not declare, whatever the replacement.'],
    worth_reporting: true,
  };
}

/**
 * What a refused candidate says: the guard that refused and what it saw (a patched line's reading
 * before and after, a rewritten line's text as extracted), so the user is not left with a generic
 * sentence. `first` names the guard to quote when it is among those that failed.
 */
function refusalWhat(
  lead: string,
  guards: Candidate['verify']['guards'],
  first: string,
  why: string | null,
): string {
  const failed = guards.filter((g) => !g.passed);
  const quoted = failed.find((g) => g.name === first) ?? failed[0];
  if (!quoted) return why ? `${lead}: ${why}.` : `${lead}.`;
  const detail = quoted.detail.length > 400 ? `${quoted.detail.slice(0, 400)}…` : quoted.detail;
  return `${lead} (${failed.map((g) => g.name).join(', ')}): ${detail}.`;
}

/** A candidate that failed its verification, as the refusal it becomes (the evidence kept). */
export function wouldNotVerify(candidate: Candidate, request: EditRequest): Refusal {
  const v = candidate.verify;
  const structural = structuralAdvice(
    v,
    v.guards.filter((g) => !g.passed && STRUCTURAL_GUARDS.includes(g.name)).map((g) => g.name),
  );
  // A candidate that would not verify is not offered: the proposal is a refusal with the evidence.
  // Failing only because renderers read the font's fractional widths differently is a known
  // limit of the format, not an engine failure: the advice says which replacements keep the line.
  const readingsOnly =
    v.diff.outside_pixels === 0 && v.guards.every((g) => g.passed || g.name === 'widths_read_alike');
  return new Refusal(
    structural ?? {
      code: 'would_not_verify',
      what:
        candidate.tier === 5
          ? refusalWhat('The patched word would not verify', v.guards, 'line_reads_as_before', null)
          : refusalWhat('The rewritten text would not verify', v.guards, 'text_layer_true', v.failure_reason),
      why: v.failure_reason ?? 'verification failed',
      do: [
        ...(candidate.tier === 4 && candidate.fontAlternatives > (request.font_attempt ?? 0) + 1
          ? [`Try the next matched font: font_attempt ${(request.font_attempt ?? 0) + 1}.`]
          : []),
        ...(candidate.tier === 5
          ? [
              'Choose a replacement made of letters the scan shows clearly, or look at the patch in the preview.',
            ]
          : readingsOnly
            ? [
                'Choose letters as wide as the ones they replace: the same letters in another order keep the rest of the line in place in every renderer.',
              ]
            : ['Choose a replacement of the same width as the original.']),
        'Correct a different occurrence.',
      ],
      worth_reporting: !readingsOnly,
    },
    [
      {
        tier: candidate.tier,
        tier_name: TIER_NAMES[candidate.tier],
        code: 'would_not_verify',
        reason: v.failure_reason ?? 'verification failed',
        evidence: {
          predicted_diff: { ...v.diff },
          guards: v.guards,
          measurements: candidate.measurements,
        },
      },
      ...(candidate.tier === 5 ? [] : NOT_BUILT),
    ],
    { ...candidate.measurements, font_alternatives: candidate.fontAlternatives },
  );
}

/** A candidate's verification as the apply answers it. */
export function verificationOf(c: Candidate): EngineVerification {
  const v = c.verify;
  return {
    output_sha256: v.output_sha256,
    dpi: v.dpi,
    passed: v.passed,
    failure_reason: v.failure_reason,
    pages: v.pages,
    guards: v.guards,
    stream_changes: v.stream_changes,
    declared_box: v.declared_box,
    changed_box: v.changed_box,
    text_before: c.textBefore,
    text_after: c.textAfter,
  };
}
