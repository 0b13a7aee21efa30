// A swap of letters drawn one glyph per text operator: CJK.sty (pdfTeX) and dvipdfmx set each
// hangul syllable or hanzi with a Tf of its own, from 256-glyph subfonts, so the two syllables of a
// word swapped (“하에” → “에하”) come from two fonts; letter-spaced figures are placed one by one,
// each with its own Td. Each new letter is one of the word's own glyphs (its font and code), as
// wide as the glyph it replaces: it is drawn by the old glyph's operator, with its font set around
// it where that is another (`/F6 9.96 Tf [(\320)]TJ /F19 9.96 Tf`), and every glyph keeps its
// place. And a swap of letters the pen draws one after another from several subsets of one face
// (Prawn and ReportLab split a TrueType face into 256-glyph subsets: “BİÇİM” is drawn `(B) Tj /F1.1
// 10 Tf (") Tj /F1.0 10 Tf …`): the same glyphs in another order, each in its own font, so the pen
// ends where it did whatever their widths; a glyph drawn with others by one string is set apart by
// splitting the string around it. Anything else of a word in several fonts is refused.
import { encodeString, exactNumber, nameToken } from '../locate/content-stream.ts';
import { codeWidth } from '../locate/fonts.ts';
import { codeToBytes, stringOperand, type OperandChange, type StreamEdit } from '../rewrite/rewrite.ts';
import type { Located } from '../locate/located.ts';
import { NOT_BUILT, refuse } from '../refusals.ts';
import type { Code, TierProduct } from './tier.ts';
import type { Glyph } from '../locate/text-interpreter.ts';

/** Widths (in em) that MuPDF holds as the same whole thousandth. */
const SAME_WIDTH_EM = 0.0005;

interface Donor {
  glyph: Glyph;
  char: string;
}

/**
 * Tier 1 letter by letter: for each new letter, a glyph of the word that draws it, as
 * wide (in its font) as the glyph whose place it takes; null otherwise.
 */
export function crossFontSwap(t: Located): { product: TierProduct; donors: Glyph[] } | null {
  // Drawn as the pen flows (not one glyph per operator): widths may differ, as long as the new
  // letters are the old glyphs themselves in another order.
  const flowing = !t.byGlyph && t.flows;
  const { glyphs, newChars } = t;
  const chars = t.match.line.chars.slice(t.span.spanStart, t.span.spanEnd);
  const word: Donor[] = [];
  for (const ch of chars) {
    const g = t.index.at(ch);
    if (g && glyphs.includes(g) && !word.some((d) => d.glyph === g)) word.push({ glyph: g, char: ch.c });
  }
  if (word.length !== glyphs.length) return null;
  // The donor's font is named in the same resources (one stream, or the page's content parts).
  const sameResources = (d: Glyph, old: Glyph) =>
    d.unit === old.unit ||
    (t.interp.units[d.unit].kind === 'page' && t.interp.units[old.unit].kind === 'page');
  const donors: Glyph[] = [];
  for (const [i, c] of newChars.entries()) {
    const old = glyphs[i];
    const oldWidth = codeWidth(old.font, old.code);
    const donor = word.find(
      (d) =>
        d.char === c &&
        sameResources(d.glyph, old) &&
        (flowing || Math.abs(codeWidth(d.glyph.font, d.glyph.code) - oldWidth) < SAME_WIDTH_EM),
    );
    if (!donor) return null;
    donors.push(donor.glyph);
  }
  const drawn = (gs: Glyph[]) => gs.map((g) => `${g.font.objNum}:${g.fontName}:${g.code}`).sort();
  if (flowing && drawn(donors).join() !== drawn(glyphs).join()) return null;
  const codes: Code[] = donors.map((d) => ({ code: d.code, length: d.length }));
  const fonts = [...new Set(glyphs.map((g) => g.font.baseFont))];
  const product: TierProduct = {
    codes,
    sources: donors.map(() => 'drawn_on_page'),
    widthFont: t.font,
    draw: { use: 'own' },
    keepsOldAdvances: true,
    inPlace: true,
    ...(flowing && { flowAdvances: donors.map((d) => d.advance) }),
    changed: [],
    measurements: { fonts_of_the_word: fonts },
    warnings: [],
    fontAlternatives: 0,
    explain: (p) =>
      flowing
        ? `Tier 1 (glyph reuse), letter by letter: “${p.oldText}” becomes “${p.newText}” at ${p.sizePt} pt; the word's own glyphs in another order, each in the font that draws it (${fonts.join(', ')}), set one after another as the pen draws them, so the word ends where it did and nothing else moves.`
        : `Tier 1 (glyph reuse), letter by letter: “${p.oldText}” becomes “${p.newText}” at ${p.sizePt} pt; each letter is drawn by the operator of the letter it replaces, in the font that draws it elsewhere in the word (${fonts.join(', ')}), as wide as the old one, so nothing else moves.`,
  };
  return { product, donors };
}

