// Turning a planned change of codes into content-stream edits that keep every other glyph where it
// was: the new codes go into the string of the first changed glyph, the old codes leave their
// strings, and a TJ adjustment after each touched string puts the pen back exactly where the
// original left it. Only the bytes of touched operators change.
import { encodeString, formatNumber, type ContentOp, type Operand } from '../locate/content-stream.ts';
import type { Glyph, StreamUnit } from '../locate/text-interpreter.ts';
import { codeWidth, writtenWidth, type FontInfo } from '../locate/fonts.ts';
import { advancePen, exactAdjustment, penBefore } from './double-pen.ts';

/** A TJ number written before a glyph (thousandths of text space, TJ's sign: positive moves left). */
export interface Kern {
  glyph: Glyph;
  adjustment: number;
  /** Written after the glyph rather than before it (the number that puts the pen back). */
  after?: boolean;
}

export interface StreamEdit {
  start: number;
  end: number;
  text: string;
}

export interface OperandChange {
  unit: number;
  opIndex: number;
  element: number;
  /** Advance of the removed glyphs and of the inserted ones, text space. */
  oldAdvance: number;
  newAdvance: number;
  /** TJ adjustment written after the new codes (thousandths of text space; 0 when none). */
  adjustment: number;
}

/** Advance in text space of codes drawn with a glyph's text state. */
export function advanceOf(font: FontInfo, codes: { code: number; length: number }[], g: Glyph): number {
  const t = g.state;
  let sum = 0;
  for (const c of codes) {
    const space = c.length === 1 && c.code === 32 ? t.Tw : 0;
    sum += (codeWidth(font, c.code) * t.Tfs + t.Tc + space) * t.Th;
  }
  return sum;
}

/**
 * How far the rest of the line moves, in thousandths of an em, in a renderer that reads widths as
 * written (poppler keeps every digit) when the new codes are compensated as MuPDF reads them
 * (rounded half up; fonts.ts, codeWidth). A cm-super font writes 476.5 and 423: MuPDF reads 477 and
 * 423, poppler 476.5 and 423, so an "e" changed to an "o" moves poppler's tail half a unit, which
 * its quarter-pixel glyph placement can show. PDFium, which truncates, has its own guard.
 */
export function exactReadingShift(
  oldGlyphs: Glyph[],
  newFont: FontInfo,
  codes: { code: number }[],
  scale = 1,
): number {
  const gap = (font: FontInfo, code: number) => writtenWidth(font, code) - codeWidth(font, code) * 1000;
  let shift = 0;
  for (const c of codes) shift += gap(newFont, c.code) * scale;
  for (const g of oldGlyphs) shift -= gap(g.font, g.code);
  return shift;
}

/**
 * The fraction of each old glyph's written width, by the new character that takes its place, for a
 * replacement of as many characters as the target (fonts.ts, withFraction). A character that takes
 * the places of widths with different fractions gets none.
 */
export function fractionsByChar(glyphs: Glyph[], chars: string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (glyphs.length !== chars.length) return out;
  const clash = new Set<string>();
  glyphs.forEach((g, i) => {
    const w = writtenWidth(g.font, g.code);
    const f = Math.round((w - Math.floor(w)) * 1e4) / 1e4;
    const ch = chars[i]!;
    if (out.has(ch) && out.get(ch) !== f) clash.add(ch);
    out.set(ch, f);
  });
  for (const ch of clash) out.delete(ch);
  return out;
}

export function codeToBytes(code: number, length: number): number[] {
  const out: number[] = [];
  for (let k = length - 1; k >= 0; k -= 1) out.push((code >> (8 * k)) & 0xff);
  return out;
}

/** The string operand a glyph is in: element `element` of a TJ array, or the Tj, ' or " string. */
export function stringOperand(op: ContentOp, element: number): Operand & { kind: 'string' } {
  const a = op.operands;
  if (element >= 0) {
    const arr = a[a.length - 1];
    if (arr?.kind === 'array' && arr.items[element]?.kind === 'string')
      return arr.items[element] as Operand & { kind: 'string' };
  } else {
    const s = op.op === '"' ? a[2] : a[a.length - 1];
    if (s?.kind === 'string') return s;
  }
  throw new Error(`operator ${op.op} has no string operand at ${element}`);
}

