// The correction engine: find the target on one page, choose the first tier that can make the change
// without it showing, write it copy-on-write, save incrementally, and verify the saved bytes by
// rendering. A refusal is an answer with advice. docs/engine.md describes every rule used here.
import { createHash } from 'node:crypto';
import { canonicalize } from '../canonical-json.ts';
import { DocfixError } from '../errors.ts';
import {
  loadPage,
  openPdf,
  renderPageRgb as renderPage,
  shownBox,
  type RgbImage,
  type mupdf,
} from '../pdf/mupdf-adapter.ts';
import type { EditRequest, PageDiff, ProposalOut, TierRejection, VerificationOut } from '../schemas.ts';
import { buildManifest, embedManifest, type ManifestInput } from './save/manifest.ts';
import { loadProgram, type FontInfo } from './locate/fonts.ts';
import { GlyphIndex, observedCodes } from './locate/locate.ts';
import { locateTarget, pageAnnotationTexts, WORD_GAP_EM, type Target } from './locate/target.ts';
import { readPageText, quadBox, type TextLine } from './locate/page-text.ts';
import { takeBytes } from './locate/pdf-bytes.ts';
import { cropPng, padBox, unionBox, type Box } from './proof/render-diff.ts';
import { NOT_BUILT, Refusal, refuse, TIER_NAMES } from './refusals.ts';
import {
  advanceOf,
  exactReadingShift,
  keepsInnerKerning,
  planEdits,
  type OperandChange,
  type StreamEdit,
} from './rewrite/rewrite.ts';
import {
  interpretPage,
  apply as applyMat,
  mul,
  verticalEmBox,
  type Glyph,
  type Interpretation,
  type Mat,
  type StreamUnit,
} from './locate/text-interpreter.ts';
import { glyphInkBoxes } from './fit/ink.ts';
import { worstSharedInk } from './fit/ink-collision.ts';
import {
  boxesAt,
  sha256,
  streamDecoder,
  toRender,
  verifyOutput,
  WORKING_DPI,
  type SavedCorrection,
  type VerifyOutput,
} from './proof/verify.ts';
import { objectsUntouched, type DeclaredObject } from './proof/object-guard.ts';
import { keepOriginalNumbers } from '../pdf/exact-save.ts';
import { restoreShownBoxes } from '../pdf/page-frame.ts';
import { ObjectIndex } from '../pdf/xref-index.ts';
import { writeEdits, type ChangedObject, type ResourceOverrides } from './rewrite/write.ts';
import { secondRendererGuard } from './proof/second-renderer.ts';
import { actualTextAt, actualTextEdit } from './rewrite/actual-text.ts';
import { attemptPixelPatch, type ServedCrop } from './scan/tier5.ts';
import { hiddenWordOf, type HiddenWord } from './scan/hidden-text.ts';
import { classifyPage } from '../documents/classify.ts';
import { climb, type Code, type TierContext, type TierProduct } from './tiers/tier-ladder.ts';
import { reuseCodes, tier1Code } from './tiers/tier1.ts';
import { freshFontName, planMatchedEdits } from './tiers/tier4.ts';
import { crossFontEdits, crossFontRefusal, crossFontSwap } from './tiers/cross-font-swap.ts';
import { planRespacing, respacingExtent, type Respacing } from './fit/line-respacing.ts';

export interface EditTaskInput {
  pdf: Uint8Array;
  password: string;
  request: EditRequest;
  manifest: ManifestInput;
  /** Crops of this revision served to the account (crop.png), for an OCR match's `confirmed`. */
  served_regions?: ServedCrop[];
}

export type EngineProposal = Omit<ProposalOut, 'proposal_id' | 'confirm_token' | 'document_id'> & {
  fingerprint: string;
};

export type EngineVerification = Omit<VerificationOut, 'verification_id' | 'revision_id'> & {
  declared_box: number[];
  changed_box: number[] | null;
  text_before: string;
  text_after: string;
};

export const ENGINE_VERSION = 'docfix-engine/1';

/** Overflow allowed past the old text's end without any gap to use, in em. */
export const FIT_TOLERANCE_EM = 0.02;
/** Space kept between the new text's end and the next drawn character, in em. */
export const KEEP_GAP_EM = 0.15;
/** Overflow allowed at the end of a line (nothing follows), in em. */
export const LINE_END_ALLOWANCE_EM = 0.25;
/**
 * A gap inside a word at least this wide (in em) may read as a word break: poppler's pdftotext
 * breaks words at a gap of 0.1 of the font size (TextOutputDev's minWordBreakSpace), MuPDF only at
 * a wider one, so MuPDF's text check alone would pass a word poppler reads split.
 */
export const WORD_BREAK_EM = 0.08;
/** How far (em) kerning may pull a letter back into the advance of the one before it. */
const KERN_BACK_EM = 0.3;
const PREVIEW_MARGIN_PX = 12;

interface Candidate {
  tier: number;
  /** Tier 5 says its own cost, a re-spaced line costs `low`; otherwise it follows from the tier. */
  cost?: 'low' | 'medium';
  fontAlternatives: number;
  explanation: string;
  measurements: Record<string, unknown>;
  warnings: string[];
  rejected: TierRejection[];
  output: Uint8Array;
  verify: VerifyOutput;
  beforeRender: RgbImage;
  fingerprint: string;
  textBefore: string;
  textAfter: string;
  box: Box;
  /** Objects the correction declared (for the structural guard) and what its manifest records. */
  declared: DeclaredObject[];
  /**
   * Rows (300 dpi) of the edited line's band, full width, where a rewrite can move glyphs: PDFium's
   * witness renders only these when the structural guard passed (null: the whole page).
   */
  band: [number, number] | null;
  facts: ManifestFacts;
}

