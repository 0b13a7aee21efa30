// Verification of a corrected revision: reopen the saved bytes (no repair allowed), render the
// changed page before and after at the working resolution and compare every pixel, prove the other
// pages identical by their objects, and check the guards (docs/engine.md, "Verifying").
import {
  closeDocument,
  loadPage,
  loadPageAlone,
  openPdf,
  renderPageOver,
  renderPageRgb as renderPage,
  type RenderOver,
  type RgbImage,
  type mupdf,
} from '../../pdf/mupdf-adapter.ts';
import { diffRenders, padBox, unionBox, type Box, type DiffResult } from './render-diff.ts';
import { quadBox, readPageText, toRender, WORKING_DPI, type TextLine } from '../locate/page-text.ts';
import type { ChangedObject } from '../rewrite/write.ts';
import {
  objectsUntouched,
  type DeclaredObject,
  type RepairedFile,
  type RepairedObject,
} from './object-guard.ts';
import { keepsPrefix } from '../../pdf/kept-prefix.ts';
import { ObjectIndex, type StreamDecoder, type XrefEntry } from '../../pdf/xref-index.ts';
import type { PdfValue } from '../../pdf/object-syntax.ts';
import { sha256, sha256Extending, streamBytes } from '../locate/pdf-bytes.ts';
import { glyphInkBoxes, nearAny } from '../fit/ink.ts';
import { PX_PER_EM, SHARED_INK_FLOOR_PX, worstSharedInk } from '../fit/ink-collision.ts';
import { codeReading } from '../locate/code-reading.ts';
import { GlyphIndex } from '../locate/locate.ts';
import { interpretPage, type Mat } from '../locate/text-interpreter.ts';
import { CJK } from '../locate/page-text.ts';
import { editOnOwnLine, rowRegrouped } from './line-band.ts';
import { keepUpdatedReach, pageReachOf, PageReach, refsOf } from './page-reach.ts';

// The working resolution, page points to its pixels, and the bytes' hash are the page reader's
// (locate/); the verification's readers find them here too.
export { sha256, sha256Extending, toRender, WORKING_DPI };

/** Antialiasing margin added around the declared glyph boxes, in render pixels. */
export const DECLARED_PAD_PX = 2;

export interface GuardResult {
  name: string;
  passed: boolean;
  detail: string;
}

export interface VerifyPage {
  page_index: number;
  identical: boolean;
  proven_by: 'render' | 'objects';
  changed_pixels: number;
  changed_fraction: number;
  outside_pixels: number;
  max_delta: number;
  bbox: number[] | null;
  declared_box: number[] | null;
  histogram?: Record<string, number>;
}

/** Boxes of the characters whose origins are near `origins` (points), from a text reading. */
export function boxesAt(lines: TextLine[], origins: [number, number][], tol: number): Box[] {
  const out: Box[] = [];
  for (const line of lines) {
    for (const ch of line.chars) {
      if (nearAny(origins, ch.origin, tol)) {
        out.push(toRender(quadBox(ch.quad)));
      }
    }
  }
  return out;
}

// An object's references, back-links and navigation left out: the page graph's (page-reach.ts).
export { refsOf };

export interface VerifyInput extends SavedCorrection {
  beforeRender: RgbImage;
  beforeLines: TextLine[];
  /** Old glyph boxes in render pixels (from the accurate and the metric text reading). */
  oldBoxes: Box[];
  /** Outline (ink) boxes of the old glyphs, render pixels, computed on demand. */
  oldInk: () => Box[];
  /** Origins (points) of the new glyphs, to find their boxes after the edit. */
  newOrigins: [number, number][];
  /** The new characters, one per origin. */
  newChars: string[];
  /** Origins (points) after the edit of glyphs the correction moved (a re-spaced line's words). */
  movedOrigins?: [number, number][];
  tolerance: number;
  line: TextLine;
  /** The reading `line` is in: the text check reads the edited page the same way (code-reading.ts). */
  reading: 'mupdf' | 'codes';
  matchStart: number;
  matchLength: number;
  replacement: string;
  find: string;
  textPlaceOk: { passed: boolean; detail: string };
  /** The widths of the new and old codes, as written and as MuPDF reads them, place the line alike. */
  widthsReadAlike?: { passed: boolean; detail: string };
  /**
   * Boxes (render pixels) the new glyphs draw in, when the engine knows them better than MuPDF's
   * character quads (vertical writing: the quads stand an em lower than the drawing). Without
   * them, the quads of the characters found at `newOrigins` after the edit are used.
   */
  newGlyphBoxes?: Box[];
  /** Size of an em on the page (points), for the ink check's resolution. */
  emPts?: number;
  /** The most ink two glyphs of the old line share in the input (ink-collision.ts), on demand. */
  lineInk?: () => number;
}

