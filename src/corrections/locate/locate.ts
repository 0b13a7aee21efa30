// Finding the target: an exact, case-sensitive match of `find` in MuPDF's text of one line of the
// page (ligatures expanded), then mapping each matched character back to the glyph — operator,
// string operand and code bytes — that drew it.
import { codeUnicode } from './fonts.ts';
import type { Glyph, Interpretation } from './text-interpreter.ts';
import type { TextChar, TextLine } from './page-text.ts';
import { refuse } from '../refusals.ts';

export interface Match {
  line: TextLine;
  /** Index of the first matched character in line.chars. */
  start: number;
  /** Number of matched characters. */
  length: number;
}

/** Characters of a string as MuPDF reports them (one per code point). */
export const codePoints = (s: string): string[] => Array.from(s);

function indexesOf(hay: string[], needle: string[]): number[] {
  const out: number[] = [];
  outer: for (let i = 0; i + needle.length <= hay.length; i += 1) {
    for (let k = 0; k < needle.length; k += 1) if (hay[i + k] !== needle[k]) continue outer;
    out.push(i);
  }
  return out;
}

/** Finds match number `matchIndex` (0-based, page order) of `find`; refuses with advice otherwise. */
export function findMatch(lines: TextLine[], find: string, matchIndex: number): Match {
  const needle = codePoints(find);
  const matches: Match[] = [];
  for (const line of lines) {
    const chars = line.chars.map((c) => c.c);
    for (const start of indexesOf(chars, needle)) matches.push({ line, start, length: needle.length });
  }
  if (matches.length > matchIndex) return matches[matchIndex];
  if (matches.length > 0) {
    refuse(
      'match_index_out_of_range',
      `“${find}” occurs ${matches.length} time(s) on this page; match_index ${matchIndex} asks for occurrence ${matchIndex + 1}.`,
      'match_index counts exact occurrences on the page, starting at 0, in MuPDF’s reading order, slanted lines after upright ones.',
      [`Use a match_index from 0 to ${matches.length - 1}.`],
      { evidence: { occurrences: matches.length } },
    );
  }
  // Not on one line: does it span lines, or differ only in case?
  const joined = lines.map((l) => l.text).join('');
  const joinedSpace = lines.map((l) => l.text).join(' ');
  if (joined.includes(find) || joinedSpace.includes(find) || joinedSpace.replace(/-\s/g, '').includes(find)) {
    refuse(
      'target_spans_lines',
      `“${find}” is found only across a line break.`,
      'A correction rewrites text within one line; text that wraps is drawn by separate operators on separate lines.',
      ['Correct each line’s part separately (one request per line).'],
    );
  }
  const lower = find.toLowerCase();
  const caseHits = lines.filter((l) => l.text.toLowerCase().includes(lower)).length;
  refuse(
    'text_not_found',
    `“${find}” is not in the text layer of this page.`,
    caseHits
      ? 'The search is exact and case-sensitive; the page has it with different capitals.'
      : 'The search is exact and case-sensitive, over MuPDF’s extracted text with ligatures expanded.',
    caseHits
      ? ['Send `find` with the capitals the page uses.']
      : [
          'Check the page index (it starts at 0).',
          'Search the document first to see how the text is extracted.',
          'For scanned pages use method "ocr".',
        ],
    { evidence: { case_insensitive_hits: caseHits } },
  );
}

/** Glyph lookup by origin: a grid of 1-point cells. */
export class GlyphIndex {
  private readonly cells = new Map<string, Glyph[]>();

  constructor(glyphs: Glyph[]) {
    for (const g of glyphs) {
      if (g.lost || !Number.isFinite(g.origin[0]) || !Number.isFinite(g.origin[1])) continue;
      const key = `${Math.round(g.origin[0])}:${Math.round(g.origin[1])}`;
      const list = this.cells.get(key);
      if (list) list.push(g);
      else this.cells.set(key, [g]);
    }
  }

  /** The glyph drawn at a character's origin (closest within tolerance), or null. */
  at(ch: TextChar): Glyph | null {
    const tol = Math.max(0.05, ch.size * 0.01);
    const cx = Math.round(ch.origin[0]);
    const cy = Math.round(ch.origin[1]);
    let best: Glyph | null = null;
    let bestD = Infinity;
    for (let dx = -1; dx <= 1; dx += 1) {
      for (let dy = -1; dy <= 1; dy += 1) {
        for (const g of this.cells.get(`${cx + dx}:${cy + dy}`) ?? []) {
          const d = Math.hypot(g.origin[0] - ch.origin[0], g.origin[1] - ch.origin[1]);
          if (d <= tol && d < bestD) {
            best = g;
            bestD = d;
          }
        }
      }
    }
    return best;
  }
}

