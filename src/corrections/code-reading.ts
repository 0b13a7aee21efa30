// The page's text as the PDF's own maps read its codes (the whole ToUnicode stream, then the
// encoding), in drawing order along the line: how poppler's pdftotext reads where MuPDF reads
// otherwise. arabi's Arabic fonts end their ToUnicode CMap with a stray `bfrange` after `endcmap`
// and `%%EOF` that maps the codes to ASCII: MuPDF stops at `endcmap` and reads Arabic letters,
// poppler reads on and extracts “AylkJ”. A `find` copied from such a reader is located in this
// reading when MuPDF's has no match, and the correction's text check reads the edited page the same
// way.
import { codeUnicode } from './fonts.ts';
import type { GlyphIndex } from './locate.ts';
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
    const chars: TextChar[] = line.chars.map((ch, i) => {
      const g = glyphs[i];
      // A glyph that draws several characters (a ligature MuPDF expands) keeps MuPDF's letters.
      if (!g || glyphs[i - 1] === g || glyphs[i + 1] === g) return ch;
      const own = codeUnicode(g.font, g.code);
      if (own === undefined || Array.from(own).length !== 1 || own === ch.c) return ch;
      changed = true;
      return { ...ch, c: own };
    });
    // Vertical writing keeps MuPDF's order; a horizontal line is read along its direction, as
    // drawn (MuPDF puts right-to-left runs in logical order, a reader of Latin codes does not).
    if (line.wmode === 0) {
      const along = (c: TextChar) => c.origin[0] * line.dir[0] + c.origin[1] * line.dir[1];
      chars.sort((a, b) => along(a) - along(b));
    }
    return { ...line, index: n, chars, text: chars.map((c) => c.c).join('') };
  });
  return { lines: out, changed };
}
