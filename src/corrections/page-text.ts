// MuPDF's structured text of one page, flattened to lines of characters (one walk over one page;
// never over the whole document). Coordinates are page space in points: page rotation applied,
// origin top-left, as the renders are.
import type { mupdf } from '../pdf/mupdf-adapter.ts';

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
 * kept as drawn; `accurate` asks MuPDF for glyph-outline boxes instead of font-metric boxes.
 */
export function readPageText(page: mupdf.Page, accurate = false): TextLine[] {
  const options = accurate ? 'preserve-whitespace,accurate-bboxes' : 'preserve-whitespace';
  const st = page.toStructuredText(options);
  const lines: TextLine[] = [];
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
  return lines;
}

export function quadBox(q: number[]): [number, number, number, number] {
  const xs = [q[0], q[2], q[4], q[6]];
  const ys = [q[1], q[3], q[5], q[7]];
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}
