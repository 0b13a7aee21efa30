// The target of a correction: from `find` on the page's text to the consecutive glyphs that draw
// the part that changes, with every refusal that is about the target itself (not found, drawn by an
// annotation or a form field, vertical writing, a split ligature, drawn out of order or across
// content parts, zero size, invisible). The engine's proposal and the preflight dry run both start
// here, so a word the dry run names as refusing refuses the same way when proposed.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { codeReading } from './code-reading.ts';
import { changedSpan, codePoints, findMatch, glyphsOfSpan, type GlyphIndex } from './locate.ts';
import { NOT_BUILT, Refusal, refuse } from '../refusals.ts';
import type { Glyph, Interpretation } from './text-interpreter.ts';
import { CJK, type TextLine } from './page-text.ts';

/** What an annotation or form field shows, and where. */
export interface AnnotationText {
  label: string;
  bounds: number[];
  text: string;
}

/** The text each annotation and form field of the page shows: contents, value and appearance. */
export function pageAnnotationTexts(page: mupdf.PDFPage): AnnotationText[] {
  const shows = (a: mupdf.PDFAnnotation, extra = '') => {
    let text = `${a.getContents()} ${extra}`;
    try {
      const list = a.toDisplayList();
      try {
        const st = list.toStructuredText('preserve-whitespace');
        try {
          text += ` ${st.asText()}`;
        } finally {
          st.destroy();
        }
      } finally {
        list.destroy();
      }
    } catch {
      // no appearance
    }
    return text;
  };
  const out: AnnotationText[] = [];
  for (const w of page.getWidgets()) {
    out.push({
      label: `form field “${w.getName()}” (${w.getFieldType()})`,
      bounds: [...w.getBounds()],
      text: shows(w, w.getValue()),
    });
  }
  for (const a of page.getAnnotations()) {
    if (a.getType() === 'Widget') continue;
    out.push({ label: `${a.getType()} annotation`, bounds: [...a.getBounds()], text: shows(a) });
  }
  return out;
}

/** Refuses with `annotation_text` when the target lies in, or reads as, an annotation's text. */
export function annotationRefusal(texts: AnnotationText[], at: [number, number] | null, find: string): void {
  const inside = (r: number[]) =>
    at !== null && at[0] >= r[0] - 1 && at[0] <= r[2] + 1 && at[1] >= r[1] - 1 && at[1] <= r[3] + 1;
  const hits = texts.filter((a) => inside(a.bounds) || a.text.includes(find)).map((a) => a.label);
  if (!hits.length) return;
  refuse(
    'annotation_text',
    `The target is drawn by ${hits.join(', ')}, not by the page's content.`,
    "Annotation and form-field appearances are separate from the page text: the engine corrects page content only, and a viewer may regenerate a field's appearance from its value anyway.",
    [
      "Change the form field's value (or the annotation's contents) with a form-filling tool.",
      'Correct text that is part of the page itself.',
    ],
    { evidence: { annotations: hits } },
  );
}

/** Refuses with `vertical_text` when the page draws with a vertical (WMode 1) font. */
export function verticalRefusal(interp: Interpretation): void {
  const vertical = [...interp.fonts.values()].filter((f) => f.wmode === 1).map((f) => f.baseFont);
  if (!vertical.length) return;
  refuse(
    'vertical_text',
    `The page draws vertical text (${vertical.slice(0, 3).join(', ')}, writing mode 1), which this engine does not rewrite.`,
    'Vertical writing advances glyphs downwards with their own metrics (/W2); the engine measures and compensates horizontal advances only, so it cannot prove the rest of the column stays in place.',
    ['Correct horizontal text only.', 'Report the file if vertical text correction is needed.'],
    { worth_reporting: true, rejected: NOT_BUILT, evidence: { vertical_fonts: vertical } },
  );
}

/**
 * Text that is not in MuPDF's text because MuPDF cannot load its font: a CID font without the
 * FontDescriptor PDF requires of it (PDF 32000-1 9.7.4). MuPDF neither extracts nor draws it
 * (poppler substitutes a font), so the engine can neither find nor verify it; say which font.
 */
