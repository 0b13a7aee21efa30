// Finding text on a page through its text layer: the characters of an open page with their quads,
// and two matchers. `lineMatches` is the matching rule of search and corrections (exact by default,
// within one line, as the engine locates a target). `findMatches` is the loose one (case folded,
// ligatures expanded, words hyphenated across a line end joined, runs of white space as one space):
// OCR matches words with its folding, and the text index (text-index.ts) keeps each page in that
// folded form, a pre-filter (mayMatch) that never rules out a page where either matcher finds one. Coordinates: page space in
// points as MuPDF gives them (page rotation applied, origin top-left); boxes at 300 dpi render pixels.
import type { mupdf } from '../pdf/mupdf-adapter.ts';
import { RENDER_DPI } from './limits.ts';

export type Quad = mupdf.Quad;
export type Rect = mupdf.Rect;
/** [x0, y0, x1, y1] integer render pixels (x1, y1 exclusive), origin top-left, page rotation applied. */
export type BoxRender = [number, number, number, number];

export interface PageChar {
  /** The character as the text layer gives it (a ligature already expanded by MuPDF into letters). */
  c: string;
  quad: Quad;
  origin: mupdf.Point;
  font: string;
  size: number;
  /** Fill colour as MuPDF reports it (components of its colour space). */
  color: number[];
  /** Line number on the page (0-based, in text-layer order). */
  line: number;
}

export interface TextMatch {
  /** 0-based among the matches on this page. */
  index: number;
  /** The matched characters as they stand on the page (line breaks as spaces, a joining hyphen kept). */
  text: string;
  chars: PageChar[];
  /** Union of the characters' quads, page space (points). */
  bbox: Rect;
  box_render: BoxRender;
}

export interface PageText {
  chars: PageChar[];
  /** Page-space bounds (points) of the page, as rendered. */
  bounds: Rect;
}

/** Options for the structured-text pass: ligatures expanded, hyphens kept (we join them ourselves). */
export const STEXT_OPTIONS = 'preserve-whitespace';

/**
 * Structured text of everything the page shows: contents, annotations and form widgets (what a
 * render with extras draws, so text in a signature or field appearance is found where it is seen).
 */
export function pageStext(page: mupdf.Page, options = STEXT_OPTIONS): mupdf.StructuredText {
  // Pages without annotations (most): the direct pass is cheaper than recording a display list.
  if (!hasAnnotations(page)) return page.toStructuredText(options);
  const list = page.toDisplayList(true);
  try {
    return list.toStructuredText(options);
  } finally {
    list.destroy();
  }
}

/** The page has annotations or widgets that draw (their appearances may carry text the contents do not). */
export function hasAnnotations(page: mupdf.Page): boolean {
  const pdfPage = page as mupdf.PDFPage;
  if (typeof pdfPage.getObject !== 'function') return true;
  const annots = pdfPage.getObject().get('Annots');
  if (!annots.isArray()) return !annots.isNull();
  // Links and popups draw nothing of their own; anything else may carry an appearance with text.
  for (let i = 0; i < annots.length; i++) {
    const subtype = annots.get(i).get('Subtype');
    const name = subtype.isName() ? subtype.asName() : '';
    if (name !== 'Link' && name !== 'Popup') return true;
  }
  return false;
}

/** Reads every character of the page once (one structured-text pass). */
export function readPageText(page: mupdf.Page, stext?: mupdf.StructuredText): PageText {
  const own = stext === undefined;
  const st = stext ?? pageStext(page);
  const chars: PageChar[] = [];
  const fontNames = new Map<number, string>();
  let line = -1;
  try {
    st.walk({
      beginLine() {
        line++;
      },
      onChar(c, origin, font, size, quad, color) {
        const key = font.pointer as unknown as number;
        let name = fontNames.get(key);
        if (name === undefined) {
          name = font.getName();
          fontNames.set(key, name);
        }
        chars.push({ c, quad, origin, font: name, size, color: [...color], line });
      },
    });
  } finally {
    if (own) st.destroy();
  }
  return { chars, bounds: page.getBounds() };
}

