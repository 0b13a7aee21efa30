// The text check of a re-derived proof: the corrected page's text layer reads the correction's new
// text where the manifest declared it. The declared box covers the glyphs the correction redrew —
// the part of the old text that differs from the new (`Jonh` → `John` redraws `nh`), not the
// letters both share — so the check is: a line of the page reads the whole new text, and that
// occurrence holds the characters drawn in the box.
// MuPDF's reading first (characters whose centre lies in the box, then — for vertical writing,
// whose character boxes MuPDF puts an em off — those that touch it); where a font's own maps read
// its codes otherwise than MuPDF does, the page read through its codes as poppler reads it
// (corrections/code-reading.ts), as the engine's own check does.
import { codeReading } from '../corrections/locate/code-reading.ts';
import { GlyphIndex } from '../corrections/locate/locate.ts';
import { quadBox, readPageText, type TextLine } from '../corrections/locate/page-text.ts';
import type { Box } from '../corrections/proof/render-diff.ts';
import { interpretPage, type Mat } from '../corrections/locate/text-interpreter.ts';
import type { mupdf } from '../pdf/mupdf-adapter.ts';

export interface BoxText {
  passed: boolean;
  /** The line that reads the new text (or, failing, the line through the box). */
  read: string;
  /** Which reading found it: MuPDF's characters centred in the box, touching it, or the codes'. */
  reading: 'centred' | 'touching' | 'codes' | 'page';
  detail: string;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A line's code points, whitespace runs as one space, each with the index of its character. */
function units(line: TextLine): { cp: string; at: number }[] {
  const out: { cp: string; at: number }[] = [];
  line.chars.forEach((ch, at) => {
    for (const c of ch.c) {
      const cp = /\s/.test(c) ? ' ' : c;
      if (cp === ' ' && out[out.length - 1]?.cp === ' ') continue;
      out.push({ cp, at });
    }
  });
  return out;
}

/** Indexes of the characters of `line` in `box` (points): centred in it, or touching it. */
function charsIn(line: TextLine, box: Box, touching: boolean): number[] {
  const out: number[] = [];
  line.chars.forEach((ch, i) => {
    const [x0, y0, x1, y1] = quadBox(ch.quad);
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const hit = touching
      ? x1 > box[0] && x0 < box[2] && y1 > box[1] && y0 < box[3]
      : cx >= box[0] && cx <= box[2] && cy >= box[1] && cy <= box[3];
    if (hit && !/^\s+$/.test(ch.c)) out.push(i);
  });
  return out;
}

/**
 * An occurrence of `text` in the line that holds most of the characters `inBox` (at least half: a
 * box drawn around glyph outlines can take in the centre of a neighbour's letter), or false.
 */
function covers(line: TextLine, text: string, inBox: number[]): boolean {
  const u = units(line);
  const want = [...norm(text)];
  if (want.length === 0) return false;
  for (let p = 0; p + want.length <= u.length; p += 1) {
    if (!want.every((cp, k) => u[p + k].cp === cp)) continue;
    const from = u[p].at;
    const to = u[p + want.length - 1].at;
    const held = inBox.filter((i) => i >= from && i <= to).length;
    if (held > 0 && held * 2 >= inBox.length) return true;
  }
  return false;
}

/** The first line crossing the box whose occurrence of `after` covers its characters there. */
function readingIn(lines: TextLine[], box: Box, after: string, touching: boolean): TextLine | null {
  for (const line of lines) {
    const inBox = charsIn(line, box, touching);
    if (inBox.length && covers(line, after, inBox)) return line;
  }
  return null;
}

/**
 * Checks that `page` (loaded in docfix's frame) reads `after` where `boxRender` (render pixels at
 * `boxDpi`, top-left origin, rotation applied) says it was drawn. Without a box, or with new text
 * that draws nothing in it (a deletion), a line of the page must read it. `before` is the old text,
 * named when a line through the box still reads it.
 */
export function checkBoxText(
  page: mupdf.PDFPage,
  boxRender: Box | null,
  boxDpi: number,
  before: string | null,
  after: string,
): BoxText {
  const lines = readPageText(page);
  const k = 72 / boxDpi;
  const box: Box | null = boxRender && [
    boxRender[0] * k,
    boxRender[1] * k,
    boxRender[2] * k,
    boxRender[3] * k,
  ];
  if (!box || norm(after) === '') return wholePage(lines, box, before, after);
  for (const touching of [false, true]) {
    const line = readingIn(lines, box, after, touching);
    if (line) return found(line, touching ? 'touching' : 'centred', after);
  }
  const codes = codeReading(lines, new GlyphIndex(interpretPage(page, page.getTransform() as Mat).glyphs));
  const byCodes = codes.changed ? readingIn(codes.lines, box, after, false) : null;
  if (byCodes) return found(byCodes, 'codes', after);
  const through = lines.find((l) => charsIn(l, box, true).length > 0);
  const read = through ? norm(through.text) : '';
  const stillOld = before !== null && norm(before) !== '' && read.includes(norm(before));
  return {
    passed: false,
    read,
    reading: 'centred',
    detail: through
      ? `no line reads “${norm(after)}” over the box; the line through it reads “${read}”${stillOld ? ` (still the old text “${norm(before!)}”)` : ''}`
      : `nothing is read in the box; “${norm(after)}” is not there`,
  };
}

/** No box to look in: the page reads the new text on some line (and, for a deletion, not the old). */
function wholePage(lines: TextLine[], box: Box | null, before: string | null, after: string): BoxText {
  const a = norm(after);
  const b = before === null ? '' : norm(before);
  const near = box ? lines.filter((l) => charsIn(l, box, true).length > 0) : lines;
  const texts = (near.length ? near : lines).map((l) => norm(l.text));
  const passed = a !== '' ? texts.some((t) => t.includes(a)) : b === '' || !texts.some((t) => t.includes(b));
  const what = box ? 'the lines through the box' : 'no box is declared; the page';
  return {
    passed,
    read: texts.find((t) => (a ? t.includes(a) : true)) ?? '',
    reading: 'page',
    detail:
      a !== ''
        ? `${what} ${passed ? 'reads' : 'does not read'} “${a}”`
        : `the correction removed “${b}”: ${what} ${passed ? 'no longer reads it' : 'still reads it'}`,
  };
}

function found(line: TextLine, reading: BoxText['reading'], after: string): BoxText {
  const read = norm(line.text);
  const how =
    reading === 'codes'
      ? ' (read through the font’s codes, as poppler reads them)'
      : reading === 'touching'
        ? ' (characters touching the box)'
        : '';
  return {
    passed: true,
    read,
    reading,
    detail: `the line reads “${read}”; its “${norm(after)}” holds what the box does${how}`,
  };
}
