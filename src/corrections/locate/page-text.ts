// MuPDF's structured text of one page, flattened to lines of characters (one walk over one page;
// never over the whole document). Coordinates are page space in points: page rotation applied,
// origin top-left, as the renders are.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';

/** Han, kana, hangul and CJK punctuation (full-width forms included). */
export const CJK =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60\u30fc]+$/u;

export interface TextChar {
  c: string;
  origin: [number, number];
  quad: number[];
  size: number;
  font: string;
}

export interface TextLine {
  index: number;
  bbox: [number, number, number, number];
  wmode: number;
  dir: [number, number];
  chars: TextChar[];
  text: string;
}

/**
 * Reads the page's text. Ligatures are expanded into their letters (MuPDF's default), whitespace is
 * kept as drawn; `accurate` asks MuPDF for glyph-outline boxes instead of font-metric boxes;
 * `annotations` (default) adds what the page's annotations and form fields draw, after its own text.
 */
export function readPageText(page: mupdf.Page, accurate = false, annotations = true): TextLine[] {
  const options = accurate ? 'preserve-whitespace,accurate-bboxes' : 'preserve-whitespace';
  const lines: TextLine[] = [];
  walkText(page.toStructuredText(options), lines);
  // What annotations and form fields show (their appearances) is read too, after the page's own
  // text: a correction can be made there, and the text layer check must see it.
  const pdfPage = annotations && 'getAnnotations' in page ? (page as mupdf.PDFPage) : null;
  const annots = pdfPage ? pdfPage.getAnnotations() : [];
  const widgets = pdfPage ? pdfPage.getWidgets() : [];
  for (const a of [...annots, ...widgets]) {
    let list: mupdf.DisplayList | null = null;
    try {
      list = a.toDisplayList();
      walkText(list.toStructuredText(options), lines);
    } catch {
      // no appearance
    } finally {
      list?.destroy();
    }
  }
  return slantedLast(joinColumns(lines));
}

/**
 * The page's lines as readPageText reads them (same order, same indexes, same characters), with
 * characters read only for the lines whose text `keep` accepts: the others come with their geometry
 * and no characters. A search reads a page this way; marshalling every character (its quad, origin,
 * font and colour) costs more than the structured-text pass itself on a long manual, and a query is
 * on a few lines. Each line's text comes from MuPDF's plain-text dump of the same structured text,
 * matched to the lines by the dump's layout (a line per text line, an empty one after each block);
 * a page where that layout does not hold, or where lines may be joined (vertical writing, a line's
 * direction turning, annotations), is read whole. `st` is used and not destroyed when given; it must
 * have been made with readPageText's options.
 */
export function readLinesWhere(
  page: mupdf.Page,
  keep: (chars: readonly string[]) => boolean,
  st?: mupdf.StructuredText,
): TextLine[] {
  // A given structured text of an annotated page holds the annotations' text in drawing order, not
  // after the page's as readPageText reads it.
  if (hasDrawingAnnotations(page)) return readPageText(page);
  const own = st === undefined;
  const text = st ?? page.toStructuredText('preserve-whitespace');
  try {
    const shape = walkLines(text, () => false);
    const texts = lineTexts(text.asText(), shape);
    const whole = () => slantedLast(joinColumns(walkLines(text, () => true).lines));
    if (texts === null || mayJoin(shape)) return whole();
    const wanted = new Set<number>();
    texts.forEach((chars, i) => {
      if (keep(chars)) wanted.add(i);
    });
    const { lines } = walkLines(text, (i) => wanted.has(i));
    // The dump and the walk must agree on every line read: a rune the dump writes otherwise than
    // the walk hands it over would shift the lines, and the page is then read whole.
    for (const i of wanted) {
      if (lines[i]!.text !== texts[i]!.join('')) return whole();
    }
    return slantedLast(lines);
  } finally {
    if (own) text.destroy();
  }
}

/** Annotations or widgets on the page (their text is read after the page's, and may join it). */
function hasDrawingAnnotations(page: mupdf.Page): boolean {
  if (!('getAnnotations' in page)) return false;
  const pdfPage = page as mupdf.PDFPage;
  return pdfPage.getAnnotations().length > 0 || pdfPage.getWidgets().length > 0;
}

/**
 * Each line's characters from the plain-text dump as the walk hands them over (a rune beyond the BMP
 * cut to 16 bits, as MuPDF.js's onChar does), or null when the dump's layout does not match the
 * walked lines (MuPDF writes each text block as its lines, each ended by a line break, then one more
 * line break).
 */