const HYPHENS = new Set(['-', '\u00ad', '\u2010', '\u2011']);
const CJK =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;
function isSpace(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return c === '\u00a0' || /^\s$/u.test(c);
}

/** foldText for one character, with an ASCII fast path (most characters of most pages). */
function foldChar(c: string): string {
  if (c.length === 1) {
    const code = c.charCodeAt(0);
    if (code < 128) return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
  }
  return foldText(c);
}

/** Case- and compatibility-folded form of a string (ligatures into letters, case removed). */
export function foldText(s: string): string {
  return s.normalize('NFKC').toLowerCase();
}

/** The needle as matched: folded, white space collapsed and trimmed. */
export function foldNeedle(needle: string): string {
  return foldText(needle).replace(/\s+/gu, ' ').trim();
}

interface Unit {
  /** One UTF-16 code unit of the folded text, or ' ' for a run of white space / a line break. */
  u: string;
  /** Index of the source character in PageText.chars (-1 for a synthetic line-break space). */
  src: number;
  /** A hyphen ending a line before a letter: the matcher may skip it (and the line break after it). */
  soft: boolean;
}

type LineChar = Pick<PageChar, 'c' | 'line'>;

/** Builds the folded code-unit stream of a page, with white space collapsed and line ends marked. */
function unitsOf(chars: LineChar[]): Unit[] {
  const units: Unit[] = [];
  const pushSpace = (src: number) => {
    if (units.length > 0 && units[units.length - 1].u !== ' ') units.push({ u: ' ', src, soft: false });
  };
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (i > 0 && chars[i - 1].line !== ch.line) {
      // A hyphen ending the previous line before a letter joins the word: no space between them.
      // Nor between two CJK characters (no spaces between words; vertical text is a line per glyph).
      const prev = units[units.length - 1];
      const joined = (prev && prev.soft) || (CJK.test(chars[i - 1].c) && CJK.test(ch.c));
      if (!joined) pushSpace(-1);
    }
    if (isSpace(ch.c)) {
      pushSpace(i);
      continue;
    }
    const next = chars[i + 1];
    const endsLine = !next || next.line !== ch.line;
    const soft =
      HYPHENS.has(ch.c) &&
      endsLine &&
      next !== undefined &&
      /\p{L}/u.test(next.c) &&
      /\p{L}/u.test(chars[i - 1]?.c ?? '');
    const folded = foldChar(ch.c);
    for (let k = 0; k < folded.length; k++) units.push({ u: folded[k], src: i, soft });
  }
  return units;
}

/** What search keeps of a page's text (in the revision's text index, text-index.ts). */
export interface SearchableText {
  /** The folded code-unit stream the matcher walks, with the soft hyphens (line-end joins) left out. */
  text: string;
  /** The page has soft hyphens: a match may also use them, so the looser check applies. */
  soft: boolean;
}

/**
 * A page's searchable text from its plain text (MuPDF's `asText`: each line's characters, then a
 * line break). The same units as the matcher builds from the page's characters, without reading them
 * one by one (test/src/documents/text-index.test.ts checks both agree on the corpus).
 */
export function searchableText(plain: string): SearchableText {
  const chars: LineChar[] = [];
  let line = 0;
  for (const text of plain.split('\n')) {
    if (text === '') continue;
    for (const c of text) {
      // MuPDF.js hands characters beyond the BMP to onChar cut to 16 bits (String.fromCharCode of
      // the rune): the matcher sees them so, and so must the index built from the plain text.
      const cp = c.codePointAt(0)!;
      chars.push({ c: cp > 0xffff ? String.fromCharCode(cp & 0xffff) : c, line });
    }
    line++;
  }
  return searchableUnits(unitsOf(chars));
}

/** searchableText from the characters already read. */
export function searchableTextOf(text: PageText): SearchableText {
  return searchableUnits(unitsOf(text.chars));
}

function searchableUnits(units: Unit[]): SearchableText {
  let text = '';
  let soft = false;
  for (const unit of units) {
    if (unit.soft) soft = true;
    else text += unit.u;
  }
  return { text, soft };
}

const stripJoins = (s: string) => s.replace(/[\s\u00ad\u2010\u2011-]+/gu, '');

