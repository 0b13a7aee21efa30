// The page's font for another script. CJK documents set Latin letters and digits in a font of their
// own (xeCJK, ctex, kotex and CJK.sty all pair a CJK font with a Latin one at the same size), so a
// Latin letter put in place of a hanzi, a kana or a hangul syllable is drawn as the document draws
// its Latin: with that companion font, by its own glyph where it has one (tier4.ts), else by the
// bundled face matched to it. The CJK font's own Latin glyphs, if any, are not the document's Latin.
// The same holds for a font of one alphabet that draws no letter of another: a Cyrillic font in
// LaTeX's OT2 encoding (cmcyr, the LH fonts), an Arabic font beside a Latin one (arabi, sexam), a
// Cyrillic subset of a T2A small-caps font. A Latin letter there is set, as the document sets its
// Latin, in the page's Latin font of the same size and style.
import { cleanFontName, readFontStyle } from '../../fonts/font-match.ts';
import { fontNameFacts } from '../../fonts/pdf-font-facts.ts';
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { codeUnicode, codeWidth, fillCidWidths, type FontInfo } from '../locate/fonts.ts';
import { mul, type Glyph } from '../locate/text-interpreter.ts';
import { CJK } from '../locate/page-text.ts';
import { tier1Code } from './tier1.ts';
import type { Code, TierContext } from './tier.ts';
import { copyDict, type ChangedObject } from '../rewrite/write.ts';

/**
 * Math fonts, whose letters are variables (italic) or symbols, never a text's Latin: TeX's CMMI,
 * CMSY, CMEX, the AMS and Euler fonts, and OpenType math fonts (Latin Modern Math, New CM Math,
 * STIX Two Math, XITS Math, TeX Gyre … Math, Cambria Math).
 */
const MATH_FONT = /(^|\+)(cmmi|cmmib|cmsy|cmbsy|cmex|msam|msbm|eufm|eufb|eusm|eusb|rsfs)\d|math/i;

/** A letter or digit of the companion's kind: not CJK, not a mark or a space. */
const ALPHANUMERIC = /^[\p{L}\p{N}]$/u;

/** Alphabets whose fonts often draw no other (CJK is told apart first). */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Arabic',
  'Hebrew',
  'Armenian',
  'Georgian',
  'Mongolian',
  'Devanagari',
  'Thai',
  'Ethiopic',
].map((name) => ({ name, re: new RegExp(`^\\p{Script=${name}}$`, 'u') }));

/** The script of a letter ('CJK' for han, kana, hangul), null for anything else or an unlisted script. */
export function letterScript(ch: string): string | null {
  if (!/^\p{L}$/u.test(ch)) return null;
  if (CJK.test(ch)) return 'CJK';
  return SCRIPTS.find((s) => s.re.test(ch))?.name ?? null;
}

/** Small capitals (cm-super SFCC, CM's cmcsc, LM Caps, "…SC", "…Caps"): a lowercase letter is a small cap there. */
const SMALL_CAPS = /^(sfcc|eccc|cmcsc|lmromancaps)|caps|smallcap|[-_]sc$/i;

export interface Companion {
  info: FontInfo;
  /** The new letters' script (Latin for CJK text) and the target's ('CJK', 'Cyrillic' …). */
  script: string;
  targetScript: string;
  ref: mupdf.PDFObject;
  /** Letters and digits the companion draws on the page. */
  glyphs: number;
  /** How many of them are at the target's size (0: it is the page's most used Latin font). */
  atSize: number;
  /** How many of those are on lines the target's font draws on too. */
  beside: number;
  /** CJK text only: the new glyphs take the CJK glyphs' cells (companionWithOldAdvances). */
  cells: boolean;
  /** Its codes for the new characters (tier-1 rule), or null when it lacks one of them. */
  codes: Code[] | null;
  sources: string[];
}

/** How a font draws the page's letters and digits: how many, at the target's size, beside it, and their widths (em). */
interface LatinUse {
  glyphs: number;
  atSize: number;
  beside: number;
  narrowest: number;
  widest: number;
  /** No known difference of weight or slant from the target's font. */
  sameStyle: boolean;
}

/** Size of a glyph on the page (the font size through the text matrix and CTM, vertically). */
const sizeOnPage = (g: Glyph) => {
  const m = mul(g.tm, g.ctm);
  return Math.abs(g.state.Tfs) * Math.hypot(m[2], m[3]);
};

