// Where a renderer that computes text positions in double precision, as poppler does, puts the pen:
// its text position after each glyph and TJ number, by poppler's formulas in poppler's order, its
// numbers read as poppler's lexer reads them. A correction of another width writes a TJ number after
// the new codes so that the rest of the line stays where it was; in exact arithmetic it does, but a
// double-precision reader adds the new widths and the number one by one, and its pen can end 1e-14
// pt off the original. A glyph that sat exactly on a boundary of the renderer's subpixel placement
// then moves: poppler at 150 dpi puts a glyph at 411 pt on 856.25 px, a quarter-pixel boundary, and
// at 410.99999999999994 pt one quarter to the left (seen on an unseen corpus: one glyph of the tail
// redrawn 1/4 px over, 94 pixels changed outside the word, while MuPDF and PDFium, in single
// precision, changed none). So the number is written with the digits that bring this reader's pen
// back to the same double, bit for bit: every later glyph is then drawn where it was, at any scale.
import { formatNumber, type ContentOp, type Operand } from '../locate/content-stream.ts';
import type { FontInfo } from '../locate/fonts.ts';
import type { Glyph, Mat, StreamUnit, TextState } from '../locate/text-interpreter.ts';

/** A number as poppler's lexer reads it: the integer part, then each digit added at its scale. */
export function popplerReal(text: string): number {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return Number.NaN;
  let x = 0;
  for (const d of m[2]) x = x * 10 + Number(d);
  let scale = 0.1;
  for (const d of m[3] ?? '') {
    x = x + scale * Number(d);
    scale *= 0.1;
  }
  return m[1] === '-' ? -x : x;
}

/** The pen in user space, and the text matrix it moves along. */
export interface Pen {
  x: number;
  y: number;
  tm: Mat;
}

/** A state value as poppler read it from its operator, or null when its text cannot be told. */
function stateValue(v: number): number | null {
  const s = String(v);
  return /e/i.test(s) ? null : popplerReal(s);
}

/** A glyph's width as poppler reads it (W or Widths × 0.001), or null for widths it may read otherwise. */
function popplerWidth(font: FontInfo, code: number): number | null {
  if (font.widthScale !== 0.001 || font.wmode !== 0) return null;
  let w = font.widths.get(code) ?? font.defaultWidth;
  // A standard font without /Widths: poppler's built-in metrics, whole thousandths (the same AFM
  // numbers this engine has through MuPDF's single-precision metrics: 555.9999942779541 for 556).
  if (font.standard14 && font.lastChar < font.firstChar) w = Math.round(w);
  // Whole numbers only: a written fraction reaches this engine through MuPDF's parse, not as written.
  return Number.isInteger(w) ? w * 0.001 : null;
}

/** The pen after codes drawn with `font` and text state `t` (poppler's doShowText), or null. */
export function advancePen(
  pen: Pen,
  codes: { code: number; length: number }[],
  font: FontInfo,
  t: TextState,
): Pen | null {
  const fs = stateValue(t.Tfs);
  const tc = stateValue(t.Tc);
  const tw = stateValue(t.Tw);
  if (fs === null || tc === null || tw === null || t.Th !== 1) return null;
  let { x, y } = pen;
  const m = pen.tm;
  for (const c of codes) {
    const w = popplerWidth(font, c.code);
    if (w === null) return null;
    let dx = w * fs + tc;
    if (c.length === 1 && c.code === 32) dx += tw;
    // Horizontal scaling 1 (no multiply); the text matrix's second column meets a zero dy.
    x += m[0] * dx;
    y += m[1] * dx;
  }
  return { x, y, tm: m };
}

/** The pen after a TJ number (poppler's textShift of −n × 0.001 × size × scaling). */
export function shiftPen(pen: Pen, n: number, t: TextState): Pen | null {
  const fs = stateValue(t.Tfs);
  if (fs === null || t.Th !== 1) return null;
  const tx = -n * 0.001 * fs;
  return { x: pen.x + pen.tm[0] * tx, y: pen.y + pen.tm[1] * tx, tm: pen.tm };
}