/**
 * Could `needle` match on a page with this searchable text? Never false for a page where
 * findMatches finds it: a match that skips every soft hyphen is a substring of `text`; one that keeps
 * one has a hyphen in the needle and is caught by the looser check without spaces and hyphens.
 */
export function mayMatch(page: SearchableText, needle: string): boolean {
  const want = foldNeedle(needle);
  if (want === '') return false;
  if (page.text.includes(want)) return true;
  // The page's text is folded character by character: a needle whose folded whole differs from its
  // folded characters (a letter and a combining mark composed) is looked for that way too.
  const byChar = Array.from(needle, foldChar).join('').replace(/\s+/gu, ' ').trim();
  if (byChar !== want && page.text.includes(byChar)) return true;
  // A soft unit is a hyphen: only a needle with a hyphen can match one instead of skipping it.
  if (!page.soft || !/[\u00ad\u2010\u2011-]/u.test(want)) return false;
  const n = stripJoins(want);
  // Hyphens alone (a needle of "-"): any soft hyphen may be one.
  return n.length === 0 || stripJoins(page.text).includes(n);
}

/**
 * How `find` matches a page's text: the one rule of search, of a correction's `find` (located in the
 * whole document through search) and of `docfix fix`. By default exact, case-sensitive, anywhere
 * (inside longer words too), as the correction engine locates its target (src/corrections/locate.ts).
 */
export interface MatchRule {
  /** Each character matches whatever its case (compared lower-cased, one by one). */
  ignoreCase: boolean;
  /** The match stands alone: no letter, digit or underscore right before or after it on its line. */
  word: boolean;
}
export const EXACT_RULE: MatchRule = { ignoreCase: false, word: false };

/** A match of the rule within one line of characters. */
export interface LineMatch {
  line: number;
  /** Index of the first matched character in the line. */
  start: number;
  /** The characters as they stand on the page (the page's capitals with ignoreCase). */
  text: string;
  /**
   * Exact occurrences of `text` on the page before this match, in line order: the match_index the
   * engine needs to correct exactly this match.
   */
  occurrence: number;
}

const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;
const sameChar = (a: string, b: string, ignoreCase: boolean) =>
  a === b || (ignoreCase && a.toLowerCase() === b.toLowerCase());

/** Starts of `needle` in `chars` (one character per code point, as the engine reads a line). */
function startsIn(chars: readonly string[], needle: readonly string[], ignoreCase: boolean): number[] {
  const out: number[] = [];
  // Every start, overlapping ones too: the engine counts "aa" twice in "aaa".
  outer: for (let i = 0; i + needle.length <= chars.length; i++) {
    for (let k = 0; k < needle.length; k++)
      if (!sameChar(chars[i + k], needle[k], ignoreCase)) continue outer;
    out.push(i);
  }
  return out;
}

/**
 * Every match of `find` under `rule` in a page's lines (each an array of its characters), in line
 * order. A match never crosses a line: a correction rewrites text within one line.
 */
export function lineMatches(
  lines: readonly (readonly string[])[],
  find: string,
  rule: MatchRule,
): LineMatch[] {
  const needle = Array.from(find);
  if (needle.length === 0) return [];
  const found: Omit<LineMatch, 'occurrence'>[] = [];
  lines.forEach((chars, line) => {
    for (const start of startsIn(chars, needle, rule.ignoreCase)) {
      if (rule.word) {
        const before = chars[start - 1];
        const after = chars[start + needle.length];
        if (
          (before !== undefined && WORD_CHAR.test(before)) ||
          (after !== undefined && WORD_CHAR.test(after))
        )
          continue;
      }
      found.push({ line, start, text: chars.slice(start, start + needle.length).join('') });
    }
  });
  // The engine's match_index counts exact occurrences of the text sent, whatever the rule found.
  const exact = new Map<string, Map<string, number>>();
  const occurrenceOf = (m: Omit<LineMatch, 'occurrence'>): number => {
    let at = exact.get(m.text);
    if (!at) {
      at = new Map();
      let n = 0;
      const cps = Array.from(m.text);
      lines.forEach((chars, line) => {
        for (const start of startsIn(chars, cps, false)) at!.set(`${line}:${start}`, n++);
      });
      exact.set(m.text, at);
    }
    return at.get(`${m.line}:${m.start}`)!;
  };
  return found.map((m) => ({ ...m, occurrence: occurrenceOf(m) }));
}