/**
 * The font the page draws its Latin (Cyrillic, Greek …) letters and digits with at the size of the
 * target, most often on the target font's own lines (else the page's most used one); null unless
 * the target is text in horizontal writing and every new character is a letter or digit of
 * another script: CJK text (any such letter or digit), or text in a font whose letters on the page
 * are all of one other alphabet (letters of a script it draws none of, in a font of its style).
 */
export function scriptCompanion(ctx: TierContext): Companion | null {
  const { font, glyphs, newChars } = ctx;
  if (font.wmode !== 0 || glyphs.length === 0) return null;
  if (!newChars.every((c) => ALPHANUMERIC.test(c) && !CJK.test(c))) return null;
  const charOf = codeReader(ctx.observed);
  const scripts = glyphs.every((g) => CJK.test(charOf(g.font, g.code) ?? ''))
    ? { target: 'CJK', script: 'Latin' }
    : alphabetScripts(ctx, charOf);
  if (!scripts) return null;
  const cells = scripts.target === 'CJK';
  const { found, own } = latinUses(ctx, charOf, scripts.script, cells);
  const pick = pickCompanion(found, own, cells);
  if (!pick) return null;
  const [info, near] = pick;
  const { codes, sources } = companionCodes(ctx, info);
  return {
    info,
    script: scripts.script,
    targetScript: scripts.target,
    cells,
    ref: ctx.doc.newIndirect(info.objNum),
    glyphs: near.glyphs,
    atSize: near.atSize,
    beside: near.beside,
    codes: codes.length === newChars.length ? codes : null,
    sources,
  };
}

/** What a font's code reads as on the page. */
type CharOf = (f: FontInfo, code: number) => string | undefined;

/**
 * What a code says: the PDF's own mapping, else what the page's text shows it to be (a Type1
 * program's built-in encoding, a CID font without ToUnicode read by MuPDF's ordering).
 */
function codeReader(observed: TierContext['observed']): CharOf {
  const shown = new Map<object, Map<number, string>>();
  return (f, code) => {
    const own = codeUnicode(f, code);
    if (own !== undefined) return own;
    let byCode = shown.get(f);
    if (!byCode) {
      byCode = new Map();
      for (const [ch, codes] of observed.get(f) ?? []) for (const c of codes.keys()) byCode.set(c, ch);
      shown.set(f, byCode);
    }
    return byCode.get(code);
  };
}

/**
 * How each other font of the page draws the letters (and, for CJK text, digits) of `script`
 * (LatinUse), and the narrowest and widest advance (em) of the target font's own letters, to tell
 * a monospaced one.
 */
function latinUses(
  ctx: TierContext,
  charOf: CharOf,
  script: string,
  cells: boolean,
): { found: Map<FontInfo, LatinUse>; own: { narrowest: number; widest: number } } {
  const { font, glyphs, interp } = ctx;
  // Letters (and, for CJK text, digits) the companion must draw to be the page's font for them.
  const ofKind = cells
    ? (ch: string) => ALPHANUMERIC.test(ch) && !CJK.test(ch)
    : (ch: string) => letterScript(ch) === script;
  const style = fontStyle(font);
  const size = sizeOnPage(glyphs[0]);
  // Lines (baselines, rounded to the point) where the target's font draws: Latin set between its
  // characters is the document's Latin for running text (code and headings are elsewhere).
  const targetLines = new Set<number>();
  for (const g of interp.glyphs) if (g.font === font) targetLines.add(Math.round(g.origin[1]));
  const beside = (g: Glyph) => {
    const y = Math.round(g.origin[1]);
    return targetLines.has(y) || targetLines.has(y - 1) || targetLines.has(y + 1);
  };
  const found = new Map<FontInfo, LatinUse>();
  const styled = new Map<FontInfo, boolean>();
  // The target font's own advances (em), to tell a monospaced one.
  const own = { narrowest: Infinity, widest: 0 };
  for (const g of interp.glyphs) {
    const f = g.font;
    if (f === font && /^\p{L}$/u.test(charOf(f, g.code) ?? '')) {
      own.narrowest = Math.min(own.narrowest, codeWidth(f, g.code));
      own.widest = Math.max(own.widest, codeWidth(f, g.code));
    }
    if (f === font || f.objNum === font.objNum || f.objNum <= 0 || f.wmode !== 0 || f.kind === 'Type3')
      continue;
    if (MATH_FONT.test(f.baseFont)) continue;
    if (g.state.Tr === 3 || g.state.Tr === 7) continue;
    const ch = charOf(f, g.code);
    if (!ch || !ofKind(ch)) continue;
    // An italic word's letter is set in the italic Latin font, a bold one's in the bold. Beside
    // an alphabet no other font is the companion; in CJK text one of the style is preferred (the
    // regular Latin for regular text, not a bold date label on the same line).
    let same = styled.get(f);
    if (same === undefined) styled.set(f, (same = sameStyle(style, fontStyle(f))));
    if (!same && !cells) continue;
    const seen = found.get(f) ?? {
      glyphs: 0,
      atSize: 0,
      beside: 0,
      narrowest: Infinity,
      widest: 0,
      sameStyle: same,
    };
    seen.glyphs += 1;
    const w = codeWidth(f, g.code);
    seen.narrowest = Math.min(seen.narrowest, w);
    seen.widest = Math.max(seen.widest, w);
    if (Math.abs(sizeOnPage(g) - size) <= 0.01 * size) {
      seen.atSize += 1;
      if (beside(g)) seen.beside += 1;
    }
    found.set(f, seen);
  }
  return { found, own };
}

