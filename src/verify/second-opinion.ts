// The second renderer's opinion on a correction: render the page before and after with PDFium and
// compare the two renders exactly (any channel difference counts). The engine records it as the
// guard `second_renderer_pdfium`; it passes when nothing changed outside the declared box but
// PDFium's own one-level rounding noise (PDFIUM_ROUNDING_NOISE).
//
// Boxes are [x0, y0, x1, y1] in render pixels, top-left origin, page rotation applied, x1/y1
// exclusive — the convention of the MuPDF render-diff. The declared box is given at 300 dpi (the
// working resolution) and scaled outward to the render dpi when that differs.
import { diffRenders } from '../corrections/proof/render-diff.ts';
import { PDFIUM_RENDERER, renderPageWithPdfium } from './pdfium-render.ts';
import type { RgbImage } from './pdfium-render.ts';

/** [x0, y0, x1, y1] in render pixels, x1/y1 exclusive. */
export type Box = [number, number, number, number];

export interface ExactDiff {
  changed_pixels: number;
  /** Changed pixels outside the declared box. */
  outside_pixels: number;
  /** Their largest channel difference (0 when none). */
  outside_max_delta: number;
  /** Bounding box of every changed pixel, or null when the renders are identical. */
  bbox: Box | null;
}

export interface SecondOpinion extends ExactDiff {
  /** "pdfium <version of the @hyzyla/pdfium build>". */
  renderer: string;
  page: number;
  dpi: number;
  /** Render size (identical before and after unless the page box itself changed). */
  width: number;
  height: number;
  /** The declared box at the render dpi, as compared. */
  declared_box: Box | null;
  /** The rows compared when only a band was rendered (`rows` option), else null: the whole page. */
  rows: [number, number] | null;
  passed: boolean;
}

export interface SecondOpinionOptions {
  /**
   * Widen the declared box by this many render pixels on every side (default 0). PDFium
   * anti-aliases a glyph up to one pixel beyond where MuPDF does, so a box taken from MuPDF's own
   * diff bbox wants `marginPx: 2` at 300 dpi (test/src/verify/second-opinion.test.ts measures it).
   */
  marginPx?: number;
  /**
   * The PDFium render of the page before, at this dpi, from an earlier call (`renderPageWithPdfium`),
   * to skip rendering it again when several proposals are checked against the same revision.
   */
  beforeRender?: RgbImage;
  /** The PDFium render of the page after, likewise (rendered ahead while the engine waited on recognition). */
  afterRender?: RgbImage;
  /**
   * Render and compare only these rows [y0, y1) of the page (at the render dpi), before and after
   * alike: the band where the correction can move anything, when a structural proof covers the
   * rest. `declared_box`, `bbox` and the counts are then of the band, in page coordinates.
   */
  rows?: [number, number];
}

const WORKING_DPI = 300;

/**
 * Largest channel difference outside the box that is PDFium's own rounding, not a change: PDFium
 * keeps glyph positions as float32 offsets from each text operator's start, so a line whose
 * operator was split around the correction puts the glyphs after it the same to within ~1e-5 pt,
 * and a few anti-aliased edge pixels come out one level (of 255) apart. A glyph moved by even 1/100
 * of a pixel changes its edge pixels by 2 levels or more; a changed glyph, by far more. (MuPDF's
 * comparison, the verification itself, stays exact.)
 */
export const PDFIUM_ROUNDING_NOISE = 1;

/** Nothing changed outside the declared box, or only by PDFium's rounding noise. */
export const changedOnlyInside = (d: ExactDiff) =>
  d.outside_pixels === 0 || d.outside_max_delta <= PDFIUM_ROUNDING_NOISE;

/** Scales a box from `fromDpi` to `toDpi`, rounding outward so it never shrinks. */
export function scaleBox(box: Box, fromDpi: number, toDpi: number): Box {
  if (fromDpi === toDpi) return [box[0], box[1], box[2], box[3]];
  const k = toDpi / fromDpi;
  return [Math.floor(box[0] * k), Math.floor(box[1] * k), Math.ceil(box[2] * k), Math.ceil(box[3] * k)];
}

/**
 * Exact comparison of two packed RGB renders with the engine's own comparator (any channel
 * difference counts; per-pixel work only in rows that differ): the counts the guard reports.
 */
export function compareExact(a: RgbImage, b: RgbImage, declared: Box | null): ExactDiff {
  const { changed_pixels, outside_pixels, outside_max_delta, bbox } = diffRenders(a, b, declared);
  return { changed_pixels, outside_pixels, outside_max_delta, bbox: bbox as Box | null };
}

/**
 * Renders page `pageIndex` of the document before and after a correction with PDFium at `dpi` and
 * compares them exactly. `declaredBox300` is where the correction may change pixels, in 300 dpi
 * render pixels (null: nothing may change). Passes when no pixel changed outside it by more than
 * PDFium's rounding noise.
 * Errors (DocfixError): password_required / password_incorrect, unreadable_pdf, page_out_of_range,
 * page_too_large.
 */
export async function secondOpinion(
  beforeBytes: Uint8Array,
  afterBytes: Uint8Array,
  password: string,
  pageIndex: number,
  declaredBox300: Box | null,
  dpi = WORKING_DPI,
  options: SecondOpinionOptions = {},
): Promise<SecondOpinion> {
  const margin = Math.max(0, Math.ceil(options.marginPx ?? 0));
  const rows = options.rows;
  const before =
    options.beforeRender ?? (await renderPageWithPdfium(beforeBytes, password, pageIndex, dpi, rows));
  const after =
    options.afterRender ?? (await renderPageWithPdfium(afterBytes, password, pageIndex, dpi, rows));
  const top = rows ? Math.max(0, Math.floor(rows[0])) : 0;
  let declared: Box | null = null;
  if (declaredBox300) {
    const scaled = scaleBox(declaredBox300, WORKING_DPI, dpi);
    declared = [scaled[0] - margin, scaled[1] - margin, scaled[2] + margin, scaled[3] + margin];
  }
  const shifted: Box | null = declared && [declared[0], declared[1] - top, declared[2], declared[3] - top];
  const raw = compareExact(before, after, shifted);
  const diff = {
    ...raw,
    bbox: raw.bbox && ([raw.bbox[0], raw.bbox[1] + top, raw.bbox[2], raw.bbox[3] + top] as Box),
  };
  return {
    renderer: PDFIUM_RENDERER,
    page: pageIndex,
    dpi,
    width: after.width,
    height: after.height,
    declared_box: declared,
    rows: rows ? [top, top + after.height] : null,
    ...diff,
    passed: changedOnlyInside(diff),
  };
}
