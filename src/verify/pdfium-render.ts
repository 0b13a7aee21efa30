// A second renderer: PDFium (Chrome's PDF engine) compiled to WebAssembly (@hyzyla/pdfium), used to
// check a correction with an engine that shares no code with MuPDF. Renders come out in the same
// shape and orientation as MuPDF's `renderPage` (src/pdf/mupdf-adapter.ts): packed RGB, top-left
// origin, page rotation applied, annotations and form widgets drawn.
//
// Size of a render: PDFium's page size in points (the whole MediaBox, as src/pdf/page-frame.ts has
// it; rotation applied — the same numbers as MuPDF's page bounds) times dpi/72, then rounded the way
// MuPDF rounds a pixmap (`fz_round_rect`): width = ceil(w·dpi/72 − 0.001), height likewise. The
// size depends only on the page box and the dpi, so before/after renders of one page always have
// identical dimensions, and they equal MuPDF's for the same page (test/src/verify/pdfium-render.test.ts
// checks the corpus).
// The page is drawn with an exact scale matrix (FPDF_RenderPageBitmapWithMatrix), not stretched to
// the rounded size, so a pixel here covers the same area of the page as MuPDF's pixel.
//
// The WASM module is loaded once per thread (module-level promise): each engine worker pays the
// load (about 40 ms) once and keeps it warm. Every call below is synchronous once loaded; a document
// is opened, used and closed within one call chain, and all WASM memory is freed in `finally`.
import { readFileSync } from 'node:fs';
import { PDFiumModule } from '@hyzyla/pdfium';
import { DocfixError } from '../errors.ts';

/** Packed RGB render (same shape as MuPDF's RgbImage). */
export interface RgbImage {
  width: number;
  height: number;
  /** Bytes per row: 3 × width. */
  stride: number;
  /** Packed RGB, row-major, top-left origin. */
  pixels: Uint8Array;
}

/** The raw PDFium C API functions used here (the module exports the whole public API). */
interface RawPdfium {
  HEAPU8: Uint8Array;
  wasmExports: { malloc(size: number): number; free(ptr: number): void };
  _FPDF_InitLibrary(): void;
  _FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  _FPDF_CloseDocument(doc: number): void;
  _FPDF_GetLastError(): number;
  _FPDF_GetPageCount(doc: number): number;
  _FPDF_GetFormType(doc: number): number;
  _FPDF_LoadPage(doc: number, index: number): number;
  _FPDF_ClosePage(page: number): void;
  _FPDF_GetPageWidthF(page: number): number;
  _FPDF_GetPageHeightF(page: number): number;
  _FPDFPage_GetRotation(page: number): number;
  _FPDFPage_GetMediaBox(page: number, left: number, bottom: number, right: number, top: number): number;
  _FPDFPage_GetCropBox(page: number, left: number, bottom: number, right: number, top: number): number;
  _FPDFPage_SetCropBox(page: number, left: number, bottom: number, right: number, top: number): void;
  _FPDFBitmap_CreateEx(width: number, height: number, format: number, buffer: number, stride: number): number;
  _FPDFBitmap_FillRect(
    bitmap: number,
    left: number,
    top: number,
    width: number,
    height: number,
    color: number,
  ): void;
  _FPDFBitmap_Destroy(bitmap: number): void;
  _FPDF_RenderPageBitmapWithMatrix(
    bitmap: number,
    page: number,
    matrix: number,
    clip: number,
    flags: number,
  ): void;
  _FPDFDOC_InitFormFillEnvironment(doc: number, info: number): number;
  _FPDFDOC_ExitFormFillEnvironment(form: number): void;
  _FORM_OnAfterLoadPage(page: number, form: number): void;
  _FORM_OnBeforeClosePage(page: number, form: number): void;
  _FPDF_FFLDraw(
    form: number,
    bitmap: number,
    page: number,
    x: number,
    y: number,
    width: number,
    height: number,
    rotate: number,
    flags: number,
  ): void;
}