/** Decoded stream data by object number, through an open document (decryption and filters applied). */
export function streamDecoder(doc: mupdf.PDFDocument): StreamDecoder {
  return (num) => {
    try {
      const obj = doc.newIndirect(num);
      return obj.isStream() ? streamBytes(obj) : null;
    } catch {
      return null;
    }
  };
}

export interface VerifyOutput {
  passed: boolean;
  failure_reason: string | null;
  output_sha256: string;
  dpi: number;
  pages: VerifyPage[];
  guards: GuardResult[];
  stream_changes: Record<string, unknown>;
  declared_box: number[];
  changed_box: number[] | null;
  text_before: string;
  text_after: string;
  diff: DiffResult;
  afterRender: RgbImage;
}

/** What every verification of a saved correction knows about the document, whatever the tier. */
export interface SavedCorrection {
  output: Uint8Array;
  input: Uint8Array;
  password: string;
  protectedInput: boolean;
  pageIndex: number;
  pageCount: number;
  changedObjects: ChangedObject[];
  /** Object numbers of existing objects rewritten (page dictionary, catalog …). */
  rewrittenExisting: number[];
  /** The input's objects as its bytes write them (for the structural guard). */
  inputIndex: ObjectIndex;
  /** Existing objects the correction rewrote and new objects copied from existing ones. */
  declared: DeclaredObject[];
  /** Number tokens MuPDF re-printed that the save put back as the input wrote them. */
  numbersKept: number;
  /** The document is encrypted (strings are re-encrypted when an object is written again). */
  encrypted: boolean;
  /** A damaged input saved repaired (save/repair.ts): why, what the repair changed, its file. */
  repaired?: { cause: string; objects: RepairedObject[]; file: RepairedFile };
}

/** Reopens the saved bytes without repair (the guard `output_reopens`); throws when they do not open. */
export function reopenOutput(v: SavedCorrection): { doc: mupdf.PDFDocument; reopen: GuardResult } {
  let doc: mupdf.PDFDocument | null = null;
  let reopenOk = true;
  let reopenDetail = '';
  try {
    const opened = openPdf(v.output, v.protectedInput ? v.password : '');
    doc = opened.doc;
    if (doc.wasRepaired()) {
      reopenOk = false;
      reopenDetail = 'MuPDF had to repair the saved file';
    } else if (doc.countPages() !== v.pageCount) {
      reopenOk = false;
      reopenDetail = `page count changed from ${v.pageCount} to ${doc.countPages()}`;
    } else
      reopenDetail = `reopened without repair${v.protectedInput ? ' with the document password' : ''}, ${v.pageCount} page(s)`;
  } catch (error) {
    reopenOk = false;
    reopenDetail = `the saved file did not reopen: ${(error as Error).message}`;
  }
  if (!doc) {
    const guard = { name: 'output_reopens', passed: false, detail: reopenDetail };
    throw Object.assign(new Error(reopenDetail), { guards: [guard] });
  }
  return { doc, reopen: { name: 'output_reopens', passed: reopenOk, detail: reopenDetail } };
}

