// Page pictures for people: the low-resolution preview (and thumbnail) and the native-resolution crop
// of a region. A crop renders only its region (a pixmap the size of the output, not the whole page).
// For unpaid documents a corrected page's crop is "marked": native pixels only inside the page's
// corrections, coarse pixels and a diagonal hatch everywhere else (docs/documents.md).
import { DocfixError } from '../errors.ts';
import { dpiMatrix, loadPage, mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import { MAX_CROP_PIXELS, PREVIEW_DPI, RENDER_DPI, THUMB_WIDTH } from './limits.ts';
import type { BoxRender } from './text-find.ts';

export interface Picture {
  png: Uint8Array;
  width: number;
  height: number;
  dpi: number;
}

export interface CropPicture extends Picture {
  /** The region actually served, in 300-dpi render pixels (clipped to the page). */
  box_render: BoxRender;
  /** Output pixels served at native resolution inside the given correction boxes. */
  native_inside_pixels: number;
  marked: boolean;
}

export interface CropRequest {
  page_index: number;
  /** Region in 300-dpi render pixels. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Output resolution; 0 → `default_dpi`. */
  dpi: number;
  /** The resolution used when dpi is 0: 300, or the page's natural dpi for scans. */
  default_dpi?: number;
  /**
   * Marked crop (unpaid document, corrected page): native only inside these 300-dpi boxes. Null or
   * absent: the whole region is native. `budget_pixels`: native pixels inside the boxes still allowed today.
   */
  marking?: { boxes: BoxRender[]; budget_pixels: number | null } | null;
}

export function loadPageChecked(doc: mupdf.PDFDocument, index: number): mupdf.PDFPage {
  const count = doc.countPages();
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new DocfixError(
      'page_out_of_range',
      `Page index ${index} is beyond the last page (the document has ${count} page${count === 1 ? '' : 's'}, indexes start at 0).`,
      { page_count: count },
    );
  }
  return loadPage(doc, index);
}

/** Low-resolution picture of a page (72 dpi), or a thumbnail about 150 pixels wide. */
export function renderPreview(doc: mupdf.PDFDocument, pageIndex: number, thumb = false): Picture {
  const page = loadPageChecked(doc, pageIndex);
  try {
    const b = page.getBounds();
    const dpi = thumb ? (THUMB_WIDTH * 72) / Math.max(1, b[2] - b[0]) : PREVIEW_DPI;
    const pixmap = page.toPixmap(dpiMatrix(dpi), mupdf.ColorSpace.DeviceRGB, false, true);
    try {
      return {
        png: new Uint8Array(pixmap.asPNG()),
        width: pixmap.getWidth(),
        height: pixmap.getHeight(),
        dpi: Math.round(dpi),
      };
    } finally {
      pixmap.destroy();
    }
  } finally {
    page.destroy();
  }
}

/** Output size of a crop request (before clipping to the page); crop_too_large over 4 megapixels. */
export function cropOutputSize(req: Pick<CropRequest, 'w' | 'h' | 'dpi' | 'default_dpi'>): {
  width: number;
  height: number;
  dpi: number;
} {
  const dpi = req.dpi > 0 ? req.dpi : (req.default_dpi ?? RENDER_DPI);
  const s = dpi / RENDER_DPI;
  const width = Math.max(1, Math.ceil(req.w * s));
  const height = Math.max(1, Math.ceil(req.h * s));
  if (width * height > MAX_CROP_PIXELS) {
    throw new DocfixError(
      'crop_too_large',
      `The crop would be ${width} × ${height} pixels (${((width * height) / 1e6).toFixed(1)} megapixels) at ${dpi} dpi; at most ${MAX_CROP_PIXELS / 1e6} megapixels are served at once.`,
      { width, height, dpi },
    );
  }
  return { width, height, dpi };
}

