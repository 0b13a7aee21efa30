// The edit stage, second half: the planned edits written into the document copy-on-write, the
// marked content's /ActualText and an annotation's values saying the new text too.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import type { Located } from '../locate/located.ts';
import { actualTextAt, actualTextEdit } from '../rewrite/actual-text.ts';
import type { StreamEdit } from '../rewrite/rewrite.ts';
import { writeEdits, type ChangedObject } from '../rewrite/write.ts';
import type { TierProduct } from '../tiers/tier.ts';
import type { EditPlan } from './plan-edit.ts';

/**
 * Glyphs inside marked content with /ActualText are extracted as that text: it is rewritten with
 * them (actual-text.ts), where every changed glyph lies in the same span and it holds `find` once.
 */
export function rewriteActualText(
  t: Located,
  edits: Map<number, StreamEdit[]>,
  find: string,
  replacement: string,
  measurements: Record<string, unknown>,
): void {
  const { g0, glyphs, interp } = t;
  const unit = interp.units[g0.unit];
  const first = actualTextAt(unit, g0.opIndex);
  if (!first) return;
  const last = glyphs[glyphs.length - 1];
  const oneSpan = last.unit === g0.unit && actualTextAt(unit, last.opIndex)?.start === first.start;
  const rewrite = oneSpan ? actualTextEdit(first, find, replacement) : null;
  if (!rewrite) {
    rewriteGlyphSpans(t, edits, measurements);
    return;
  }
  edits.set(g0.unit, [...(edits.get(g0.unit) ?? []), rewrite.edit]);
  measurements.actual_text = { before: rewrite.before, after: rewrite.after };
}

/**
 * One span per glyph (XeTeX's around each ideograph, `/Span <</ActualText <FEFF4E2D>>> BDC`): where
 * each glyph replaced letter for letter has a span of its own that says its old letter, each span
 * says the new one.
 */
export function rewriteGlyphSpans(
  t: Located,
  edits: Map<number, StreamEdit[]>,
  measurements: Record<string, unknown>,
): void {
  const { glyphs, newChars, interp } = t;
  const oldChars = t.match.line.chars.slice(t.span.spanStart, t.span.spanEnd);
  if (oldChars.length !== glyphs.length || newChars.length !== glyphs.length) return;
  const spans = glyphs.map((g) => actualTextAt(interp.units[g.unit], g.opIndex));
  const planned: { unit: number; edit: StreamEdit }[] = [];
  for (let i = 0; i < glyphs.length; i += 1) {
    const span = spans[i];
    if (!span) return;
    // Its own span: the neighbours' spans are other ones.
    if (spans.some((o, k) => k !== i && o?.start === span.start && glyphs[k].unit === glyphs[i].unit)) return;
    if (oldChars[i].c === newChars[i]) continue;
    const rewrite = actualTextEdit(span, oldChars[i].c, newChars[i]);
    if (!rewrite || rewrite.before !== oldChars[i].c) return;
    planned.push({ unit: glyphs[i].unit, edit: rewrite.edit });
  }
  for (const p of planned) edits.set(p.unit, [...(edits.get(p.unit) ?? []), p.edit]);
  measurements.actual_text = { spans: planned.length, one_per_glyph: true };
}

/**
 * Writes the edits copy-on-write and lists every object changed or added. An annotation or form
 * field whose appearance was corrected: the text it holds as values (contents, rich text, a field's
 * value) says the same, or a warning says it does not.
 */
export function writeCorrection(
  doc: mupdf.PDFDocument,
  t: Located,
  plan: EditPlan,
  product: TierProduct,
  find: string,
  replacement: string,
  warnings: string[],
): ChangedObject[] {
  const units = t.interp.units;
  const changedObjects: ChangedObject[] = writeEdits(doc, t.page, units, plan.edits, plan.overrides);
  changedObjects.push(...product.changed);
  for (const c of changedObjects.filter((x) => x.kind === 'annotation')) {
    const annot = units.find((u) => u.annot && u.annot.asIndirect() === c.num)?.annot;
    if (annot) warnings.push(...correctAnnotationValues(doc, annot, find, replacement, changedObjects));
  }
  return changedObjects;
}

/**
 * Replaces `find` with `replacement` in the texts an annotation holds besides its appearance:
 * /Contents, /RC (rich text) and a form field's /V (on the widget or the field it belongs to). Each
 * is changed only where it holds `find` exactly once; the others are named in the warnings returned.
 * A field dictionary changed this way is added to `changed` (declared for the structural guard).
 */
export function correctAnnotationValues(
  doc: mupdf.PDFDocument,
  annot: mupdf.PDFObject,
  find: string,
  replacement: string,
  changed: ChangedObject[],
): string[] {
  const warnings: string[] = [];
  const field =
    annot.get('V').isString() || !annot.get('Parent').isDictionary() ? annot : annot.get('Parent');
  const targets: [mupdf.PDFObject, string][] = [
    [annot, 'Contents'],
    [annot, 'RC'],
    [field, 'V'],
  ];
  for (const [owner, key] of targets) {
    const value = owner.get(key);
    if (!value.isString()) continue;
    const text = value.asString();
    const count = text.split(find).length - 1;
    if (count === 1) {
      owner.put(key, doc.newString(text.replace(find, replacement)));
      if (owner !== annot && owner.isIndirect() && !changed.some((c) => c.num === owner.asIndirect()))
        changed.push({
          num: owner.asIndirect(),
          kind: 'annotation',
          replaces: owner.asIndirect(),
          bytes_before: 0,
          bytes_after: 0,
        });
    } else if (count > 1 || !text.includes(replacement)) {
      warnings.push(
        `The ${key === 'V' ? "form field's value" : `annotation's /${key}`} ${count > 1 ? `holds “${find}” ${count} times` : `does not hold “${find}”`} and was left as it was: a viewer that rebuilds the appearance from it would show the old text.`,
      );
    }
  }
  return warnings;
}