/** Cheap page pre-filter: could the needle occur in this text at all (hyphens and spaces ignored)? */
export function mayContain(pageText: string, needle: string): boolean {
  const n = stripJoins(foldText(needle));
  return n.length > 0 && stripJoins(foldText(pageText)).includes(n);
}

/** Every match of `needle` on the page, in text-layer order (at most `max`). */
export function findMatches(text: PageText, needle: string, max = Number.POSITIVE_INFINITY): TextMatch[] {
  const want = foldNeedle(needle);
  if (want.length === 0) return [];
  const units = unitsOf(text.chars);
  const matches: TextMatch[] = [];
  let start = 0;
  while (start < units.length && matches.length < max) {
    const end = matchAt(units, start, want);
    if (end < 0) {
      start++;
      continue;
    }
    matches.push(buildMatch(text, units, start, end, matches.length));
    start = end;
  }
  return matches;
}

/** The `matchIndex`-th match (0-based) on an open page, or null when there are fewer matches. */
export function findNthMatch(page: mupdf.Page, needle: string, matchIndex = 0): TextMatch | null {
  const found = findMatches(readPageText(page), needle, matchIndex + 1);
  return found[matchIndex] ?? null;
}

/** Matches `want` at units[start]; returns the end (exclusive) or -1. Soft hyphens may be skipped. */
function matchAt(units: Unit[], start: number, want: string): number {
  if (units[start].u !== want[0] || (want[0] === ' ' && start === 0)) return -1;
  // Backtracking over soft hyphens only; they are rare, so this stays linear in practice.
  const step = (i: number, j: number): number => {
    if (j === want.length) return i;
    if (i >= units.length) return -1;
    const unit = units[i];
    if (unit.u === want[j]) {
      const r = step(i + 1, j + 1);
      if (r >= 0) return r;
    }
    if (unit.soft && j > 0) return step(i + 1, j);
    return -1;
  };
  return step(start, 0);
}

function buildMatch(text: PageText, units: Unit[], start: number, end: number, index: number): TextMatch {
  const sources: number[] = [];
  for (let i = start; i < end; i++) {
    const src = units[i].src;
    if (src >= 0 && sources[sources.length - 1] !== src) sources.push(src);
  }
  const chars = sources.map((s) => text.chars[s]);
  let shown = '';
  for (let k = 0; k < chars.length; k++) {
    const prev = chars[k - 1];
    if (
      k > 0 &&
      chars[k].line !== prev.line &&
      !isSpace(prev.c) &&
      !HYPHENS.has(prev.c) &&
      !(CJK.test(prev.c) && CJK.test(chars[k].c))
    ) {
      shown += ' ';
    }
    shown += isSpace(chars[k].c) ? ' ' : chars[k].c;
  }
  const visible = chars.filter((c) => !isSpace(c.c));
  const bbox = unionQuads((visible.length > 0 ? visible : chars).map((c) => c.quad));
  return { index, text: shown, chars, bbox, box_render: toBoxRender(bbox) };
}

/** Bounding rectangle of quads (page space). */
export function unionQuads(quads: Quad[]): Rect {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const q of quads) {
    for (let k = 0; k < 8; k += 2) {
      x0 = Math.min(x0, q[k]);
      x1 = Math.max(x1, q[k]);
      y0 = Math.min(y0, q[k + 1]);
      y1 = Math.max(y1, q[k + 1]);
    }
  }
  return Number.isFinite(x0) ? [x0, y0, x1, y1] : [0, 0, 0, 0];
}

/** Page-space rectangle (points) → integer render pixels at `dpi`, rounded outwards. */
export function toBoxRender(rect: Rect, dpi = RENDER_DPI): BoxRender {
  const s = dpi / 72;
  return [Math.floor(rect[0] * s), Math.floor(rect[1] * s), Math.ceil(rect[2] * s), Math.ceil(rect[3] * s)];
}
