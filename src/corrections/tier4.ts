// Tier 4, matched font: the document's font cannot draw a character, so the changed characters are
// drawn with a bundled metric-compatible font (src/fonts/) chosen from the original font's name,
// flags and measured widths. The face is embedded whole as a Type0/Identity-H font with MuPDF's
// ToUnicode (so extraction gives the new text), its font file Flate-compressed, marked with
// /DocfixFace so later corrections find and reuse it instead of embedding it again. In the content
// stream only the text-showing operator that holds the span changes: it is split around the span,
// the new run is drawn between `/New size Tf` and `/Original size Tf` in the same text state, and a
// TJ adjustment after the new run puts the pen exactly where the old span ended. A face embedded by
// this correction that draws as many glyphs as it replaces gets the old glyphs' widths in its W
// instead (mirrorOldWidths), so no adjustment is needed and every renderer reads the new advance as
// it read the old one.
import { deflateSync } from 'node:zlib';
import type { mupdf } from '../pdf/mupdf-adapter.ts';
import { loadFace, matchFont, missingGlyphs, type FontCandidate } from '../fonts/font-match.ts';
import { fontFactsFromPdf } from '../fonts/pdf-font-facts.ts';
import type { BundledFace } from '../fonts/catalog.ts';
import { encodeString, formatNumber, type ContentOp, type Operand } from './content-stream.ts';
import { loadFontInfo, type FontInfo } from './fonts.ts';
import { TIER_NAMES } from './refusals.ts';
import type { Tier } from './tier-ladder.ts';
import { advanceOf, codeToBytes, type StreamEdit } from './rewrite.ts';
import type { Glyph, StreamUnit } from './text-interpreter.ts';
import type { ChangedObject } from './write.ts';

/** Key put in the font dictionary of an embedded bundled face (its catalogue id). */
export const MARKER_KEY = 'DocfixFace';

export interface Alternative {
  font_attempt: number;
  face: string;
  family: string;
  style: string;
  width_diff: number | null;
  lacks: string[];
}

export interface MatchedFont {
  face: BundledFace;
  candidate: FontCandidate;
  alternatives: Alternative[];
  ref: mupdf.PDFObject;
  info: FontInfo;
  reused: boolean;
  /** Glyph ids (= codes, Identity-H) of the new characters. */
  gids: number[];
  changed: ChangedObject[];
  font_file_bytes: number;
}

export interface MatchRefusal {
  code: string;
  what: string;
  why: string;
  do: string[];
  alternatives: Alternative[];
}

const quoted = (chars: string[]) => chars.map((c) => `“${c}”`).join(', ');

