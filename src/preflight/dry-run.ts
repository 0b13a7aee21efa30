// The engine's dry run of a proposal on one page: the checks a proposal makes about the target
// itself — found in the text layer, tied to the glyphs that draw it, not in an annotation, not
// vertical, not a split ligature, drawn in one run of one font and size, visible, of non-zero size —
// made once per page for any number of words, with nothing written, saved or rendered.
//
// It follows the engine's own order (src/corrections/engine.ts `attempt`) with the engine's building
// blocks (locate.ts, page-text.ts, text-interpreter.ts, the tier-1 code lookup) and answers:
// - `refuses`: the proposal refuses with this advice before any step that depends on the
//   replacement's glyphs or width (so a real proposal gives the same code);
// - `passes`: no refusal about the target itself; what follows depends on the replacement;
// - `unknown`: the answer lies past the steps made here (a character of the replacement without a
//   tier-1 code, or a character of the target the content stream does not place where MuPDF's text
//   does): only a real proposal can tell.
// test/src/preflight/dry-run.test.ts checks it against real proposals on corpus pages.
import { _internals as engineInternals } from '../corrections/engine.ts';
import { loadProgram, type FontInfo } from '../corrections/fonts.ts';
import {
  changedSpan,
  codePoints,
  findMatch,
  glyphsOfSpan,
  GlyphIndex,
  observedCodes,
} from '../corrections/locate.ts';
import { readPageText, type TextLine } from '../corrections/page-text.ts';
import { NOT_BUILT, Refusal, refuse } from '../corrections/refusals.ts';
import { interpretPage, type Interpretation, type Mat } from '../corrections/text-interpreter.ts';
import type { mupdf } from '../pdf/mupdf-adapter.ts';
import type { RefusalAdvice } from '../schemas.ts';

export interface DryRunProbe {
  find: string;
  matchIndex: number;
  replacement: string;
}

export type DryRunAnswer =
  | { verdict: 'refuses'; advice: RefusalAdvice; evidence: Record<string, unknown> }
  | { verdict: 'passes' }
  | { verdict: 'unknown'; reason: string };

interface AnnotationText {
  label: string;
  bounds: number[];
  text: string;
}

/** One page read once (text, content stream, glyph index), checked for as many words as asked. */
export class PageDryRun {
  readonly lines: TextLine[];
  private page: mupdf.PDFPage;
  private interp: Interpretation;
  private index: GlyphIndex;
  private observed: Map<object, Map<string, Map<number, number>>> | null = null;
  private annotations: AnnotationText[] | null = null;
  private programs = new Map<FontInfo, mupdf.Font | null>();

  /** `page` stays owned by the caller and must outlive this object; call `destroy()` when done. */
  constructor(page: mupdf.PDFPage, lines: TextLine[] = readPageText(page)) {
    this.page = page;
    this.lines = lines;
    this.interp = interpretPage(page, page.getTransform() as Mat);
    this.index = new GlyphIndex(this.interp.glyphs);
  }

  /** What a proposal replacing match `matchIndex` of `find` with `replacement` would meet first. */
  check(probe: DryRunProbe): DryRunAnswer {
    try {
      return this.attempt(probe);
    } catch (error) {
      if (error instanceof Refusal)
        return { verdict: 'refuses', advice: error.advice, evidence: error.evidence };
      // Not a refusal (a damaged operand, an unreadable font): only a real proposal can tell.
      return { verdict: 'unknown', reason: `the dry run failed: ${(error as Error).message}` };
    }
  }

  destroy(): void {
    for (const program of this.programs.values()) program?.destroy();
    this.programs.clear();
  }

