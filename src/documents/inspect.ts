// Inspect on upload: opens the bytes with their password, bounds the file before any page is run
// (pages, page size, image megapixels from the image dictionaries, decompression), classifies every
// page and names what a user should know (concerns). Errors are the upload route's error codes.
import { inflateSync } from 'node:zlib';
import { DocfixError } from '../errors.ts';
import type { mupdf } from '../pdf/mupdf-adapter.ts';
import { loadPage, messageOf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { PageInfo } from '../schemas.ts';
import { classifyPage } from './classify.ts';
import { searchableText, type SearchableText } from './text-find.ts';
import { emptyTextIndex, type TextIndex, writeTextIndex } from './text-index.ts';
import {
  MAX_IMAGE_PIXELS,
  MAX_PAGE_PIXELS_300DPI,
  MAX_PAGE_SIDE_PT,
  MAX_STREAM_INFLATED_BYTES,
} from './limits.ts';
import { withoutSubsetTag } from '../pdf/subset-tag.ts';

export interface InspectOptions {
  password?: string;
  /** The plan's page limit (too_many_pages above it). */
  maxPages?: number;
  /** Where to write the pages' text index (text-index.ts): the upload's, moved beside its blob. */
  indexPath?: string;
}

/** Facts read from the file's objects without running any page. */
export interface FileSignals {
  pdf_version: string;
  producer: string | null;
  creator: string | null;
  encryption: string | null;
  repaired: boolean;
  incremental_updates: number;
  signatures: number;
  usage_rights_signature: boolean;
  form_fields: number;
  xfa: boolean;
  javascript: boolean;
  fonts_not_embedded: string[];
  embedded_files: number;
}

export interface InspectResult {
  page_count: number;
  pages: PageInfo[];
  concerns: string[];
  protected: boolean;
  unlocked: boolean;
  encrypted: boolean;
  signals: FileSignals;
}

/** What an inspection reads from the file as a whole, before any page is classified. */
export interface InspectHead {
  page_count: number;
  protected: boolean;
  unlocked: boolean;
  encrypted: boolean;
  signals: FileSignals;
}

/** The pages of one range `[from, to)` classified, with their text-index entries when asked. */
export interface InspectedPages {
  from: number;
  pages: PageInfo[];
  /** Per page of the range: its searchable text and whether it is blank (text-index.ts). */
  index?: { pages: SearchableText[]; blank: boolean[] };
}

/** Page ranges `[from, to)` of a document split for several engine threads. */
export type PageRange = [number, number];

/**
 * Pages one thread classifies at the least before a document is split over several: below it the
 * second thread's own opening of the file costs more than the pages it takes over.
 */
export const INSPECT_PART_MIN_PAGES = 48;

/** Opens, bounds and classifies a PDF. Throws DocfixError with the upload route's codes. */
export function inspectPdf(bytes: Uint8Array, options: InspectOptions = {}): InspectResult {
  const opened = openProtectedAware(bytes, options.password ?? '');
  try {
    return classifyAll(opened.doc, readHead(opened, options), options);
  } finally {
    opened.doc.destroy();
  }
}

/**
 * The first step of an inspection over `parts` engine threads: opens, bounds and reads the file's
 * facts; a document long enough to split comes back with its page ranges (each classified by
 * inspectPages, then finishInspect), any other is classified here at once (and its text index
 * written when asked).
 */
export function startInspect(
  bytes: Uint8Array,
  options: InspectOptions,
  parts: number,
  minPages = INSPECT_PART_MIN_PAGES,
): { result: InspectResult } | { head: InspectHead; ranges: PageRange[] } {
  const opened = openProtectedAware(bytes, options.password ?? '');
  try {
    const head = readHead(opened, options);
    const ranges = splitPages(head.page_count, parts, minPages);
    if (ranges.length > 1) return { head, ranges };
    return { result: classifyAll(opened.doc, head, options) };
  } finally {
    opened.doc.destroy();
  }
}

/** Every page classified in this thread (and the text index written when asked). */
function classifyAll(doc: mupdf.PDFDocument, head: InspectHead, options: InspectOptions): InspectResult {
  const done = classifyPages(doc, 0, head.page_count, options.indexPath !== undefined);
  if (options.indexPath) writeTextIndex(options.indexPath, joinTextIndex(head.page_count, [done]));
  return finishInspect(head, [done]);
}

/** Splits `count` pages into at most `parts` ranges of at least `minPages` pages each. */
export function splitPages(count: number, parts: number, minPages = INSPECT_PART_MIN_PAGES): PageRange[] {
  const n = Math.max(1, Math.min(Math.floor(parts), Math.floor(count / Math.max(1, minPages))));
  const ranges: PageRange[] = [];
  for (let k = 0; k < n; k++) ranges.push([Math.floor((k * count) / n), Math.floor(((k + 1) * count) / n)]);
  return ranges;
}

/** The pages `[from, to)` of an opened document classified (one part of a split inspection). */
export function classifyPages(
  doc: mupdf.PDFDocument,
  from: number,
  to: number,
  withIndex: boolean,
): InspectedPages {
  const pages: PageInfo[] = [];
  // The text of every page is read here anyway: kept as the revision's text index when asked.
  const index = withIndex ? { pages: [] as SearchableText[], blank: [] as boolean[] } : undefined;
  for (let i = from; i < to; i++) {
    let page: mupdf.PDFPage;
    try {
      page = loadPage(doc, i);
    } catch (error) {
      throw unreadable(error, `page ${i + 1}`);
    }
    try {
      checkPageSize(page, i);
      try {
        const facts = classifyPage(page, i, undefined, { text: index !== undefined });
        pages.push(facts.info);
        if (index && facts.plain !== undefined) {
          index.pages.push(searchableText(facts.plain));
          index.blank.push(facts.plain.trim() === '');
        }
      } catch (error) {
        throw unreadable(error, `page ${i + 1}`);
      }
    } finally {
      page.destroy();
    }
  }
  return { from, pages, ...(index ? { index } : {}) };
}

/** The whole inspection from its head and every range's pages (in any order). */
export function finishInspect(head: InspectHead, parts: InspectedPages[]): InspectResult {
  const pages = [...parts].sort((a, b) => a.from - b.from).flatMap((p) => p.pages);
  if (pages.length !== head.page_count) {
    throw new Error(`an inspection classified ${pages.length} of ${head.page_count} pages`);
  }
  return {
    page_count: head.page_count,
    pages,
    concerns: concernsOf(head.signals, pages, head),
    protected: head.protected,
    unlocked: head.unlocked,
    encrypted: head.encrypted,
    signals: head.signals,
  };
}

/** The revision's text index from the ranges' entries. */
export function joinTextIndex(count: number, parts: InspectedPages[]): TextIndex {
  const index = emptyTextIndex(count);
  for (const part of parts) {
    if (!part.index) continue;
    part.index.pages.forEach((text, k) => (index.pages[part.from + k] = text));
    part.index.blank.forEach((blank, k) => (index.blank[part.from + k] = blank));
  }
  return index;
}

/** Page count, plan limit and the file's facts (no page run yet). */
function readHead(opened: ReturnType<typeof openPdf>, options: InspectOptions): InspectHead {
  const doc = opened.doc;
  let count: number;
  try {
    count = doc.countPages();
  } catch (error) {
    throw unreadable(error);
  }
  if (count <= 0) {
    // A damaged file whose repair found no page is unreadable, not an empty document.
    if (doc.wasRepaired())
      throw new DocfixError('unreadable_pdf', 'The PDF is damaged and no page could be recovered from it.');
    throw new DocfixError('no_pages', 'The PDF has no pages.');
  }
  if (options.maxPages !== undefined && count > options.maxPages) {
    throw new DocfixError(
      'too_many_pages',
      `The document has ${count} pages; this plan allows at most ${options.maxPages} pages per document.`,
      { limit: options.maxPages, pages: count },
    );
  }
  let signals: FileSignals;
  try {
    signals = readSignals(doc, opened.encrypted);
  } catch (error) {
    throw unreadable(error);
  }
  return {
    page_count: count,
    protected: opened.protected,
    unlocked: opened.unlocked,
    encrypted: opened.encrypted,
    signals,
  };
}

/**
 * openPdf, telling apart a file locked by a security handler no password opens (certificate
 * encryption, Adobe.PubSec, or a proprietary handler): password_protected rather than unreadable.
 */
function openProtectedAware(bytes: Uint8Array, password: string): ReturnType<typeof openPdf> {
  try {
    return openPdf(bytes, password);
  } catch (error) {
    if (
      error instanceof DocfixError &&
      error.code === 'unreadable_pdf' &&
      /encryption handler|crypt filter|security handler/i.test(error.message)
    ) {
      throw new DocfixError(
        'password_protected',
        'This document is locked by an encryption method that no password opens here (for example certificate encryption); it cannot be read.',
        {},
        { cause: error },
      );
    }
    throw error;
  }
}

function unreadable(error: unknown, where?: string): DocfixError {
  if (error instanceof DocfixError) return error;
  return new DocfixError(
    'unreadable_pdf',
    `The PDF could not be read${where ? ` (${where})` : ''}: ${messageOf(error)}.`,
    {},
    { cause: error },
  );
}

/** page_too_large: a side over 50 inches, or over 140 megapixels at 300 dpi. */
export function checkPageSize(page: mupdf.Page, index: number): void {
  const b = page.getBounds();
  const w = b[2] - b[0];
  const h = b[3] - b[1];
  const px = ((w * 300) / 72) * ((h * 300) / 72);
  if (!(w > 0 && h > 0))
    throw new DocfixError('unreadable_pdf', `Page ${index} (counting from 0) has no area.`);
  if (w > MAX_PAGE_SIDE_PT || h > MAX_PAGE_SIDE_PT || px > MAX_PAGE_PIXELS_300DPI) {
    throw new DocfixError(
      'page_too_large',
      `Page ${index} (counting from 0) measures ${inches(w)} × ${inches(h)} inches; pages up to ${MAX_PAGE_SIDE_PT / 72} inches a side (${MAX_PAGE_PIXELS_300DPI / 1e6} megapixels at 300 dpi) can be worked on.`,
      { page_index: index },
    );
  }
}

const inches = (pt: number) => (Math.round((pt / 72) * 10) / 10).toString();

/**
 * One pass over every object of the file: images too large (from their dictionaries, before any
 * decoding), Flate streams that inflate beyond the bound (decompression bombs, measured with a capped
 * inflate), and the facts behind the concerns (signatures, forms, XFA, JavaScript, fonts).
 */
export function readSignals(doc: mupdf.PDFDocument, encrypted: boolean): FileSignals {
  const trailer = doc.getTrailer();
  const root = trailer.get('Root');
  const signals: FileSignals = {
    pdf_version: versionOf(doc),
    producer: doc.getMetaData('info:Producer') || null,
    creator: doc.getMetaData('info:Creator') || null,
    encryption: encrypted ? (doc.getMetaData('encryption') ?? 'encrypted') : null,
    repaired: doc.wasRepaired(),
    incremental_updates: Math.max(0, doc.countVersions() - 1),
    signatures: 0,
    usage_rights_signature: !root.get('Perms', 'UR3').isNull() || !root.get('Perms', 'UR').isNull(),
    form_fields: 0,
    xfa: !root.get('AcroForm', 'XFA').isNull(),
    javascript: !root.get('Names', 'JavaScript').isNull(),
    fonts_not_embedded: [],
    embedded_files: 0,
  };
  const notEmbedded = new Set<string>();
  // The usage-rights signature under /Perms is not a signature of the document's content.
  const permsSigs = new Set<number>();
  for (const key of ['UR3', 'UR']) {
    const ref = root.get('Perms', key);
    if (ref.isIndirect()) permsSigs.add(ref.asIndirect());
  }
  const objects = doc.countObjects();
  for (let num = 1; num < objects; num++) {
    // Stream-ness belongs to the indirect reference (the xref entry), the keys to the resolved dict.
    const ref = doc.newIndirect(num);
    let obj: mupdf.PDFObject;
    let stream: boolean;
    try {
      obj = ref.resolve();
      stream = ref.isStream();
    } catch {
      continue; // a missing or broken object: MuPDF reports it if a page needs it
    }
    if (!obj.isDictionary()) continue;
    const type = nameOf(obj.get('Type'));
    const subtype = nameOf(obj.get('Subtype'));
    if (stream) {
      if (subtype === 'Image') checkImageDict(obj, num);
      if (!encrypted) checkInflation(ref, obj, num);
    }
    if (type === 'Sig' && !obj.get('ByteRange').isNull() && !permsSigs.has(num)) signals.signatures++;
    if (!obj.get('FT').isNull() && !obj.get('T').isNull()) signals.form_fields++;
    if (nameOf(obj.get('S')) === 'JavaScript' || (!obj.get('JS').isNull() && type !== 'Font'))
      signals.javascript = true;
    if (type === 'Filespec' && !obj.get('EF').isNull()) signals.embedded_files++;
    if (type === 'Font' && subtype !== 'Type0' && subtype !== 'Type3') {
      if (!fontEmbedded(obj)) notEmbedded.add(fontName(obj));
    } else if (type === 'Font' && subtype === 'Type0') {
      const descendant = obj.get('DescendantFonts', 0);
      if (!descendant.isNull() && !fontEmbedded(descendant)) notEmbedded.add(fontName(obj));
    }
  }
  signals.fonts_not_embedded = [...notEmbedded].sort();
  return signals;
}

function versionOf(doc: mupdf.PDFDocument): string {
  const v = doc.getVersion();
  return `${Math.floor(v / 10)}.${v % 10}`;
}

function nameOf(obj: mupdf.PDFObject): string | null {
  return obj.isName() ? obj.asName() : null;
}

function fontEmbedded(font: mupdf.PDFObject): boolean {
  const fd = font.get('FontDescriptor');
  if (fd.isNull()) return false;
  return !fd.get('FontFile').isNull() || !fd.get('FontFile2').isNull() || !fd.get('FontFile3').isNull();
}

function fontName(font: mupdf.PDFObject): string {
  const name = nameOf(font.get('BaseFont')) ?? 'unnamed font';
  return withoutSubsetTag(name);
}

function checkImageDict(obj: mupdf.PDFObject, num: number): void {
  const w = obj.get('Width');
  const h = obj.get('Height');
  const width = w.isNumber() ? w.asNumber() : 0;
  const height = h.isNumber() ? h.asNumber() : 0;
  if (width * height > MAX_IMAGE_PIXELS) {
    throw new DocfixError(
      'image_too_large',
      `The file carries an image of ${width} × ${height} pixels (${Math.round((width * height) / 1e6)} megapixels, object ${num}); the limit is ${MAX_IMAGE_PIXELS / 1e6} megapixels.`,
    );
  }
}

/** A Flate stream that inflates beyond the bound is a decompression bomb: refused before any page runs. */
function checkInflation(ref: mupdf.PDFObject, obj: mupdf.PDFObject, num: number): void {
  const filter = obj.get('Filter');
  const first = filter.isArray() ? filter.get(0) : filter;
  const name = nameOf(first);
  if (name !== 'FlateDecode' && name !== 'Fl') return;
  // Deflate expands at most 1032:1, so a stream shorter than the bound / 1032 cannot be a bomb.
  const length = obj.get('Length');
  if (length.isNumber() && length.asNumber() * 1032 < MAX_STREAM_INFLATED_BYTES) return;
  let raw: Uint8Array;
  try {
    raw = ref.readRawStream().asUint8Array();
  } catch {
    return;
  }
  if (raw.byteLength === 0) return;
  try {
    inflateSync(raw, {
      maxOutputLength: MAX_STREAM_INFLATED_BYTES,
      finishFlush: 2 /* Z_SYNC_FLUSH: tolerate truncation */,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw new DocfixError(
        'unreadable_pdf',
        `A compressed stream (object ${num}) inflates to more than ${MAX_STREAM_INFLATED_BYTES / 1024 / 1024} MB; the file is refused as a decompression bomb.`,
      );
    }
    // Other zlib complaints (damaged data) are MuPDF's to tolerate or report when a page needs the stream.
  }
}

function concernsOf(
  signals: FileSignals,
  pages: PageInfo[],
  opened: { protected: boolean; encrypted: boolean },
): string[] {
  const out: string[] = [];
  if (signals.signatures > 0) {
    out.push(
      `digitally signed: ${signals.signatures} signature${signals.signatures > 1 ? 's' : ''}; any correction invalidates ${signals.signatures > 1 ? 'them' : 'it'}`,
    );
  }
  if (signals.usage_rights_signature)
    out.push('reader-extended (usage rights signature): a correction removes the extended rights');
  if (opened.protected)
    out.push('password-protected: corrected versions keep the same password and encryption');
  else if (opened.encrypted)
    out.push(
      `encrypted without a user password (${signals.encryption}): corrected versions keep the encryption`,
    );
  const scanned = pages.filter((p) => p.kind === 'scanned').map((p) => p.index);
  const layered = pages.filter((p) => p.kind === 'scanned_with_text_layer').map((p) => p.index);
  if (scanned.length > 0)
    out.push(`scanned pages without a text layer: ${pageList(scanned)} (words are found by recognition)`);
  if (layered.length > 0) out.push(`scanned pages with an invisible OCR text layer: ${pageList(layered)}`);
  if (signals.fonts_not_embedded.length > 0) {
    const names = signals.fonts_not_embedded;
    out.push(
      `fonts not embedded: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''} (text in them renders with substitutes)`,
    );
  }
  if (signals.xfa) out.push('XFA form: viewers that use XFA may show content the PDF pages do not');
  if (signals.form_fields > 0)
    out.push(
      `form with ${signals.form_fields} field${signals.form_fields > 1 ? 's' : ''}: corrections change page content, not field values`,
    );
  if (signals.javascript) out.push('contains JavaScript (never run by docfix)');
  if (signals.embedded_files > 0)
    out.push(
      `carries ${signals.embedded_files} embedded file${signals.embedded_files > 1 ? 's' : ''} (kept unchanged)`,
    );
  if (signals.repaired) out.push('damaged: the file was repaired on opening; check the pages look right');
  if (signals.incremental_updates > 0) {
    out.push(
      `incrementally updated ${signals.incremental_updates} time${signals.incremental_updates > 1 ? 's' : ''}: earlier versions of the content remain inside the file`,
    );
  }
  return out;
}

/** "0, 2–4, 7" (0-based page indexes). */
function pageList(indexes: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < indexes.length;) {
    let j = i;
    while (j + 1 < indexes.length && indexes[j + 1] === indexes[j] + 1) j++;
    parts.push(j > i ? `${indexes[i]}–${indexes[j]}` : `${indexes[i]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