export const matchedFontTier: Tier = {
  tier: 4,
  name: TIER_NAMES[4],
  needs:
    "a bundled face matched to the page's font (font_attempt chooses which) that has every new character",
  attempt(ctx) {
    const { font, newChars } = ctx;
    const missing = ctx.reused.missing;
    const mf = matchedFont(ctx.doc, font, newChars, ctx.fontAttempt);
    if ('code' in mf) {
      const lacks = mf.alternatives.map(
        (a) =>
          `${a.face} (font_attempt ${a.font_attempt})${a.lacks.length ? ` lacks ${quoted(a.lacks)}` : ' has them all'}`,
      );
      return {
        refused: { code: mf.code, reason: mf.what, evidence: { alternatives: mf.alternatives } },
        end: {
          code: mf.code === 'font_attempt_out_of_range' ? mf.code : 'glyph_not_available',
          what: `The page's font ${font.baseFont} cannot draw ${quoted(missing)}, and ${mf.code === 'no_matched_font' ? 'no bundled font matches it' : 'the matched font cannot either'}.`,
          why: `${font.embedded ? 'The embedded font program' : 'The font'} ${font.baseFont} does not contain ${missing.length > 1 ? 'these characters' : 'this character'}. ${mf.what} ${mf.why}${lacks.length ? ` Matched fonts: ${lacks.join('; ')}.` : ''}`,
          do: [
            ...new Set([
              ...mf.do,
              'Choose a replacement made of characters the document already shows in this font.',
            ]),
          ],
          evidence: { font_alternatives: mf.alternatives.length, alternatives: mf.alternatives },
        },
      };
    }
    const codes = mf.gids.map((gid) => ({ code: gid, length: 2 }));
    const face = mf.face;
    return {
      codes,
      sources: newChars.map(() => 'matched_font'),
      widthFont: mf.info,
      draw: { use: 'inserted', ref: mf.ref },
      // A face this correction embeds takes the old glyphs' advances where it can (mirrorOldWidths).
      keepsOldAdvances: oldWidthsFor(ctx.glyphs, codes, mf.info) !== null,
      changed: mf.changed,
      measurements: {
        matched_font: {
          face: face.id,
          family: face.family,
          style: face.style,
          reused: mf.reused,
          width_diff: mf.candidate.width_diff,
          font_file_bytes: mf.font_file_bytes,
          alternatives: mf.alternatives,
        },
      },
      warnings: [
        `${face.family} ${face.style} (${face.id}) stands in for ${font.baseFont} to draw “${newChars.join('')}”: a bundled metric-compatible font, not the document's own${mf.reused ? '' : `; it is embedded whole (${Math.round(mf.font_file_bytes / 1024)} KB compressed)`}.`,
      ],
      fontAlternatives: mf.alternatives.length,
      explain: (p) =>
        `Tier 4 (matched font): ${font.baseFont} has no glyph for ${quoted(missing)}; “${p.newText}” is drawn with the bundled ${face.family} ${face.style} (metric-compatible, mean width difference ${mf.candidate.width_diff ?? '?'}/1000 em), ${mf.reused ? 'already embedded by an earlier correction' : 'embedded once for the document'}, at the same size, colour and position; the original font is set again right after it and a TJ adjustment puts every following glyph back where it was. Fit rule: ${p.rule}.`,
    };
  },
};

/** Ranks the bundled faces for `font` and lists which of `text`'s characters each lacks. */
export function alternativesFor(
  font: FontInfo,
  text: string,
): { candidates: FontCandidate[]; alternatives: Alternative[] } {
  const facts = fontFactsFromPdf(font.dict);
  const m = matchFont(facts);
  // A stand-in needs evidence: the font's name names its family, or its widths were measured
  // against the document's (at least 3 characters). Flags alone would let any sans stand in for
  // Computer Modern.
  const candidates = m.candidates
    .filter((c) => c.family_match || (c.width_diff !== null && c.width_chars >= 3))
    .map((c, rank) => ({ ...c, rank }));
  return {
    candidates,
    alternatives: candidates.map((c) => ({
      font_attempt: c.rank,
      face: c.face.id,
      family: c.face.family,
      style: c.face.style,
      width_diff: c.width_diff,
      lacks: missingGlyphs(c.face, text),
    })),
  };
}

const describe = (alts: Alternative[]) =>
  alts.map(
    (a) =>
      `${a.font_attempt}: ${a.face}${a.lacks.length ? ` (lacks ${a.lacks.map((c) => `“${c}”`).join(', ')})` : ''}`,
  );