function unreadableFontRefusal(interp: Interpretation, find: string): void {
  const unreadable = [...interp.fonts.values()]
    .filter((f) => f.composite && !f.dict.get('DescendantFonts').get(0).get('FontDescriptor').isDictionary())
    .map((f) => f.baseFont);
  if (!unreadable.length) return;
  refuse(
    'text_not_found',
    `“${find}” is not in this page's text as the engine reads it: the page's font ${unreadable[0]} cannot be read.`,
    `The CID font ${unreadable[0]} has no FontDescriptor, which PDF requires of it; MuPDF, the engine's renderer, does not load such a font, so the text drawn with it is neither extracted nor drawn (other viewers may substitute a font), and no correction of it could be verified.`,
    [
      'Make the PDF again with its fonts embedded (the program that wrote it left out the font’s descriptor), then correct the new file.',
      'Report the file if this is needed.',
    ],
    { worth_reporting: true, evidence: { unreadable_fonts: unreadable } },
  );
}

export interface TargetPage {
  lines: TextLine[];
  index: GlyphIndex;
  interp: Interpretation;
  /** The page's annotation texts, read when a refusal needs them (once per page at most). */
  annotations: () => AnnotationText[];
}

export interface Target {
  match: ReturnType<typeof findMatch>;
  findCps: string[];
  replCps: string[];
  span: ReturnType<typeof glyphsOfSpan>;
  /** The characters that replace the span's glyphs (the common prefix and suffix left out). */
  newChars: string[];
  glyphs: Glyph[];
  /**
   * The reading the target was found in: MuPDF's text, or the fonts' own codes (code-reading.ts)
   * when only that has it; `lines` are the page's lines in that reading.
   */
  reading: 'mupdf' | 'codes';
  lines: TextLine[];
  /**
   * Each glyph is drawn alone by its own text operator, one after another, and as many replace
   * them: CJK.sty and dvipdfmx set each hangul syllable or hanzi with its own Tf from a 256-glyph
   * subfont; letter-spaced figures are placed one by one. A swap among the word's own glyphs is
   * made in place (cross-font-swap.ts).
   */
  byGlyph: boolean;
  /** Every glyph is in the first glyph's font and size (otherwise only that swap can be made). */
  oneRun: boolean;
  /**
   * The glyphs to change stand one after another as the pen left them (each where the last one's
   * advance put it: Tj and TJ strings, fonts switched between them, nothing moved) in one stream,
   * and as many new letters replace them: a swap of them redrawn in their own fonts keeps the
   * pen's path (cross-font-swap.ts).
   */
  flows: boolean;
}

/** Characters after `find` redrawn with the rest of its word, at most. */
const WORD_TAIL_MAX = 32;
/** A gap to the next letter this wide (in em) is a word gap even without a space character. */
export const WORD_GAP_EM = 0.2;

/** Locates the glyphs a correction of `find` into `replacement` rewrites, or throws a Refusal. */
export function locateTarget(
  page: TargetPage,
  find: string,
  matchIndex: number,
  replacement: string,
  options: { invisible?: boolean; toWordEnd?: boolean } = {},
): Target {
  const { interp } = page;
  const { match, lines, reading } = matchOnPage(page, find, matchIndex);
  const findCps = codePoints(find);
  const replCps = codePoints(replacement);
  const changed = changedSpan(findCps, replCps);
  const { prefix } = changed;
  let { suffix } = changed;
  // What the line shows after `find` up to the end of its word, redrawn as it is.
  let beyond: string[] = [];
  if (options.toWordEnd) ({ suffix, beyond } = restOfWord(match, findCps.length, suffix));
  const findEnd = match.start + findCps.length + beyond.length;
  const span = spanOfChange(page, match, match.start + prefix, findEnd - suffix, find);
  if (span.spanStart < match.start || span.spanEnd > findEnd) {
    refuse(
      'partial_ligature',
      'The change would split a ligature that also draws letters outside the target.',
      'One glyph draws several letters here (for example “fi”); replacing part of it would change letters outside the target.',
      ['Widen `find` to the whole word, and `replacement` with it.'],
    );
  }
  const prefixUsed = span.spanStart - match.start;
  const suffixUsed = findEnd - span.spanEnd;
  const newText = [...replCps, ...beyond];
  const newChars = newText.slice(prefixUsed, newText.length - suffixUsed);
  const glyphs = span.glyphs;
  const { byGlyph, oneRun, flows } = drawnInPlace(glyphs, newChars, interp);
  refuseUnseen(glyphs, options.invisible ?? false);
  return { match, findCps, replCps, span, newChars, glyphs, reading, lines, byGlyph, oneRun, flows };
}

