// The correction engine: find the target on one page, choose the first tier that can make the change
// without it showing, write it copy-on-write, save incrementally, and verify the saved bytes by
// rendering. A refusal is an answer with advice. This file is the pipeline; each stage is a folder
// (docs/engine.md, "The pipeline"): locate/ → tiers/ → fit/ → edit/ → save/ → proof/, and scan/
// for a word in a scanned image (tier 5). docs/engine.md describes every rule used here.
import { DocfixError } from '../errors.ts';
import { closeDocument, openPdf, recycleRender, type mupdf } from '../pdf/mupdf-adapter.ts';
import type {
  Candidate,
  EditTaskInput,
  EngineProposal,
  EngineVerification,
  ManifestFacts,
} from './correction.ts';
import { fingerprintOf, planEdit } from './edit/plan-edit.ts';
import { rewriteActualText, writeCorrection } from './edit/write-correction.ts';
import { fitRule } from './fit/fit-rule.ts';
import { verticalRule } from './fit/vertical-rule.ts';
import { widthsReadAlike } from './fit/widths-read-alike.ts';
import {
  codeReadingWarning,
  cropBoxWarnings,
  notEmbedded,
  signatureWarnings,
} from './locate/document-warnings.ts';
import { checkRequest, checkTextPlace, locate } from './locate/located.ts';
import { sha256 } from './locate/pdf-bytes.ts';
import { glyphBoxes } from './proof/declared-boxes.ts';
import { unionBox, type Box } from './proof/render-diff.ts';
import { secondRendererGuard, startSecondRenderer } from './proof/second-renderer.ts';
import { likelyWitnessBand, verifyCorrection, witnessBand } from './proof/verify-correction.ts';
import { proposalOf, refusalProposal, verificationOf, wouldNotVerify } from './proposal.ts';
import { Refusal } from './refusals.ts';
import { declareObjects } from './save/declare.ts';
import { applyOnProposal, keepProposal, keptProposals, proposalKey } from './save/kept-proposals.ts';
import { repairDeclarations, repairFor, repairWarning } from './save/repair.ts';
import { saveExact } from './save/save-correction.ts';
import { mendTrailerSize, trailerMendWarning } from './save/trailer-size.ts';
import { hiddenWordOverScan, patchCandidate } from './scan/scan-candidate.ts';
import { crossFontEdits, crossFontRefusal, crossFontSwap } from './tiers/cross-font-swap.ts';
import { tierContext } from './tiers/tier-context.ts';
import { climb } from './tiers/tier-ladder.ts';
import { tier1Code } from './tiers/tier1.ts';

export type { EditTaskInput, EngineProposal, EngineVerification } from './correction.ts';
export { ENGINE_VERSION } from './correction.ts';

const round = (v: number) => Math.round(v * 1000) / 1000;

/** Proposes an edit: the whole edit done in memory, rendered and compared, nothing kept. */
export async function proposeEdit(input: EditTaskInput): Promise<EngineProposal> {
  const result = await run(...mended(input), false);
  return result.proposal;
}

/**
 * The input as the correction works on it: a file whose trailer's /Size falls short of its table is
 * first mended by an appended section (save/trailer-size.ts), in the open; any other file as it is.
 */
function mended(input: EditTaskInput): [EditTaskInput, string | null] {
  const mend = mendTrailerSize(input.pdf, input.password);
  return mend ? [{ ...input, pdf: mend.pdf }, trailerMendWarning(mend)] : [input, null];
}

/** Applies an edit: the same work as a proposal, with the manifest embedded, verified on the saved bytes. */
export async function applyEdit(
  given: EditTaskInput,
): Promise<{ proposal: EngineProposal; output: Uint8Array; verification: EngineVerification }> {
  const [input, mend] = mended(given);
  const key = proposalKey(input);
  const kept = keptProposals.find((e) => e.key === key);
  if (kept) {
    const reused = applyOnProposal(input, kept);
    if (reused) return reused;
  }
  const result = await run(input, mend, true);
  if (!result.candidate) {
    throw new DocfixError('edit_refused', result.proposal.refusal ?? 'The engine refused the correction.', {
      advice: result.proposal.advice,
      rejected: result.proposal.rejected,
    });
  }
  const c = result.candidate;
  return { proposal: result.proposal, output: c.output, verification: verificationOf(c) };
}