function lineTexts(plain: string, shape: WalkedShape): string[][] | null {
  const rows = plain.split('\n');
  const out: string[][] = [];
  let r = 0;
  for (const count of shape.blockLines) {
    for (let k = 0; k < count; k++) {
      const row = rows[r++];
      if (row === undefined || row === '') return null;
      const chars: string[] = [];
      for (const c of row) {
        const cp = c.codePointAt(0)!;
        chars.push(cp > 0xffff ? String.fromCharCode(cp & 0xffff) : c);
      }
      out.push(chars);
    }
    if (rows[r++] !== '') return null;
  }
  return r === rows.length - 1 && rows[r] === '' ? out : null;
}

/**
 * Lines joinColumns could join: vertical writing, or a horizontal line turned from the one before
 * (a word set along a curve). Joining needs the characters, so such pages are read whole.
 */
function mayJoin(shape: WalkedShape): boolean {
  return shape.lines.some((line, i) => {
    if (line.wmode === 1) return true;
    const prev = shape.lines[i - 1];
    return prev !== undefined && prev.dir[0] * line.dir[0] + prev.dir[1] * line.dir[1] < 0.99995;
  });
}

/**
 * Poppler's threshold for diagonal text: a line whose direction is more than atan(0.1), about 5.7°,
 * off both axes.
 */
const SLANT_TAN = 0.1;

/**
 * The line runs far enough off both axes that extractors such as poppler do not read it as words
 * ("diagonal" text). Coarser than the proof's `slanted` (proof/line-band.ts), which measures any
 * line off the axes in its own frame.
 */
function diagonal(line: TextLine): boolean {
  const [dx, dy] = line.dir.map(Math.abs) as [number, number];
  return Math.min(dx, dy) > SLANT_TAN * Math.max(dx, dy);
}

/**
 * Slanted lines (a chart's tilted tick labels, a stamp set at 45°) come after the page's upright
 * text, each group in MuPDF's order. match_index counts occurrences in this order, so the first
 * occurrence of a word is the one a reader of the page's text sees first: text extractors such as
 * poppler's do not read slanted text as words at all, and a word the extracted text shows once is
 * the upright one, even where a tilted label above it carries the same word.
 */
function slantedLast(lines: TextLine[]): TextLine[] {
  if (!lines.some(diagonal)) return lines;
  const ordered = [...lines.filter((l) => !diagonal(l)), ...lines.filter(diagonal)];
  return ordered.map((line, index) => ({ ...line, index }));
}

/** Appends the lines of a structured text to `lines` and destroys it. */
function walkText(st: mupdf.StructuredText, lines: TextLine[]): void {
  try {
    for (const line of walkLines(st, () => true).lines) lines.push({ ...line, index: lines.length });
  } finally {
    st.destroy();
  }
}

/** The text blocks' line counts of a walk, and its lines (without characters when none were read). */
interface WalkedShape {
  blockLines: number[];
  lines: TextLine[];
}

/**
 * The lines of a structured text in MuPDF's order, each with its characters when `withChars` says
 * so for its index. MuPDF.js asks the walker for onChar line by line (after beginLine), so a line
 * whose characters are not wanted costs its three geometry calls and nothing per character.
 */
function walkLines(st: mupdf.StructuredText, withChars: (index: number) => boolean): WalkedShape {
  const lines: TextLine[] = [];
  const blockLines: number[] = [];
  let current: TextLine | null = null;
  const onChar = (c: string, origin: mupdf.Point, font: mupdf.Font, size: number, quad: mupdf.Quad) => {
    current?.chars.push({
      c,
      origin: [origin[0], origin[1]],
      quad: [...quad],
      size,
      font: font.getName(),
    });
  };
  const walker: Parameters<mupdf.StructuredText['walk']>[0] = {
    beginTextBlock() {
      blockLines.push(0);
    },
    beginLine(bbox: mupdf.Rect, wmode: number, dir: mupdf.Point) {
      current = {
        index: lines.length,
        bbox: [bbox[0], bbox[1], bbox[2], bbox[3]],
        wmode,
        dir: [dir[0], dir[1]],
        chars: [],
        text: '',
      };
      walker.onChar = withChars(lines.length) ? onChar : undefined;
      lines.push(current);
      blockLines[blockLines.length - 1]!++;
    },
    endLine() {
      if (current) current.text = current.chars.map((ch) => ch.c).join('');
      current = null;
    },
  };
  st.walk(walker);
  return { blockLines, lines };
}