/** Refusal proposal (tier -1, tier_name 'none', visibility_cost 'refused'). */
function refusalProposal(pageIndex: number, r: Refusal, fontAttempt: number): EngineProposal {
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

function methodRefusal(method: string): never {
  refuse(
    'method_not_available',
    `Target method “${method}” is not available in this engine.`,
    'Visual targets (a box drawn on the render) are not built; the engine corrects text it finds in the text layer, or on a scan by recognition.',
    [
      'Use method "text_layer" with the exact text the page extracts.',
      'On a scanned page, use method "ocr" with the word as the scan shows it.',
    ],
    { rejected: NOT_BUILT },
  );
}

/** Proposes an edit: the whole edit done in memory, rendered and compared, nothing kept. */
export async function proposeEdit(input: EditTaskInput): Promise<EngineProposal> {
  const result = await run(input, false);
  return result.proposal;
}

/** Applies an edit: the same work as a proposal, with the manifest embedded, verified on the saved bytes. */
export async function applyEdit(
  input: EditTaskInput,
): Promise<{ proposal: EngineProposal; output: Uint8Array; verification: EngineVerification }> {
  const key = proposalKey(input);
  const kept = keptProposals.find((e) => e.key === key);
  if (kept) {
    const reused = applyOnProposal(input, kept);
    if (reused) return reused;
  }
  const result = await run(input, true);
  if (!result.candidate) {
    throw new DocfixError('edit_refused', result.proposal.refusal ?? 'The engine refused the correction.', {
      advice: result.proposal.advice,
      rejected: result.proposal.rejected,
    });
  }
  const c = result.candidate;
  const v = c.verify;
  const verification: EngineVerification = {
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
  return { proposal: result.proposal, output: c.output, verification };
}

async function run(
  input: EditTaskInput,
  forApply: boolean,
): Promise<{ proposal: EngineProposal; candidate: Candidate | null }> {
  const request = input.request;
  const pageIndex = request.page_index ?? 0;
  const fontAttempt = request.font_attempt ?? 0;
  try {
    const candidate = await attemptAnyTier(input, forApply);
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
    if (!v.passed) {
      // A candidate that would not verify is not offered: the proposal is a refusal with the evidence.
      // Failing only because renderers read the font's fractional widths differently is a known
      // limit of the format, not an engine failure: the advice says which replacements keep the line.
      const readingsOnly =
        v.diff.outside_pixels === 0 && v.guards.every((g) => g.passed || g.name === 'widths_read_alike');
      throw new Refusal(
        {
          code: 'would_not_verify',
          what: 'The rewritten text would change the page in a way the verification does not accept.',
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
    const proposal: EngineProposal = {
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

/** A proposal's visibility cost: tier 5 and a re-spaced line say their own; tier 4 draws in another face (low); else none. */
function costOf(f: { tier: number; cost?: 'low' | 'medium' }): 'none' | 'low' | 'medium' {
  return f.cost ?? (f.tier === 4 ? 'low' : 'none');
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
    const { doc } = openPdf(input.pdf, input.password);
    let hidden: HiddenWord | null;
    try {
      const pageIndex = input.request.page_index ?? 0;
      const page = loadPage(doc, pageIndex);
      // Invisible text over a scan is an OCR layer: the word is in the scan's pixels. Elsewhere it
      // is hidden text that draws nothing, and stays refused.
      const kind = classifyPage(page, pageIndex).info.kind;
      const overScan = kind === 'scanned' || kind === 'scanned_with_text_layer' || kind === 'mixed';
      hidden = overScan
        ? hiddenWordOf(beforeState(input, pageIndex, page).lines, target.find, target.match_index ?? 0)
        : null;
    } finally {
      doc.destroy();
    }
    if (!hidden) throw error;
    return patchCandidate(input, forApply, hidden);
  }
}

/** Tier 5 with the engine's shared steps: the before render, the declared objects and manifest, the exact save. */
async function patchCandidate(
  input: EditTaskInput,
  forApply: boolean,
  hidden: HiddenWord | null,
): Promise<Candidate> {
  const request = input.request;
  const target = request.target;
  if (target.method === 'visual') methodRefusal(target.method);
  const pageIndex = request.page_index ?? 0;
  const find = target.find;
  const replacement = request.replacement ?? '';
  const ocr = target.method === 'ocr' ? target : null;
  const patch = await attemptPixelPatch(
    input.pdf,
    input.password,
    {
      find,
      replacement,
      pageIndex,
      matchIndex: target.match_index ?? 0,
      confirmed: ocr?.confirmed ?? false,
      renderDpi: ocr?.render_dpi ?? WORKING_DPI,
      lang: ocr?.lang ?? null,
      hidden,
    },
    input.served_regions ?? [],
    {
      beforeRender: (page) => beforeState(input, pageIndex, page).render(),
      declare: (doc, page, facts, changed) =>
        declareObjects(
          doc,
          input,
          page,
          { page: pageIndex, find, replacement, tier: 5, ...facts },
          changed,
          forApply,
        ),
      save: (doc, opened, pageCount, changed, objects) =>
        saveExact(doc, input, opened, { pageIndex, pageCount }, changed, objects),
    },
  );
  return {
    tier: 5,
    cost: patch.cost,
    fontAlternatives: 0,
    explanation: patch.explanation,
    measurements: patch.measurements,
    warnings: patch.warnings,
    rejected: [],
    output: patch.output,
    verify: patch.verify,
    beforeRender: patch.beforeRender,
    fingerprint: patch.fingerprint,
    textBefore: find,
    textAfter: replacement,
    box: patch.box,
    declared: patch.declared,
    band: null,
    facts: { page: pageIndex, find, replacement, tier: 5, ...patch.facts },
  };
}

const devicePoint = (g: Glyph, x: number): [number, number] => applyMat(mul(g.tm, g.ctm), x, g.state.Trise);
const round = (v: number) => Math.round(v * 1000) / 1000;

/** The page and the target on it, as every step after the ladder reads them. */
export interface Located extends Target {
  pageIndex: number;
  pageCount: number;
  page: mupdf.PDFPage;
  before: BeforeState;
  interp: Interpretation;
  index: GlyphIndex;
  /** The target's first glyph, and its font. */
  g0: Glyph;
  font: FontInfo;
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
      // The first refusal names the letter itself; a gap left at the word's end names what follows it.
      const atEnd = wider instanceof Refusal && wider.advice.code === 'gap_inside_word';
      if (wider instanceof Refusal) throw atEnd && error.advice.code === 'gap_inside_word' ? wider : error;
      throw wider;
    }
  }
}

function attemptSpan(input: EditTaskInput, forApply: boolean, toWordEnd: boolean): Candidate {
  const { find, matchIndex, replacement } = checkRequest(input.request);
  const opened = openPdf(input.pdf, input.password);
  const doc = opened.doc;
  const programs: mupdf.Font[] = [];
  try {
    const t = locate(input, doc, find, matchIndex, replacement, toWordEnd);
    const warnings = [...signatureWarnings(doc), ...cropBoxWarnings(doc, t.page)];
    // A word drawn one glyph per operator: a swap of its own letters of equal widths is made in
    // place (cross-font-swap.ts); in several fonts nothing else can be.
    const swap = t.byGlyph ? crossFontSwap(t) : null;
    if (!swap && !t.oneRun) crossFontRefusal();
    const { tier, product, rejected } = swap
      ? { tier: 1, product: swap.product, rejected: [] }
      : climb(tierContext(doc, t, input.request.font_attempt ?? 0, programs));
    if (!t.font.embedded && t.font.kind !== 'Type3') warnings.push(notEmbedded(t.font));
    if (t.reading === 'codes') warnings.push(codeReadingWarning(t.font, find));
    verticalRule(t, tier, product.codes, rejected, product.widthFont.wmode === 1 && product.keepsOldAdvances);
    const fit = fitRule(t, tier, product, find, replacement, rejected);
    if (-fit.overflow > 0.5 * fit.emPts)
      warnings.push(`The new text is ${round(-fit.overflow)} pt narrower: a wider gap follows it.`);
    const plan = swap
      ? { ...crossFontEdits(t, swap.donors), overrides: new Map() }
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
    // Words moved to make room show to a careful eye comparing before and after: not `none`.
    const cost = fit.respacing ? ('low' as const) : undefined;
    const facts: ManifestFacts = { page: t.pageIndex, box, find, replacement, tier, ...(cost && { cost }) };
    const objects = declareObjects(doc, input, t.page, facts, changedObjects, forApply);
    const saved = saveExact(doc, input, opened, t, changedObjects, objects);
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
    doc.destroy();
  }
}

/** The request's target and replacement, or a refusal for a method, or a replacement, that cannot be done. */
function checkRequest(request: EditRequest): { find: string; matchIndex: number; replacement: string } {
  const target = request.target;
  if (target.method !== 'text_layer') methodRefusal(target.method);
  const find = target.find;
  const replacement = request.replacement ?? '';
  if (replacement === '') {
    refuse(
      'empty_replacement',
      'The replacement is empty.',
      'Removing text leaves a visible gap; the engine only replaces text with other text.',
      ['Send the text that should stand in its place.'],
    );
  }
  if (replacement === find) {
    refuse(
      'identical_replacement',
      'The replacement is the same as the text found.',
      'There is nothing to change.',
      ['Send the corrected text as `replacement`.'],
    );
  }
  return { find, matchIndex: target.match_index ?? 0, replacement };
}

/** Opens the page, reads it and locates the glyphs that draw the target (or refuses). */
function locate(
  input: EditTaskInput,
  doc: mupdf.PDFDocument,
  find: string,
  matchIndex: number,
  replacement: string,
  toWordEnd = false,
): Located {
  const pageIndex = input.request.page_index ?? 0;
  const pageCount = doc.countPages();
  if (pageIndex >= pageCount) {
    throw new DocfixError(
      'page_out_of_range',
      `Page index ${pageIndex} is beyond the last page (${pageCount - 1}).`,
    );
  }
  const page = loadPage(doc, pageIndex);
  const before = beforeState(input, pageIndex, page);
  const lines = before.lines;
  const interp = interpretPage(page, page.getTransform() as Mat);
  const index = new GlyphIndex(interp.glyphs);
  const target = locateTarget(
    { lines, index, interp, annotations: () => pageAnnotationTexts(page) },
    find,
    matchIndex,
    replacement,
    { toWordEnd },
  );
  const g0 = target.glyphs[0];
  return { ...target, pageIndex, pageCount, page, before, interp, index, g0, font: g0.font };
}

const codeReadingWarning = (font: FontInfo, find: string) =>
  `“${find}” is in the page's text as pdftotext reads it, not as MuPDF does: the codes of ${font.baseFont ? `the font ${font.baseFont}` : 'a font of the page'} read through the PDF's own maps (the whole ToUnicode stream, the encoding, a code nothing maps read as itself), letter-spaced words read whole. MuPDF, and readers like it, do not find “${find}”; the text check read the corrected page the same way.`;

const notEmbedded = (font: FontInfo) =>
  `The font ${font.baseFont} is not embedded: the new characters are drawn by each viewer's own font, as the rest of the text is.`;

/**
 * A page whose CropBox lies inside a larger MediaBox: viewers show the crop, docfix works on the whole
 * MediaBox (page-frame.ts), as printers and poppler do. Say so, and where the crop starts, so a box
 * read against a viewer's picture is not misplaced.
 */
function cropBoxWarnings(doc: mupdf.PDFDocument, page: mupdf.PDFPage): string[] {
  const shown = shownBox(doc, page);
  if (!shown) return [];
  const media = String(page.getObject().getInheritable('MediaBox'));
  return [
    `The page shows its CropBox ${shown.written} of a larger MediaBox ${media}: boxes and renders cover the whole MediaBox, as printers and poppler (pdftoppm, pdftotext) see the page; a viewer shows only the CropBox, which starts ${round(shown.box[0])} pt from the left and ${round(shown.box[1])} pt from the top.`,
  ];
}

function signatureWarnings(doc: mupdf.PDFDocument): string[] {
  const signed = signedFields(doc);
  if (!signed.names.length && !(signed.sigFlags & 1)) return [];
  return [
    `The document is signed (${signed.names.length ? `signature field(s) ${signed.names.map((n) => `“${n}”`).join(', ')}` : 'AcroForm SigFlags'}): the correction is saved as an incremental update, so the signed revision stays byte-exact, but viewers will show the signature as covering an earlier revision — the document as modified after signing.`,
  ];
}

/** What the tiers are given; font programs they load are kept in `programs`, destroyed with the document. */
function tierContext(
  doc: mupdf.PDFDocument,
  t: Located,
  fontAttempt: number,
  programs: mupdf.Font[],
): TierContext {
  const font = t.font;
  const observedByFont = observedCodes(t.lines, t.index);
  const observed = observedByFont.get(font) ?? new Map<string, Map<number, number>>();
  let program: mupdf.Font | null | undefined;
  const getProgram = () => {
    if (program === undefined) {
      program = loadProgram(font);
      if (program) programs.push(program);
    }
    return program;
  };
  const programOf = (f: FontInfo) => {
    const p = loadProgram(f);
    if (p) programs.push(p);
    return p;
  };
  return {
    doc,
    font,
    glyphs: t.glyphs,
    newChars: t.newChars,
    interp: t.interp,
    fontAttempt,
    reused: reuseCodes(font, t.newChars, observed, getProgram, t.g0.length),
    program: getProgram,
    programOf,
    observed: observedByFont,
  };
}

/**
 * Vertical writing: every glyph advances down the column by the same amount (DW2; fonts with /W2
 * are not mapped at all), so a replacement of the same number of glyphs from the font's own codes,
 * string for string, leaves every other glyph where it was. Anything else is refused.
 */
function verticalRule(
  t: Located,
  tier: number,
  codes: Code[],
  rejected: TierRejection[],
  verticalStandIn = false,
): void {
  const { glyphs, g0, font } = t;
  if (font.wmode !== 1) return;
  const oneString = glyphs.every(
    (g) => g.unit === g0.unit && g.opIndex === g0.opIndex && g.element === g0.element,
  );
  if (tier === 1 && codes.length === glyphs.length && (oneString || keepsInnerKerning(glyphs, codes))) return;
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

/** The new text's extent against the old one's and the room after it; the correction's measurements. */
interface Fit {
  measurements: Record<string, unknown>;
  overflow: number;
  rule: string;
  /** The font size on the page, and the length of one text-space unit along the baseline. */
  emPts: number;
  dirLen: number;
  vertical: boolean;
  /** Replaced code for code inside one TJ array: the kerning numbers between the letters stay. */
  spread: boolean;
  /** The word gaps after the target narrowed for a wider replacement (line-respacing.ts). */
  respacing: Respacing | null;
}

/**
 * Width: the new text starts where the old did; the pen after it is put back where it was. It may
 * take more room than the old text only where the line has room (docs/engine.md, Fit); else refused.
 */
function fitRule(
  t: Located,
  tier: number,
  product: TierProduct,
  find: string,
  replacement: string,
  rejected: TierRejection[],
): Fit {
  const { glyphs, g0, font, lines, span, newChars } = t;
  const { codes, widthFont } = product;
  const vertical = font.wmode === 1;
  // A freshly embedded matched face takes the old glyphs' advances (tier4.ts, mirrorOldWidths).
  const newAdvance = product.keepsOldAdvances
    ? glyphs.reduce((s, g) => s + g.advance, 0)
    : advanceOf(widthFont, codes, g0) * (product.squeeze ?? 1);
  const last = glyphs[glyphs.length - 1];
  const oldEnd = devicePoint(last, last.advance);
  const start = devicePoint(g0, 0);
  const unitX = devicePoint(g0, 1);
  const dirLen = Math.hypot(unitX[0] - start[0], unitX[1] - start[1]) || 1;
  const dir: [number, number] = [(unitX[0] - start[0]) / dirLen, (unitX[1] - start[1]) / dirLen];
  const emPts = Math.abs(g0.state.Tfs) * dirLen;
  const along = (p: [number, number]) => (p[0] - start[0]) * dir[0] + (p[1] - start[1]) * dir[1];
  const oldExtent = along(oldEnd);
  // Vertical: the same count of glyphs with one advance each takes the column's old extent.
  // A swap made in place draws each new glyph where the old one stood (cross-font-swap.ts).
  let newExtent = vertical || product.inPlace ? oldExtent : newAdvance * dirLen * Math.sign(g0.state.Th || 1);
  // Replaced code for code inside one TJ array, the kerning numbers between the letters stay
  // where they are (rewrite.ts), so they count in the new extent as they did in the old.
  const spread = !vertical && product.draw.use !== 'inserted' && keepsInnerKerning(glyphs, codes);
  if (spread) {
    const oldWidths = glyphs.reduce((s, g) => s + g.advance, 0) * dirLen * Math.sign(g0.state.Th || 1);
    newExtent += oldExtent - oldWidths;
  }
  const overflow = newExtent - oldExtent;
  // The next character ahead of the old end on the same baseline band, whatever line or block
  // MuPDF put it in (table cells, columns, right-to-left runs), skipping spaces.
  const lineChars = t.match.line.chars;
  const across = (p: [number, number]) => -(p[0] - start[0]) * dir[1] + (p[1] - start[1]) * dir[0];
  const spanChars = new Set(lineChars.slice(span.spanStart, span.spanEnd));
  const eps = 0.01 * emPts;
  // The first character (not a space) on the band from `from` on, and the nearest space there.
  const ahead = (from: number, skip: Set<unknown>) => {
    let first: { c: string; at: number } | null = null;
    let space = Infinity;
    for (const l of lines)
      for (const ch of l.chars) {
        if (skip.has(ch) || Math.abs(across(ch.origin)) > 0.5 * emPts) continue;
        const at = along(ch.origin);
        if (at < from) continue;
        if (/\s/.test(ch.c)) space = Math.min(space, at);
        else if (!first || at < first.at) first = { c: ch.c, at };
      }
    return { first, space };
  };
  // From a little before the old end: kerning may pull the next letter back (Liberation Sans Bold's
  // “е” starts 0.01 em inside “л”'s advance), and a letter missed here is a word gap believed.
  const { first: next, space: nearestSpace } = ahead(
    Math.max(eps, oldExtent - KERN_BACK_EM * emPts),
    spanChars,
  );
  const gapToNext = next ? next.at - oldExtent : null;
  // The right edge the line's column is set to: the commonest right edge (within half a point) of
  // the page's other upright lines that start where this one does (within half a point: a centred
  // line starts elsewhere), when two or more share it (a justified paragraph's width). A heading or
  // a paragraph's last line may grow up to it.
  const columnRight = (() => {
    const me = t.match.line;
    const edges = lines
      .filter((l) => l !== me && Math.abs(l.bbox[0] - me.bbox[0]) < 0.5 && l.dir[0] > 0.99)
      .map((l) => l.bbox[2]);
    let best: number | null = null;
    let most = 1;
    for (const e of edges) {
      const n = edges.filter((x) => Math.abs(x - e) < 0.5).length;
      if (n > most) [best, most] = [e, n];
    }
    return best;
  })();
  // Room after a later glyph of the line (re-spacing moves the line's last word into it): to
  // the next character on the band, keeping KEEP_GAP_EM, or past the line's end where the line is
  // not set flush with others (a justified line keeps its right edge): LINE_END_ALLOWANCE_EM, or up
  // to its column's right edge.
  const roomAfter = (g: Glyph) => {
    const end = along(devicePoint(g, g.advance));
    const following = ahead(end + eps, new Set()).first;
    if (following) return Math.min(LINE_END_ALLOWANCE_EM * emPts, following.at - end - KEEP_GAP_EM * emPts);
    if (Math.abs(dir[1]) > 0.01 || dir[0] < 0) return 0; // flush edges are read on upright lines only
    const right = t.match.line.bbox[2];
    const flush = lines.filter((l) => l !== t.match.line && Math.abs(l.bbox[2] - right) < 0.5).length >= 2;
    if (flush) return 0;
    const toColumnEdge = columnRight !== null ? columnRight - devicePoint(g, g.advance)[0] : 0;
    return Math.max(LINE_END_ALLOWANCE_EM * emPts, toColumnEdge);
  };
  // A word gap is a space character before the next letter, or a gap as wide as one (producers
  // that place each word by itself draw no space glyph at all).
  const spaceFollows =
    (next ? nearestSpace < next.at : nearestSpace < Infinity) ||
    (gapToNext !== null && gapToNext >= WORD_GAP_EM * emPts);
  let allowed: number;
  let rule: string;
  let respacing: Respacing | null = null;
  const geometry = { along: (g: Glyph, x: number) => along(devicePoint(g, x)), dirLen, emPts };
  // A narrower replacement leaves a gap where it ends (the glyphs after it stay where they were):
  // against the next letter of the word, a gap of WORD_BREAK_EM reads as a space.
  const gapOpens = !vertical && !product.inPlace && !product.mirrorsAdvances;
  // Re-spacing the line (line-respacing.ts). Each gap stays a word gap by this engine's own
  // measure: MuPDF reads no space into a gap of 0.15 em in some fonts (Linux Libertine's 0.25 em
  // space narrowed that far). The gaps after the target give first; where they cannot give enough,
  // those before it on the line give too.
  const respace = (by: number, restOfWord: boolean) => {
    const limits = { keepGapEm: WORD_GAP_EM, wordGapEm: WORD_GAP_EM, roomAfter, restOfWord };
    const plan = (before: boolean) =>
      planRespacing(glyphs, t.interp, lineChars, t.index, by, geometry, { ...limits, before });
    return plan(false) ?? (by > 0 ? plan(true) : null);
  };
  // New letters drawn in another font (tier 4) inside a word: the rest of the word stays in its own
  // font and moves with them, the gaps of the line giving (or taking) the difference.
  const restOfWord = (by: number) =>
    product.draw.use === 'inserted' && gapOpens && next && !spaceFollows ? respace(by, true) : null;
  if (overflow <= FIT_TOLERANCE_EM * emPts) {
    allowed = FIT_TOLERANCE_EM * emPts;
    rule = `fits: the new text is no wider than the old (+${FIT_TOLERANCE_EM} em tolerance)`;
    if (-overflow >= WORD_BREAK_EM * emPts && (respacing = restOfWord(overflow)))
      rule = `narrower: ${respacedPhrase(respacing)}`;
  } else if (!next) {
    allowed = Math.max(LINE_END_ALLOWANCE_EM * emPts, roomAfter(last));
    rule =
      allowed > LINE_END_ALLOWANCE_EM * emPts
        ? `line end: up to the right edge of the line's column (${round(allowed)} pt) when nothing follows on the line`
        : `line end: up to ${LINE_END_ALLOWANCE_EM} em past the old end when nothing follows on the line`;
    // The line's last word, wider than that: the word gaps before it give the rest.
    respacing = overflow > allowed && !vertical && !product.inPlace ? respace(overflow, false) : null;
    if (respacing) {
      allowed = overflow;
      rule = `line re-spaced: ${respacedPhrase(respacing)}, keeping ${WORD_GAP_EM} em each`;
    }
  } else if (spaceFollows) {
    allowed = Math.max(FIT_TOLERANCE_EM * emPts, (gapToNext ?? 0) - KEEP_GAP_EM * emPts);
    rule = `word gap: may use the space to the next word, keeping ${KEEP_GAP_EM} em before it`;
    // Wider than that gap: the word gaps after it in its operator each give the same amount.
    respacing = overflow > allowed && !vertical && !product.inPlace ? respace(overflow, false) : null;
    if (respacing) {
      allowed = overflow;
      rule = `line re-spaced: ${respacedPhrase(respacing)}, keeping ${WORD_GAP_EM} em each`;
    }
  } else if ((respacing = restOfWord(overflow))) {
    allowed = overflow;
    rule = `the word goes on: ${respacedPhrase(respacing)}, keeping ${WORD_GAP_EM} em each`;
  } else {
    allowed = FIT_TOLERANCE_EM * emPts;
    rule = `no gap: the next character follows directly; only ${FIT_TOLERANCE_EM} em tolerance`;
  }
  const measurements: Record<string, unknown> = {
    font: font.baseFont,
    font_kind: font.composite ? `Type0/${font.descendantKind}` : font.kind,
    embedded: font.embedded,
    encoding: font.encodingName || null,
    font_size: round(g0.state.Tfs),
    size_on_page_pt: round(emPts),
    old_text: lineChars
      .slice(span.spanStart, span.spanEnd)
      .map((c) => c.c)
      .join(''),
    new_text: newChars.join(''),
    old_codes: glyphs.map((g) => g.code),
    new_codes: codes.map((c) => c.code),
    code_sources: product.sources,
    width_before_pt: round(oldExtent),
    width_after_pt: round(newExtent),
    overflow_pt: round(overflow),
    allowed_overflow_pt: round(allowed),
    gap_to_next_pt: gapToNext === null ? null : round(gapToNext),
    fit_rule: rule,
    ...(respacing && {
      respaced: {
        word_gaps_pt: respacing.gaps.map((g) => ({ before: round(g.before), after: round(g.after) })),
        word_gaps_before_pt: respacing.gapsBefore.map((g) => ({
          before: round(g.before),
          after: round(g.after),
        })),
        target_move_pt: round(respacing.targetShift),
        glyphs_moved: respacing.moved.length,
        max_move_pt: round(respacingExtent(respacing).moved),
        last_word_move_pt: round(respacing.endShift),
        rest_of_word: { glyphs: respacing.rest.glyphs, move_pt: round(respacing.rest.shift) },
      },
    }),
    ...product.measurements,
  };
  if (overflow > allowed) {
    rejected.push({
      tier,
      tier_name: TIER_NAMES[tier],
      code: 'does_not_fit',
      reason: `The new text is ${round(overflow)} pt wider than the old and only ${round(Math.max(0, allowed))} pt may be used (${rule}).`,
      evidence: measurements,
    });
    refuse(
      'replacement_too_wide',
      `“${replacement}” is ${round(overflow)} pt wider than “${find}” in this font, and the line has no room for it.`,
      `The rest of the word is redrawn with it, and may take the gap after it down to ${KEEP_GAP_EM} em, or the word gaps after it on the line (in its text operator and in later ones of the same stream, up to a column's gap) down to ${WORD_GAP_EM} em each (the line is re-spaced, its last word may move into free space after it), and then those before it as well (the words before it moving left, the line's first staying); here they cannot give enough room, or another character follows directly.`,
      [
        'Choose a replacement of about the same width.',
        'Re-flowing the paragraph (moving words to the next line) is not something this engine does.',
      ],
      { rejected: [...rejected, ...NOT_BUILT], evidence: measurements },
    );
  }
  if (gapOpens && !respacing && next && !spaceFollows && -overflow >= WORD_BREAK_EM * emPts) {
    rejected.push({
      tier,
      tier_name: TIER_NAMES[tier],
      code: 'gap_inside_word',
      reason: `The new text is ${round(-overflow)} pt narrower than the old, and “${next.c}” follows directly.`,
      evidence: measurements,
    });
    refuse(
      'gap_inside_word',
      `“${replacement}” is ${round(-overflow)} pt narrower than “${find}” here, and the gap it would leave before “${next.c}” reads as a space.`,
      'Every other glyph of the line stays where it is, so a narrower replacement leaves a gap where it ends; text extraction (pdftotext breaks words at a tenth of an em) would read the word as two.',
      [
        'Choose a replacement of about the same width.',
        'The rest of the word is redrawn with it where it can be, so the gap joins the space after the word; a word that goes on in another text operator, or for more than 32 characters, cannot be.',
      ],
      { rejected: [...rejected, ...NOT_BUILT], evidence: measurements },
    );
  }
  return { measurements, overflow, rule, emPts, dirLen, vertical, spread, respacing };
}

/** What a re-spacing gives and moves, in the words of the fit rule and the warning. */
function respacedPhrase(r: Respacing): string {
  const rest =
    r.rest.glyphs > 0
      ? `the rest of its word (${r.rest.glyphs} glyph(s), in its own font) moves ${round(Math.abs(r.rest.shift))} pt ${r.rest.shift < 0 ? 'left' : 'right'} with it, `
      : '';
  if (r.rest.shift < 0) {
    if (r.endShift < 0 && r.gaps.length)
      return `${rest}and the ${r.gaps.length} word(s) after it on the line as much (the line is not set flush: it ends ${round(-r.endShift)} pt earlier)`;
    return `${rest}${r.gaps.length ? `and the ${r.gaps.length} word gap(s) after it on the line each widen by ${round(-Math.min(0, ...r.gaps.map((g) => g.before - g.after)))} pt` : 'and a number after it puts the pen back'}`;
  }
  const after = r.gaps.length
    ? `the ${r.gaps.length} word gap(s) after it on the line each give up to ${round(respacingExtent(r).given)} pt`
    : 'no word gap follows on the line';
  const gaps = r.gapsBefore.length
    ? `${after}, and the ${r.gapsBefore.length} before it up to ${round(Math.max(...r.gapsBefore.map((g) => g.before - g.after)))} pt each (it moves ${round(-r.targetShift)} pt left, with the words between the line's first and it)`
    : after;
  return `${rest}${gaps}${r.endShift > 0 ? `, and its last word moves ${round(r.endShift)} pt into the free space after it` : ", and the line's last word stays where it was"}`;
}

type GuardCheck = { passed: boolean; detail: string };

/** Thousandths of an em the rest of a line may move between readings of its widths (rewrite.ts). */
const READING_TOLERANCE = 0.05;

/**
 * Guard `widths_read_alike`: the new codes are compensated as MuPDF reads widths; a font whose
 * widths are written with fractions is read otherwise by poppler, and the rest of the line must not
 * move there either (exactReadingShift). Glyphs placed one by one, or down a column, move nothing.
 */
function widthsReadAlike(t: Located, product: TierProduct, fit: Fit): GuardCheck & { declareRest: boolean } {
  if (fit.vertical || product.inPlace)
    return {
      passed: true,
      declareRest: false,
      detail: 'each new glyph stands where an old one stood: no width moves the glyphs after it',
    };
  const shift = exactReadingShift(t.glyphs, product.widthFont, product.codes, product.squeeze ?? 1);
  const units = Math.round(shift * 1000) / 1000;
  if (Math.abs(shift) <= READING_TOLERANCE)
    return {
      passed: true,
      declareRest: false,
      detail: `the widths as written and as MuPDF rounds them place the rest of the line alike (${units}/1000 em apart)`,
    };
  // The readings part by less than a thousandth of an em, after the target only: where nothing
  // drawn later starts from the pen the operator leaves (pdfTeX places every TJ with its own Td),
  // the rest of the operator is declared and no glyph outside it can move in any reading.
  const last = t.glyphs[t.glyphs.length - 1];
  const oneOperator = t.glyphs.every((g) => g.unit === last.unit && g.opIndex === last.opIndex);
  if (oneOperator && Math.abs(shift) < 1 && penResetAfter(t.interp.units, last.unit, last.opIndex))
    return {
      passed: true,
      declareRest: true,
      detail: `the font's widths are written with fractions that renderers read differently: a renderer that reads them as written (poppler) places the rest of the operator ${units}/1000 em from where MuPDF does, so those glyphs are declared; every text operator after it is placed afresh, so nothing else moves`,
    };
  return {
    passed: false,
    declareRest: false,
    detail: `the font's widths are written with fractions that renderers read differently: with the rest of the line kept in place as MuPDF reads them, a renderer that reads them as written (poppler) would move it ${units}/1000 em`,
  };
}

/**
 * Every text operator after `opIndex` in its stream is placed afresh (Td, TD, Tm, T*, ', " or a new
 * BT) before it shows text, so the pen that operator leaves is never used. A page whose content
 * goes on in a later part of /Contents is not followed there: false.
 */
function penResetAfter(units: StreamUnit[], unitIndex: number, opIndex: number): boolean {
  const unit = units[unitIndex];
  for (let k = opIndex + 1; k < unit.ops.length; k += 1) {
    const op = unit.ops[k].op;
    if (['Td', 'TD', 'Tm', 'T*', 'BT', 'ET', "'", '"'].includes(op)) return true;
    if (op === 'Tj' || op === 'TJ') return false;
  }
  return !(
    unit.kind === 'page' &&
    units.some((u) => u.kind === 'page' && (u.contentsIndex ?? 0) > (unit.contentsIndex ?? 0))
  );
}

interface EditPlan {
  edits: Map<number, StreamEdit[]>;
  changes: OperandChange[];
  overrides: ResourceOverrides;
}

/**
 * The content-stream edits: the codes swapped in the operators that draw the old ones, or (a font
 * inserted by tier 3 or 4) the operator split around a run in that font under a fresh resource name.
 * A tier 2 font copy takes the place of the page's font under its own resource name.
 */
function planEdit(
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
  const owner = interp.units[g0.unit].kind === 'page' ? -1 : g0.unit;
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
  } else ({ edits, changes } = planEdits(interp.units, glyphs, codes, widthFont, respacing?.kerns));
  if (respacing)
    warnings.push(
      respacing.rest.glyphs > 0 && respacing.gaps.length <= 1 && respacing.rest.shift !== 0
        ? `The rest of the word moves with “${measurements.new_text as string}”: ${respacedPhrase(respacing)}; ${respacing.moved.length} glyph(s) move by up to ${round(respacingExtent(respacing).moved)} pt.`
        : `The line is re-spaced: “${measurements.new_text as string}” is wider than the gap after it allows, so ${respacedPhrase(respacing)}; ${respacing.moved.length} glyph(s) move by up to ${round(respacingExtent(respacing).moved)} pt.`,
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

/**
 * Glyphs inside marked content with /ActualText are extracted as that text: it is rewritten with
 * them (actual-text.ts), where every changed glyph lies in the same span and it holds `find` once.
 */
function rewriteActualText(
  t: Located,
  edits: Map<number, StreamEdit[]>,
  find: string,
  replacement: string,
  measurements: Record<string, unknown>,
): void {
  const { g0, glyphs, interp } = t;
  const unit = interp.units[g0.unit];
  const first = actualTextAt(unit, g0.opIndex);
  if (!first) return;
  const last = glyphs[glyphs.length - 1];
  const oneSpan = last.unit === g0.unit && actualTextAt(unit, last.opIndex)?.start === first.start;
  const rewrite = oneSpan ? actualTextEdit(first, find, replacement) : null;
  if (!rewrite) {
    rewriteGlyphSpans(t, edits, measurements);
    return;
  }
  edits.set(g0.unit, [...(edits.get(g0.unit) ?? []), rewrite.edit]);
  measurements.actual_text = { before: rewrite.before, after: rewrite.after };
}

/**
 * One span per glyph (XeTeX's around each ideograph, `/Span <</ActualText <FEFF4E2D>>> BDC`): where
 * each glyph replaced letter for letter has a span of its own that says its old letter, each span
 * says the new one.
 */
function rewriteGlyphSpans(
  t: Located,
  edits: Map<number, StreamEdit[]>,
  measurements: Record<string, unknown>,
): void {
  const { glyphs, newChars, interp } = t;
  const oldChars = t.match.line.chars.slice(t.span.spanStart, t.span.spanEnd);
  if (oldChars.length !== glyphs.length || newChars.length !== glyphs.length) return;
  const spans = glyphs.map((g) => actualTextAt(interp.units[g.unit], g.opIndex));
  const planned: { unit: number; edit: StreamEdit }[] = [];
  for (let i = 0; i < glyphs.length; i += 1) {
    const span = spans[i];
    if (!span) return;
    // Its own span: the neighbours' spans are other ones.
    if (spans.some((o, k) => k !== i && o?.start === span.start && glyphs[k].unit === glyphs[i].unit)) return;
    if (oldChars[i].c === newChars[i]) continue;
    const rewrite = actualTextEdit(span, oldChars[i].c, newChars[i]);
    if (!rewrite || rewrite.before !== oldChars[i].c) return;
    planned.push({ unit: glyphs[i].unit, edit: rewrite.edit });
  }
  for (const p of planned) edits.set(p.unit, [...(edits.get(p.unit) ?? []), p.edit]);
  measurements.actual_text = { spans: planned.length, one_per_glyph: true };
}

/** The page before (render, glyph boxes of the old text, metric and ink) and where the new glyphs go. */
function glyphBoxes(t: Located, product: TierProduct, fit: Fit, declareRest = false) {
  const { glyphs, g0, match, span } = t;
  const { codes, widthFont } = product;
  const { vertical, spread } = fit;
  const beforeRender = t.before.render();
  const accurateBefore = t.before.accurate();
  const tol = Math.max(0.05, g0.state.Tfs * fit.dirLen * 0.01);
  const oldOrigins = glyphs.map((g) => g.origin);
  // Vertical glyphs: the em boxes they draw in, old code and new (MuPDF's quads stand an em lower).
  const emBoxes = (code: (i: number) => number, font?: FontInfo) =>
    glyphs
      .map((g, i) => verticalEmBox(g, code(i), font))
      .filter((b): b is [number, number, number, number] => b !== null)
      .map((b) => toRender(b));
  const newGlyphBoxes = vertical ? emBoxes((i) => codes[i].code, widthFont) : undefined;
  const oldBoxes = vertical
    ? emBoxes((i) => glyphs[i].code)
    : [
        ...match.line.chars.slice(span.spanStart, span.spanEnd).map((c) => toRender(quadBox(c.quad))),
        ...boxesAt(accurateBefore, oldOrigins, tol),
      ];
  const newOrigins: [number, number][] = [];
  // A line re-spaced by the gaps before the target draws the new text that much to the left.
  let x = (fit.respacing?.targetShift ?? 0) / fit.dirLen;
  codes.forEach((c, i) => {
    if (vertical || product.inPlace) {
      // Each new glyph takes the old one's place in the column (or is drawn by its operator).
      newOrigins.push([glyphs[i].origin[0], glyphs[i].origin[1]]);
      return;
    }
    if (spread) {
      // Each new glyph stands where the old one of its position stood, moved by the width
      // difference of the letters before it (the kerns between them are kept).
      const o = devicePoint(g0, x);
      const z = devicePoint(g0, 0);
      newOrigins.push([glyphs[i].origin[0] + o[0] - z[0], glyphs[i].origin[1] + o[1] - z[1]]);
      x += advanceOf(widthFont, [c], g0) - glyphs[i].advance;
      return;
    }
    newOrigins.push(devicePoint(g0, x));
    x += advanceOf(widthFont, [c], g0) * (product.squeeze ?? 1);
  });
  // A re-spaced line: the words that move are declared where they go (their character boxes, and
  // their ink where it reaches past them); where they stood, with the rest of the operator below.
  const movedOrigins: [number, number][] = [];
  if (fit.respacing) {
    const shifts = new Map(fit.respacing.moved.map((m) => [m.glyph, m.shift]));
    for (const ch of match.line.chars) {
      const g = t.index.at(ch);
      const shift = g && shifts.get(g);
      if (!g || !shift) continue;
      const [x0, y0] = devicePoint(g, 0);
      const [x1, y1] = devicePoint(g, shift / fit.dirLen);
      const b = quadBox(ch.quad);
      const moved: Box = [b[0] + x1 - x0, b[1] + y1 - y0, b[2] + x1 - x0, b[3] + y1 - y0];
      oldBoxes.push(toRender(moved));
      movedOrigins.push([g.origin[0] + x1 - x0, g.origin[1] + y1 - y0]);
    }
  }
  // Widths read apart by a fraction of a thousandth (widthsReadAlike), or a re-spaced line: the
  // rest of the operator.
  if (declareRest) {
    const last = glyphs[glyphs.length - 1];
    // Words a re-spacing moves in later operators (placed with their own Td or Tm) too.
    const rest = new Set([
      ...t.interp.glyphs.filter(
        (g) => g.unit === last.unit && g.opIndex === last.opIndex && g.index > last.index,
      ),
      ...(fit.respacing?.moved.map((m) => m.glyph) ?? []),
    ]);
    for (const l of t.lines)
      for (const ch of l.chars) {
        const g = t.index.at(ch);
        if (!g || !rest.has(g)) continue;
        oldBoxes.push(toRender(quadBox(ch.quad)));
        oldOrigins.push(g.origin);
      }
  }
  return {
    beforeRender,
    tol,
    oldOrigins,
    oldBoxes,
    newOrigins,
    movedOrigins,
    newGlyphBoxes,
    emPts: fit.emPts,
  };
}

/** The target's characters found at the glyph origins the content stream gives, or a refusal. */
function checkTextPlace(t: Located): { passed: boolean; detail: string } {
  const place = checkPlace(t.match.line, t.match.start, t.findCps.length, t.index);
  if (place.passed) return place;
  refuse(
    'text_not_mapped',
    'Not every character of the target could be tied to the glyph that draws it.',
    `The engine's reading of the content stream and MuPDF's text disagree on where the target is (${place.detail}).`,
    [
      'Try a neighbouring word to see whether the font is readable at all.',
      'Report the file if the text is plainly visible.',
    ],
    { worth_reporting: true, rejected: NOT_BUILT },
  );
}

/**
 * Writes the edits copy-on-write and lists every object changed or added. An annotation or form
 * field whose appearance was corrected: the text it holds as values (contents, rich text, a field's
 * value) says the same, or a warning says it does not.
 */
function writeCorrection(
  doc: mupdf.PDFDocument,
  t: Located,
  plan: EditPlan,
  product: TierProduct,
  find: string,
  replacement: string,
  warnings: string[],
): ChangedObject[] {
  const units = t.interp.units;
  const changedObjects: ChangedObject[] = writeEdits(doc, t.page, units, plan.edits, plan.overrides);
  changedObjects.push(...product.changed);
  for (const c of changedObjects.filter((x) => x.kind === 'annotation')) {
    const annot = units.find((u) => u.annot && u.annot.asIndirect() === c.num)?.annot;
    if (annot) warnings.push(...correctAnnotationValues(doc, annot, find, replacement, changedObjects));
  }
  return changedObjects;
}

/**
 * Every existing object rewritten, and every new object copied from an existing one, declared with
 * its kind: the structural guard allows changes only at that kind's keys. An apply embeds the
 * manifest here (the catalog is then rewritten too).
 */
function declareObjects(
  doc: mupdf.PDFDocument,
  input: EditTaskInput,
  page: mupdf.PDFPage,
  facts: ManifestFacts,
  changedObjects: ChangedObject[],
  forApply: boolean,
): { declared: DeclaredObject[]; rewrittenExisting: number[] } {
  const rewrittenExisting = [page.getObject().asIndirect()];
  const manifestObjects: DeclaredObject[] = [];
  if (forApply) {
    manifestObjects.push(...embedManifestOf(doc, input, facts));
    const catalog = manifestObjects.find((d) => d.kind === 'catalog');
    if (catalog) rewrittenExisting.push(catalog.num);
  }
  const declared: DeclaredObject[] = [{ num: rewrittenExisting[0], kind: 'page' }, ...manifestObjects];
  for (const c of changedObjects) {
    if (c.kind === 'annotation' && c.num > 0) {
      // An annotation whose appearance was corrected: an existing object, rewritten at /AP.
      declared.push({ num: c.num, kind: 'annotation' });
      rewrittenExisting.push(c.num);
      continue;
    }
    if (c.num === c.replaces || declared.some((d) => d.num === c.num)) continue;
    const copy =
      c.replaces > 0 &&
      (c.kind === 'font' ||
        c.kind === 'type3 font' ||
        c.kind === 'form xobject' ||
        c.kind === 'annotation appearance' ||
        c.kind === 'resources');
    declared.push(copy ? { num: c.num, kind: c.kind, from: c.replaces } : { num: c.num, kind: c.kind });
  }
  return { declared, rewrittenExisting };
}

/** Saves incrementally and puts back the object numbers MuPDF re-printed where the input wrote them. */
function saveExact(
  doc: mupdf.PDFDocument,
  input: EditTaskInput,
  opened: ReturnType<typeof openPdf>,
  t: { pageIndex: number; pageCount: number },
  changedObjects: ChangedObject[],
  objects: { declared: DeclaredObject[]; rewrittenExisting: number[] },
): SavedCorrection {
  const inputIndex = new ObjectIndex(input.pdf, streamDecoder(doc));
  const saved = save(doc);
  let output = saved;
  let numbersKept = 0;
  try {
    const exact = keepOriginalNumbers(
      input.pdf,
      saved,
      inputIndex,
      new Map(objects.declared.filter((d) => d.from !== undefined).map((d) => [d.num, d.from!])),
    );
    output = exact.bytes;
    numbersKept = exact.restored;
  } catch {
    // MuPDF's bytes stand; the structural guard then names every number it re-printed.
  }
  return {
    output,
    input: input.pdf,
    password: input.password,
    protectedInput: opened.protected || (opened.encrypted && input.password !== ''),
    pageIndex: t.pageIndex,
    pageCount: t.pageCount,
    changedObjects,
    rewrittenExisting: objects.rewrittenExisting,
    inputIndex,
    declared: objects.declared,
    numbersKept,
    encrypted: opened.encrypted,
  };
}

/** Same tier, page, font, codes and stream edits: the same correction. */
function fingerprintOf(tier: number, t: Located, codes: Code[], edits: Map<number, StreamEdit[]>): string {
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

/** Verifies the saved bytes by rendering and by objects (verify.ts). */
function verifyCorrection(
  input: EditTaskInput,
  t: Located,
  boxes: ReturnType<typeof glyphBoxes>,
  saved: SavedCorrection,
  checks: { textPlace: GuardCheck; widthsAlike: GuardCheck },
  find: string,
  replacement: string,
): VerifyOutput {
  return verifyOutput({
    ...saved,
    beforeRender: boxes.beforeRender,
    beforeLines: t.lines,
    oldBoxes: boxes.oldBoxes,
    // The edited document already draws the new text: read the old glyphs from the input bytes.
    oldInk: () => oldInkBoxes(input, t.pageIndex, boxes.oldOrigins, boxes.tol),
    newOrigins: boxes.newOrigins,
    movedOrigins: boxes.movedOrigins,
    newChars: t.newChars,
    tolerance: boxes.tol,
    line: t.match.line,
    reading: t.reading,
    matchStart: t.match.start,
    matchLength: t.findCps.length,
    replacement,
    find,
    textPlaceOk: checks.textPlace,
    widthsReadAlike: checks.widthsAlike,
    newGlyphBoxes: boxes.newGlyphBoxes,
    emPts: boxes.emPts,
    lineInk: () => lineInk(input, t.pageIndex, t.match.line, boxes.tol, boxes.emPts),
  });
}

/** The most ink two glyphs of the old line share in the input (ink-collision.ts). */
function lineInk(
  input: EditTaskInput,
  pageIndex: number,
  line: TextLine,
  tol: number,
  emPts: number,
): number {
  const original = openPdf(input.pdf, input.password).doc;
  try {
    const near = line.chars.map((c) => c.origin);
    return worstSharedInk(loadPage(original, pageIndex), near, [], tol, emPts).worst;
  } finally {
    original.destroy();
  }
}

/** Ink boxes (render pixels) of the old glyphs, read from the input's bytes. */
function oldInkBoxes(
  input: EditTaskInput,
  pageIndex: number,
  origins: [number, number][],
  tol: number,
): Box[] {
  const original = openPdf(input.pdf, input.password).doc;
  try {
    return glyphInkBoxes(loadPage(original, pageIndex), origins, tol).map((b) => toRender(b));
  } finally {
    original.destroy();
  }
}

/** Names of signed signature fields (FT /Sig with a value), read from the AcroForm field tree. */
export function signedFields(doc: mupdf.PDFDocument): { names: string[]; sigFlags: number } {
  const form = doc.getTrailer().get('Root').get('AcroForm');
  if (!form.isDictionary()) return { names: [], sigFlags: 0 };
  const names: string[] = [];
  const sigFlags = form.get('SigFlags').isNumber() ? form.get('SigFlags').asNumber() : 0;
  const walk = (fields: mupdf.PDFObject, inheritedType: string, prefix: string, depth: number) => {
    if (!fields.isArray() || depth > 16) return;
    for (let i = 0; i < fields.length && names.length < 20; i += 1) {
      const f = fields.get(i);
      if (!f.isDictionary()) continue;
      const ft = f.get('FT').isName() ? f.get('FT').asName() : inheritedType;
      const t = f.get('T').isString() ? f.get('T').asString() : '';
      const name = prefix && t ? `${prefix}.${t}` : t || prefix;
      if (ft === 'Sig' && !f.get('V').isNull()) names.push(name || '(unnamed)');
      walk(f.get('Kids'), ft, name, depth + 1);
    }
  };
  walk(form.get('Fields'), '', '', 0);
  return { names, sigFlags };
}

interface BeforeState {
  lines: TextLine[];
  render: () => RgbImage;
  accurate: () => TextLine[];
}

/**
 * What the page looked like before the edit: text, ink boxes and the 300 dpi render. A proposal and
 * the apply that follows it read the same bytes, so the last two pages read are kept (keyed by the
 * SHA-256 of the input and the page index) and the apply does not render the original again.
 */
const beforeCache: { key: string; lines: TextLine[]; render?: RgbImage; accurate?: TextLine[] }[] = [];

function beforeState(input: EditTaskInput, pageIndex: number, page: mupdf.PDFPage): BeforeState {
  const key = `${sha256(input.pdf)}:${pageIndex}`;
  let entry = beforeCache.find((e) => e.key === key);
  if (!entry) {
    entry = { key, lines: readPageText(page) };
    beforeCache.unshift(entry);
    beforeCache.length = Math.min(beforeCache.length, 2);
  }
  const e = entry;
  return {
    lines: e.lines,
    render: () => {
      if (e.render) return e.render;
      const img = renderPage(page, WORKING_DPI);
      // Keep renders up to 64 MB (an A3 page at 300 dpi is 52 MB); larger ones are not kept.
      if (img.pixels.byteLength <= 64 * 1024 * 1024) e.render = img;
      return img;
    },
    accurate: () => (e.accurate ??= readPageText(page, true)),
  };
}

/**
 * The band PDFium must witness: the edited line's rows widened by a line height on each side (accents
 * and descenders, PDFium's own rounding), for horizontal text on a page whose objects were proven
 * untouched except where declared; otherwise null (the whole page is rendered).
 */
function witnessBand(line: TextLine, v: VerifyOutput): [number, number] | null {
  const structure = v.guards.find((g) => g.name === 'objects_untouched');
  if (!structure?.passed) return null;
  if (Math.abs(line.dir[0]) < Math.abs(line.dir[1])) return null;
  const band = toRender(line.bbox);
  const h = Math.max(1, band[3] - band[1]);
  const d = v.declared_box;
  return [Math.max(0, Math.min(band[1], d[1]) - h), Math.max(band[3], d[3]) + h];
}

/**
 * Replaces `find` with `replacement` in the texts an annotation holds besides its appearance:
 * /Contents, /RC (rich text) and a form field's /V (on the widget or the field it belongs to). Each
 * is changed only where it holds `find` exactly once; the others are named in the warnings returned.
 * A field dictionary changed this way is added to `changed` (declared for the structural guard).
 */
function correctAnnotationValues(
  doc: mupdf.PDFDocument,
  annot: mupdf.PDFObject,
  find: string,
  replacement: string,
  changed: ChangedObject[],
): string[] {
  const warnings: string[] = [];
  const field =
    annot.get('V').isString() || !annot.get('Parent').isDictionary() ? annot : annot.get('Parent');
  const targets: [mupdf.PDFObject, string][] = [
    [annot, 'Contents'],
    [annot, 'RC'],
    [field, 'V'],
  ];
  for (const [owner, key] of targets) {
    const value = owner.get(key);
    if (!value.isString()) continue;
    const text = value.asString();
    const count = text.split(find).length - 1;
    if (count === 1) {
      owner.put(key, doc.newString(text.replace(find, replacement)));
      if (owner !== annot && owner.isIndirect() && !changed.some((c) => c.num === owner.asIndirect()))
        changed.push({
          num: owner.asIndirect(),
          kind: 'annotation',
          replaces: owner.asIndirect(),
          bytes_before: 0,
          bytes_after: 0,
        });
    } else if (count > 1 || !text.includes(replacement)) {
      warnings.push(
        `The ${key === 'V' ? "form field's value" : `annotation's /${key}`} ${count > 1 ? `holds “${find}” ${count} times` : `does not hold “${find}”`} and was left as it was: a viewer that rebuilds the appearance from it would show the old text.`,
      );
    }
  }
  return warnings;
}

interface ManifestFacts {
  page: number;
  box: Box;
  find: string;
  replacement: string;
  tier: number;
  /** Tier 5's cost (low for cloned letters, medium for drawn ones), `low` for a re-spaced line; else the tier's. */
  cost?: 'low' | 'medium';
  /** Tier 5 on a match that needed a person: what the engine checked. */
  confirmation?: Record<string, unknown>;
}

/**
 * Embeds the provenance manifest of a correction. Returns the existing objects it rewrites (the
 * catalog, its /Names dictionary and the embedded-files tree), each declared — before the embedding,
 * since it may replace the tree — for the structural guard.
 */
function embedManifestOf(doc: mupdf.PDFDocument, input: EditTaskInput, f: ManifestFacts): DeclaredObject[] {
  const manifest = buildManifest(input.manifest, {
    page: f.page,
    box_render: f.box,
    box_dpi: WORKING_DPI,
    text_before: f.find,
    text_after: f.replacement,
    tier: f.tier,
    tier_name: TIER_NAMES[f.tier],
    visibility_cost: costOf(f),
    created_at: new Date().toISOString(),
    ...(f.confirmation ? { confirmation: f.confirmation } : {}),
  });
  const declared: DeclaredObject[] = [];
  const root = doc.getTrailer().get('Root');
  const names = root.get('Names');
  if (names.isIndirect()) declared.push({ num: names.asIndirect(), kind: 'names' });
  const tree = names.isDictionary() ? names.get('EmbeddedFiles') : null;
  if (tree?.isIndirect()) declared.push({ num: tree.asIndirect(), kind: 'name tree' });
  embedManifest(doc, manifest);
  if (root.isIndirect()) declared.push({ num: root.asIndirect(), kind: 'catalog' });
  return declared;
}

/**
 * A proposal that verified, kept so that its apply does not redo the work: the apply adds the
 * manifest to these very bytes as a second incremental update, and proves by objects that nothing
 * a page draws changed between them (so the proposal's renders, MuPDF's and PDFium's, are the
 * renders of the applied bytes). Keyed by the input's hash, the password and the request; the last
 * two are kept (a proposal and its apply usually meet in the same engine slot).
 */
interface KeptProposal {
  key: string;
  proposal: EngineProposal;
  output: Uint8Array;
  verify: Omit<VerifyOutput, 'afterRender' | 'diff'>;
  declared: DeclaredObject[];
  facts: ManifestFacts;
  textBefore: string;
  textAfter: string;
}
const keptProposals: KeptProposal[] = [];

const proposalKey = (input: EditTaskInput) =>
  createHash('sha256')
    .update(sha256(input.pdf))
    .update('\u0000')
    .update(input.password)
    .update('\u0000')
    .update(canonicalize(input.request))
    .digest('hex');

function keepProposal(k: KeptProposal): void {
  const at = keptProposals.findIndex((e) => e.key === k.key);
  if (at >= 0) keptProposals.splice(at, 1);
  keptProposals.unshift(k);
  keptProposals.length = Math.min(keptProposals.length, 2);
}

/** The apply of a kept proposal: the manifest added to its bytes, checked by objects, not re-rendered. */
function applyOnProposal(
  input: EditTaskInput,
  kept: KeptProposal,
): { proposal: EngineProposal; output: Uint8Array; verification: EngineVerification } | null {
  const opened = openPdf(kept.output, input.password);
  const doc = opened.doc;
  let final: Uint8Array = kept.output;
  let manifestDeclared: DeclaredObject[] = [];
  let numbersKept = 0;
  // The proposal's objects are read through this document (object streams decoded lazily), so it
  // stays open until the guards below are done.
  const proposalIndex = new ObjectIndex(kept.output, streamDecoder(doc));
  let reopened: mupdf.PDFDocument | null = null;
  try {
    manifestDeclared = embedManifestOf(doc, input, kept.facts);
    const saved = save(doc);
    final = saved;
    try {
      const exact = keepOriginalNumbers(kept.output, saved, proposalIndex, new Map());
      final = exact.bytes;
      numbersKept = exact.restored;
    } catch {
      // MuPDF's bytes stand; the guard below then names every re-printed number.
    }
    reopened = openPdf(final, input.password).doc;
    if (reopened.wasRepaired() || reopened.countPages() !== kept.verify.pages.length) return null;
    const finalIndex = new ObjectIndex(final, streamDecoder(reopened));
    // The manifest's update touches only the manifest's objects: every page draws what it drew.
    const step = objectsUntouched(kept.output, final, proposalIndex, finalIndex, manifestDeclared, {
      encrypted: opened.encrypted,
    });
    if (!step.passed || !step.compared) return null;
    // And the whole change, input to applied bytes, is what the correction declared.
    const inputDoc = openPdf(input.pdf, input.password).doc;
    let whole;
    try {
      whole = objectsUntouched(
        input.pdf,
        final,
        new ObjectIndex(input.pdf, streamDecoder(inputDoc)),
        finalIndex,
        [...kept.declared, ...manifestDeclared],
        { encrypted: opened.encrypted },
      );
    } finally {
      inputDoc.destroy();
    }
    if (!whole.passed) return null;
    const guards = kept.verify.guards.map((g) =>
      g.name === 'objects_untouched' ? { name: g.name, passed: whole.passed, detail: whole.detail } : g,
    );
    guards.push({
      name: 'manifest_only',
      passed: true,
      detail: `the manifest was added to the verified proposal's bytes as an incremental update; ${step.detail}; no object a page draws changed, so the proposal's renders are the renders of these bytes`,
    });
    const changes = kept.verify.stream_changes as Record<string, unknown>;
    const verification: EngineVerification = {
      output_sha256: sha256(final),
      dpi: kept.verify.dpi,
      passed: true,
      failure_reason: null,
      pages: kept.verify.pages,
      guards,
      stream_changes: {
        ...changes,
        rewritten_existing: [
          ...(changes.rewritten_existing as number[]),
          ...manifestDeclared.map((d) => d.num),
        ],
        bytes_after: final.length,
        objects_compared: whole.compared,
        objects_changed_as_declared: whole.rewritten,
        objects_changed_undeclared: whole.undeclared,
        numbers_kept_as_written: (changes.numbers_kept_as_written as number) + numbersKept,
        applied_on_verified_proposal: true,
      },
      declared_box: kept.verify.declared_box,
      changed_box: kept.verify.changed_box,
      text_before: kept.textBefore,
      text_after: kept.textAfter,
    };
    return { proposal: kept.proposal, output: final, verification };
  } finally {
    reopened?.destroy();
    doc.destroy();
  }
}

function save(doc: mupdf.PDFDocument): Uint8Array {
  restoreShownBoxes(doc);
  // Incremental: the original bytes stay as a prefix (signed revisions stay byte-exact) and the
  // document's encryption is kept for the new objects.
  const options = doc.canBeSavedIncrementally() ? 'incremental' : 'garbage=0';
  return takeBytes(doc.saveToBuffer(options));
}

function checkPlace(
  line: TextLine,
  start: number,
  length: number,
  index: GlyphIndex,
): { passed: boolean; detail: string } {
  let worst = 0;
  let mapped = 0;
  for (let i = start; i < start + length; i += 1) {
    const ch = line.chars[i];
    const g = index.at(ch);
    if (!g) continue;
    mapped += 1;
    worst = Math.max(worst, Math.hypot(g.origin[0] - ch.origin[0], g.origin[1] - ch.origin[1]));
  }
  const nonSpace = line.chars.slice(start, start + length).filter((c) => !/\s/.test(c.c)).length;
  const passed = mapped >= nonSpace && mapped > 0;
  return {
    passed,
    detail: `${mapped} of ${length} character(s) of the target found at the glyph origins the content stream gives (largest distance ${worst.toFixed(3)} pt)`,
  };
}

export const _internals = { tier1Code, sha256 };