/** Native-resolution pixels of a page region. */
export function renderCrop(doc: mupdf.PDFDocument, req: CropRequest): CropPicture {
  const { dpi } = cropOutputSize(req);
  const page = loadPageChecked(doc, req.page_index);
  try {
    const b = page.getBounds();
    const pageW = Math.ceil(((b[2] - b[0]) * RENDER_DPI) / 72);
    const pageH = Math.ceil(((b[3] - b[1]) * RENDER_DPI) / 72);
    const x0 = Math.min(req.x, pageW);
    const y0 = Math.min(req.y, pageH);
    const x1 = Math.min(req.x + req.w, pageW);
    const y1 = Math.min(req.y + req.h, pageH);
    if (x1 <= x0 || y1 <= y0) {
      throw new DocfixError(
        'invalid_request',
        `The region lies outside the page (${pageW} × ${pageH} pixels at 300 dpi).`,
        {
          problems: [{ field: 'x', problem: `region outside the page (${pageW} × ${pageH} at 300 dpi)` }],
        },
      );
    }
    const box: BoxRender = [x0, y0, x1, y1];
    const s = dpi / RENDER_DPI;
    // The pixmap's bbox is the region in output pixels; the draw device paints only what falls in it.
    const bbox: mupdf.Rect = [Math.floor(x0 * s), Math.floor(y0 * s), Math.ceil(x1 * s), Math.ceil(y1 * s)];
    const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, bbox, false);
    try {
      pixmap.clear(255);
      const device = new mupdf.DrawDevice(dpiMatrix(dpi), pixmap);
      try {
        page.run(device, mupdf.Matrix.identity);
        device.close();
      } finally {
        device.destroy();
      }
      let native = 0;
      let marked = false;
      if (req.marking) {
        marked = true;
        native = markOutside(
          pixmap,
          bbox,
          req.marking.boxes.map((k) => scaleBox(k, s)),
          Math.max(2, Math.round(dpi / PREVIEW_DPI)),
        );
        if (req.marking.budget_pixels !== null && native > req.marking.budget_pixels) {
          throw new DocfixError(
            'inspection_budget_spent',
            `Today's native pixels inside this unpaid document's corrections are used up (${native} asked, ${Math.max(0, req.marking.budget_pixels)} left); the rest of the page is still served marked, and the budget resets next UTC day or when the document is paid for.`,
            { retry_after: secondsToUtcMidnight() },
          );
        }
      }
      return {
        png: new Uint8Array(pixmap.asPNG()),
        width: pixmap.getWidth(),
        height: pixmap.getHeight(),
        dpi,
        box_render: box,
        native_inside_pixels: native,
        marked,
      };
    } finally {
      pixmap.destroy();
    }
  } finally {
    page.destroy();
  }
}

function scaleBox(k: BoxRender, s: number): BoxRender {
  return [Math.floor(k[0] * s), Math.floor(k[1] * s), Math.ceil(k[2] * s), Math.ceil(k[3] * s)];
}

/**
 * Outside `keep` (output-pixel boxes): coarse blocks of `block` pixels and a diagonal hatch every 16
 * pixels, so the picture shows the page but not its native detail. Returns native pixels kept.
 */
function markOutside(pixmap: mupdf.Pixmap, bbox: mupdf.Rect, keep: BoxRender[], block: number): number {
  const w = pixmap.getWidth();
  const h = pixmap.getHeight();
  const stride = pixmap.getStride();
  const px = pixmap.getPixels();
  const ox = bbox[0];
  const oy = bbox[1];
  const inside = new Uint8Array(w * h);
  let native = 0;
  for (const k of keep) {
    const kx0 = Math.max(0, k[0] - ox);
    const ky0 = Math.max(0, k[1] - oy);
    const kx1 = Math.min(w, k[2] - ox);
    const ky1 = Math.min(h, k[3] - oy);
    for (let y = ky0; y < ky1; y++) inside.fill(1, y * w + kx0, y * w + Math.max(kx0, kx1));
  }
  for (const v of inside) native += v;
  // Coarse blocks aligned to the page (not the crop), so shifting the crop reveals nothing more.
  const gx0 = Math.floor(ox / block) * block;
  const gy0 = Math.floor(oy / block) * block;
  for (let by = gy0; by < oy + h; by += block) {
    for (let bx = gx0; bx < ox + w; bx += block) {
      const x0 = Math.max(0, bx - ox);
      const y0 = Math.max(0, by - oy);
      const x1 = Math.min(w, bx + block - ox);
      const y1 = Math.min(h, by + block - oy);
      let r = 0;
      let g = 0;
      let bl = 0;
      let n = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const i = y * stride + x * 3;
          r += px[i];
          g += px[i + 1];
          bl += px[i + 2];
          n++;
        }
      }
      if (n === 0) continue;
      r /= n;
      g /= n;
      bl /= n;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          if (inside[y * w + x]) continue;
          const i = y * stride + x * 3;
          const hatch = (x + ox + y + oy) % 16 < 2;
          px[i] = hatch ? r * 0.55 : r;
          px[i + 1] = hatch ? g * 0.55 : g;
          px[i + 2] = hatch ? bl * 0.55 + 60 : bl;
        }
      }
    }
  }
  return native;
}

export function secondsToUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

/** Opens bytes and renders a preview (engine task body). */
export function previewPdf(bytes: Uint8Array, password: string, pageIndex: number, thumb: boolean): Picture {
  const opened = openPdf(bytes, password);
  try {
    return renderPreview(opened.doc, pageIndex, thumb);
  } finally {
    opened.doc.destroy();
  }
}

/** Opens bytes and renders a crop (engine task body). */
export function cropPdf(bytes: Uint8Array, password: string, req: CropRequest): CropPicture {
  const opened = openPdf(bytes, password);
  try {
    return renderCrop(opened.doc, req);
  } finally {
    opened.doc.destroy();
  }
}