export function verifyOutput(v: VerifyInput): VerifyOutput {
  const guards: GuardResult[] = [];
  guards.push({ name: 'text_at_measured_place', ...v.textPlaceOk });
  if (v.widthsReadAlike) guards.push({ name: 'widths_read_alike', ...v.widthsReadAlike });
  const { doc, reopen } = reopenOutput(v);
  try {
    // Only read, never saved: on a long flat tree MuPDF need not parse every page to find this one.
    const page = loadPageAlone(doc, v.pageIndex);
    // Made over the before render: only the rows that differ leave WASM memory, and only they are compared.
    const { image: afterRender, differing } = renderPageOver(page, WORKING_DPI, v.beforeRender);
    const afterLines = readPageText(page);
    const afterAccurate = readPageText(page, true);
    const { declared, diff } = declaredDiff(
      v,
      page,
      { image: afterRender, differing },
      afterLines,
      afterAccurate,
    );
    guards.push(glyphsDrawn(v, afterAccurate));
    const inkClear = newInkClear(v, page);
    if (inkClear) guards.push(inkClear);
    const textLayer = textLayerTrue(v, page, afterLines);
    guards.push(textLayer.guard);
    // Edit on its own line: changed pixels stay in the line's band, or its glyphs' ink (line-band.ts).
    guards.push(
      editOnOwnLine(page, diff.bbox, {
        line: v.line,
        drawn: [...v.newOrigins, ...(v.movedOrigins ?? [])],
        tolerance: v.tolerance,
        oldInk: v.oldInk,
        pad: DECLARED_PAD_PX,
        renders: { before: v.beforeRender, after: afterRender },
      }),
    );
    guards.push(reopen);

    const proof = proveStructure(doc, v, renderedPage(v.pageIndex, diff, declared));
    guards.push(...proof.guards);
    const { pages, stream_changes } = proof;

    const failures: string[] = [];
    for (const g of guards) if (!g.passed) failures.push(`${g.name}: ${g.detail}`);
    if (diff.outside_pixels > 0)
      failures.push(`${diff.outside_pixels} pixel(s) changed outside the declared box`);
    return {
      passed: failures.length === 0,
      failure_reason: failures.length ? failures.join('; ') : null,
      output_sha256: sha256Extending(v.output, v.input),
      dpi: WORKING_DPI,
      pages,
      guards,
      stream_changes,
      declared_box: declared ?? [0, 0, 0, 0],
      changed_box: diff.bbox,
      text_before: v.line.text,
      text_after: textLayer.got,
      diff,
      afterRender,
    };
  } finally {
    // The page with its document, now, not by the collector (mupdf-adapter.ts, closeDocument).
    closeDocument(doc);
  }
}

/**
 * The declared box (the old and new glyphs' boxes, padded) and the renders compared against it;
 * where pixels changed outside, the glyphs' outline boxes are added and the renders compared again.
 */
function declaredDiff(
  v: VerifyInput,
  page: mupdf.PDFPage,
  { image: afterRender, differing }: RenderOver,
  afterLines: TextLine[],
  afterAccurate: TextLine[],
): { declared: Box | null; diff: DiffResult } {
  const newBoxes = v.newGlyphBoxes ?? [
    ...boxesAt(afterLines, v.newOrigins, v.tolerance),
    ...boxesAt(afterAccurate, v.newOrigins, v.tolerance),
  ];
  let glyphBox = unionBox([...v.oldBoxes, ...newBoxes]);
  let declared = glyphBox ? padBox(glyphBox, DECLARED_PAD_PX, afterRender) : null;
  let diff = diffRenders(v.beforeRender, afterRender, declared, differing);
  if (diff.outside_pixels > 0) {
    // Glyphs may overhang their advance (italics, negative side bearings): add the outline boxes
    // MuPDF bounds the old and new glyphs with. Computed only when needed (it walks the page's text).
    const drawn = [...v.newOrigins, ...(v.movedOrigins ?? [])];
    const ink = [...v.oldInk(), ...glyphInkBoxes(page, drawn, v.tolerance).map((b) => toRender(b))];
    glyphBox = unionBox([glyphBox, ...ink]);
    declared = glyphBox ? padBox(glyphBox, DECLARED_PAD_PX, afterRender) : null;
    diff = diffRenders(v.beforeRender, afterRender, declared, differing);
  }
  return { declared, diff };
}

