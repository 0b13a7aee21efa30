// Guard `second_renderer_pdfium`: the changed page rendered before and after by PDFium, an engine
// that shares no code with MuPDF, and compared exactly. It passes only when PDFium also sees no
// changed pixel outside the declared box (MuPDF's padded glyph box, plus 1 px because PDFium can
// antialias one pixel beyond MuPDF). The PDFium render of the page before is kept for the last two
// (input SHA-256, page) pairs, as the MuPDF one is.
import { PDFIUM_RENDERER, renderPageWithPdfium, type RgbImage } from '../verify/pdfium-render.ts';
import { secondOpinion, type Box } from '../verify/second-opinion.ts';
import { sha256, WORKING_DPI, type VerifyOutput } from './verify.ts';

/** Pixels PDFium may antialias beyond the declared box (already padded for MuPDF). */
export const PDFIUM_MARGIN_PX = 1;
export const GUARD_NAME = 'second_renderer_pdfium';

const beforeCache: { key: string; render: RgbImage }[] = [];

async function pdfiumBefore(pdf: Uint8Array, password: string, pageIndex: number): Promise<RgbImage> {
  const key = `${sha256(pdf)}:${pageIndex}`;
  const hit = beforeCache.find((e) => e.key === key);
  if (hit) return hit.render;
  const render = await renderPageWithPdfium(pdf, password, pageIndex, WORKING_DPI);
  if (render.pixels.byteLength <= 64 * 1024 * 1024) {
    beforeCache.unshift({ key, render });
    beforeCache.length = Math.min(beforeCache.length, 2);
  }
  return render;
}

/** Adds the guard to `v` (and fails it when PDFium disagrees or cannot read the file). */
export async function secondRendererGuard(
  input: Uint8Array,
  output: Uint8Array,
  password: string,
  pageIndex: number,
  v: VerifyOutput,
): Promise<void> {
  let guard: Record<string, unknown> & { name: string; passed: boolean; detail: string };
  try {
    const before = await pdfiumBefore(input, password, pageIndex);
    const so = await secondOpinion(input, output, password, pageIndex, v.declared_box as Box, WORKING_DPI, {
      marginPx: PDFIUM_MARGIN_PX,
      beforeRender: before,
    });
    guard = {
      name: GUARD_NAME,
      passed: so.passed,
      detail:
        so.changed_pixels === 0
          ? `${so.renderer} sees no changed pixel on the page`
          : `${so.renderer}: ${so.changed_pixels} changed pixel(s), ${so.outside_pixels} outside the declared box ${JSON.stringify(so.declared_box)} (changed ${JSON.stringify(so.bbox)})`,
      renderer: so.renderer,
      changed_pixels: so.changed_pixels,
      outside_pixels: so.outside_pixels,
      bbox: so.bbox,
      declared_box: so.declared_box,
    };
  } catch (error) {
    guard = {
      name: GUARD_NAME,
      passed: false,
      detail: `${PDFIUM_RENDERER} could not render the page: ${(error as Error).message}`,
      renderer: PDFIUM_RENDERER,
    };
  }
  v.guards.push(guard);
  if (!guard.passed) {
    v.passed = false;
    v.failure_reason = [v.failure_reason, `${GUARD_NAME}: ${guard.detail}`].filter(Boolean).join('; ');
  }
}