const raw = (unit: StreamUnit, o: { start: number; end: number }) =>
  Buffer.from(unit.bytes.subarray(o.start, o.end)).toString('latin1');

/** Glyphs spread over several strings of one TJ array, replaced code for code: kerns stay inside. */
export function keepsInnerKerning(glyphs: Glyph[], codes: { code: number; length: number }[]): boolean {
  if (codes.length !== glyphs.length || glyphs.length < 2) return false;
  const g0 = glyphs[0];
  const sameArray = glyphs.every((g) => g.unit === g0.unit && g.opIndex === g0.opIndex && g.element >= 0);
  return sameArray && glyphs.some((g) => g.element !== g0.element);
}

/**
 * Builds the edits of every touched operand. `glyphs` are the consecutive glyphs being replaced,
 * `codes` the new codes (all drawn in the first glyph's font and text state).
 */
export function planEdits(
  units: StreamUnit[],
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  widthFont: FontInfo = glyphs[0].font,
  kerns: Kern[] = [],
  pageGlyphs: Glyph[] | null = null,
): { edits: Map<number, StreamEdit[]>; changes: OperandChange[] } {
  const groups: Glyph[][] = [];
  for (const g of glyphs) {
    const last = groups[groups.length - 1];
    if (last && last[0].unit === g.unit && last[0].opIndex === g.opIndex && last[0].element === g.element)
      last.push(g);
    else groups.push([g]);
  }
  const edits = new Map<number, StreamEdit[]>();
  const changes: OperandChange[] = [];
  // All groups in one TJ array: the kerning numbers between them stay, and one adjustment in the
  // last touched string settles the whole difference (when widths are equal there is none at all,
  // so no +x/−x pair is left for a renderer's floating point to disagree about).
  const g0 = groups[0][0];
  const oneArray = groups.every(
    (g) => g[0].unit === g0.unit && g[0].opIndex === g0.opIndex && g[0].element >= 0,
  );
  const totalOld = glyphs.reduce((s, g) => s + g.advance, 0);
  const totalNew = advanceOf(widthFont, codes, g0);
  // As many new codes as old glyphs, spread over several strings of one array: each string keeps
  // its count, so the kerning numbers between them stay between the same letter positions (a
  // letter swap keeps its word's width; the kerns are re-distributed, not piled up after it).
  const spread = keepsInnerKerning(glyphs, codes);
  let taken = 0;
  const emptied = new Set<ContentOp>();
  groups.forEach((group, k) => {
    const first = group[0];
    const last = group[group.length - 1];
    const unit = units[first.unit];
    const op = unit.ops[first.opIndex];
    const str = stringOperand(op, first.element);
    const oldAdvance = group.reduce((s, g) => s + g.advance, 0);
    const inserted = spread ? codes.slice(taken, (taken += group.length)) : k === 0 ? codes : [];
    const newAdvance = inserted.length ? advanceOf(widthFont, inserted, first) : 0;
    const t = first.state;
    const scale = t.Tfs * t.Th;
    let adjustment = scale === 0 ? 0 : ((newAdvance - oldAdvance) * 1000) / scale;
    if (oneArray)
      adjustment = k < groups.length - 1 || scale === 0 ? 0 : ((totalNew - totalOld) * 1000) / scale;
    // Vertical writing: one advance for every glyph (the engine allows only as many as it replaces).
    if (first.font.wmode === 1 || Math.abs(adjustment) < 5e-5) adjustment = 0;
    const afterAt = last.offset + last.length;
    // The string up to the target (cut by the numbers of a line re-spaced before it), ending in
    // the new codes.
    const head = withKerns(str.bytes.subarray(0, first.offset), 0, kernsBefore(kerns, first));
    const lead = head.pop() as Uint8Array;
    const newBytes = Uint8Array.from([...lead, ...inserted.flatMap((c) => codeToBytes(c.code, c.length))]);
    const hex = str.hex;
    const list = edits.get(first.unit) ?? [];
    edits.set(first.unit, list);
    changes.push({
      unit: first.unit,
      opIndex: first.opIndex,
      element: first.element,
      oldAdvance,
      newAdvance,
      adjustment,
    });
    // One word in one string, nothing else re-spaced: the number is written with the digits that put
    // a double-precision reader's pen back where the old codes left it (double-pen.ts).
    // A swap of letters of other widths needs one too: the same widths summed in another order can
    // end an ulp apart.
    const exact =
      pageGlyphs && groups.length === 1 && !spread && kerns.length === 0 && first.font.wmode !== 1
        ? exactNumber(units, pageGlyphs, group, inserted, widthFont, adjustment)
        : null;
    const pieces: Piece[] = [
      ...head,
      newBytes,
      exact ?? adjustment,
      ...withKerns(str.bytes, afterAt, kernsIn(kerns, first, afterAt)),
    ];
    if (
      !pieces.some((p) => (typeof p === 'number' && p !== 0) || (typeof p === 'object' && 'written' in p))
    ) {
      list.push({ start: str.start, end: str.end, text: encodeString(joinBytes(pieces), hex) });
      return;
    }
    list.push(asArrayItems(unit, op, first.element, str, arrayText(pieces, hex)));
    if (first.element >= 0 && !emptied.has(op)) {
      emptied.add(op);
      list.push(...emptyStringEdits(op));
    }
  });
  // Kerns in strings no group touched (the words after the target's string, or its operator).
  const touched = (k: Kern) =>
    groups.some(
      (g) =>
        g[0].unit === k.glyph.unit && g[0].opIndex === k.glyph.opIndex && g[0].element === k.glyph.element,
    );
  addKernEdits(
    units,
    kerns.filter((k) => !touched(k)),
    edits,
  );
  return { edits, changes };
}