/**
 * Every new glyph that is not a space leaves ink (a missing glyph draws nothing and would
 * otherwise pass as an erased letter with a true text layer).
 */
function glyphsDrawn(v: VerifyInput, afterAccurate: TextLine[]): GuardResult {
  const inkless: string[] = [];
  v.newOrigins.forEach((o, i) => {
    if (/\s/.test(v.newChars[i])) return;
    const ink = boxesAt(afterAccurate, [o], v.tolerance);
    if (!ink.some((b) => b[2] - b[0] > 0 && b[3] - b[1] > 0)) inkless.push(v.newChars[i]);
  });
  return {
    name: 'glyphs_drawn',
    passed: inkless.length === 0,
    detail: inkless.length
      ? `no ink for ${inkless.map((c) => `“${c}”`).join(', ')}: the font draws nothing for ${inkless.length > 1 ? 'them' : 'it'}`
      : `each of the ${v.newChars.filter((c) => !/\s/.test(c)).length} new glyph(s) leaves ink`,
  };
}

/**
 * New and moved glyphs draw beside their neighbours, not over them (ink-collision.ts): no more
 * ink shared than the line's own glyphs share in the input. Null when the em is not known or
 * nothing was drawn.
 */
function newInkClear(v: VerifyInput, page: mupdf.PDFPage): GuardResult | null {
  const drawnNow = [...v.newOrigins, ...(v.movedOrigins ?? [])];
  if (!v.emPts || !drawnNow.length) return null;
  const now = worstSharedInk(page, drawnNow, drawnNow, v.tolerance, v.emPts);
  const own = now.worst > SHARED_INK_FLOOR_PX ? (v.lineInk?.() ?? 0) : 0;
  const limit = Math.max(SHARED_INK_FLOOR_PX, Math.ceil(own * 1.5));
  return {
    name: 'new_ink_clear',
    passed: now.worst <= limit,
    detail:
      now.worst <= limit
        ? `the new and moved glyphs share at most ${now.worst} pixel(s) of ink with a neighbour (at ${PX_PER_EM} px per em; limit ${limit})`
        : `${now.pair} share ${now.worst} pixels of ink (at ${PX_PER_EM} px per em): a glyph is drawn over another; the line's own glyphs share at most ${own}`,
  };
}

/** Text layer: the line now reads the replacement where the target was. Answers the guard and the line read. */
function textLayerTrue(
  v: VerifyInput,
  page: mupdf.PDFPage,
  afterLines: TextLine[],
): { guard: GuardResult; got: string } {
  const first = v.line.chars[v.matchStart];
  const readLines =
    v.reading === 'codes'
      ? codeReading(afterLines, new GlyphIndex(interpretPage(page, page.getTransform() as Mat).glyphs)).lines
      : afterLines;
  // Found by the old text's first character, or the new text's (a line re-spaced by the gaps
  // before it draws it further left).
  const starts = [first.origin, ...v.newOrigins.slice(0, 1)];
  const lineAfter = readLines.find((l) => l.chars.some((c) => nearAny(starts, c.origin, v.tolerance)));
  const chars = v.line.chars.map((c) => c.c);
  const expected = [
    ...chars.slice(0, v.matchStart),
    v.replacement,
    ...chars.slice(v.matchStart + v.matchLength),
  ].join('');
  const got = lineAfter?.text ?? '';
  // Whitespace runs count as one space, but a space MuPDF now infers inside a word (a gap left by
  // a narrower replacement) fails: search would no longer find the new word. Where a half-width
  // letter meets CJK text, a space is what typesetting itself puts there (cjkBoundarySpaced).
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  const prefix = chars.slice(0, v.matchStart).join('');
  const cjkGap =
    norm(got) !== norm(expected) &&
    cjkBoundarySpaced(got, { prefix, find: v.find, replacement: v.replacement, expected }, norm);
  // A row MuPDF now groups otherwise (the edited line joined with the unchanged line after it).
  const regrouped =
    norm(got) !== norm(expected) && !cjkGap && rowRegrouped(v.beforeLines, v.line, expected, got, norm);
  const layerOk = norm(got) === norm(expected) || cjkGap || regrouped;
  const stillOld =
    !v.replacement.includes(v.find) &&
    got.includes(v.find) &&
    v.line.text.split(v.find).length === got.split(v.find).length;
  const guard = {
    name: 'text_layer_true',
    passed: layerOk && !stillOld,
    detail: layerOk
      ? `the line now extracts as “${got.trim()}”${regrouped ? `, joined with the unchanged text beside it on its row (read as “${expected.trim()}” and apart before)` : ''}${cjkGap ? ', with a space where a half-width letter of the replacement meets CJK text (the gap the narrower letter leaves in its cell; CJK typesetting spaces these boundaries too)' : ''}`
      : `expected the line to extract as “${expected.trim()}”, got “${got.trim()}”`,
  };
  return { guard, got };
}