const rawText = (unit: StreamUnit, o: Operand) =>
  Buffer.from(unit.bytes.subarray(o.start, o.end)).toString('latin1');

/**
 * Poppler's pen at `target` (before it is drawn): the text object holding it is replayed from its
 * BT, in its own stream. Null when that cannot be done exactly: the text object starts in another
 * stream, moves to a next line by the leading (T*, ', "), or draws with widths or a state this reader
 * could read otherwise.
 */
export function penBefore(units: StreamUnit[], glyphs: Glyph[], target: Glyph): Pen | null {
  const unit = units[target.unit];
  let bt = -1;
  for (let i = target.opIndex; i >= 0; i -= 1)
    if (unit.ops[i].op === 'BT') {
      bt = i;
      break;
    } else if (unit.ops[i].op === 'ET' && i < target.opIndex) return null;
  if (bt < 0) return null;
  const inUnit = glyphs.filter(
    (g) => g.unit === target.unit && g.opIndex > bt && g.opIndex <= target.opIndex,
  );
  let pen: Pen = { x: 0, y: 0, tm: [1, 0, 0, 1, 0, 0] };
  let line: [number, number] = [0, 0];
  const moveTo = (tx: number, ty: number) => {
    line = [tx, ty];
    const m = pen.tm;
    pen = { x: m[0] * tx + m[2] * ty + m[4], y: m[1] * tx + m[3] * ty + m[5], tm: m };
  };
  for (let i = bt + 1; i <= target.opIndex; i += 1) {
    const op: ContentOp = unit.ops[i];
    if (op.carried) return null;
    const nums = () =>
      op.operands.map((o) => (o.kind === 'number' ? popplerReal(rawText(unit, o)) : Number.NaN));
    switch (op.op) {
      case 'Tm': {
        const v = nums();
        if (v.length !== 6 || v.some((n) => !Number.isFinite(n))) return null;
        pen = { x: 0, y: 0, tm: v as Mat };
        moveTo(0, 0);
        break;
      }
      case 'Td':
      case 'TD': {
        const v = nums();
        if (v.length !== 2 || v.some((n) => !Number.isFinite(n))) return null;
        moveTo(line[0] + v[0], line[1] + v[1]);
        break;
      }
      case 'T*':
      case "'":
      case '"':
        return null;
      case 'Tj':
      case 'TJ': {
        const drawn = inUnit.filter((g) => g.opIndex === i);
        // A Tj's glyphs are element −1; a TJ's, the index of their string in its array.
        const array = op.operands.at(-1);
        const items: { element: number; number: Operand | null }[] =
          op.op === 'Tj'
            ? [{ element: -1, number: null }]
            : array?.kind === 'array'
              ? array.items.map((o, element) => ({ element, number: o.kind === 'number' ? o : null }))
              : [];
        for (const { element, number } of items) {
          if (number) {
            const state = drawn[0]?.state;
            const next = state ? shiftPen(pen, popplerReal(rawText(unit, number)), state) : null;
            if (!next) return null;
            pen = next;
            continue;
          }
          for (const g of drawn.filter((d) => d.element === element)) {
            if (g === target) return pen;
            const next = advancePen(pen, [g], g.font, g.state);
            if (!next) return null;
            pen = next;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  return null;
}

/**
 * The text of a TJ number near `approx` after which poppler's pen, at `from` after the new codes,
 * lands exactly on `to` (where the old codes left it); null when no such text is found.
 */
export function exactAdjustment(from: Pen, to: Pen, approx: number, t: TextState): string | null {
  const lands = (text: string) => {
    const p = shiftPen(from, popplerReal(text), t);
    return p !== null && p.x === to.x && p.y === to.y;
  };
  const plain = formatNumber(approx);
  if (lands(plain)) return plain;
  for (let digits = 5; digits <= 15; digits += 1) {
    const step = 10 ** -digits;
    for (let k = 0; k <= 12; k += 1)
      for (const sign of k === 0 ? [0] : [1, -1]) {
        const text = (approx + sign * k * step).toFixed(digits);
        if (lands(text)) return text;
      }
  }
  return null;
}