/** Chooses the candidate `attempt` and embeds it (or finds it already embedded). */
export function matchedFont(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  newChars: string[],
  attempt: number,
): MatchedFont | MatchRefusal {
  const text = newChars.join('');
  const { candidates, alternatives } =
    font.kind === 'Type3' ? { candidates: [], alternatives: [] } : alternativesFor(font, text);
  if (candidates.length === 0) {
    return {
      code: 'no_matched_font',
      what: `No bundled font stands in for ${font.baseFont || `this ${font.kind} font`}.`,
      why:
        font.kind === 'Type3'
          ? 'Type3 fonts draw glyphs with their own procedures; no bundled font matches them.'
          : 'No bundled face has this font’s name, style and widths (within 1 % of the em on average); a symbol font gets none.',
      do: ['Choose a replacement made of characters the document already shows in this font.'],
      alternatives,
    };
  }
  if (attempt >= candidates.length) {
    return {
      code: 'font_attempt_out_of_range',
      what: `font_attempt ${attempt} is beyond the ${candidates.length} matched font(s).`,
      why: `The candidates are ${describe(alternatives).join('; ')}.`,
      do: [`Send a font_attempt from 0 to ${candidates.length - 1}.`],
      alternatives,
    };
  }
  const candidate = candidates[attempt];
  const lacks = alternatives[attempt].lacks;
  if (lacks.length) {
    const better = alternatives.filter((a) => a.lacks.length === 0).map((a) => a.font_attempt);
    return {
      code: 'glyph_not_in_matched_font',
      what: `The matched font ${candidate.face.id} has no glyph for ${lacks.map((c) => `“${c}”`).join(', ')}.`,
      why: `Candidates (font_attempt: face): ${describe(alternatives).join('; ')}.`,
      do: [
        better.length
          ? `Send font_attempt ${better[0]} (${alternatives[better[0]].face} has every character).`
          : 'No bundled font has every character: choose a replacement without them.',
        'Choose a shorter replacement, or one made of characters the document already shows.',
      ],
      alternatives,
    };
  }
  const face = candidate.face;
  const changed: ChangedObject[] = [];
  let ref = findEmbedded(doc, face.id);
  const reused = ref !== null;
  let fontFileBytes = 0;
  if (!ref) {
    ref = doc.addFont(loadFace(face));
    const dict = ref.resolve();
    dict.put(MARKER_KEY, doc.newString(face.id));
    const descendant = dict.get('DescendantFonts').get(0);
    const fd = descendant.get('FontDescriptor');
    const file = fd.get('FontFile2').isNull() ? fd.get('FontFile3') : fd.get('FontFile2');
    if (!file.isNull() && file.get('Filter').isNull()) {
      const raw = file.readStream().asUint8Array();
      const packed = deflateSync(raw, { level: 6 });
      file.put('Filter', doc.newName('FlateDecode'));
      file.writeRawStream(packed);
      fontFileBytes = packed.length;
    }
    for (const o of [ref, descendant, fd, file, dict.get('ToUnicode')]) {
      if (o.isIndirect())
        changed.push({
          num: o.asIndirect(),
          kind: 'font',
          replaces: 0,
          bytes_before: 0,
          bytes_after: o === file ? fontFileBytes : 0,
        });
    }
  }
  const info = loadFontInfo(ref);
  if (!reused) freshlyEmbedded.set(info, doc);
  const program = loadFace(face);
  const gids = newChars.map((ch) => program.encodeCharacter(ch.codePointAt(0) ?? 0));
  return { face, candidate, alternatives, ref, info, reused, gids, changed, font_file_bytes: fontFileBytes };
}

/** Matched faces embedded by the correction being built (not reused): their W may still be set. */
const freshlyEmbedded = new WeakMap<FontInfo, mupdf.PDFDocument>();

/**
 * Gives each new glyph of a freshly embedded face the advance of the old glyph it replaces (same
 * number of glyphs only), written in W as the original font writes its width (e.g. 555.6), so no TJ
 * adjustment is needed for it. Renderers read a width the same way in Widths and in W (MuPDF as a
 * real, PDFium as a whole number: 555.6 → 555), so the pen after the run lands where each renderer
 * had it before. With the face's own width and an adjustment (556 then −0.4) it does in MuPDF, but
 * in PDFium the tail moves by the truncated 0.6/1000 em and some glyphs round to the next pixel.
 * Only the advances change: every glyph is drawn where it was, the new ones at the old ones' places.
 */
