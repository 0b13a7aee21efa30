// The engine's dry run of a proposal on one page: the checks a proposal makes about the target
// itself — found in the text layer, tied to the glyphs that draw it, not in an annotation, not
// vertical, not a split ligature, drawn in one run of one font and size, visible, of non-zero size —
// made once per page for any number of words, with nothing written, saved or rendered.
//
// The checks on the target are the engine's own (src/corrections/target.ts `locateTarget`, which the
// engine's `attempt` calls too); then the tier-1 code lookup and the place check. It answers:
// - `refuses`: the proposal refuses with this advice before any step that depends on the
//   replacement's glyphs or width (so a real proposal gives the same code);
// - `passes`: no refusal about the target itself; what follows depends on the replacement;
// - `unknown`: the answer lies past the steps made here (a character of the replacement without a
//   tier-1 code, or a character of the target the content stream does not place where MuPDF's text
//   does): only a real proposal can tell.
// test/src/preflight/dry-run.test.ts checks it against real proposals on corpus pages.
import { _internals as engineInternals } from '../corrections/engine.ts';
import { loadProgram, type FontInfo } from '../corrections/locate/fonts.ts';
import { GlyphIndex, observedCodes } from '../corrections/locate/locate.ts';
import { readPageText, type TextLine } from '../corrections/locate/page-text.ts';
import { Refusal } from '../corrections/refusals.ts';
import { locateTarget, pageAnnotationTexts, type AnnotationText } from '../corrections/locate/target.ts';
import { interpretPage, type Interpretation, type Mat } from '../corrections/locate/text-interpreter.ts';
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
    const target = locateTarget(
      { lines, index, interp, annotations: () => (this.annotations ??= pageAnnotationTexts(this.page)) },
      find,
      matchIndex,
      replacement,
    );
    const { match, findCps, newChars, glyphs } = target;
    if (!target.oneRun)
      return { verdict: 'unknown', reason: 'the word is drawn one letter per operator in several fonts' };
    const g0 = glyphs[0];
    // Past this point the engine looks for the replacement's glyphs (tiers 1–4) and its width, whose
    // refusals depend on the replacement; the one refusal about the target left is the place check.
    // A target found in the codes' reading (code-reading.ts) learns its codes in that reading.
    const observedByFont =
      target.reading === 'codes'
        ? observedCodes(target.lines, index)
        : (this.observed ??= observedCodes(lines, index));
    const observed = observedByFont.get(g0.font) ?? new Map<string, Map<number, number>>();
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
}

/** The engine's place check: every visible character of the target is at a glyph origin. */
function placeMapped(line: TextLine, start: number, length: number, index: GlyphIndex): boolean {
  let mapped = 0;
  for (let i = start; i < start + length; i += 1) if (index.at(line.chars[i])) mapped += 1;
  const nonSpace = line.chars.slice(start, start + length).filter((c) => !/\s/.test(c.c)).length;
  return mapped >= nonSpace && mapped > 0;
}
