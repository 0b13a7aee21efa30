// The page's text as the PDF's own maps read its codes, in drawing order along the line, with
// letter-spaced words read whole: how poppler's pdftotext reads where MuPDF reads otherwise.
// - arabi's Arabic fonts end their ToUnicode CMap with a stray `bfrange` after `endcmap` and
//   `%%EOF` that maps the codes to ASCII: MuPDF stops at `endcmap` and reads Arabic letters,
//   poppler reads on and extracts “AylkJ”.
// - A simple font whose codes nothing maps (built-in encoding, unknown glyph names, no ToUnicode):
//   MuPDF reads U+FFFD, poppler each code as a Latin-1 character.
// - A ligature glyph whose code the ToUnicode map reads as “ﬁ” (U+FB01; Latin Modern's): MuPDF
//   expands it into its letters, poppler extracts the one character (“ﬁles”).
// - Figures set one by one with small gaps: MuPDF reads a space into each gap (“8 1 2 0 1 7”),
//   poppler weighs the line's gaps and reads “812017”.
// A `find` copied from such a reader is located in this reading when MuPDF's has no match, and the
// correction's text check reads the edited page the same way.
import { codeUnicode } from './fonts.ts';
import type { GlyphIndex } from './locate.ts';
import type { Glyph } from './text-interpreter.ts';
import type { TextChar, TextLine } from './page-text.ts';

/**
 * The lines with each character that one glyph draws alone read through the glyph's code, and the
 * characters ordered along the line's direction. `changed` says whether any character reads
 * differently from MuPDF's text (only then can a search find something new in it).
 */
export function codeReading(lines: TextLine[], index: GlyphIndex): { lines: TextLine[]; changed: boolean } {
  let changed = false;
  const out = lines.map((line, n) => {
    const glyphs = line.chars.map((c) => index.at(c));
    // A ligature glyph whose code reads as the ligature's own character (“ﬁ”, U+FB01), as poppler
    // reads it: MuPDF's letters for it (the last may sit on the next glyph's origin) become one.
    const merged = new Set<number>();
    const ligatures = new Map<number, TextChar>();
    line.chars.forEach((ch, i) => {
      const g = glyphs[i];
      const lig = g && !merged.has(i) && glyphs[i - 1] !== g ? ligatureOf(g) : null;
      if (!lig) return;
      const letters = lig.normalize('NFKD');
      const run = line.chars.slice(i, i + letters.length);
      if (run.map((c) => c.c).join('') !== letters) return;
      const last = run[run.length - 1]!.quad;
      ligatures.set(i, {
        ...ch,
        c: lig,
        quad: [...ch.quad.slice(0, 2), ...last.slice(2, 4), ...ch.quad.slice(4, 6), ...last.slice(6, 8)],
      });
      for (let k = i + 1; k < i + run.length; k += 1) merged.add(k);
      changed = true;
    });
    let entries = line.chars.flatMap((ch, i) => {
      const g = glyphs[i];
      if (merged.has(i)) return [];
      const lig = ligatures.get(i);
      if (lig) return [{ ch: lig, drawn: true }];
      // A glyph that draws several characters (a ligature MuPDF expands) keeps MuPDF's letters.
      if (!g || glyphs[i - 1] === g || glyphs[i + 1] === g) return [{ ch, drawn: g !== null }];
      let own = codeUnicode(g.font, g.code);
      // A simple font's code nothing maps (a built-in encoding of unknown names, no ToUnicode):
      // MuPDF reads U+FFFD, poppler the code itself as a Latin-1 character.
      if (own === undefined && ch.c === '\ufffd' && !g.font.composite && latin1(g.code))
        own = String.fromCharCode(g.code);
      if (own === undefined || Array.from(own).length !== 1 || own === ch.c) return [{ ch, drawn: true }];
      changed = true;
      return [{ ch: { ...ch, c: own }, drawn: true }];
    });
    // Vertical writing keeps MuPDF's order; a horizontal line is read along its direction, as
    // drawn (MuPDF puts right-to-left runs in logical order, a reader of Latin codes does not).
    if (line.wmode === 0) {
      const along = (x: number, y: number) => x * line.dir[0] + y * line.dir[1];
      entries.sort((a, b) => along(a.ch.origin[0], a.ch.origin[1]) - along(b.ch.origin[0], b.ch.origin[1]));
      // Letter-spaced words: MuPDF reads a space into every gap wider than a tenth of an em or so
      // (“8 1 2 0 1 7”); a reader that weighs the gaps of the line against each other (poppler)
      // reads one word where the gaps are small beside the line's widest.
      const gaps = entries.map((e, k) => {
        const prev = entries[k - 1];
        const next = entries[k + 1];
        if (e.drawn || !/^\s$/.test(e.ch.c) || !prev?.drawn || !next?.drawn) return null;
        const q = prev.ch.quad;
        return (along(next.ch.quad[0], next.ch.quad[1]) - along(q[2], q[3])) / (prev.ch.size || 1);
      });
      const widest = Math.max(0, ...gaps.map((g) => g ?? 0));
      const spaced = entries.filter((_, k) => {
        const gap = gaps[k];
        return gap === null || gap > LETTER_SPACING_EM || gap > widest / 2;
      });
      if (spaced.length !== entries.length) {
        changed = true;
        entries = spaced;
      }
    }
    const chars: TextChar[] = entries.map((e) => e.ch);
    return { ...line, index: n, chars, text: chars.map((c) => c.c).join('') };
  });
  return { lines: out, changed };
}

/** The Latin ligature character (U+FB00–FB06) a glyph's code reads as through its font's maps, or null. */
function ligatureOf(g: Glyph): string | null {
  const own = codeUnicode(g.font, g.code);
  return own !== undefined && /^[\ufb00-\ufb06]$/u.test(own) ? own : null;
}

/** The widest gap (in em) still read as letter spacing inside a word, where the line has wider ones. */
const LETTER_SPACING_EM = 0.25;

/** A code that reads as itself in Latin-1: printable ASCII and the Latin-1 supplement. */
const latin1 = (code: number) => (code > 0x20 && code < 0x7f) || (code >= 0xa1 && code <= 0xff);