function mirrorOldWidths(glyphs: Glyph[], codes: { code: number; length: number }[], info: FontInfo): void {
  const doc = freshlyEmbedded.get(info);
  const want = oldWidthsFor(glyphs, codes, info);
  if (!doc || !want) return;
  if ([...want].every(([gid, w]) => info.widths.get(gid) === w)) return;
  const W = info.dict.get('DescendantFonts').get(0).get('W');
  if (!W.isArray()) return;
  const all = new Map(info.widths);
  for (const [gid, w] of want) all.set(gid, w);
  for (let i = W.length - 1; i >= 0; i -= 1) W.delete(i);
  let group: mupdf.PDFObject | null = null;
  let last = -2;
  for (const [gid, w] of [...all].sort((a, b) => a[0] - b[0])) {
    if (!group || gid !== last + 1) {
      W.push(doc.newInteger(gid));
      group = doc.newArray();
      W.push(group);
    }
    group.push(Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
    last = gid;
  }
  for (const [gid, w] of want) info.widths.set(gid, w);
}

/**
 * The W entries (glyph id → width) that give each new glyph of a freshly embedded face the old
 * glyph's advance, or null when that cannot be done (another count of glyphs, a face embedded by an
 * earlier correction, widths in other units, one glyph asked to take two widths). An accented
 * letter then takes its base letter's advance (í where i stood): its accent may overhang a little,
 * which the pixel comparison judges like any other ink.
 */
export function oldWidthsFor(
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
): Map<number, number> | null {
  if (!freshlyEmbedded.has(info) || glyphs.length !== codes.length) return null;
  const want = new Map<number, number>();
  for (let i = 0; i < glyphs.length; i += 1) {
    const g = glyphs[i];
    if (g.font.widthScale !== 0.001 || g.font.intWidths) return null;
    const w = g.font.widths.get(g.code);
    if (w === undefined || !(w > 0)) return null;
    const prev = want.get(codes[i].code);
    if (prev !== undefined && prev !== w) return null;
    want.set(codes[i].code, w);
  }
  return want;
}

/** A font object of the document that embeds bundled face `id` (added by an earlier correction). */
function findEmbedded(doc: mupdf.PDFDocument, id: string): mupdf.PDFObject | null {
  const count = doc.countObjects();
  for (let num = count - 1; num > 0; num -= 1) {
    const ref = doc.newIndirect(num);
    const obj = ref.resolve();
    if (!obj.isDictionary() || obj.isStream()) continue;
    const marker = obj.get(MARKER_KEY);
    if (!marker.isNull() && marker.asString() === id && obj.get('Subtype').asName() === 'Type0') return ref;
  }
  return null;
}

/** A fresh resource name for the owner's /Font dictionary. */
export function freshFontName(resources: mupdf.PDFObject): string {
  const fonts = resources.get('Font');
  for (let k = 1; ; k += 1) {
    const name = `DFM${k}`;
    if (!fonts.isDictionary() || fonts.get(name).isNull()) return name;
  }
}

const nameToken = (n: string) =>
  `/${[...Buffer.from(n, 'latin1')].map((b) => (b > 0x20 && b < 0x7f && !'()<>[]{}/%#'.includes(String.fromCharCode(b)) ? String.fromCharCode(b) : `#${b.toString(16).padStart(2, '0')}`)).join('')}`;

/** A number written so a reader gets the same double back (no rounding to 4 decimals). */
const exactNumber = (v: number) => {
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(12).replace(/\.?0+$/, '') : s;
};

export interface MatchedEditPlan {
  edits: Map<number, StreamEdit[]>;
  /** Advance of the new run (text space) and of the old span, and the adjustment written. */
  newAdvance: number;
  oldExtent: number;
  adjustment: number;
}

/**
 * Splits the operator that draws `glyphs` (all in one operator) around them and draws `codes` in the
 * matched (or sibling) font between two Tf, keeping every other glyph where it was. (Drawing the new run after
 * the whole operator instead would keep the operator intact but put the new letters at the end of
 * the line in extraction order: the text layer would not read true.)
 */
export function planMatchedEdits(
  units: StreamUnit[],
  glyphs: Glyph[],
  codes: { code: number; length: number }[],
  info: FontInfo,
  newName: string,
): MatchedEditPlan | null {
  const first = glyphs[0];
  const last = glyphs[glyphs.length - 1];
  if (glyphs.some((g) => g.unit !== first.unit || g.opIndex !== first.opIndex)) return null;
  const unit = units[first.unit];
  const op: ContentOp = unit.ops[first.opIndex];
  const t = first.state;
  const scale = t.Tfs * t.Th;
  if (scale === 0) return null;
  mirrorOldWidths(glyphs, codes, info);
  // The old span's extent in text space: advances plus the TJ numbers between its glyphs.
  let oldExtent = glyphs.reduce((s, g) => s + g.advance, 0);
  const arr = op.operands[op.operands.length - 1];
  if (first.element >= 0 && arr?.kind === 'array') {
    for (let e = first.element + 1; e < last.element; e += 1) {
      const it = arr.items[e];
      if (it.kind === 'number') oldExtent -= (it.value / 1000) * scale;
    }
  }
  const newAdvance = advanceOf(info, codes, first);
  let adjustment = ((newAdvance - oldExtent) * 1000) / scale;
  if (Math.abs(adjustment) < 5e-5) adjustment = 0;
  const hexRun = encodeString(Uint8Array.from(codes.flatMap((c) => codeToBytes(c.code, c.length))), true);
  const run = adjustment === 0 ? `${hexRun} Tj` : `[${hexRun} ${formatNumber(adjustment)}] TJ`;
  const size = exactNumber(t.Tfs);
  const middle = `${nameToken(newName)} ${size} Tf ${run} ${nameToken(first.fontName)} ${size} Tf`;
  const raw = (o: { start: number; end: number }) =>
    Buffer.from(unit.bytes.subarray(o.start, o.end)).toString('latin1');
  let text: string;
  if (first.element >= 0 && arr?.kind === 'array') {
    const s1 = arr.items[first.element] as Operand & { kind: 'string' };
    const s2 = arr.items[last.element] as Operand & { kind: 'string' };
    const head: string[] = arr.items.slice(0, first.element).map((it) => raw(it));
    if (first.offset > 0) head.push(encodeString(s1.bytes.subarray(0, first.offset), s1.hex));
    const tail: string[] = [];
    const rest = s2.bytes.subarray(last.offset + last.length);
    if (rest.length) tail.push(encodeString(rest, s2.hex));
    tail.push(...arr.items.slice(last.element + 1).map((it) => raw(it)));
    const parts: string[] = [];
    if (head.length) parts.push(`[${head.join(' ')}] TJ`);
    parts.push(middle);
    if (tail.length) parts.push(`[${tail.join(' ')}] TJ`);
    text = ` ${parts.join(' ')} `;
  } else {
    const s = (op.op === '"' ? op.operands[2] : op.operands[op.operands.length - 1]) as Operand & {
      kind: 'string';
    };
    if (s?.kind !== 'string') return null;
    const before = s.bytes.subarray(0, first.offset);
    const after = s.bytes.subarray(last.offset + last.length);
    const parts: string[] = [];
    if (op.op === "'") parts.push('T*');
    else if (op.op === '"') parts.push(`${raw(op.operands[0])} Tw ${raw(op.operands[1])} Tc T*`);
    else if (op.op !== 'Tj') return null;
    if (before.length) parts.push(`${encodeString(before, s.hex)} Tj`);
    parts.push(middle);
    if (after.length) parts.push(`${encodeString(after, s.hex)} Tj`);
    text = ` ${parts.join(' ')} `;
  }
  return {
    edits: new Map([[first.unit, [{ start: op.start, end: op.end, text }]]]),
    newAdvance,
    oldExtent,
    adjustment,
  };
}