// fpdfview.h constants.
const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;
const FPDFBITMAP_BGR = 2; // 3 bytes a pixel; with FPDF_REVERSE_BYTE_ORDER the bytes are R, G, B
const FPDF_ANNOT = 0x01;
const FPDF_REVERSE_BYTE_ORDER = 0x10;
const RENDER_FLAGS = FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER; // grayscale anti-aliasing, no LCD text
const FORMFILLINFO_BYTES = 256; // FPDF_FORMFILLINFO v2 is ~140 bytes in wasm32; all callbacks null
/** Renders above this many pixels are refused (PDFium's WASM heap is 32-bit). */
export const MAX_RENDER_PIXELS = 200_000_000;

const wasmUrl = new URL(import.meta.resolve('@hyzyla/pdfium/pdfium.wasm'));
const wrapperVersion = (
  JSON.parse(readFileSync(new URL('../package.json', wasmUrl), 'utf8')) as { version: string }
).version;

/** Names the second renderer in reports: the @hyzyla/pdfium build that carries the PDFium WASM. */
export const PDFIUM_RENDERER = `pdfium ${wrapperVersion}`;

let loading: Promise<RawPdfium> | null = null;

/** Loads the PDFium WASM once per thread (nothing is fetched: the binary ships in node_modules). */
export function loadPdfium(): Promise<RawPdfium> {
  if (!loading) {
    loading = (async () => {
      const bytes = readFileSync(wasmUrl);
      const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const load = PDFiumModule as unknown as (options: {
        wasmBinary: ArrayBuffer;
        locateFile: () => string;
      }) => Promise<RawPdfium>;
      const module = await load({ wasmBinary, locateFile: () => '' });
      module._FPDF_InitLibrary();
      return module;
    })();
    loading.catch(() => {
      loading = null;
    });
  }
  return loading;
}

/** Pixel size of a render of a page of `widthPt` × `heightPt` points at `dpi`, rounded like MuPDF. */
export function renderSize(
  widthPt: number,
  heightPt: number,
  dpi: number,
): { width: number; height: number } {
  const scale = dpi / 72;
  return {
    width: Math.max(1, Math.ceil(widthPt * scale - 0.001)),
    height: Math.max(1, Math.ceil(heightPt * scale - 0.001)),
  };
}

export interface PdfiumPageInfo {
  /** Page size in points: the MediaBox (page-frame.ts), page rotation applied. */
  width: number;
  height: number;
  /** The page's /Rotate, in degrees. */
  rotation: 0 | 90 | 180 | 270;
}

/** An open PDFium document. Call `close()` when done (in `finally`). */
export class PdfiumDocument {
  readonly pageCount: number;
  #pdfium: RawPdfium;
  #doc: number;
  #data: number;
  #form = 0;
  #formInfo = 0;

  constructor(pdfium: RawPdfium, doc: number, data: number) {
    this.#pdfium = pdfium;
    this.#doc = doc;
    this.#data = data;
    this.pageCount = pdfium._FPDF_GetPageCount(doc);
    if (pdfium._FPDF_GetFormType(doc) !== 0) {
      // Form widgets are drawn by the form-fill layer (FPDF_FFLDraw), as MuPDF draws widgets.
      const info = pdfium.wasmExports.malloc(FORMFILLINFO_BYTES);
      pdfium.HEAPU8.fill(0, info, info + FORMFILLINFO_BYTES);
      new DataView(pdfium.HEAPU8.buffer).setUint32(info, 2, true); // version 2
      const form = pdfium._FPDFDOC_InitFormFillEnvironment(doc, info);
      if (form) {
        this.#form = form;
        this.#formInfo = info;
      } else {
        pdfium.wasmExports.free(info);
      }
    }
  }

