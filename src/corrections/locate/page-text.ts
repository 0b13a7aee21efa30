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
  let current: TextLine | null = null;
  try {
    st.walk({
      beginLine(bbox: mupdf.Rect, wmode: number, dir: mupdf.Point) {
        current = {
          index: lines.length,
          bbox: [bbox[0], bbox[1], bbox[2], bbox[3]],
          wmode,
          dir: [dir[0], dir[1]],
          chars: [],
          text: '',
        };
        lines.push(current);
      },
      onChar(c: string, origin: mupdf.Point, font: mupdf.Font, size: number, quad: mupdf.Quad) {
        if (!current) return;
        current.chars.push({
          c,
          origin: [origin[0], origin[1]],
          quad: [...quad],
          size,
          font: font.getName(),
        });
      },
      endLine() {
        if (current) current.text = current.chars.map((ch) => ch.c).join('');
        current = null;
      },
    });
  } finally {
    st.destroy();
  }
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