/**
 * The page's Latin text fonts: a math font's few letters (CMSY's calligraphic capitals, CMMI's
 * variables) are not. Of those used at the target's size, a proportional one before a monospaced
 * one (a manual's inline code sits on its CJK lines too, but a letter in running CJK text is set
 * as its prose is), then one of the target's style, then the one most often on the CJK font's
 * own lines, then the most used at that size; else the page's most used.
 */
function pickCompanion(
  found: Map<FontInfo, LatinUse>,
  own: { narrowest: number; widest: number },
  cells: boolean,
): [FontInfo, LatinUse] | undefined {
  // Widths are in em: one advance for every letter (within 0.002 em) is a monospaced font.
  const monospaced = (v: { narrowest: number; widest: number }) => v.widest - v.narrowest < 0.002;
  const proportional = [...found.values()].filter((v) => !monospaced(v));
  const most = Math.max(
    0,
    ...(proportional.length ? proportional : [...found.values()]).map((v) => v.glyphs),
  );
  const text = [...found].filter(([, v]) => v.glyphs >= Math.max(3, most / 4));
  const atSize = text.filter(([, v]) => v.atSize >= 3);
  const proseFirst = (a: [FontInfo, LatinUse], b: [FontInfo, LatinUse]) =>
    Number(monospaced(a[1])) - Number(monospaced(b[1])) || Number(b[1].sameStyle) - Number(a[1].sameStyle);
  // Beside an alphabet, only a font the document mixes with the target's is its companion: on its
  // lines, at its size (Arabic and Latin are often set at different sizes), of its pitch (a
  // typewriter font is not a book face's Latin).
  const mixed = atSize.filter(([, v]) => v.beside >= 3 && monospaced(v) === monospaced(own));
  return !cells
    ? mixed.sort((a, b) => b[1].beside - a[1].beside || b[1].atSize - a[1].atSize)[0]
    : atSize.length
      ? atSize.sort((a, b) => proseFirst(a, b) || b[1].beside - a[1].beside || b[1].atSize - a[1].atSize)[0]
      : text.sort((a, b) => proseFirst(a, b) || b[1].glyphs - a[1].glyphs)[0];
}

/** The companion's codes for the new characters by the tier-1 rule, up to the first it has none for. */
function companionCodes(ctx: TierContext, info: FontInfo): { codes: Code[]; sources: string[] } {
  const codeLength = info.composite ? (info.codespace?.[0]?.bytes ?? 2) : 1;
  let program: mupdf.Font | null | undefined;
  const getProgram = () => (program === undefined ? (program = ctx.programOf(info)) : program);
  const seenCodes = ctx.observed.get(info) ?? new Map<string, Map<number, number>>();
  const codes: Code[] = [];
  const sources: string[] = [];
  for (const ch of ctx.newChars) {
    const c = tier1Code(info, ch, seenCodes, getProgram);
    if (!c) break;
    const own = info.codespace?.find((r) => c.code >= r.lo && c.code <= r.hi);
    codes.push({ code: c.code, length: own ? own.bytes : codeLength });
    sources.push(c.source);
  }
  return { codes, sources };
}

/**
 * For text in a font of one alphabet other than Latin or CJK (every letter it draws on the page is
 * of that script, at least three of them): the new letters' script, when they are all letters of
 * one other script the font draws none of, and the target's characters are its letters, digits or
 * signs. In a small-caps font only capitals qualify (a lowercase letter there is a small capital).
 */