  #withPage<T>(pageIndex: number, use: (page: number) => T): T {
    if (!Number.isInteger(pageIndex) || pageIndex < 0 || pageIndex >= this.pageCount) {
      throw new DocfixError(
        'page_out_of_range',
        `Page ${pageIndex} does not exist (${this.pageCount} pages).`,
        {
          page_count: this.pageCount,
        },
      );
    }
    const p = this.#pdfium;
    const page = p._FPDF_LoadPage(this.#doc, pageIndex);
    if (!page) {
      throw new DocfixError('unreadable_pdf', `PDFium could not load page ${pageIndex}.`);
    }
    try {
      this.#showWholeMediaBox(page);
      return use(page);
    } finally {
      p._FPDF_ClosePage(page);
    }
  }

  /**
   * docfix's page frame is the whole MediaBox (src/pdf/page-frame.ts): a page cropped inside a larger
   * one gets, in PDFium's memory only, a CropBox equal to its MediaBox (PDFium sizes and places the
   * page by the CropBox, as MuPDF does).
   */
  #showWholeMediaBox(page: number): void {
    const p = this.#pdfium;
    const at = p.wasmExports.malloc(32);
    try {
      if (!p._FPDFPage_GetCropBox(page, at, at + 4, at + 8, at + 12)) return;
      if (!p._FPDFPage_GetMediaBox(page, at + 16, at + 20, at + 24, at + 28)) return;
      const [cl, cb, cr, ct, ml, mb, mr, mt] = new Float32Array(p.HEAPU8.buffer, at, 8);
      if ([cl! - ml!, cb! - mb!, cr! - mr!, ct! - mt!].every((d) => Math.abs(d) < 0.5)) return;
      p._FPDFPage_SetCropBox(page, ml!, mb!, mr!, mt!);
    } finally {
      p.wasmExports.free(at);
    }
  }

  /** Size and rotation of a page as PDFium sees it. */
  pageInfo(pageIndex: number): PdfiumPageInfo {
    return this.#withPage(pageIndex, (page) => {
      const p = this.#pdfium;
      return {
        width: p._FPDF_GetPageWidthF(page),
        height: p._FPDF_GetPageHeightF(page),
        rotation: ((p._FPDFPage_GetRotation(page) & 3) * 90) as 0 | 90 | 180 | 270,
      };
    });
  }

  /**
   * Renders a page to packed RGB at `dpi` (rotation applied, annotations and widgets drawn). With
   * `rows` [y0, y1), only that band of the full render is drawn (same pixels as the full render's
   * rows only when compared with another band render of the same rows: the matrix is translated).
   */
  renderPage(pageIndex: number, dpi: number, rows?: [number, number]): RgbImage {
    if (!(dpi > 0) || !Number.isFinite(dpi)) throw new RangeError(`dpi must be positive, got ${dpi}`);
    return this.#withPage(pageIndex, (page) => {
      const p = this.#pdfium;
      const full = renderSize(p._FPDF_GetPageWidthF(page), p._FPDF_GetPageHeightF(page), dpi);
      const width = full.width;
      const top = rows ? Math.max(0, Math.min(full.height, Math.floor(rows[0]))) : 0;
      const bottom = rows ? Math.max(top, Math.min(full.height, Math.ceil(rows[1]))) : full.height;
      const height = Math.max(1, bottom - top);
      if (width * height > MAX_RENDER_PIXELS) {
        throw new DocfixError(
          'page_too_large',
          `Page ${pageIndex} would render at ${width}×${height} pixels at ${dpi} dpi.`,
        );
      }
      const stride = width * 3;
      const size = stride * height;
      const buffer = p.wasmExports.malloc(size);
      if (!buffer) throw new DocfixError('page_too_large', `No memory for a ${width}×${height} render.`);
      const args = p.wasmExports.malloc(40); // FS_MATRIX (6 floats) + FS_RECTF (4 floats)
      let bitmap = 0;
      try {
        const scale = dpi / 72;
        new Float32Array(p.HEAPU8.buffer, args, 10).set([scale, 0, 0, scale, 0, -top, 0, 0, width, height]);
        bitmap = p._FPDFBitmap_CreateEx(width, height, FPDFBITMAP_BGR, buffer, stride);
        if (!bitmap) throw new DocfixError('page_too_large', `PDFium refused a ${width}×${height} bitmap.`);
        p._FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
        p._FPDF_RenderPageBitmapWithMatrix(bitmap, page, args, args + 24, RENDER_FLAGS);
        if (this.#form) {
          p._FORM_OnAfterLoadPage(page, this.#form);
          p._FPDF_FFLDraw(
            this.#form,
            bitmap,
            page,
            0,
            -top,
            width,
            full.height,
            0,
            RENDER_FLAGS & ~FPDF_ANNOT,
          );
          p._FORM_OnBeforeClosePage(page, this.#form);
        }
        // Copy out: the WASM heap may grow (and move) on the next allocation.
        const pixels = p.HEAPU8.slice(buffer, buffer + size);
        return { width, height, stride, pixels };
      } finally {
        if (bitmap) p._FPDFBitmap_Destroy(bitmap);
        p.wasmExports.free(args);
        p.wasmExports.free(buffer);
      }
    });
  }

  close(): void {
    const p = this.#pdfium;
    if (this.#doc === 0) return;
    if (this.#form) p._FPDFDOC_ExitFormFillEnvironment(this.#form);
    if (this.#formInfo) p.wasmExports.free(this.#formInfo);
    p._FPDF_CloseDocument(this.#doc);
    p.wasmExports.free(this.#data); // PDFium reads from this buffer until the document is closed
    this.#doc = 0;
    this.#form = 0;
    this.#formInfo = 0;
  }
}

/**
 * Opens PDF bytes with PDFium. Errors: password_required (none given), password_incorrect,
 * unreadable_pdf (PDFium could not parse it or does not support its security handler).
 */
export async function openWithPdfium(bytes: Uint8Array, password = ''): Promise<PdfiumDocument> {
  const p = await loadPdfium();
  return openLoaded(p, bytes, password);
}

function openLoaded(p: RawPdfium, bytes: Uint8Array, password: string): PdfiumDocument {
  const data = p.wasmExports.malloc(Math.max(1, bytes.byteLength));
  if (!data) throw new DocfixError('file_too_large', 'No memory to open the document with PDFium.');
  p.HEAPU8.set(bytes, data);
  let pass = 0;
  let doc = 0;
  try {
    if (password !== '') {
      const utf8 = Buffer.from(password, 'utf8');
      pass = p.wasmExports.malloc(utf8.byteLength + 1);
      p.HEAPU8.set(utf8, pass);
      p.HEAPU8[pass + utf8.byteLength] = 0;
    }
    doc = p._FPDF_LoadMemDocument(data, bytes.byteLength, pass);
    if (!doc) {
      const error = p._FPDF_GetLastError();
      if (error === FPDF_ERR_PASSWORD) {
        throw password === ''
          ? new DocfixError('password_required', 'This document will not open without its password.')
          : new DocfixError('password_incorrect', 'The password did not open the document.');
      }
      throw new DocfixError(
        'unreadable_pdf',
        error === FPDF_ERR_SECURITY
          ? 'PDFium does not support this document’s security handler.'
          : `PDFium could not open the document (error ${error}).`,
      );
    }
    return new PdfiumDocument(p, doc, data);
  } finally {
    if (pass) p.wasmExports.free(pass);
    if (!doc) p.wasmExports.free(data);
  }
}

/** Opens, renders one page and closes: the one-call form. */
export async function renderPageWithPdfium(
  bytes: Uint8Array,
  password: string,
  pageIndex: number,
  dpi: number,
  rows?: [number, number],
): Promise<RgbImage> {
  const doc = await openWithPdfium(bytes, password);
  try {
    return doc.renderPage(pageIndex, dpi, rows);
  } finally {
    doc.close();
  }
}