/** The edited page's entry: proven by its render, compared with the declared box. */
export function renderedPage(pageIndex: number, diff: DiffResult, declared: Box | null): VerifyPage {
  return {
    page_index: pageIndex,
    identical: diff.identical,
    proven_by: 'render',
    changed_pixels: diff.changed_pixels,
    changed_fraction: diff.changed_fraction,
    outside_pixels: diff.outside_pixels,
    max_delta: diff.max_delta,
    bbox: diff.bbox,
    declared_box: declared,
    histogram: diff.histogram,
  };
}

/** Objects new in the output that some object of the input already referred to (then dangling). */
function danglingNowFilled(input: ObjectIndex, output: ObjectIndex): number[] {
  const fresh = new Set(output.numbers().filter((n) => n !== 0 && !input.inUse(n)));
  if (fresh.size === 0) return [];
  const found = new Set<number>();
  const walk = (value: PdfValue) => {
    if (value.kind === 'ref') {
      if (fresh.has(value.num)) found.add(value.num);
    } else if (value.kind === 'array') value.items.forEach(walk);
    else if (value.kind === 'dict') value.entries.forEach(walk);
  };
  for (const n of input.numbers()) {
    const obj = input.get(n);
    if (obj) walk(obj.value);
  }
  if (input.trailer) walk(input.trailer);
  return [...found];
}

/** Resolution at which other pages are compared before and after when objects cannot prove them. */
const WITNESS_DPI = 150;
/** Other pages rendered at most, when a rewritten object is shared (the rest stay unproven). */
const MAX_WITNESS_PAGES = 16;

/**
 * Other pages rendered before (the input, as MuPDF reads it, repaired if need be) and after, and
 * compared pixel for pixel: pages that draw from an object a repair changed, and pages that reach an
 * existing object the correction rewrote (which the proof by objects cannot clear).
 */
class PageWitness {
  readonly #v: SavedCorrection;
  readonly #doc: mupdf.PDFDocument;
  #input: mupdf.PDFDocument | null = null;

  constructor(v: SavedCorrection, doc: mupdf.PDFDocument) {
    this.#v = v;
    this.#doc = doc;
  }

