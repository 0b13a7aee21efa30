// The invisible text layer over a scan (an OCR layer: text render mode 3): where a word of it
// stands, and retyping it when the scan's pixels under it are patched (tier 5), so that search and
// copy find the new word and not the old one. Invisible glyphs prove nothing and draw nothing, so
// a code is taken from the font's Unicode mapping alone, and widths need no fit rule.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { GlyphIndex } from '../locate/locate.ts';
import { readPageText, quadBox, type TextLine } from '../locate/page-text.ts';
import { Refusal } from '../refusals.ts';
import { planEdits } from '../rewrite/rewrite.ts';
import { locateTarget, pageAnnotationTexts } from '../locate/target.ts';
import { interpretPage, type Glyph, type Mat } from '../locate/text-interpreter.ts';
import { writeEdits, type ChangedObject } from '../rewrite/write.ts';
import type { FontInfo } from '../locate/fonts.ts';

type Box = [number, number, number, number];

/** A word of the invisible layer: its text and its box in points (top-left origin, rotation applied). */
export interface HiddenWord {
  text: string;
  box: Box;
}

const overlap = (a: Box, b: Box) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) *
  Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
const area = (b: Box) => Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);

/** Every occurrence of `find` in the page's text lines, with its box, in page order. */
function occurrences(lines: TextLine[], find: string): { index: number; box: Box }[] {
  const needle = Array.from(find);
  const out: { index: number; box: Box }[] = [];
  for (const line of lines) {
    const chars = line.chars.map((c) => c.c);
    for (let i = 0; i + needle.length <= chars.length; i++) {
      if (!needle.every((c, k) => chars[i + k] === c)) continue;
      const boxes = line.chars.slice(i, i + needle.length).map((c) => quadBox(c.quad));
      out.push({
        index: out.length,
        box: [
          Math.min(...boxes.map((b) => b[0])),
          Math.min(...boxes.map((b) => b[1])),
          Math.max(...boxes.map((b) => b[2])),
          Math.max(...boxes.map((b) => b[3])),
        ],
      });
    }
  }
  return out;
}

/** A code of `font` whose Unicode mapping is `ch` (ToUnicode first, then the simple encoding). */
function codeFor(font: FontInfo, ch: string): number | null {
  const cp = ch.codePointAt(0)!;
  if (font.toUnicode?.get(cp) === ch) return cp; // identity ranges (tesseract's GlyphLessFont)
  for (const [code, u] of font.toUnicode ?? []) if (u === ch) return code;
  for (const [code, u] of font.encodingUnicode) if (u === ch) return code;
  return null;
}

/**
 * Retypes the invisible word `find` that stands over `box` (points) as `replacement`. `before`
 * says whether the page has any text there at all; `retyped` whether the layer now says the word.
 */
export function retypeHiddenWord(
  doc: mupdf.PDFDocument,
  page: mupdf.PDFPage,
  want: { box: Box; find: string; replacement: string },
): { before: boolean; retyped: boolean; detail: string; changed: ChangedObject[] } {
  const lines = readPageText(page, false, false);
  const anyThere = lines.some((l) => l.chars.some((c) => overlap(quadBox(c.quad), want.box) > 0));
  if (!anyThere) return { before: false, retyped: false, detail: 'no text over the word', changed: [] };
  const candidates = occurrences(lines, want.find)
    .map((o) => ({
      ...o,
      share: overlap(o.box, want.box) / Math.max(1e-9, Math.min(area(o.box), area(want.box))),
    }))
    .filter((o) => o.share > 0.3)
    .sort((a, b) => b.share - a.share);
  if (!candidates.length)
    return {
      before: true,
      retyped: false,
      detail: `the text layer over the word does not say “${want.find}”`,
      changed: [],
    };
  const interp = interpretPage(page, page.getTransform() as Mat);
  const index = new GlyphIndex(interp.glyphs);
  let glyphs: Glyph[];
  let newChars: string[];
  let oneRun: boolean;
  try {
    ({ glyphs, newChars, oneRun } = locateTarget(
      { lines, index, interp, annotations: () => pageAnnotationTexts(page) },
      want.find,
      candidates[0].index,
      want.replacement,
      { invisible: true },
    ));
  } catch (error) {
    if (error instanceof Refusal)
      return { before: true, retyped: false, detail: error.advice.what, changed: [] };
    throw error;
  }
  const g0 = glyphs[0];
  if (!oneRun)
    return {
      before: true,
      retyped: false,
      detail: 'the layer draws the word in several fonts, one letter at a time',
      changed: [],
    };
  if (g0.state.Tr !== 3 && g0.state.Tr !== 7)
    return {
      before: true,
      retyped: false,
      detail: 'the text over the word is visible, not an OCR layer',
      changed: [],
    };
  const codes: { code: number; length: number }[] = [];
  for (const ch of newChars) {
    const code = codeFor(g0.font, ch);
    if (code === null)
      return {
        before: true,
        retyped: false,
        detail: `the layer's font ${g0.font.baseFont} has no code for “${ch}”`,
        changed: [],
      };
    codes.push({ code, length: g0.font.composite ? g0.length : 1 });
  }
  const { edits } = planEdits(interp.units, glyphs, codes, g0.font);
  const changed = writeEdits(doc, page, interp.units, edits, new Map());
  return { before: true, retyped: true, detail: `retyped in ${g0.font.baseFont}`, changed };
}

/** The invisible word over which a text target stands, when the page is a scan under an OCR layer. */
export function hiddenWordOf(lines: TextLine[], find: string, matchIndex: number): HiddenWord | null {
  const found = occurrences(lines, find)[matchIndex];
  return found ? { text: find, box: found.box } : null;
}