/** A correction made in memory, verified, and answered as a proposal (kept for its apply) or a refusal. */
async function run(
  input: EditTaskInput,
  mend: string | null,
  forApply: boolean,
): Promise<{ proposal: EngineProposal; candidate: Candidate | null }> {
  const request = input.request;
  const pageIndex = request.page_index ?? 0;
  const fontAttempt = request.font_attempt ?? 0;
  try {
    const candidate = await attemptAnyTier(input, forApply);
    if (mend) candidate.warnings.unshift(mend);
    const v = candidate.verify;
    // A proposal runs the same verification as its apply (the second renderer included), so a
    // proposal that says it can be made is made: the only difference at apply is the manifest, whose
    // objects the structural guard proves are outside every page (docs/engine.md, Verification).
    if (v.passed)
      await secondRendererGuard(
        input.pdf,
        candidate.output,
        input.password,
        pageIndex,
        v,
        candidate.band ?? undefined,
      );
    if (!v.passed) throw wouldNotVerify(candidate, request);
    const proposal = proposalOf(candidate, pageIndex, fontAttempt);
    // The output's render served the proof and the preview crop; nothing reads it after this.
    recycleRender(v.afterRender);
    if (!forApply) {
      const { afterRender: _render, diff: _diff, ...verify } = v;
      keepProposal({
        key: proposalKey(input),
        proposal,
        output: candidate.output,
        verify,
        declared: candidate.declared,
        facts: candidate.facts,
        textBefore: candidate.textBefore,
        textAfter: candidate.textAfter,
      });
    }
    return { proposal, candidate };
  } catch (error) {
    if (error instanceof Refusal)
      return { proposal: refusalProposal(pageIndex, error, fontAttempt), candidate: null };
    if (error instanceof DocfixError) throw error;
    throw new DocfixError(
      'edit_failed',
      `The correction could not be completed: ${(error as Error).message}`,
      {},
      { cause: error },
    );
  }
}

/**
 * The ladder's two halves: text drawn from a font is corrected by the text tiers (1–4); a word in a
 * scanned image — an OCR target, or a text target on the invisible layer over a scan — by tier 5.
 */
async function attemptAnyTier(input: EditTaskInput, forApply: boolean): Promise<Candidate> {
  const target = input.request.target;
  if (target.method === 'ocr') return patchCandidate(input, forApply, null);
  try {
    return attempt(input, forApply);
  } catch (error) {
    if (
      !(error instanceof Refusal) ||
      error.advice.code !== 'invisible_text' ||
      target.method !== 'text_layer'
    )
      throw error;
    const hidden = hiddenWordOverScan(input, target.find, target.match_index ?? 0);
    if (!hidden) throw error;
    return patchCandidate(input, forApply, hidden);
  }
}

/**
 * One correction in memory: the ladder (tier-ladder.ts) gives the codes for the new characters, and
 * every other step is the same whichever tier gave them.
 */
function attempt(input: EditTaskInput, forApply: boolean): Candidate {
  try {
    return attemptSpan(input, forApply, false);
  } catch (error) {
    // Too wide or too narrow inside a word (a letter wider than the one it replaces, a ligature
    // broken into its letters; a narrower one, whose gap would split the word): redraw the rest of
    // the word too, so the difference goes into the space after it.
    const retried = ['replacement_too_wide', 'gap_inside_word'];
    if (!(error instanceof Refusal) || !retried.includes(error.advice.code)) throw error;
    try {
      return attemptSpan(input, forApply, true);
    } catch (wider) {
      // A word whose rest could not be redrawn (another operator or font) nor fit: the rest moves
      // after the new letters, the line's gaps giving the room or taking what a narrower
      // replacement leaves (line-respacing.ts), at cost low.
      const moved = wider instanceof Refusal ? restMoved(input, forApply) : null;
      if (moved) return moved;
      // The first refusal names the letter itself; a gap left at the word's end names what follows it.
      const atEnd = wider instanceof Refusal && wider.advice.code === 'gap_inside_word';
      if (wider instanceof Refusal) throw atEnd && error.advice.code === 'gap_inside_word' ? wider : error;
      throw wider;
    }
  }
}

/** attempt's last try: the first span again, its word's rest moving after it; null where refused. */
function restMoved(input: EditTaskInput, forApply: boolean): Candidate | null {
  try {
    return attemptSpan(input, forApply, false, true);
  } catch (error) {
    if (error instanceof Refusal) return null;
    throw error;
  }
}