/**
 * Adds to `edits` the numbers of a re-spaced line (line-respacing.ts) in the strings that hold
 * them: a TJ array's string is cut where they go; a Tj, ' or " becomes a TJ holding its string cut
 * so (' and " moving to the next line first, as they did).
 */
export function addKernEdits(units: StreamUnit[], kerns: Kern[], edits: Map<number, StreamEdit[]>): void {
  const byString = new Map<string, Kern[]>();
  for (const k of kerns) {
    const key = `${k.glyph.unit}:${k.glyph.opIndex}:${k.glyph.element}`;
    byString.set(key, [...(byString.get(key) ?? []), k]);
  }
  for (const list of byString.values()) {
    const g = list[0]!.glyph;
    const unit = units[g.unit];
    const op = unit.ops[g.opIndex];
    const str = stringOperand(op, g.element);
    const unitEdits = edits.get(g.unit) ?? [];
    edits.set(g.unit, unitEdits);
    unitEdits.push(asArrayItems(unit, op, g.element, str, arrayText(withKerns(str.bytes, 0, list), str.hex)));
  }
}

/**
 * The edit that puts `items` (the inside of a TJ array) in place of a string operand: in a TJ
 * array, in place of the string (spaces on both sides: a number must not run into a neighbouring
 * number token); a Tj, ' or " becomes a TJ, ' and " moving to the next line first as they did.
 */
function asArrayItems(
  unit: StreamUnit,
  op: ContentOp,
  element: number,
  str: { start: number; end: number },
  items: string,
): StreamEdit {
  if (element >= 0) return { start: str.start, end: str.end, text: ` ${items} ` };
  const whole = (text: string) => ({ start: op.start, end: op.end, text });
  if (op.op === 'Tj') return whole(` [${items}] TJ `);
  if (op.op === "'") return whole(` T* [${items}] TJ `);
  if (op.op === '"') {
    const [aw, ac] = op.operands;
    return whole(` ${raw(unit, aw)} Tw ${raw(unit, ac)} Tc T* [${items}] TJ `);
  }
  throw new Error(`unexpected text operator ${op.op}`);
}

/**
 * Edits that take the empty strings (`<>`, `()`; cairo starts its arrays with one) out of a TJ
 * array given numbers: they draw nothing, but PDFium counts them as segments while it files the
 * numbers by the non-empty ones, so a number left at the end of such an array is dropped and the
 * rest of the line drawn that much off (a Graphviz line moved 9/1000 em after a split array where
 * MuPDF and poppler moved nothing).
 */
