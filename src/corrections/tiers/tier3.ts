// Tier 3, sibling subset: the document embeds several subsets of one font (each with its own subset
// tag, "ABCDEF+Name" and "GHIJKL+Name"), and another one has the glyph this one lacks. The changed
// characters are drawn with the sibling (added to the page's resources under a fresh name) exactly
// as tier 4 draws with a matched font; since it is the same font program, the cost is `none`.
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { loadFontInfo, type FontInfo } from '../locate/fonts.ts';
import { TIER_NAMES } from '../refusals.ts';
import { tier1Code } from './tier1.ts';
import type { Tier } from './tier.ts';
import { withoutSubsetTag } from '../../pdf/subset-tag.ts';

export interface Sibling {
  ref: mupdf.PDFObject;
  info: FontInfo;
  codes: { code: number; length: number }[];
}

/** Fonts of the document with the same name after the subset tag and the same program flavour. */
export function siblingFonts(
  doc: mupdf.PDFDocument,
  font: FontInfo,
): { ref: mupdf.PDFObject; info: FontInfo }[] {
  const name = withoutSubsetTag(font.baseFont);
  if (!name || !font.embedded || !font.fontFile) return [];
  const out: { ref: mupdf.PDFObject; info: FontInfo }[] = [];
  const seen = new Set<number>();
  const count = doc.countObjects();
  for (let num = 1; num < count && out.length < 16; num += 1) {
    if (num === font.objNum) continue;
    const ref = doc.newIndirect(num);
    const obj = ref.resolve();
    if (!obj.isDictionary() || obj.isStream()) continue;
    const base = obj.get('BaseFont');
    if (!base.isName() || withoutSubsetTag(base.asName()) !== name || base.asName() === font.baseFont)
      continue;
    if (obj.get('Type').isName() && obj.get('Type').asName() !== 'Font') continue;
    const sub = obj.get('Subtype');
    if (!sub.isName() || sub.asName() !== font.kind) continue;
    const info = loadFontInfo(ref);
    if (!info.embedded || !info.fontFile || info.fontFile.key !== font.fontFile.key) continue;
    if (info.fontFile.subtype !== font.fontFile.subtype || info.composite !== font.composite) continue;
    if (seen.has(num)) continue;
    seen.add(num);
    out.push({ ref, info });
  }
  return out;
}

/**
 * The first sibling that can draw every one of `chars` (each code proven by `codeFor`, the tier-1
 * rule applied to the sibling), or the reason none can.
 */
export function siblingSubset(
  doc: mupdf.PDFDocument,
  font: FontInfo,
  chars: string[],
  codeFor: (f: FontInfo, ch: string) => { code: number; length: number } | null,
): Sibling | { refused: string; evidence: Record<string, unknown> } {
  const siblings = siblingFonts(doc, font);
  if (!siblings.length) {
    return {
      refused: `No other embedded subset of ${withoutSubsetTag(font.baseFont) || 'this font'} is in the document.`,
      evidence: { siblings: [] },
    };
  }
  const lacking: Record<string, string[]> = {};
  for (const s of siblings) {
    const codes: { code: number; length: number }[] = [];
    const lacks: string[] = [];
    for (const ch of chars) {
      const c = codeFor(s.info, ch);
      if (c) codes.push(c);
      else lacks.push(ch);
    }
    if (!lacks.length) return { ref: s.ref, info: s.info, codes };
    lacking[s.info.baseFont] = lacks;
  }
  return {
    refused: `The document's other subsets of ${withoutSubsetTag(font.baseFont)} lack ${[...new Set(Object.values(lacking).flat())].map((c) => `“${c}”`).join(', ')} too.`,
    evidence: { siblings: lacking },
  };
}

export const siblingSubsetTier: Tier = {
  tier: 3,
  name: TIER_NAMES[3],
  needs: 'another embedded subset of the same font program that has every new character (the tier-1 rule)',
  attempt(ctx) {
    const { font, newChars } = ctx;
    const codeLength = ctx.glyphs[0].length;
    const sib = siblingSubset(ctx.doc, font, newChars, (f, ch) => {
      let p: mupdf.Font | null | undefined;
      const found = tier1Code(f, ch, new Map(), () => (p === undefined ? (p = ctx.programOf(f)) : p));
      return found ? { code: found.code, length: f.composite ? codeLength : 1 } : null;
    });
    if ('refused' in sib)
      return { refused: { code: 'no_sibling', reason: sib.refused, evidence: sib.evidence } };
    const missing = ctx.reused.missing;
    return {
      codes: sib.codes,
      sources: newChars.map(() => 'sibling_subset'),
      widthFont: sib.info,
      draw: { use: 'inserted', ref: sib.ref },
      keepsOldAdvances: false,
      changed: [],
      measurements: { sibling_subset: { font: sib.info.baseFont, object: sib.info.objNum } },
      warnings: [],
      fontAlternatives: 0,
      explain: (p) =>
        `Tier 3 (sibling subset): ${font.baseFont} has no glyph for ${missing.map((c) => `“${c}”`).join(', ')}; another embedded subset of the same font, ${sib.info.baseFont}, has it: “${p.newText}” is drawn with that subset at the same size, colour and position, the original font is set again right after it, and every following glyph stays where it was. Fit rule: ${p.rule}.`,
    };
  },
};
