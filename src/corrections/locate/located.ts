// The locate stage: the request checked, the page opened and read, and the glyphs that draw the
// target found (target.ts), with what the page looked like before the edit. Every later stage reads
// the `Located` it returns.
import { DocfixError } from '../../errors.ts';
import {
  loadPageAlone,
  renderPageRgb as renderPage,
  type RgbImage,
  type mupdf,
} from '../../pdf/mupdf-adapter.ts';
import type { EditRequest } from '../../schemas.ts';
import type { EditTaskInput } from '../correction.ts';
import { NOT_BUILT, refuse } from '../refusals.ts';
import type { FontInfo } from './fonts.ts';
import { GlyphIndex, glyphMap } from './locate.ts';
import { readPageText, WORKING_DPI, type TextLine } from './page-text.ts';
import { sha256 } from './pdf-bytes.ts';
import { locateTarget, pageAnnotationTexts, type Target } from './target.ts';
import {
  apply as applyMat,
  interpretPage,
  mul,
  type Glyph,
  type Interpretation,
  type Mat,
} from './text-interpreter.ts';

export const devicePoint = (g: Glyph, x: number): [number, number] =>
  applyMat(mul(g.tm, g.ctm), x, g.state.Trise);

/** The page and the target on it, as every step after the ladder reads them. */
export interface Located extends Target {
  pageIndex: number;
  pageCount: number;
  page: mupdf.PDFPage;
  before: BeforeState;
  interp: Interpretation;
  index: GlyphIndex;
  /** The target's first glyph, and its font. */
  g0: Glyph;
  font: FontInfo;
  /**
   * The last attempt (engine.ts): the rest of the target's word, which could not be redrawn with it,
   * moves after it whatever the tier (fitRule's rest-of-word rule). Set by the engine, not by locate.
   */
  restMoves?: boolean;
}

export function methodRefusal(method: string): never {
  refuse(
    'method_not_available',
    `Target method “${method}” is not available in this engine.`,
    'Visual targets (a box drawn on the render) are not built; the engine corrects text it finds in the text layer, or on a scan by recognition.',
    [
      'Use method "text_layer" with the exact text the page extracts.',
      'On a scanned page, use method "ocr" with the word as the scan shows it.',
    ],
    { rejected: NOT_BUILT },
  );
}

/** The request's target and replacement, or a refusal for a method, or a replacement, that cannot be done. */
export function checkRequest(request: EditRequest): {
  find: string;
  matchIndex: number;
  replacement: string;
} {
  const target = request.target;
  if (target.method !== 'text_layer') methodRefusal(target.method);
  const find = target.find;
  const replacement = request.replacement ?? '';
  if (replacement === '') {
    refuse(
      'empty_replacement',
      'The replacement is empty.',
      'Removing text leaves a visible gap; the engine only replaces text with other text.',
      ['Send the text that should stand in its place.'],
    );
  }
  if (replacement === find) {
    refuse(
      'identical_replacement',
      'The replacement is the same as the text found.',
      'There is nothing to change.',
      ['Send the corrected text as `replacement`.'],
    );
  }
  return { find, matchIndex: target.match_index ?? 0, replacement };
}

/** Opens the page, reads it and locates the glyphs that draw the target (or refuses). */
export function locate(
  input: EditTaskInput,
  doc: mupdf.PDFDocument,
  find: string,
  matchIndex: number,
  replacement: string,
  toWordEnd = false,
): Located {
  const pageIndex = input.request.page_index ?? 0;
  const pageCount = doc.countPages();
  if (pageIndex >= pageCount) {
    throw new DocfixError(
      'page_out_of_range',
      `Page index ${pageIndex} is beyond the last page (${pageCount - 1}).`,
    );
  }
  // Without MuPDF mapping a long flat tree (the save leaves the root node out: page-frame.ts).
  const page = loadPageAlone(doc, pageIndex);
  const before = beforeState(input, pageIndex, page);
  const lines = before.lines;
  const interp = interpretPage(page, page.getTransform() as Mat);
  const index = new GlyphIndex(interp.glyphs);
  const target = locateTarget(
    { lines, index, interp, annotations: () => pageAnnotationTexts(page) },
    find,
    matchIndex,
    replacement,
    { toWordEnd },
  );
  const g0 = target.glyphs[0];
  return { ...target, pageIndex, pageCount, page, before, interp, index, g0, font: g0.font };
}

/** The target's characters found at the glyph origins the content stream gives, or a refusal. */
export function checkTextPlace(t: Located): { passed: boolean; detail: string } {
  const place = checkPlace(t.match.line, t.match.start, t.findCps.length, t.index);
  if (place.passed) return place;
  refuse(
    'text_not_mapped',
    'Not every character of the target could be tied to the glyph that draws it.',
    `The engine's reading of the content stream and MuPDF's text disagree on where the target is (${place.detail}).`,
    [
      'Try a neighbouring word to see whether the font is readable at all.',
      'Report the file if the text is plainly visible.',
    ],
    { worth_reporting: true, rejected: NOT_BUILT },
  );
}

export function checkPlace(
  line: TextLine,
  start: number,
  length: number,
  index: GlyphIndex,
): { passed: boolean; detail: string } {
  let worst = 0;
  let mapped = 0;
  const map = glyphMap(line, index);
  for (let i = start; i < start + length; i += 1) {
    const ch = line.chars[i];
    const g = map[i];
    if (!g) continue;
    mapped += 1;
    // A ligature's later letters stand where MuPDF put them, not at the glyph's origin.
    if (g === index.at(ch))
      worst = Math.max(worst, Math.hypot(g.origin[0] - ch.origin[0], g.origin[1] - ch.origin[1]));
  }
  const nonSpace = line.chars.slice(start, start + length).filter((c) => !/\s/.test(c.c)).length;
  const passed = mapped >= nonSpace && mapped > 0;
  return {
    passed,
    detail: `${mapped} of ${length} character(s) of the target found at the glyph origins the content stream gives (largest distance ${worst.toFixed(3)} pt)`,
  };
}

export interface BeforeState {
  lines: TextLine[];
  render: () => RgbImage;
  accurate: () => TextLine[];
}

/**
 * What the page looked like before the edit: text, ink boxes and the 300 dpi render. A proposal and
 * the apply that follows it read the same bytes, so the last two pages read are kept (keyed by the
 * SHA-256 of the input and the page index) and the apply does not render the original again.
 */
export const beforeCache: { key: string; lines: TextLine[]; render?: RgbImage; accurate?: TextLine[] }[] = [];

export function beforeState(input: EditTaskInput, pageIndex: number, page: mupdf.PDFPage): BeforeState {
  const key = `${sha256(input.pdf)}:${pageIndex}`;
  let entry = beforeCache.find((e) => e.key === key);
  if (!entry) {
    entry = { key, lines: readPageText(page) };
    beforeCache.unshift(entry);
    beforeCache.length = Math.min(beforeCache.length, 2);
  }
  const e = entry;
  return {
    lines: e.lines,
    render: () => {
      if (e.render) return e.render;
      const img = renderPage(page, WORKING_DPI);
      // Keep renders up to 64 MB (an A3 page at 300 dpi is 52 MB); larger ones are not kept.
      if (img.pixels.byteLength <= 64 * 1024 * 1024) e.render = img;
      return img;
    },
    accurate: () => (e.accurate ??= readPageText(page, true)),
  };
}