function alphabetScripts(
  ctx: TierContext,
  charOf: (f: FontInfo, code: number) => string | undefined,
): { target: string; script: string } | null {
  const { font, glyphs, newChars, interp } = ctx;
  const script = letterScript(newChars[0]);
  if (!script || script === 'CJK' || !newChars.every((c) => letterScript(c) === script)) return null;
  const drawn = new Map<string, number>();
  for (const g of interp.glyphs) {
    if (g.font !== font) continue;
    const s = letterScript(charOf(font, g.code) ?? '');
    if (s) drawn.set(s, (drawn.get(s) ?? 0) + 1);
  }
  if (drawn.size !== 1) return null;
  const [[target, count]] = [...drawn];
  if (target === script || target === 'CJK' || count < 3) return null;
  const own = (ch: string | undefined) => ch !== undefined && (letterScript(ch) ?? target) === target;
  if (!glyphs.every((g) => own(charOf(g.font, g.code)))) return null;
  if (SMALL_CAPS.test(cleanFontName(font.baseFont).name) && !newChars.every((c) => /^\p{Lu}$/u.test(c)))
    return null;
  return { target, script };
}

interface FontStyle {
  bold: boolean | null;
  italic: boolean | null;
}

/** Weight and slant as the font matcher reads them (name, then descriptor). */
function fontStyle(f: FontInfo): FontStyle {
  const { bold, italic } = readFontStyle(fontNameFacts(f.dict));
  return { bold, italic };
}

/** No known difference: an unknown weight or slant does not part two fonts. */
const sameStyle = (a: FontStyle, b: FontStyle) =>
  (a.bold === null || b.bold === null || a.bold === b.bold) &&
  (a.italic === null || b.italic === null || a.italic === b.italic);

/**
 * A copy of the companion's font dictionary (the same program, encoding and ToUnicode) whose
 * widths give each new glyph the advance of the CJK glyph it replaces, so the glyph sits at the
 * start of the old cell and the pen ends where it did: no TJ gap (which text extraction would read
 * as a space, and PDFium rounds), and the companion's other text keeps its own widths. Null where
 * the counts differ or one code would need two widths.
 */
export function companionWithOldAdvances(
  doc: mupdf.PDFDocument,
  companion: Companion,
  codes: Code[],
  glyphs: readonly Glyph[],
): { ref: mupdf.PDFObject; info: FontInfo; changed: ChangedObject[] } | null {
  const { info } = companion;
  if (codes.length !== glyphs.length || info.widthScale !== 0.001 || info.intWidths) return null;
  const want = new Map<number, number>();
  for (let i = 0; i < glyphs.length; i += 1) {
    const w = Math.round(codeWidth(glyphs[i].font, glyphs[i].code) * 1e6) / 1000;
    if (!(w > 0) || (want.has(codes[i].code) && want.get(codes[i].code) !== w)) return null;
    want.set(codes[i].code, w);
  }
  const widths = new Map(info.widths);
  for (const [code, w] of want) widths.set(code, w);
  const num = (w: number) => (Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
  const copy = copyDict(doc, info.dict);
  const changed: ChangedObject[] = [];
  let firstChar = info.firstChar;
  let lastChar = info.lastChar;
  if (!info.composite) {
    if (!info.dict.get('Widths').isArray()) return null;
    const old = info.dict.get('Widths');
    firstChar = Math.min(info.firstChar, ...want.keys());
    lastChar = Math.max(info.lastChar, ...want.keys());
    const arr = doc.newArray();
    for (let c = firstChar; c <= lastChar; c += 1) {
      const w = want.get(c);
      if (w !== undefined) arr.push(num(w));
      else if (c >= info.firstChar && c <= info.lastChar) arr.push(old.get(c - info.firstChar));
      else arr.push(doc.newInteger(0));
    }
    copy.put('FirstChar', doc.newInteger(firstChar));
    copy.put('LastChar', doc.newInteger(lastChar));
    copy.put('Widths', arr);
  } else {
    const descRef = info.dict.get('DescendantFonts').get(0);
    if (!descRef.isDictionary()) return null;
    const desc = copyDict(doc, descRef.resolve());
    // W rebuilt from every width the font has, the new ones set: a second entry for a code already
    // listed would leave which one counts to the reader.
    const W = doc.newArray();
    fillCidWidths(doc, W, widths);
    desc.put('W', W);
    const descNew = doc.addObject(desc);
    const arr = doc.newArray();
    arr.push(descNew);
    copy.put('DescendantFonts', arr);
    changed.push({ num: descNew.asIndirect(), kind: 'font', replaces: 0, bytes_before: 0, bytes_after: 0 });
  }
  const ref = doc.addObject(copy);
  changed.push({ num: ref.asIndirect(), kind: 'font', replaces: 0, bytes_before: 0, bytes_after: 0 });
  return {
    ref,
    info: { ...info, objNum: ref.asIndirect(), dict: ref, widths, firstChar, lastChar },
    changed,
  };
}
