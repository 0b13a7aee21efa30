// Guard widths_read_alike, decided before the edit is written: whether renderers that read a font's
// widths differently still place the rest of the line alike (docs/engine.md, Verification).
import type { Located } from '../locate/located.ts';
import type { StreamUnit } from '../locate/text-interpreter.ts';
import { exactReadingShift } from '../rewrite/rewrite.ts';
import type { TierProduct } from '../tiers/tier.ts';
import type { Fit } from './fit-rule.ts';

export type GuardCheck = { passed: boolean; detail: string };

/** Thousandths of an em the rest of a line may move between readings of its widths (rewrite.ts). */
export const READING_TOLERANCE = 0.05;

/**
 * Guard `widths_read_alike`: the new codes are compensated as MuPDF reads widths; a font whose
 * widths are written with fractions is read otherwise by poppler, and the rest of the line must not
 * move there either (exactReadingShift). Glyphs placed one by one, or down a column, move nothing.
 */
export function widthsReadAlike(
  t: Located,
  product: TierProduct,
  fit: Fit,
): GuardCheck & { declareRest: boolean } {
  if (fit.vertical || product.inPlace)
    return {
      passed: true,
      declareRest: false,
      detail: 'each new glyph stands where an old one stood: no width moves the glyphs after it',
    };
  const shift = exactReadingShift(t.glyphs, product.widthFont, product.codes, product.squeeze ?? 1);
  const units = Math.round(shift * 1000) / 1000;
  if (Math.abs(shift) <= READING_TOLERANCE)
    return {
      passed: true,
      declareRest: false,
      detail: `the widths as written and as MuPDF rounds them place the rest of the line alike (${units}/1000 em apart)`,
    };
  // The readings part by less than a thousandth of an em, after the target only: where nothing
  // drawn later starts from the pen the operator leaves (pdfTeX places every TJ with its own Td),
  // the rest of the operator is declared and no glyph outside it can move in any reading.
  const last = t.glyphs[t.glyphs.length - 1];
  const oneOperator = t.glyphs.every((g) => g.unit === last.unit && g.opIndex === last.opIndex);
  if (oneOperator && Math.abs(shift) < 1 && penResetAfter(t.interp.units, last.unit, last.opIndex))
    return {
      passed: true,
      declareRest: true,
      detail: `the font's widths are written with fractions that renderers read differently: a renderer that reads them as written (poppler) places the rest of the operator ${units}/1000 em from where MuPDF does, so those glyphs are declared; every text operator after it is placed afresh, so nothing else moves`,
    };
  return {
    passed: false,
    declareRest: false,
    detail: `the font's widths are written with fractions that renderers read differently: with the rest of the line kept in place as MuPDF reads them, a renderer that reads them as written (poppler) would move it ${units}/1000 em`,
  };
}

/**
 * Every text operator after `opIndex` in its stream is placed afresh (Td, TD, Tm, T*, ', " or a new
 * BT) before it shows text, so the pen that operator leaves is never used. A page whose content
 * goes on in a later part of /Contents is not followed there: false.
 */
export function penResetAfter(units: StreamUnit[], unitIndex: number, opIndex: number): boolean {
  const unit = units[unitIndex];
  for (let k = opIndex + 1; k < unit.ops.length; k += 1) {
    const op = unit.ops[k].op;
    if (['Td', 'TD', 'Tm', 'T*', 'BT', 'ET', "'", '"'].includes(op)) return true;
    if (op === 'Tj' || op === 'TJ') return false;
  }
  return !(
    unit.kind === 'page' &&
    units.some((u) => u.kind === 'page' && (u.contentsIndex ?? 0) > (unit.contentsIndex ?? 0))
  );
}