/** The span of the match that changes, reduced by the common prefix and suffix of old and new. */
export function changedSpan(find: string[], replacement: string[]): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < find.length && prefix < replacement.length && find[prefix] === replacement[prefix])
    prefix += 1;
  let suffix = 0;
  while (
    suffix < find.length - prefix &&
    suffix < replacement.length - prefix &&
    find[find.length - 1 - suffix] === replacement[replacement.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  if (prefix + suffix === find.length) {
    // Pure insertion: anchor it on a neighbouring glyph so there is something to rewrite.
    if (prefix > 0) prefix -= 1;
    else suffix -= 1;
  }
  return { prefix, suffix };
}

/** Unicode ↔ code pairs MuPDF reports for the glyphs of each font on the page. */
export function observedCodes(
  lines: TextLine[],
  index: GlyphIndex,
): Map<object, Map<string, Map<number, number>>> {
  const out = new Map<object, Map<string, Map<number, number>>>();
  for (const line of lines) {
    const chars = line.chars;
    const map = chars.map((c) => index.at(c));
    for (let i = 0; i < chars.length; i += 1) {
      const g = map[i];
      if (!g) continue;
      // A glyph that yields several characters (a ligature) is not a single-character code.
      const prevSame = i > 0 && map[i - 1] === g;
      const nextSame = i + 1 < chars.length && map[i + 1] === g;
      if (prevSame || nextSame) continue;
      if (g.state.Tr === 3 || g.state.Tr === 7) continue; // invisible text proves no glyph
      // A code the PDF maps to other text (a ligature MuPDF split into letters, only the first of
      // which lands on its origin) is not this character's glyph.
      const own = codeUnicode(g.font, g.code);
      if (own !== undefined && own !== chars[i].c) continue;
      let byFont = out.get(g.font);
      if (!byFont) out.set(g.font, (byFont = new Map()));
      let codes = byFont.get(chars[i].c);
      if (!codes) byFont.set(chars[i].c, (codes = new Map()));
      codes.set(g.code, (codes.get(g.code) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * The glyph that draws each character of `line` (null where none is found). MuPDF splits a
 * ligature into its letters and places the later ones where it can: on the next glyph's origin
 * ("ﬁ" then "n": the "i" sits where the "n" starts, and would be tied to it), or where no glyph
 * starts at all (LuaTeX's "ft" before a word space drawn as a gap: the "t" sits at the gap). A
 * character so placed, right after a glyph whose text is several characters continuing with it,
 * is that ligature's.
 */
export function glyphMap(line: TextLine, index: GlyphIndex): (Glyph | null)[] {
  const map: (Glyph | null)[] = line.chars.map((c) => index.at(c));
  const ligatureText = (g: Glyph) => [...(codeUnicode(g.font, g.code)?.normalize('NFKC') ?? '')]; // "ﬁ" → "fi"
  for (let i = 1; i < map.length; i += 1) {
    const g = map[i];
    const prev = map[i - 1];
    if (!prev || g === prev) continue;
    const c = line.chars[i].c;
    // On another glyph's origin, only where that glyph's own letter follows (it keeps one).
    if (
      g &&
      (map[i + 1] !== g || codeUnicode(g.font, g.code) === undefined || codeUnicode(g.font, g.code) === c)
    )
      continue;
    // The ligature's next letter, counted from the glyph's first ("ﬃ": f, f, i).
    let tied = 1;
    while (i - 1 - tied >= 0 && map[i - 1 - tied] === prev) tied += 1;
    const letters = ligatureText(prev);
    if (letters.length > tied && letters[tied] === c) map[i] = prev;
  }
  return map;
}

export function glyphsOfSpan(
  line: TextLine,
  spanStart: number,
  spanEnd: number,
  index: GlyphIndex,
  interp: Interpretation,
): { glyphs: Glyph[]; spanStart: number; spanEnd: number } {
  const map = glyphMap(line, index);
  let s = spanStart;
  let e = spanEnd;
  // A ligature glyph yields several characters: widen the span to whole glyphs.
  while (s > 0 && map[s] && map[s - 1] === map[s]) s -= 1;
  while (e < line.chars.length && map[e - 1] && map[e] === map[e - 1]) e += 1;
  const glyphs: Glyph[] = [];
  for (let i = s; i < e; i += 1) {
    const g = map[i];
    if (!g) {
      // A code the font's encoding leaves undefined (a tab in a Times line: libharu) is advanced by
      // MuPDF as the font's .notdef and by poppler as nothing: the glyphs after it have no place both
      // agree on, and the engine refuses rather than follow one of them.
      const undefinedCode = line.chars.slice(0, i).findIndex((c) => c.c === '\ufffd');
      // (A space MuPDF inferred from a gap is tied to no glyph anywhere: the advice below fits it.)
      if (undefinedCode >= 0 && line.chars[i].c.trim() !== '' && !interp.problems.length)
        refuse(
          'text_not_mapped',
          `The character “${line.chars[i].c}” of the target is not drawn where the engine reads the page's content stream to put it.`,
          `Earlier on its line, character ${undefinedCode + 1} is a code the font cannot name (MuPDF reads it as U+FFFD: a code its encoding leaves undefined, such as a tab written into the text). Renderers advance such a code differently (MuPDF by the font's .notdef glyph, poppler by nothing), so the glyphs after it stand where renderers disagree.`,
          [
            'Correct a word before that character on the line, or on another line.',
            'Make the PDF again without the control character in its text, or with its font embedded.',
          ],
          { evidence: { undefined_char_index: undefinedCode, target_char_index: i } },
        );
      refuse(
        'text_not_mapped',
        `The character “${line.chars[i].c}” of the target is not drawn by the page's content stream as the engine reads it.`,
        interp.problems.length
          ? `The content could not be followed everywhere: ${interp.problems.slice(0, 3).join('; ')}.`
          : 'It may be a space MuPDF inferred from a gap, text inside an annotation or form field, or drawn by a font whose codes the engine cannot split.',
        [
          'Choose a target without spaces between words (correct one word at a time).',
          'If the text is in a form field, change the field value instead.',
        ],
        { worth_reporting: interp.problems.length > 0, evidence: { problems: interp.problems.slice(0, 5) } },
      );
    }
    if (glyphs[glyphs.length - 1] !== g) glyphs.push(g);
  }
  return { glyphs, spanStart: s, spanEnd: e };
}