  private attempt({ find, matchIndex, replacement }: DryRunProbe): DryRunAnswer {
    if (replacement === '' || replacement === find)
      return { verdict: 'unknown', reason: 'the replacement is empty or the same' };
    const { lines, index, interp } = this;
    let match: ReturnType<typeof findMatch>;
    try {
      match = findMatch(lines, find, matchIndex);
    } catch (error) {
      if (error instanceof Refusal && error.advice.code === 'text_not_found')
        this.annotationRefusal(null, find);
      if (error instanceof Refusal && error.advice.code === 'target_spans_lines') this.verticalRefusal();
      throw error;
    }
    const findCps = codePoints(find);
    const replCps = codePoints(replacement);
    const { prefix, suffix } = changedSpan(findCps, replCps);
    let span: ReturnType<typeof glyphsOfSpan>;
    try {
      span = glyphsOfSpan(
        match.line,
        match.start + prefix,
        match.start + findCps.length - suffix,
        index,
        interp,
      );
    } catch (error) {
      if (error instanceof Refusal && error.advice.code === 'text_not_mapped') {
        this.annotationRefusal(match.line.chars[match.start].origin, find);
        this.verticalRefusal();
      }
      throw error;
    }
    if (span.spanStart < match.start || span.spanEnd > match.start + findCps.length) {
      refuse(
        'partial_ligature',
        'The change would split a ligature that also draws letters outside the target.',
        'One glyph draws several letters here (for example “fi”); replacing part of it would change letters outside the target.',
        ['Widen `find` to the whole word, and `replacement` with it.'],
      );
    }
    const prefixUsed = span.spanStart - match.start;
    const suffixUsed = match.start + findCps.length - span.spanEnd;
    const newChars = replCps.slice(prefixUsed, replCps.length - suffixUsed);
    const glyphs = span.glyphs;
    for (let i = 1; i < glyphs.length; i += 1) {
      if (
        glyphs[i].index !== glyphs[i - 1].index + 1 ||
        glyphs[i].font !== glyphs[0].font ||
        glyphs[i].state.Tfs !== glyphs[0].state.Tfs
      ) {
        refuse(
          'split_drawing',
          'The letters to change are not drawn one after another in one font and size.',
          'The content stream draws them out of order or in different fonts; rewriting them in place would move other text.',
          ['Correct a shorter part of the word, one letter run at a time.'],
          { rejected: NOT_BUILT },
        );
      }
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
    const g0 = glyphs[0];
    if (g0.state.Tfs === 0 || g0.state.Th === 0) {
      refuse(
        'degenerate_text',
        'The text is drawn with a zero font size or scale.',
        'There is no width to measure.',
        ['Correct visible text only.'],
      );
    }
    if (g0.state.Tr === 3 || g0.state.Tr === 7) {
      refuse(
        'invisible_text',
        'The target is invisible text (an OCR layer or hidden text).',
        'Changing invisible text changes no pixel, so the correction could not be proven by rendering; the visible image still shows the old text.',
        ['Use method "ocr" on scanned pages (not built in this engine).'],
        { rejected: NOT_BUILT },
      );
    }
    // Past this point the engine looks for the replacement's glyphs (tiers 1–4) and its width, whose
    // refusals depend on the replacement; the one refusal about the target left is the place check.
    this.observed ??= observedCodes(lines, index);
    const observed = this.observed.get(g0.font) ?? new Map<string, Map<number, number>>();
    const font = g0.font;
    const getProgram = () => {
      if (!this.programs.has(font)) this.programs.set(font, loadProgram(font));
      return this.programs.get(font)!;
    };
    for (const ch of newChars) {
      if (!engineInternals.tier1Code(font, ch, observed, getProgram))
        return { verdict: 'unknown', reason: `“${ch}” has no tier-1 code in ${font.baseFont}` };
    }
    if (!placeMapped(match.line, match.start, findCps.length, index))
      return { verdict: 'unknown', reason: 'not every character of the target is at its glyph origin' };
    return { verdict: 'passes' };
  }

  private verticalRefusal(): void {
    const vertical = [...this.interp.fonts.values()].filter((f) => f.wmode === 1).map((f) => f.baseFont);
    if (!vertical.length) return;
    refuse(
      'vertical_text',
      `The page draws vertical text (${vertical.slice(0, 3).join(', ')}, writing mode 1), which this engine does not rewrite.`,
      'Vertical writing advances glyphs downwards with their own metrics (/W2); the engine measures and compensates horizontal advances only, so it cannot prove the rest of the column stays in place.',
      ['Correct horizontal text only.', 'Report the file if vertical text correction is needed.'],
      { worth_reporting: true, rejected: NOT_BUILT, evidence: { vertical_fonts: vertical } },
    );
  }

  /** The engine's annotation_text refusal, with each annotation's text read once per page. */
  private annotationRefusal(at: [number, number] | null, find: string): void {
    const inside = (r: number[]) =>
      at !== null && at[0] >= r[0] - 1 && at[0] <= r[2] + 1 && at[1] >= r[1] - 1 && at[1] <= r[3] + 1;
    const hits = this.annotationTexts()
      .filter((a) => inside(a.bounds) || a.text.includes(find))
      .map((a) => a.label);
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

  private annotationTexts(): AnnotationText[] {
    if (this.annotations) return this.annotations;
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
    for (const w of this.page.getWidgets()) {
      out.push({
        label: `form field “${w.getName()}” (${w.getFieldType()})`,
        bounds: [...w.getBounds()],
        text: shows(w, w.getValue()),
      });
    }
    for (const a of this.page.getAnnotations()) {
      if (a.getType() === 'Widget') continue;
      out.push({ label: `${a.getType()} annotation`, bounds: [...a.getBounds()], text: shows(a) });
    }
    this.annotations = out;
    return out;
  }
}

/** The engine's place check: every visible character of the target is at a glyph origin. */
function placeMapped(line: TextLine, start: number, length: number, index: GlyphIndex): boolean {
  let mapped = 0;
  for (let i = start; i < start + length; i += 1) if (index.at(line.chars[i])) mapped += 1;
  const nonSpace = line.chars.slice(start, start + length).filter((c) => !/\s/.test(c.c)).length;
  return mapped >= nonSpace && mapped > 0;
}
