// The one door to MuPDF.js for opening and rendering: opening bytes with a password (mapping
// MuPDF's failures to docfix error codes), loading a page in docfix's frame (the whole MediaBox,
// page-frame.ts), rendering a page to raw RGB at a resolution, and saving. MuPDF objects own WASM memory: callers destroy what they open (`using`
// is not available here, so every helper below frees its temporaries in `finally`).
import * as mupdf from 'mupdf';
import { DocfixError } from '../errors.ts';
import { freePages, pageCounts, restoreShownBoxes } from './page-frame.ts';

export { mupdf };
export { loadPage, loadPageAlone, shownBox } from './page-frame.ts';

/** Documents opened through this adapter and pages rendered since the process started (for tests that count work). */
const work = { opens: 0, renders: 0 };

/**
 * What MuPDF was asked to do so far: documents opened (`openPdfSource`/`openPdf`), pages loaded in
 * docfix's frame, pages still live (loaded, their document not closed), and pages rendered. Tests
 * compare two readings around a correction: the work it does is counted, never timed.
 */
export function mupdfWork(): { opens: number; pageLoads: number; livePages: number; renders: number } {
  const pages = pageCounts();
  return { opens: work.opens, pageLoads: pages.loaded, livePages: pages.live, renders: work.renders };
}

/**
 * Closes a document and every page `loadPage` gave for it: a page holds its document, so either left
 * to the collector keeps the whole document (its bytes, cross-reference table and parsed objects) in
 * MuPDF's heap until then. The one way documents opened here are closed.
 */
export function closeDocument(doc: mupdf.PDFDocument | null | undefined): void {
  if (!doc) return;
  freePages(doc);
  doc.destroy();
}

export interface OpenedPdf {
  doc: mupdf.PDFDocument;
  /** The document asked for a password to be opened (user password set). */
  protected: boolean;
  /** A password was given and accepted. */
  unlocked: boolean;
  /** Encrypted at all (also owner-password-only documents that open without one). */
  encrypted: boolean;
}

const PDF_MAGIC = '%PDF-';

/** True when the bytes carry a PDF header within the first KiB (as readers accept). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  return head.includes(PDF_MAGIC);
}

/**
 * Opens bytes or a MuPDF stream as a PDF document (no password handling). Errors: not_a_pdf (it
 * opened as something else), unreadable_pdf (MuPDF could not open it).
 */
export function openPdfSource(source: Uint8Array | mupdf.Stream): mupdf.PDFDocument {
  try {
    const from = source instanceof Uint8Array ? sourceBuffer(source) : source;
    const opened = mupdf.Document.openDocument(from, 'application/pdf');
    work.opens += 1;
    const pdf = opened.asPDF();
    if (!pdf) {
      opened.destroy();
      throw new DocfixError('not_a_pdf', 'The file did not open as a PDF.');
    }
    return pdf;
  } catch (error) {
    if (error instanceof DocfixError) throw error;
    throw new DocfixError(
      'unreadable_pdf',
      `The PDF could not be opened: ${messageOf(error)}.`,
      {},
      { cause: error },
    );
  }
}

/**
 * The bytes of the last documents opened, in MuPDF's heap, by the very array given: a correction
 * opens its input and its output more than once (the edit, the proof's reopen, the apply), and each
 * open from an array copies the whole file into MuPDF's heap again. A document opened from one of
 * these keeps its own reference to it (fz_open_buffer), so one dropped from here stays valid for the
 * documents still reading it. Bytes are never changed once opened (as sha256 in pdf-bytes.ts assumes).
 */
const sources: { bytes: Uint8Array; buffer: mupdf.Buffer }[] = [];
const SOURCES = 3;
/** The bytes kept at most, all together; a larger file is copied for each open (MuPDF's heap is bounded per worker). */
const SOURCE_KEPT_BYTES = 32 * 1024 * 1024;

