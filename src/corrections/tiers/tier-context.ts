// What the tiers are given (tier.ts, TierContext), made from the located target.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { loadProgram, type FontInfo } from '../locate/fonts.ts';
import { observedCodes } from '../locate/locate.ts';
import type { Located } from '../locate/located.ts';
import type { TierContext } from './tier.ts';
import { reuseCodes } from './tier1.ts';

/** What the tiers are given; font programs they load are kept in `programs`, destroyed with the document. */
export function tierContext(
  doc: mupdf.PDFDocument,
  t: Located,
  fontAttempt: number,
  programs: mupdf.Font[],
): TierContext {
  const font = t.font;
  const observedByFont = observedCodes(t.lines, t.index);
  const observed = observedByFont.get(font) ?? new Map<string, Map<number, number>>();
  let program: mupdf.Font | null | undefined;
  const getProgram = () => {
    if (program === undefined) {
      program = loadProgram(font);
      if (program) programs.push(program);
    }
    return program;
  };
  const programOf = (f: FontInfo) => {
    const p = loadProgram(f);
    if (p) programs.push(p);
    return p;
  };
  return {
    doc,
    font,
    glyphs: t.glyphs,
    newChars: t.newChars,
    interp: t.interp,
    fontAttempt,
    reused: reuseCodes(font, t.newChars, observed, getProgram, t.g0.length),
    program: getProgram,
    programOf,
    observed: observedByFont,
  };
}