type Match = ReturnType<typeof findMatch>;

/**
 * The `matchIndex`-th exact match of `find` in MuPDF's text of the page, else in the fonts' own
 * reading of their codes (code-reading.ts); a refusal says why there is none (an annotation's text,
 * an unreadable font, vertical text).
 */
function matchOnPage(
  page: TargetPage,
  find: string,
  matchIndex: number,
): { match: Match; lines: TextLine[]; reading: Target['reading'] } {
  try {
    return { match: findMatch(page.lines, find, matchIndex), lines: page.lines, reading: 'mupdf' };
  } catch (error) {
    const byCodes =
      error instanceof Refusal && error.advice.code === 'text_not_found'
        ? codeMatch(page, find, matchIndex)
        : null;
    if (byCodes) return { ...byCodes, reading: 'codes' };
    if (error instanceof Refusal && error.advice.code === 'text_not_found') {
      annotationRefusal(page.annotations(), null, find);
      unreadableFontRefusal(page.interp, find);
    }
    if (error instanceof Refusal && error.advice.code === 'target_spans_lines') verticalRefusal(page.interp);
    throw error;
  }
}

/**
 * The rest of the word is redrawn too, so a wider replacement can use the space after the word
 * rather than press against the word's next letter (fitRule's word-gap rule), and so is what
 * follows `find` without a space (“Off:” for “Off”: the colon moves with the word). Answers the
 * common suffix left unchanged and the characters after `find` redrawn.
 */
function restOfWord(match: Match, findLength: number, suffix: number): { suffix: number; beyond: string[] } {
  const end = match.start + findLength;
  const chars = match.line.chars;
  let e = end - suffix;
  // CJK text has no spaces between its words: its run is not redrawn to its end. Past `find`, a
  // gap as wide as a word gap ends the word even where MuPDF read no space into it.
  const [dx, dy] = match.line.dir;
  const gapBefore = (k: number) =>
    (chars[k].quad[0] - chars[k - 1].quad[2]) * dx + (chars[k].quad[1] - chars[k - 1].quad[3]) * dy;
  const tail = (k: number) =>
    !/\s/u.test(chars[k].c) &&
    (k < end || (!CJK.test(chars[k].c) && gapBefore(k) < WORD_GAP_EM * (chars[k].size || 1)));
  while (e < chars.length && e < end + WORD_TAIL_MAX && tail(e)) e += 1;
  return { suffix: Math.max(0, end - e), beyond: chars.slice(end, Math.max(end, e)).map((c) => c.c) };
}

/** The glyphs that draw the line's characters `from`..`to`; a refusal says why some are not tied to one. */
function spanOfChange(
  page: TargetPage,
  match: Match,
  from: number,
  to: number,
  find: string,
): ReturnType<typeof glyphsOfSpan> {
  try {
    return glyphsOfSpan(match.line, from, to, page.index, page.interp);
  } catch (error) {
    if (error instanceof Refusal && error.advice.code === 'text_not_mapped') {
      annotationRefusal(page.annotations(), match.line.chars[match.start].origin, find);
      verticalRefusal(page.interp);
    }
    throw error;
  }
}

/**
 * The glyphs to change are drawn one after another in one font and size (`oneRun`), or each by a
 * text operator of its own and replaced one for one (`byGlyph`), and in one stream; refused otherwise.
 */
function drawnInPlace(
  glyphs: Glyph[],
  newChars: string[],
  interp: Interpretation,
): { byGlyph: boolean; oneRun: boolean; flows: boolean } {
  const inOrder = glyphs.every((g, i) => i === 0 || g.index === glyphs[i - 1].index + 1);
  const oneRun =
    inOrder && glyphs.every((g) => g.font === glyphs[0].font && g.state.Tfs === glyphs[0].state.Tfs);
  // Glyphs drawn one per operator may have other operators between them (ruby or emphasis marks
  // set beside a vertical column, drawn between its characters): a swap of equal widths in place
  // keeps every pen position whatever is drawn between. Only such a swap is made of them (engine.ts).
  const ascending = glyphs.every((g, i) => i === 0 || g.index > glyphs[i - 1].index);
  const byGlyph = ascending && newChars.length === glyphs.length && drawnOneByOne(glyphs, interp);
  const flows = inOrder && newChars.length === glyphs.length && penFlows(glyphs, interp);
  if (!byGlyph && !flows && (!inOrder || !oneRun)) {
    refuse(
      'split_drawing',
      'The letters to change are not drawn one after another in one font and size.',
      'The content stream draws them out of order or in different fonts; rewriting them in place would move other text.',
      [
        'Correct a shorter part of the word, one letter run at a time.',
        'Where each letter is drawn by a text operator of its own, a replacement by the same number of the word’s own letters (a swap) can be made.',
      ],
      { rejected: NOT_BUILT },
    );
  }
  if (glyphs.some((g) => interp.units[g.unit].ops[g.opIndex].carried)) {
    refuse(
      'split_drawing',
      'The operator that draws the target starts in one part of the page content and ends in the next.',
      'Its bytes are not in one stream, so it cannot be rewritten in place.',
      ['Correct a neighbouring word, or report the file.'],
      { worth_reporting: true, rejected: NOT_BUILT },
    );
  }
  return { byGlyph, oneRun, flows };
}

