// The proof stage for a text correction: the saved bytes verified by rendering and by objects
// (verify.ts), with the old glyphs' ink read from the input, and the band PDFium must witness.
import { closeDocument, loadPageAlone, openPdf, type mupdf } from '../../pdf/mupdf-adapter.ts';
import type { EditTaskInput } from '../correction.ts';
import { glyphInkBoxes } from '../fit/ink.ts';
import { worstSharedInk } from '../fit/ink-collision.ts';
import type { GuardCheck } from '../fit/widths-read-alike.ts';
import type { Located } from '../locate/located.ts';
import { toRender, type TextLine } from '../locate/page-text.ts';
import type { glyphBoxes } from './declared-boxes.ts';
import { unionBox, type Box } from './render-diff.ts';
import { DECLARED_PAD_PX, verifyOutput, type SavedCorrection, type VerifyOutput } from './verify.ts';

/**
 * Verifies the saved bytes by rendering and by objects (verify.ts). The input's page, read only when
 * the proof needs the old glyphs' ink (a change outside the glyph boxes, the line band's check, a new
 * glyph touching a neighbour), is opened once for all of them and closed with the verification.
 */
export function verifyCorrection(
  input: EditTaskInput,
  t: Located,
  boxes: ReturnType<typeof glyphBoxes>,
  saved: SavedCorrection,
  checks: { textPlace: GuardCheck; widthsAlike: GuardCheck },
  find: string,
  replacement: string,
): VerifyOutput {
  const original = new InputPage(input, t.pageIndex);
  let oldInk: Box[] | undefined;
  try {
    return verifyOutput({
      ...saved,
      beforeRender: boxes.beforeRender,
      beforeLines: t.lines,
      oldBoxes: boxes.oldBoxes,
      // The edited document already draws the new text: read the old glyphs from the input bytes.
      oldInk: () => (oldInk ??= oldInkBoxes(original.page(), boxes.oldOrigins, boxes.tol)),
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
      lineInk: () => lineInk(original.page(), t.match.line, boxes.tol, boxes.emPts),
    });
  } finally {
    original.close();
  }
}

/** The input's page, opened on first use (one open and one page lookup however many checks read it). */
export class InputPage {
  readonly #input: EditTaskInput;
  readonly #pageIndex: number;
  #doc: mupdf.PDFDocument | null = null;
  #page: mupdf.PDFPage | null = null;

  constructor(input: EditTaskInput, pageIndex: number) {
    this.#input = input;
    this.#pageIndex = pageIndex;
  }

  page(): mupdf.PDFPage {
    if (!this.#page) {
      this.#doc ??= openPdf(this.#input.pdf, this.#input.password).doc;
      this.#page = loadPageAlone(this.#doc, this.#pageIndex);
    }
    return this.#page;
  }

  close(): void {
    closeDocument(this.#doc);
    this.#doc = null;
    this.#page = null;
  }
}

/** The most ink two glyphs of the old line share in the input's page (ink-collision.ts). */
export function lineInk(page: mupdf.PDFPage, line: TextLine, tol: number, emPts: number): number {
  const near = line.chars.map((c) => c.origin);
  return worstSharedInk(page, near, [], tol, emPts).worst;
}

/** Ink boxes (render pixels) of the old glyphs, read from the input's page. */
export function oldInkBoxes(page: mupdf.PDFPage, origins: [number, number][], tol: number): Box[] {
  return glyphInkBoxes(page, origins, tol).map((b) => toRender(b));
}

/**
 * The band PDFium must witness: the edited line's rows widened by a line height on each side (accents
 * and descenders, PDFium's own rounding), for horizontal text on a page whose objects were proven
 * untouched except where declared; otherwise null (the whole page is rendered).
 */
export function witnessBand(line: TextLine, v: VerifyOutput): [number, number] | null {
  const structure = v.guards.find((g) => g.name === 'objects_untouched');
  if (!structure?.passed) return null;
  if (Math.abs(line.dir[0]) < Math.abs(line.dir[1])) return null;
  const band = toRender(line.bbox);
  const h = Math.max(1, band[3] - band[1]);
  const d = v.declared_box;
  return [Math.max(0, Math.min(band[1], d[1]) - h), Math.max(band[3], d[3]) + h];
}

/**
 * The band witnessBand will give, as far as it is known before verification: the line's rows and
 * the old and new glyphs' boxes, widened by a further half line height so that it holds the band
 * the verification settles on (declared glyph ink overhanging the boxes included). PDFium starts
 * drawing it while MuPDF verifies (second-renderer.ts, startSecondRenderer); a wider band is a
 * stricter witness. Null where witnessBand is null whatever the verification says (vertical text).
 */
export function likelyWitnessBand(
  line: TextLine,
  boxes: ReturnType<typeof glyphBoxes>,
): [number, number] | null {
  if (Math.abs(line.dir[0]) < Math.abs(line.dir[1])) return null;
  const band = toRender(line.bbox);
  const h = Math.max(1, band[3] - band[1]);
  const glyphs = unionBox([...boxes.oldBoxes, ...(boxes.newGlyphBoxes ?? [])]);
  const top = glyphs ? Math.min(band[1], glyphs[1] - DECLARED_PAD_PX) : band[1];
  const bottom = glyphs ? Math.max(band[3], glyphs[3] + DECLARED_PAD_PX) : band[3];
  const slack = Math.ceil(h / 2);
  return [Math.max(0, top - h - slack), bottom + h + slack];
}
