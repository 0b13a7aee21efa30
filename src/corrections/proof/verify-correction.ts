// The proof stage for a text correction: the saved bytes verified by rendering and by objects
// (verify.ts), with the old glyphs' ink read from the input, and the band PDFium must witness.
import { closeDocument, loadPage, openPdf } from '../../pdf/mupdf-adapter.ts';
import type { EditTaskInput } from '../correction.ts';
import { glyphInkBoxes } from '../fit/ink.ts';
import { worstSharedInk } from '../fit/ink-collision.ts';
import type { GuardCheck } from '../fit/widths-read-alike.ts';
import type { Located } from '../locate/located.ts';
import { toRender, type TextLine } from '../locate/page-text.ts';
import type { glyphBoxes } from './declared-boxes.ts';
import type { Box } from './render-diff.ts';
import { verifyOutput, type SavedCorrection, type VerifyOutput } from './verify.ts';

/** Verifies the saved bytes by rendering and by objects (verify.ts). */
export function verifyCorrection(
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
export function lineInk(
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
    closeDocument(original);
  }
}

/** Ink boxes (render pixels) of the old glyphs, read from the input's bytes. */
export function oldInkBoxes(
  input: EditTaskInput,
  pageIndex: number,
  origins: [number, number][],
  tol: number,
): Box[] {
  const original = openPdf(input.pdf, input.password).doc;
  try {
    return glyphInkBoxes(loadPage(original, pageIndex), origins, tol).map((b) => toRender(b));
  } finally {
    closeDocument(original);
  }
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