function sourceBuffer(bytes: Uint8Array): mupdf.Buffer | Uint8Array | ArrayBuffer {
  const hit = sources.find((s) => s.bytes === bytes);
  if (hit) return hit.buffer;
  // MuPDF's Buffer copies a Uint8Array once more in JavaScript before copying it into its heap; an
  // ArrayBuffer (the array's whole memory) it views.
  const whole =
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength;
  const from = whole ? (bytes.buffer as ArrayBuffer) : bytes;
  if (bytes.byteLength > SOURCE_KEPT_BYTES) return from;
  sources.unshift({ bytes, buffer: new mupdf.Buffer(from) });
  let kept = 0;
  const within = sources.findIndex(
    (s, i) => (kept += s.bytes.byteLength) > SOURCE_KEPT_BYTES || i >= SOURCES,
  );
  if (within > 0) for (const dropped of sources.splice(within)) dropped.buffer.destroy();
  return sources[0].buffer;
}

/**
 * Opens PDF bytes. Errors: not_a_pdf, unreadable_pdf, password_required (none given),
 * password_incorrect (wrong one), not_protected (one given to a document that needs none).
 */
export function openPdf(bytes: Uint8Array, password = ''): OpenedPdf {
  if (bytes.byteLength === 0 || !looksLikePdf(bytes)) {
    throw new DocfixError('not_a_pdf', 'The file is not a PDF: it has no %PDF- header.');
  }
  const doc = openPdfSource(bytes);
  const encrypted = isEncrypted(doc);
  const needsPassword = doc.needsPassword();
  if (needsPassword) {
    if (password === '') {
      doc.destroy();
      throw new DocfixError(
        'password_required',
        'This document will not open without its password; send it with the upload.',
      );
    }
    if (doc.authenticatePassword(password) === 0) {
      doc.destroy();
      throw new DocfixError('password_incorrect', 'The password did not open the document.');
    }
    return { doc, protected: true, unlocked: true, encrypted };
  }
  if (password !== '') {
    // An owner password may still be meaningful for an owner-only encrypted file.
    if (encrypted && doc.authenticatePassword(password) !== 0) {
      return { doc, protected: true, unlocked: true, encrypted };
    }
    doc.destroy();
    throw new DocfixError(
      'not_protected',
      encrypted
        ? 'The password is not this document’s owner password, and the document opens without one.'
        : 'This document is not password-protected; upload it without a password.',
    );
  }
  return { doc, protected: false, unlocked: false, encrypted };
}

function isEncrypted(doc: mupdf.PDFDocument): boolean {
  const trailer = doc.getTrailer();
  return !trailer.get('Encrypt').isNull();
}

/**
 * The value at `path` of keys under a dictionary, or null where an object on the way is not a
 * dictionary or the last entry is missing. MuPDF.js answers a missing key with a null object whose
 * own get() throws, so a chain of get() calls breaks at the first key a file leaves out (a form or a
 * page without /Resources, a font name its resources do not hold).
 */