  compare(index: number): VerifyPage {
    this.#input ??= openPdf(this.#v.input, this.#v.password).doc;
    const render = (doc: mupdf.PDFDocument) => {
      return renderPage(loadPage(doc, index), WITNESS_DPI);
    };
    const before = render(this.#input);
    const after = render(this.#doc);
    const diff = diffRenders(before, after, null);
    return {
      page_index: index,
      identical: diff.identical,
      proven_by: 'render',
      changed_pixels: diff.changed_pixels,
      changed_fraction: diff.changed_fraction,
      outside_pixels: diff.outside_pixels,
      max_delta: diff.max_delta,
      bbox: diff.bbox,
      declared_box: null,
    };
  }

  close(): void {
    closeDocument(this.#input);
  }
}

const sameEntry = (a: XrefEntry, b: XrefEntry | undefined) =>
  a === b ||
  (b !== undefined &&
    (a.type === 1
      ? b.type === 1 && a.offset === b.offset
      : b.type === 2 && a.stream === b.stream && a.index === b.index));

/**
 * Objects an update wrote again or anew: those whose cross-reference entry in the output differs
 * from the input's, and those held in an object stream it wrote. The output keeps the input as its
 * prefix, so every other object is read from the very bytes the input holds.
 */
export function writtenByUpdate(input: ObjectIndex, output: ObjectIndex): number[] {
  const written = new Set<number>();
  for (const [num, e] of output.entries) if (!sameEntry(e, input.entries.get(num))) written.add(num);
  for (const [num, e] of output.entries) if (e.type === 2 && written.has(e.stream)) written.add(num);
  return [...written];
}

/** The page graph the other pages are proven with, and the existing objects the output wrote again. */
function rewrittenAndReach(
  doc: mupdf.PDFDocument,
  v: SavedCorrection,
  outputIndex: ObjectIndex,
  structure: ReturnType<typeof objectsUntouched>,
  prefixKept: boolean,
): { reach: PageReach; hit: Set<number>; written: number[] } {
  const hit = new Set(v.rewrittenExisting);
  if (!prefixKept) {
    // Rewritten in full: the existing objects found changed (as declared) join those the save names.
    // (A repaired object is proven by the renders of the pages drawing from it instead.)
    for (const r of structure.rewritten) if (r.from === r.num && !r.repair) hit.add(r.num);
    return { reach: PageReach.read(doc), hit, written: [] };
  }
  // Kept as a prefix: an object the update did not write is the input's, byte for byte, so the
  // input's page graph (read once per document, page-reach.ts) says which pages reach what was.
  const written = writtenByUpdate(v.inputIndex, outputIndex);
  for (const n of written) if (v.inputIndex.entries.has(n)) hit.add(n);
  const { reach } = pageReachOf(v.input, () => openPdf(v.input, v.password).doc);
  return { reach, hit, written };
}

/** The record of a page proven unchanged (or not) by its objects alone. */
const byObjects = (i: number, identical: boolean): VerifyPage => ({
  page_index: i,
  identical,
  proven_by: 'objects',
  changed_pixels: 0,
  changed_fraction: 0,
  outside_pixels: 0,
  max_delta: 0,
  bbox: null,
  declared_box: null,
});

/**
 * The string at `path` (keys and array indices, as the object guard names them: `/DA`, `/Kids/0/T`)
 * below object `num`, decrypted as MuPDF reads it; null where there is none.
 */
function stringAt(doc: mupdf.PDFDocument, num: number, path: string): Uint8Array | null {
  try {
    let obj = doc.newIndirect(num).resolve();
    for (const part of path.split(/(?=\/)/).filter(Boolean)) {
      const key = part.slice(1);
      obj = obj.isArray() && /^\d+$/.test(key) ? obj.get(Number(key)) : obj.get(key);
      obj = obj.resolve();
    }
    return obj.isString() ? obj.asByteString() : null;
  } catch {
    return null;
  }
}

/**
 * The proof by objects, shared by every tier: each object of the input compared token for token
 * with the output (only declared keys may differ: `objects_untouched`), and every other page proven
 * unchanged because the input is kept as a prefix and no other page reaches a rewritten object.
 * The pages that do are found from the rewritten objects upwards (page-reach.ts), so a long
 * document costs no more per correction than a short one; they, and pages drawing from an object a
 * repair changed, are rendered before and after.
 */
export function proveStructure(
  doc: mupdf.PDFDocument,
  v: SavedCorrection,
  edited: VerifyPage,
): { guards: GuardResult[]; pages: VerifyPage[]; stream_changes: Record<string, unknown> } {
  const guards: GuardResult[] = [];
  // The output's objects: its appended sections read, the input's entries reused (xref-index.ts).
  const outputIndex = new ObjectIndex(v.output, streamDecoder(doc), { extends: v.inputIndex });
  let input: mupdf.PDFDocument | null = null;
  let structure: ReturnType<typeof objectsUntouched>;
  try {
    structure = objectsUntouched(v.input, v.output, v.inputIndex, outputIndex, v.declared, {
      encrypted: v.encrypted,
      ...(v.repaired && { repaired: v.repaired.file }),
      // Strings whose encrypted bytes differ, as MuPDF decrypts them in each file.
      strings: (from, num, path) => {
        input ??= openPdf(v.input, v.password).doc;
        const a = stringAt(input, from, path);
        const b = stringAt(doc, num, path);
        return a && b ? [a, b] : null;
      },
    });
  } finally {
    closeDocument(input);
  }
  guards.push({ name: 'objects_untouched', passed: structure.passed, detail: structure.detail });

  const prefixKept = keepsPrefix(v.input, v.output);
  // A full rewrite (a repaired file MuPDF cannot update in place) proves the other pages the same way
  // when every object of the input was compared and found as written, and no reference the input
  // left dangling now finds an object (new objects are then reached only through declared ones).
  const strangers = prefixKept ? [] : danglingNowFilled(v.inputIndex, outputIndex);
  const rewrittenProven = !prefixKept && structure.passed && strangers.length === 0;
  const { reach, hit, written } = rewrittenAndReach(doc, v, outputIndex, structure, prefixKept);
  const touchedPages = reach.pagesReaching(hit).filter((i) => i !== v.pageIndex);
  const repairedPages = new Set(
    v.repaired?.objects.length ? reach.pagesReaching(v.repaired.objects.map((o) => o.num)) : [],
  );
  const { pages, differing } = pageRecords(doc, v, edited, touchedPages, repairedPages);
  guards.push(
    otherPagesGuard(v, { prefixKept, rewrittenProven, strangers, structure, hit, touchedPages, differing }),
  );
  // The next revision is this output: its graph is this one with the written objects read again.
  if (prefixKept && structure.passed) keepUpdatedReach(reach, v.output, doc, written, v.input);

  const stream_changes = {
    incremental: prefixKept,
    objects: v.changedObjects,
    rewritten_existing: v.rewrittenExisting,
    bytes_before: v.input.length,
    bytes_after: v.output.length,
    pages_proven_by_objects: pages.filter((p) => p.proven_by === 'objects' && p.identical).length,
    pages_rendered: pages.filter((p) => p.proven_by === 'render').length,
    objects_compared: structure.compared,
    objects_changed_as_declared: structure.rewritten,
    objects_changed_undeclared: structure.undeclared,
    numbers_kept_as_written: v.numbersKept,
    ...(v.repaired && {
      repair: {
        cause: v.repaired.cause,
        objects: v.repaired.objects,
        pages_proven_by_render: pages.filter((p) => p.page_index !== v.pageIndex && p.proven_by === 'render')
          .length,
      },
    }),
  };
  return { guards, pages, stream_changes };
}

/**
 * One record per page: the edited one as rendered, the pages reaching a rewritten object or a
 * repaired one rendered before and after (the first MAX_WITNESS_PAGES of the former), every other
 * page proven by its objects. `differing`: other pages whose objects do not prove them unchanged.
 */
function pageRecords(
  doc: mupdf.PDFDocument,
  v: SavedCorrection,
  edited: VerifyPage,
  touchedPages: number[],
  repairedPages: Set<number>,
): { pages: VerifyPage[]; differing: number[] } {
  const touched = new Set(touchedPages);
  const witnessed = new Set(touchedPages.slice(0, MAX_WITNESS_PAGES));
  const witness = touched.size || repairedPages.size ? new PageWitness(v, doc) : null;
  const pages: VerifyPage[] = [];
  const differing: number[] = [];
  try {
    for (let i = 0; i < v.pageCount; i += 1) {
      if (i === v.pageIndex) pages.push(edited);
      else if (touched.has(i)) {
        differing.push(i);
        // Rendered as evidence of what the rewritten object changed there; never proven by it
        // (a shared font's /ToUnicode can change the text of a page that renders the same).
        pages.push(witnessed.has(i) ? { ...witness!.compare(i), identical: false } : byObjects(i, false));
      } else if (repairedPages.has(i)) {
        const rendered = witness!.compare(i);
        if (!rendered.identical) differing.push(i);
        pages.push(rendered);
      } else pages.push(byObjects(i, true));
    }
  } finally {
    witness?.close();
  }
  return { pages, differing };
}

/** The guard `other_pages_identical`: what proves the other pages, or which of them it cannot. */
function otherPagesGuard(
  v: SavedCorrection,
  p: {
    prefixKept: boolean;
    rewrittenProven: boolean;
    strangers: number[];
    structure: ReturnType<typeof objectsUntouched>;
    hit: Set<number>;
    touchedPages: number[];
    differing: number[];
  },
): GuardResult {
  const rewritten = [...p.hit].join(', ');
  let detail: string;
  if (!p.prefixKept && !p.rewrittenProven)
    detail = `the output was rewritten in full; other pages were not proven by objects${p.strangers.length ? ` (the input refers to objects ${p.strangers.slice(0, 8).join(', ')}, which it lacks and the output has)` : ''}`;
  else if (p.differing.length) {
    const shown = p.touchedPages.slice(0, MAX_WITNESS_PAGES);
    const seen = shown.length ? `; rendered before and after at ${WITNESS_DPI} dpi: ${shown.join(', ')}` : '';
    detail = `pages ${p.differing.join(', ')} reach a rewritten object (${rewritten})${v.repaired ? ' or render otherwise once repaired' : ''}${seen}`;
  } else if (!p.prefixKept)
    detail = `${v.pageCount - 1} other page(s) unchanged object for object: the file was rewritten in full (it could not be updated in place), all ${p.structure.compared} of its objects were compared with the input as written, and only objects ${rewritten} differ, none reachable from another page`;
  else
    detail = `${v.pageCount - 1} other page(s) unchanged object for object: the original bytes are kept as a prefix and only objects ${rewritten} were rewritten, none reachable from another page`;
  if (v.repaired?.objects.length && !p.differing.length && (p.prefixKept || p.rewrittenProven))
    detail += `; the repair changed objects ${v.repaired.objects.map((o) => o.num).join(', ')}, so the pages that draw from them were rendered before and after at ${WITNESS_DPI} dpi and found identical`;
  return {
    name: 'other_pages_identical',
    passed: (p.prefixKept || p.rewrittenProven) && p.differing.length === 0,
    detail,
  };
}

/**
 * True when `got` reads as `expected` with a space at one or more boundaries where a half-width
 * character meets a CJK one: inside the replacement or at its ends, in the new text, or at an end
 * where the old text had such a boundary. A Latin letter drawn in a CJK cell is narrower than the
 * cell, and readers infer a space from the gap it leaves; xeCJK and word processors put space at
 * those boundaries themselves, and the new word is still found. A space inside a run of one kind
 * fails.
 */
export function cjkBoundarySpaced(
  got: string,
  parts: { prefix: string; find: string; replacement: string; expected: string },
  norm: (s: string) => string,
): boolean {
  const cps = [...parts.expected];
  const start = [...parts.prefix].length;
  const end = start + [...parts.replacement].length;
  const old = [...parts.find];
  const meet = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && !/\s/.test(a) && !/\s/.test(b) && CJK.test(a) !== CJK.test(b);
  const points: number[] = [];
  for (let i = Math.max(1, start); i <= Math.min(end, cps.length - 1); i++) {
    const wasMeeting =
      (i === start && meet(cps[i - 1], old[0])) || (i === end && meet(old[old.length - 1], cps[i]));
    if (meet(cps[i - 1], cps[i]) || wasMeeting) points.push(i);
  }
  if (!points.length || points.length > 6) return false;
  const want = norm(got);
  for (let mask = 1; mask < 1 << points.length; mask++) {
    const out = cps.map((c, i) => (points.some((p, k) => mask & (1 << k) && p === i) ? ` ${c}` : c));
    if (norm(out.join('')) === want) return true;
  }
  return false;
}