/**
 * Whether consecutive glyphs were drawn by Tj or TJ strings of one stream with nothing but the pen
 * between them: each glyph's text matrix is the last one's moved by its advance (no number of a TJ
 * array, no Td or Tm in between), in one size, scale, spacing and rise.
 */
function penFlows(glyphs: Glyph[], interp: Interpretation): boolean {
  if (glyphs.length < 2) return false;
  const g0 = glyphs[0];
  const sameState = (g: Glyph) =>
    g.unit === g0.unit &&
    !g.lost &&
    g.state.Tfs === g0.state.Tfs &&
    g.state.Th === g0.state.Th &&
    g.state.Tc === g0.state.Tc &&
    g.state.Tw === g0.state.Tw &&
    g.state.Trise === g0.state.Trise;
  const shows = (g: Glyph) => {
    const op = interp.units[g.unit].ops[g.opIndex].op;
    return op === 'Tj' || op === 'TJ';
  };
  if (!glyphs.every((g) => sameState(g) && shows(g))) return false;
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
  return glyphs.every((g, i) => {
    if (i === 0) return true;
    const [a, b, c, d, e, f] = glyphs[i - 1].tm;
    const w = glyphs[i - 1].advance;
    return (
      near(g.tm[0], a) &&
      near(g.tm[1], b) &&
      near(g.tm[2], c) &&
      near(g.tm[3], d) &&
      near(g.tm[4], e + w * a) &&
      near(g.tm[5], f + w * b)
    );
  });
}

/** Text of no size or scale is refused, and invisible text unless the caller corrects it (tier 5). */
function refuseUnseen(glyphs: Glyph[], invisible: boolean): void {
  const g0 = glyphs[0];
  if (g0.state.Tfs === 0 || g0.state.Th === 0) {
    refuse(
      'degenerate_text',
      'The text is drawn with a zero font size or scale.',
      'There is no width to measure.',
      ['Correct visible text only.'],
    );
  }
  if ((g0.state.Tr === 3 || g0.state.Tr === 7) && !invisible) {
    refuse(
      'invisible_text',
      'The target is invisible text (an OCR layer or hidden text).',
      'Changing invisible text changes no pixel, so the correction could not be proven by rendering; the visible image still shows the old text.',
      ['Use method "ocr" on scanned pages (not built in this engine).'],
      { rejected: NOT_BUILT },
    );
  }
}

/** Every glyph is the only one its text operator draws (its font can change around it alone). */
function drawnOneByOne(glyphs: Glyph[], interp: Interpretation): boolean {
  const ops = new Set(glyphs.map((g) => `${g.unit}:${g.opIndex}`));
  if (ops.size !== glyphs.length) return false;
  let drawn = 0;
  for (const g of interp.glyphs) if (ops.has(`${g.unit}:${g.opIndex}`)) drawn += 1;
  return drawn === glyphs.length;
}

/**
 * `find` in the fonts' own reading of the codes, where MuPDF's text has no match (code-reading.ts):
 * null when that reading is MuPDF's or has no such match either.
 */
function codeMatch(
  page: TargetPage,
  find: string,
  matchIndex: number,
): { match: ReturnType<typeof findMatch>; lines: TextLine[] } | null {
  const byCodes = codeReading(page.lines, page.index);
  if (!byCodes.changed) return null;
  try {
    return { match: findMatch(byCodes.lines, find, matchIndex), lines: byCodes.lines };
  } catch {
    return null;
  }
}