function attemptSpan(
  input: EditTaskInput,
  forApply: boolean,
  toWordEnd: boolean,
  restMoves = false,
): Candidate {
  const { find, matchIndex, replacement } = checkRequest(input.request);
  const opened = openPdf(input.pdf, input.password);
  const doc = opened.doc;
  const programs: mupdf.Font[] = [];
  try {
    const t = { ...locate(input, doc, find, matchIndex, replacement, toWordEnd), restMoves };
    const warnings = [...signatureWarnings(doc), ...cropBoxWarnings(doc, t.page)];
    // A word drawn one glyph per operator: a swap of its own letters of equal widths is made in
    // place (cross-font-swap.ts); in several fonts nothing else can be.
    const swap = t.byGlyph || (t.flows && !t.oneRun) ? crossFontSwap(t) : null;
    if (!swap && !t.oneRun) crossFontRefusal();
    const { tier, product, rejected } = swap
      ? { tier: 1, product: swap.product, rejected: [] }
      : climb(tierContext(doc, t, input.request.font_attempt ?? 0, programs));
    if (!t.font.embedded && t.font.kind !== 'Type3') warnings.push(notEmbedded(t.font));
    if (t.reading === 'codes') warnings.push(codeReadingWarning(t.font, find));
    verticalRule(
      t,
      tier,
      product.codes,
      rejected,
      product.widthFont.wmode === 1 && product.keepsOldAdvances,
      swap !== null,
    );
    const fit = fitRule(t, tier, product, find, replacement, rejected);
    if (-fit.overflow > 0.5 * fit.emPts)
      warnings.push(`The new text is ${round(-fit.overflow)} pt narrower: a wider gap follows it.`);
    const swapped = swap ? crossFontEdits(t, swap.donors) : null;
    if (swap && !swapped) crossFontRefusal();
    const plan = swapped
      ? { ...swapped, overrides: new Map() }
      : planEdit(t, product, fit, rejected, warnings);
    rewriteActualText(t, plan.edits, find, replacement, fit.measurements);
    const widthsAlike = widthsReadAlike(t, product, fit);
    // A re-spaced line declares the rest of the operator too: its last word stays where it was as
    // the numbers add up in exact arithmetic, but MuPDF sums them in single precision, and a
    // glyph's antialiased edge can change (seen on arabi-add's 12-gap line).
    const boxes = glyphBoxes(t, product, fit, widthsAlike.declareRest || fit.respacing !== null);
    const textPlace = checkTextPlace(t);
    const changedObjects = writeCorrection(doc, t, plan, product, find, replacement, warnings);
    const fingerprint = fingerprintOf(tier, t, product.codes, plan.edits);
    const box = unionBox(boxes.oldBoxes) ?? [0, 0, 0, 0];
    // A damaged file is saved repaired, in the open: the objects the repair changes are declared.
    const repair = repairFor(doc, input);
    if (repair) warnings.push(repairWarning(repair));
    // Words moved to make room show to a careful eye comparing before and after, and a repaired
    // file may show otherwise in a reader that repaired it differently: not `none`.
    const cost = fit.respacing || repair ? ('low' as const) : undefined;
    const facts: ManifestFacts = {
      page: t.pageIndex,
      box,
      find,
      replacement,
      tier,
      ...(cost && { cost }),
      ...(repair && { repaired_objects: repair.objects }),
    };
    const objects = declareObjects(doc, input, t.page, facts, changedObjects, forApply);
    if (repair) objects.declared.push(...repairDeclarations(repair));
    const saved = saveExact(doc, input, opened, t, changedObjects, objects, repair);
    // PDFium draws the band it will likely witness on its own thread while MuPDF verifies here.
    const likely = likelyWitnessBand(t.match.line, boxes);
    if (likely)
      void startSecondRenderer(
        input.pdf,
        saved.output,
        input.password,
        t.pageIndex,
        likely,
        saved.inputIndex,
      );
    const verify = verifyCorrection(input, t, boxes, saved, { textPlace, widthsAlike }, find, replacement);
    const explanation = product.explain({
      oldText: fit.measurements.old_text as string,
      newText: fit.measurements.new_text as string,
      sizePt: round(fit.emPts),
      rule: fit.rule,
      adjusted: plan.changes.some((c) => c.adjustment !== 0),
    });
    return {
      tier,
      ...(cost && { cost }),
      explanation,
      measurements: fit.measurements,
      warnings,
      // Tier 1's own refusal is news only when a later tier did the work.
      rejected: tier === 1 ? [] : rejected,
      fontAlternatives: product.fontAlternatives,
      output: saved.output,
      verify,
      beforeRender: boxes.beforeRender,
      fingerprint,
      textBefore: find,
      textAfter: replacement,
      box: unionBox([verify.declared_box as Box, ...boxes.oldBoxes]) ?? [0, 0, 0, 0],
      declared: objects.declared,
      facts,
      band: witnessBand(t.match.line, verify),
    };
  } finally {
    for (const p of programs) p.destroy();
    // The located page with its document (and any page the proof loaded from it).
    closeDocument(doc);
  }
}

export const _internals = { tier1Code, sha256 };
