// What the proof compares: the page before, the boxes of the old glyphs (metric and ink) and where
// the new ones go, the words a re-spacing moves, and the rest of an operator declared with them.
import type { Fit } from '../fit/fit-rule.ts';
import type { FontInfo } from '../locate/fonts.ts';
import { devicePoint, type Located } from '../locate/located.ts';
import { quadBox, toRender } from '../locate/page-text.ts';
import { verticalEmBox } from '../locate/text-interpreter.ts';
import { advanceOf } from '../rewrite/rewrite.ts';
import type { Box } from './render-diff.ts';
import { boxesAt } from './verify.ts';

/** The new text as the tier drew it: its codes, the font whose widths place them, and how. */
interface NewGlyphs {
  codes: { code: number; length: number }[];
  widthFont: FontInfo;
  inPlace?: boolean;
  flowAdvances?: number[];
  squeeze?: number;
}

/** The page before (render, glyph boxes of the old text, metric and ink) and where the new glyphs go. */
export function glyphBoxes(t: Located, product: NewGlyphs, fit: Fit, declareRest = false) {
  const { glyphs, g0, match, span } = t;
  const { codes, widthFont } = product;
  const { vertical, spread } = fit;
  const beforeRender = t.before.render();
  const accurateBefore = t.before.accurate();
  const tol = Math.max(0.05, g0.state.Tfs * fit.dirLen * 0.01);
  const oldOrigins = glyphs.map((g) => g.origin);
  // Vertical glyphs: the em boxes they draw in, old code and new (MuPDF's quads stand an em lower).
  const emBoxes = (code: (i: number) => number, font?: FontInfo) =>
    glyphs
      .map((g, i) => verticalEmBox(g, code(i), font))
      .filter((b): b is [number, number, number, number] => b !== null)
      .map((b) => toRender(b));
  const newGlyphBoxes = vertical ? emBoxes((i) => codes[i].code, widthFont) : undefined;
  const oldBoxes = vertical
    ? emBoxes((i) => glyphs[i].code)
    : [
        ...match.line.chars.slice(span.spanStart, span.spanEnd).map((c) => toRender(quadBox(c.quad))),
        ...boxesAt(accurateBefore, oldOrigins, tol),
      ];
  const newOrigins: [number, number][] = [];
  // A line re-spaced by the gaps before the target draws the new text that much to the left.
  let x = (fit.respacing?.targetShift ?? 0) / fit.dirLen;
  codes.forEach((c, i) => {
    if (product.flowAdvances) {
      // A flowing swap: each new glyph where the new advances before it put the pen.
      newOrigins.push(devicePoint(g0, x));
      x += product.flowAdvances[i];
      return;
    }
    if (vertical || product.inPlace) {
      // Each new glyph takes the old one's place in the column (or is drawn by its operator).
      newOrigins.push([glyphs[i].origin[0], glyphs[i].origin[1]]);
      return;
    }
    if (spread) {
      // Each new glyph stands where the old one of its position stood, moved by the width
      // difference of the letters before it (the kerns between them are kept).
      const o = devicePoint(g0, x);
      const z = devicePoint(g0, 0);
      newOrigins.push([glyphs[i].origin[0] + o[0] - z[0], glyphs[i].origin[1] + o[1] - z[1]]);
      x += advanceOf(widthFont, [c], g0) - glyphs[i].advance;
      return;
    }
    newOrigins.push(devicePoint(g0, x));
    x += advanceOf(widthFont, [c], g0) * (product.squeeze ?? 1);
  });
  // A re-spaced line: the words that move are declared where they go (their character boxes, and
  // their ink where it reaches past them); where they stood, with the rest of the operator below.
  const movedOrigins: [number, number][] = [];
  if (fit.respacing) {
    const shifts = new Map(fit.respacing.moved.map((m) => [m.glyph, m.shift]));
    for (const ch of match.line.chars) {
      const g = t.index.at(ch);
      const shift = g && shifts.get(g);
      if (!g || !shift) continue;
      const [x0, y0] = devicePoint(g, 0);
      const [x1, y1] = devicePoint(g, shift / fit.dirLen);
      const b = quadBox(ch.quad);
      const moved: Box = [b[0] + x1 - x0, b[1] + y1 - y0, b[2] + x1 - x0, b[3] + y1 - y0];
      oldBoxes.push(toRender(moved));
      movedOrigins.push([g.origin[0] + x1 - x0, g.origin[1] + y1 - y0]);
    }
  }
  // Widths read apart by a fraction of a thousandth (widthsReadAlike), or a re-spaced line: the
  // rest of the operator.
  if (declareRest) {
    const last = glyphs[glyphs.length - 1];
    // Words a re-spacing moves in later operators (placed with their own Td or Tm) too.
    const rest = new Set([
      ...t.interp.glyphs.filter(
        (g) => g.unit === last.unit && g.opIndex === last.opIndex && g.index > last.index,
      ),
      ...(fit.respacing?.moved.map((m) => m.glyph) ?? []),
    ]);
    for (const l of t.lines)
      for (const ch of l.chars) {
        const g = t.index.at(ch);
        if (!g || !rest.has(g)) continue;
        oldBoxes.push(toRender(quadBox(ch.quad)));
        oldOrigins.push(g.origin);
      }
  }
  return {
    beforeRender,
    tol,
    oldOrigins,
    oldBoxes,
    newOrigins,
    movedOrigins,
    newGlyphBoxes,
    emPts: fit.emPts,
  };
}
