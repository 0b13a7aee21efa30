// The one shape every tier of the ladder has (tier-ladder.ts): what a tier needs (TierContext), what
// it produces (TierProduct) and why it refuses (TierRefusal). Types only: the tiers, the ladder, the
// fit rule and the engine read them, so none of them imports another to know its shape.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import type { FontInfo } from '../locate/fonts.ts';
import type { Glyph, Interpretation } from '../locate/text-interpreter.ts';
import type { ChangedObject } from '../rewrite/write.ts';

/** A character code as the content stream writes it: the code and its byte length. */
export interface Code {
  code: number;
  length: number;
}

/** What every tier is given: the target's font and glyphs, the new characters, tier 1's answer. */
export interface TierContext {
  doc: mupdf.PDFDocument;
  /** The font that draws the target's first glyph. */
  font: FontInfo;
  /** The glyphs the correction replaces. */
  glyphs: Glyph[];
  /** The characters that replace them. */
  newChars: string[];
  interp: Interpretation;
  /** Which matched font tier 4 embeds (the request's font_attempt). */
  fontAttempt: number;
  /** Tier 1's code for each new character (-1 where it has none): tier 2 adds only the missing ones. */
  reused: ReusedCodes;
  /** The program of `font`, loaded once. */
  program: () => mupdf.Font | null;
  /** The program of another font, loaded at each call and destroyed with the document. */
  programOf: (font: FontInfo) => mupdf.Font | null;
  /** Every font's codes as the page's text shows them (locate.ts, observedCodes). */
  observed: Map<object, Map<string, Map<number, number>>>;
}

/**
 * How the new codes are drawn: by the page's own font; by a copy of it put in its place under the
 * same resource name (tier 2); or by another font, added under a fresh resource name and drawn in a
 * run of its own between two Tf (tiers 3 and 4).
 */
export type FontUse =
  { use: 'own' } | { use: 'replacement'; ref: mupdf.PDFObject } | { use: 'inserted'; ref: mupdf.PDFObject };

/** What the shared steps measured, for a tier's explanation. */
export interface Placement {
  oldText: string;
  newText: string;
  /** The font size on the page, pt (rounded). */
  sizePt: number;
  /** The fit rule that admitted the new width. */
  rule: string;
  /** A TJ adjustment follows the new text. */
  adjusted: boolean;
}

/** What a tier produces: a code for each new character and the font that draws them. */
export interface TierProduct {
  codes: Code[];
  /** Where each code came from (measurements' code_sources). */
  sources: string[];
  /** The font whose widths measure the new text. */
  widthFont: FontInfo;
  draw: FontUse;
  /** The new glyphs take the old glyphs' advances (a matched face embedded by this correction). */
  keepsOldAdvances: boolean;
  /**
   * Each new glyph will advance as the old one it replaces, whatever its own width (a freshly
   * embedded face's W is set to the old advances when the edit is planned, tier4.ts): no gap opens
   * after the run, though the fit is judged on the glyphs' own widths.
   */
  mirrorsAdvances?: boolean;
  /** Each new glyph is drawn by the old one's operator, where it stood (cross-font-swap.ts). */
  inPlace?: boolean;
  /**
   * With `inPlace`: the new glyphs' own advances (text space) where they follow one another as the
   * pen draws them, each in its own font (a flowing swap, cross-font-swap.ts): each stands where the
   * advances before it put it, and the last ends where the old glyphs did.
   */
  flowAdvances?: number[];
  /**
   * Horizontal scale (Tz, as a fraction of the line's) the new run is drawn with: so that its
   * advance is the old glyphs' (a full-width CJK glyph in a proportional font's narrower cell), or
   * so that a Latin Modern optical size has the widths of a cm-super size it lacks (14.4 pt: LM
   * Roman 12 at 97.2 %).
   */
  squeeze?: number;
  /** Objects the tier added to the document. */
  changed: ChangedObject[];
  /** The tier's own measurements, after the shared ones. */
  measurements: Record<string, unknown>;
  /** Said once the edit is planned. */
  warnings: string[];
  /** How many matched fonts font_attempt may choose from. */
  fontAlternatives: number;
  /** The explanation of the correction (tier by tier, docs/engine.md). */
  explain: (p: Placement) => string;
}

/** Why a tier refuses, and the refusal the engine answers with when no later tier produces. */
export interface TierRefusal {
  refused: { code: string; reason: string; evidence: Record<string, unknown> };
  end?: { code: string; what: string; why: string; do: string[]; evidence: Record<string, unknown> };
}

export interface Tier {
  tier: number;
  name: string;
  /** What it needs to produce, in a line. */
  needs: string;
  attempt: (ctx: TierContext) => TierProduct | TierRefusal;
}

/** Tier 1's answer for each new character: a code (-1 where none) and its source, and the characters without one. */
export interface ReusedCodes {
  codes: Code[];
  sources: string[];
  missing: string[];
}