/** A word drawn glyph by glyph in several fonts, and a replacement that is not a swap of its letters. */
export function crossFontRefusal(): never {
  refuse(
    'split_drawing',
    'The letters to change are drawn in different fonts, one text operator each, and the replacement is not a swap of them.',
    "Each letter here is set with a font of its own (a subfont of 256 glyphs, as CJK.sty and dvipdfmx write them); the engine replaces such letters only by the word's own letters of the same width.",
    [
      'Replace the letters with a permutation of the same letters (a swap).',
      'Correct a single letter at a time.',
    ],
    { rejected: NOT_BUILT },
  );
}

/**
 * The edits: each changed glyph's string takes the donor's code; where the donor's font is another
 * one, a Tf with that font (and the glyph's own size) comes before the operator and the old font's
 * Tf after it, so the text state after the operator is what it was. An operator that draws other
 * glyphs too (the flowing swap) is split around the changed one: `(…) Tj /F1.1 10 Tf (") Tj /F1.0
 * 10 Tf (…) Tj`, a TJ array likewise at the changed string. Null where an operator holds several
 * changed glyphs of which one changes font (its edits would overlap).
 */
export function crossFontEdits(
  t: Located,
  donors: Glyph[],
): { edits: Map<number, StreamEdit[]>; changes: OperandChange[] } | null {
  const edits = new Map<number, StreamEdit[]>();
  const changes: OperandChange[] = [];
  // The changed glyphs by the string that draws them.
  const byString = new Map<string, { g: Glyph; d: Glyph }[]>();
  t.glyphs.forEach((g, i) => {
    const d = donors[i];
    if (d.font === g.font && d.code === g.code) return;
    const key = `${g.unit}:${g.opIndex}:${g.element}`;
    byString.set(key, [...(byString.get(key) ?? []), { g, d }]);
  });
  const drawnByOp = (g: Glyph) =>
    t.interp.glyphs.filter((o) => o.unit === g.unit && o.opIndex === g.opIndex).length;
  // An operator rewritten whole (a font set around it, or split) takes no other edit.
  const stringsOfOp = (g: Glyph) =>
    [...byString.values()].filter(([x]) => x.g.unit === g.unit && x.g.opIndex === g.opIndex).length;
  for (const group of byString.values()) {
    const { g } = group[0];
    const unit = t.interp.units[g.unit];
    const op = unit.ops[g.opIndex];
    const str = stringOperand(op, g.element);
    const list = edits.get(g.unit) ?? [];
    edits.set(g.unit, list);
    for (const { g: old } of group)
      changes.push({
        unit: old.unit,
        opIndex: old.opIndex,
        element: old.element,
        oldAdvance: old.advance,
        newAdvance: old.advance,
        adjustment: 0,
      });
    if (group.every(({ g: old, d }) => d.font === old.font)) {
      // Codes replaced inside the string, from its end so earlier offsets hold.
      let bytes = Uint8Array.from(str.bytes);
      for (const { g: old, d } of [...group].sort((a, b) => b.g.offset - a.g.offset))
        bytes = Uint8Array.from([
          ...bytes.subarray(0, old.offset),
          ...codeToBytes(d.code, d.length),
          ...bytes.subarray(old.offset + old.length),
        ]);
      list.push({ start: str.start, end: str.end, text: encodeString(bytes, str.hex) });
      continue;
    }
    if (group.length > 1 || stringsOfOp(g) > 1) return null;
    const { d } = group[0];
    const size = exactNumber(g.state.Tfs);
    const donorFont = `${nameToken(d.fontName)} ${size} Tf`;
    const ownFont = `${nameToken(g.fontName)} ${size} Tf`;
    const code = codeToBytes(d.code, d.length);
    const raw = Buffer.from(unit.bytes.subarray(op.start, str.start)).toString('latin1');
    const tail = Buffer.from(unit.bytes.subarray(str.end, op.end)).toString('latin1');
    if (drawnByOp(g) === 1) {
      const bytes = Uint8Array.from([
        ...str.bytes.subarray(0, g.offset),
        ...code,
        ...str.bytes.subarray(g.offset + g.length),
      ]);
      list.push({
        start: op.start,
        end: op.end,
        text: ` ${donorFont} ${raw}${encodeString(bytes, str.hex)}${tail} ${ownFont} `,
      });
      continue;
    }
    const before = str.bytes.subarray(0, g.offset);
    const after = str.bytes.subarray(g.offset + g.length);
    const own = (b: Uint8Array) => (b.length ? encodeString(b, str.hex) : '');
    const middle = ` ${donorFont} ${encodeString(Uint8Array.from(code), str.hex)} Tj ${ownFont} `;
    if (op.op === 'Tj')
      list.push({
        start: op.start,
        end: op.end,
        text: `${before.length ? `${own(before)} Tj` : ''}${middle}${after.length ? `${own(after)} Tj` : ''}`,
      });
    else if (op.op === 'TJ')
      list.push({
        start: op.start,
        end: op.end,
        text: `${raw}${own(before)}] TJ ${donorFont} [${encodeString(Uint8Array.from(code), str.hex)}] TJ ${ownFont} [${own(after)}${tail}`,
      });
    else return null;
  }
  return { edits, changes };
}