/**
 * MuPDF's text gives each character of vertical writing a line of its own; a column is what a
 * reader (and a search) sees. A vertical line whose first character stands right under the last
 * character of an earlier vertical line (same x within a tenth of the size, at most 1.5 sizes further
 * down) continues it. The line just before is tried first; then the few before it, since ruby and
 * emphasis marks set beside a column are drawn between its characters (their own one-character
 * lines, at another x) and would cut the column into one-character pieces.
 */
function joinColumns(lines: TextLine[]): TextLine[] {
  const out: TextLine[] = [];
  for (const line of lines) {
    const column = line.wmode === 1 ? columnContinued(out, line) : bendContinued(out, line);
    if (!column) {
      out.push({ ...line, index: out.length });
      continue;
    }
    column.chars = [...column.chars, ...line.chars];
    column.text += line.text;
    column.bbox = [
      Math.min(column.bbox[0], line.bbox[0]),
      Math.min(column.bbox[1], line.bbox[1]),
      Math.max(column.bbox[2], line.bbox[2]),
      Math.max(column.bbox[3], line.bbox[3]),
    ];
  }
  return out;
}

/** Earlier lines looked at for the column a vertical line continues (ruby over a word of three). */
const COLUMN_LOOK_BACK = 4;

function columnContinued(out: TextLine[], line: TextLine): TextLine | undefined {
  const first = line.chars[0];
  if (!first) return undefined;
  for (let i = out.length - 1; i >= Math.max(0, out.length - COLUMN_LOOK_BACK); i -= 1) {
    const prev = out[i];
    const last = prev.chars[prev.chars.length - 1];
    if (
      prev.wmode === 1 &&
      last !== undefined &&
      Math.abs(first.origin[0] - last.origin[0]) <= 0.1 * last.size &&
      first.origin[1] - last.origin[1] > 0 &&
      first.origin[1] - last.origin[1] <= 1.5 * last.size
    )
      return prev;
  }
  return undefined;
}

/** The widest turn (degrees) between two glyphs of one line set along a curve. */
const BEND_MAX_DEG = 30;

/**
 * MuPDF starts a new line wherever the text direction changes, so a word set along a curve (a
 * poster's heading on an arc, each letter with a text matrix of its own, turned a little further)
 * comes as one-letter lines. A horizontal-writing line whose first character starts where the
 * line just before ends (its last character's advance along that line's direction, within a
 * tenth of the size), turned from it by less than BEND_MAX_DEG but not parallel to it (MuPDF
 * joins those itself), continues it. The line keeps its first direction; each character keeps
 * its own quad.
 */
function bendContinued(out: TextLine[], line: TextLine): TextLine | undefined {
  const prev = out[out.length - 1];
  const first = line.chars[0];
  const last = prev?.chars[prev.chars.length - 1];
  if (!prev || prev.wmode !== 0 || !first || !last) return undefined;
  const tail = prev.chars.length > 1 ? lineDirOfLast(prev) : prev.dir;
  const turn = tail[0] * line.dir[0] + tail[1] * line.dir[1];
  if (turn < Math.cos((BEND_MAX_DEG * Math.PI) / 180) || turn > 0.99995) return undefined;
  // The pen after the last character: its origin moved by its advance, the quad's bottom edge.
  const q = last.quad;
  const advance = Math.hypot(q[6]! - q[4]!, q[7]! - q[5]!);
  const end = [last.origin[0] + tail[0] * advance, last.origin[1] + tail[1] * advance];
  const size = last.size || 1;
  return Math.hypot(first.origin[0] - end[0], first.origin[1] - end[1]) <= 0.1 * size ? prev : undefined;
}

/** The direction of a line's last character (its quad's bottom edge), for a line that bends. */
function lineDirOfLast(line: TextLine): [number, number] {
  const q = line.chars[line.chars.length - 1]!.quad;
  const len = Math.hypot(q[6]! - q[4]!, q[7]! - q[5]!);
  return len > 0 ? [(q[6]! - q[4]!) / len, (q[7]! - q[5]!) / len] : line.dir;
}

export function quadBox(q: number[]): [number, number, number, number] {
  const xs = [q[0], q[2], q[4], q[6]];
  const ys = [q[1], q[3], q[5], q[7]];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The resolution the engine renders and compares at; boxes in render pixels are at this dpi. */
export const WORKING_DPI = 300;
const SCALE = WORKING_DPI / 72;

/** A point-space box to render pixels (outward rounding). */
export function toRender(b: [number, number, number, number]): [number, number, number, number] {
  return [
    Math.floor(b[0] * SCALE),
    Math.floor(b[1] * SCALE),
    Math.ceil(b[2] * SCALE),
    Math.ceil(b[3] * SCALE),
  ];
}
