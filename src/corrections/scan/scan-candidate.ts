// Tier 5 as a candidate correction: the pixel patch (tier5.ts) with the engine's shared steps, the
// before render, the declared objects and manifest, and the exact save.
import { classifyPage } from '../../documents/classify.ts';
import { loadPage, openPdf, type mupdf } from '../../pdf/mupdf-adapter.ts';
import type { Candidate, EditTaskInput } from '../correction.ts';
import { beforeState, methodRefusal } from '../locate/located.ts';
import { declareObjects } from '../save/declare.ts';
import { saveExact } from '../save/save-correction.ts';
import { hiddenWordOf, type HiddenWord } from './hidden-text.ts';
import { attemptPixelPatch } from './tier5.ts';
import { WORKING_DPI } from '../locate/page-text.ts';

/** Tier 5 with the engine's shared steps: the before render, the declared objects and manifest, the exact save. */
export async function patchCandidate(
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

/**
 * A text target refused as invisible: over a scan it is an OCR layer, and the word is in the scan's
 * pixels (returned for tier 5). Elsewhere it is hidden text that draws nothing: null, it stays refused.
 */
export function hiddenWordOverScan(
  input: EditTaskInput,
  find: string,
  matchIndex: number,
): HiddenWord | null {
  const { doc } = openPdf(input.pdf, input.password);
  let hidden: HiddenWord | null;
  let page: mupdf.PDFPage | null = null;
  try {
    const pageIndex = input.request.page_index ?? 0;
    page = loadPage(doc, pageIndex);
    // Invisible text over a scan is an OCR layer: the word is in the scan's pixels. Elsewhere it
    // is hidden text that draws nothing, and stays refused.
    const kind = classifyPage(page, pageIndex).info.kind;
    const overScan = kind === 'scanned' || kind === 'scanned_with_text_layer' || kind === 'mixed';
    hidden = overScan ? hiddenWordOf(beforeState(input, pageIndex, page).lines, find, matchIndex) : null;
  } finally {
    page?.destroy(); // a page holds its document (engine.ts, attemptSpan)
    doc.destroy();
  }
  return hidden;
}