export function emptyStringEdits(op: ContentOp): StreamEdit[] {
  const arr = op.operands[op.operands.length - 1];
  if (op.op !== 'TJ' || arr?.kind !== 'array') return [];
  return arr.items
    .filter((it) => it.kind === 'string' && it.bytes.length === 0)
    .map((it) => ({ start: it.start, end: it.end, text: ' ' }));
}

/** A string's bytes or a TJ number (or a number's exact text), in the order a rewritten array holds them. */
type Piece = Uint8Array | number | { written: string };

/**
 * The TJ number after `inserted` (in place of `group`) as the text that brings poppler's pen to the
 * double the old codes left it on; null when the pen cannot be replayed or no such text is near.
 */
function exactNumber(
  units: StreamUnit[],
  pageGlyphs: Glyph[],
  group: Glyph[],
  inserted: { code: number; length: number }[],
  widthFont: FontInfo,
  adjustment: number,
): { written: string } | null {
  const first = group[0];
  const start = penBefore(units, pageGlyphs, first);
  if (!start) return null;
  const to = advancePen(start, group, first.font, first.state);
  const from = advancePen(start, inserted, widthFont, first.state);
  if (!to || !from) return null;
  const written = exactAdjustment(from, to, adjustment, first.state);
  // The number as the engine writes it already lands there (or none is needed): written as before.
  return written === null || written === formatNumber(adjustment) ? null : { written };
}

/** The kerns inside a glyph's string (its unit, operator and element) at or after byte `from`. */
export const kernsIn = (kerns: Kern[], g: Pick<Glyph, 'unit' | 'opIndex' | 'element'>, from = 0) =>
  kerns.filter(
    (k) =>
      k.glyph.unit === g.unit &&
      k.glyph.opIndex === g.opIndex &&
      k.glyph.element === g.element &&
      kernAt(k) >= from,
  );

/** The kerns inside a glyph's string up to it (the number before it included). */
export const kernsBefore = (kerns: Kern[], g: Pick<Glyph, 'unit' | 'opIndex' | 'element' | 'offset'>) =>
  kerns.filter(
    (k) =>
      k.glyph.unit === g.unit &&
      k.glyph.opIndex === g.opIndex &&
      k.glyph.element === g.element &&
      kernAt(k) <= g.offset,
  );

/** The byte of its string a kern is written before. */
const kernAt = (k: Kern) => k.glyph.offset + (k.after ? k.glyph.length : 0);

/**
 * A string's bytes from `from` on (up to `to`), cut before each kerned glyph with the kern's number
 * between.
 */
function withKerns(bytes: Uint8Array, from: number, kerns: Kern[], to = bytes.length): Piece[] {
  const out: Piece[] = [];
  let at = from;
  for (const k of [...kerns].sort((a, b) => kernAt(a) - kernAt(b))) {
    out.push(bytes.subarray(at, kernAt(k)), k.adjustment);
    at = kernAt(k);
  }
  out.push(bytes.subarray(at, to));
  return out;
}

/** A string's bytes from `from` on (up to `to`) as the inside of a TJ array, cut by its kerns' numbers. */
export const kernedItems = (
  str: { bytes: Uint8Array; hex: boolean },
  from: number,
  kerns: Kern[],
  to = str.bytes.length,
) => arrayText(withKerns(str.bytes, from, kerns, to), str.hex);

const joinBytes = (pieces: Piece[]) =>
  Uint8Array.from(pieces.flatMap((p) => (p instanceof Uint8Array ? [...p] : [])));

/** The inside of a TJ array: empty strings and zero numbers left out. */
function arrayText(pieces: Piece[], hex: boolean): string {
  const parts: string[] = [];
  for (const p of pieces) {
    if (typeof p === 'number') {
      if (p !== 0) parts.push(formatNumber(p));
    } else if ('written' in p) parts.push(p.written);
    else if (p.length) parts.push(encodeString(p, hex));
  }
  return parts.join(' ');
}