export function dictPath(obj: mupdf.PDFObject, ...path: string[]): mupdf.PDFObject | null {
  let at = obj;
  for (const key of path) {
    if (!at.isDictionary()) return null;
    at = at.get(key);
  }
  return at.isNull() ? null : at;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface RgbImage {
  width: number;
  height: number;
  /** Bytes per row (3 × width for RGB without alpha). */
  stride: number;
  /** Packed RGB, row-major, top-left origin. */
  pixels: Uint8Array;
}

/** Scale matrix for a render at `dpi` (PDF user space is 72 units an inch). */
export function dpiMatrix(dpi: number): mupdf.Matrix {
  return mupdf.Matrix.scale(dpi / 72, dpi / 72);
}

/** Renders a page (page rotation applied, annotations and widgets included) to packed RGB. */
export function renderPage(page: mupdf.Page, dpi: number): RgbImage {
  work.renders += 1;
  const pixmap = page.toPixmap(dpiMatrix(dpi), mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    return {
      width: pixmap.getWidth(),
      height: pixmap.getHeight(),
      stride: pixmap.getStride(),
      pixels: new Uint8Array(pixmap.getPixels()),
    };
  } finally {
    pixmap.destroy();
  }
}

/** Renders a page to PNG bytes. */
export function renderPagePng(page: mupdf.Page, dpi: number): Uint8Array {
  const pixmap = page.toPixmap(dpiMatrix(dpi), mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    return new Uint8Array(pixmap.asPNG());
  } finally {
    pixmap.destroy();
  }
}

export interface SaveOptions {
  /** Append the changes as an incremental update (keeps every original byte; not possible after repair). */
  incremental?: boolean;
  /** Extra MuPDF write options (comma-separated), e.g. "garbage=compact". */
  extra?: string;
}

/**
 * Saves a document with the encryption it was opened with: same method, same user and owner
 * passwords, same permissions ("encrypt=keep"; MuPDF re-encrypts every string and stream it writes).
 * A protected document's corrected versions therefore stay protected — never silently decrypted.
 * Incremental saves (the original bytes untouched, the update appended) are used when asked and
 * possible; a repaired file is always saved in full.
 */
export function saveKeepingEncryption(doc: mupdf.PDFDocument, options: SaveOptions = {}): Uint8Array {
  restoreShownBoxes(doc);
  const incremental = options.incremental === true && doc.canBeSavedIncrementally() && !doc.wasRepaired();
  const parts = [incremental ? 'incremental' : 'encrypt=keep'];
  if (options.extra) parts.push(options.extra);
  const buffer = doc.saveToBuffer(parts.join(','));
  try {
    return new Uint8Array(buffer.asUint8Array());
  } finally {
    buffer.destroy();
  }
}

/**
 * Like `renderPage`, but copies the samples out of WASM memory with one block copy (constructing a
 * Uint8Array from the pixmap's Uint8ClampedArray view converts element by element: ~10× slower on a
 * 300 dpi page). Added for the correction engine's verification renders.
 */
export function renderPageRgb(page: mupdf.Page, dpi: number): RgbImage {
  work.renders += 1;
  const pixmap = page.toPixmap(dpiMatrix(dpi), mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    const view = pixmap.getPixels();
    const pixels = renderBuffer(view.byteLength);
    pixels.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    return { width: pixmap.getWidth(), height: pixmap.getHeight(), stride: pixmap.getStride(), pixels };
  } finally {
    pixmap.destroy();
  }
}

/**
 * Buffers of renders their owner gave back (`recycleRender`). Writing a fresh 25 MB buffer costs
 * its page faults — measured here 15–100 ms for a 300 dpi page, more than the render itself — and a
 * correction renders its output page once, at the same size each time.
 */
const spareRenders: Uint8Array[] = [];
const SPARE_RENDERS = 2;

function renderBuffer(byteLength: number): Uint8Array {
  const i = spareRenders.findIndex((b) => b.byteLength === byteLength);
  if (i >= 0) return spareRenders.splice(i, 1)[0];
  return unpooledBuffer(byteLength);
}

/**
 * A buffer for a whole render. Not zero-filled first (every byte is copied over at once): a 300 dpi
 * page is 25 MB of memset saved. A plain Uint8Array over the unpooled buffer (a Buffer's slice()
 * would not copy).
 */
function unpooledBuffer(byteLength: number): Uint8Array {
  return new Uint8Array(Buffer.allocUnsafeSlow(byteLength).buffer, 0, byteLength);
}

/** A render of a page against a render of the same page before a change (`renderPageOver`). */
export interface RenderOver {
  image: RgbImage;
  /**
   * Row ranges [y0, y1) outside which `image` equals the base byte for byte (compared with memcmp as
   * the rows were taken out of MuPDF), or null when the sizes differ and nothing was compared.
   */
  differing: [number, number][] | null;
}

/** Rows compared (and copied) at a time: one memcmp per block, most blocks of a one-word change equal. */
const OVER_BLOCK_ROWS = 32;

/**
 * A copy of a base render that a `renderPageOver` image is made in: the blocks the last image
 * wrote (`dirty`) are put back from the base before the next one. `busy` while an image made in it
 * is read; a render asked meanwhile copies in full.
 */
interface OverBuffer {
  pixels: Uint8Array;
  dirty: [number, number][];
  busy: boolean;
}
const overBuffers = new WeakMap<Uint8Array, OverBuffer>();
const overOwner = new WeakMap<Uint8Array, OverBuffer>();

/**
 * Renders a page that should look like `base` (a render of the same page before a one-word change)
 * without copying the 25 MB of samples out of WASM memory: each block of rows is compared with the
 * base where MuPDF drew it, and only blocks that differ are copied, into a copy of the base kept for
 * this (made once per base). The image equals a `renderPageRgb` of the page byte for byte; the rows
 * that differ come back with it, so the comparison need not read the equal ones again. Give the image
 * back with `recycleRender` once nothing reads it.
 */
export function renderPageOver(page: mupdf.Page, dpi: number, base: RgbImage): RenderOver {
  work.renders += 1;
  const pixmap = page.toPixmap(dpiMatrix(dpi), mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    const view = pixmap.getPixels();
    const width = pixmap.getWidth();
    const height = pixmap.getHeight();
    const stride = pixmap.getStride();
    const samples = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    const over = overBufferFor(base);
    if (!over || width !== base.width || height !== base.height || stride !== base.stride) {
      const pixels = renderBuffer(samples.byteLength);
      pixels.set(samples);
      return { image: { width, height, stride, pixels }, differing: null };
    }
    // Put back what the last image changed; the copy then equals the base everywhere.
    for (const [s, e] of over.dirty) over.pixels.set(base.pixels.subarray(s, e), s);
    over.dirty = [];
    const mine = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    const theirs = Buffer.from(base.pixels.buffer, base.pixels.byteOffset, base.pixels.byteLength);
    const differing: [number, number][] = [];
    for (let y = 0; y < height; y += OVER_BLOCK_ROWS) {
      const y1 = Math.min(height, y + OVER_BLOCK_ROWS);
      const [s, e] = [y * stride, y1 * stride];
      if (mine.compare(theirs, s, e, s, e) === 0) continue;
      over.pixels.set(samples.subarray(s, e), s);
      over.dirty.push([s, e]);
      const last = differing.at(-1);
      if (last && last[1] === y) last[1] = y1;
      else differing.push([y, y1]);
    }
    over.busy = true;
    return { image: { width, height, stride, pixels: over.pixels }, differing };
  } finally {
    pixmap.destroy();
  }
}

/** The base's copy for `renderPageOver`, made on first use; null while an image made in it is read. */
function overBufferFor(base: RgbImage): OverBuffer | null {
  let over = overBuffers.get(base.pixels);
  if (!over) {
    const pixels = unpooledBuffer(base.pixels.byteLength);
    pixels.set(base.pixels);
    over = { pixels, dirty: [], busy: false };
    overBuffers.set(base.pixels, over);
    overOwner.set(pixels, over);
  }
  return over.busy ? null : over;
}

/**
 * Gives a render's buffer back for the next `renderPageRgb` of the same size (or, made by
 * `renderPageOver`, for the next render over the same base). Only its owner calls this, once
 * nothing reads the image any more: the next render overwrites its pixels.
 */
export function recycleRender(image: RgbImage): void {
  const px = image.pixels;
  const over = overOwner.get(px);
  if (over) {
    over.busy = false;
    return;
  }
  const whole = px.byteOffset === 0 && px.buffer.byteLength === px.byteLength;
  if (!whole || spareRenders.includes(px) || spareRenders.length >= SPARE_RENDERS) return;
  spareRenders.push(px);
}
