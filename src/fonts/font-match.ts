// Which bundled font can stand in for a document's font (tier 4, "matched font")?
//
// Evidence, strongest first:
//   1. the name: BaseFont without its subset tag ("ABCDEF+"). Arial/ArialMT/Helvetica/Arimo/
//      Liberation Sans/Nimbus Sans → Liberation Sans; Times/Times New Roman/Tinos/Nimbus Roman →
//      Liberation Serif; Courier/Courier New/Cousine/Nimbus Mono → Liberation Mono; Calibri →
//      Carlito; Cambria → Caladea; DejaVu Sans/Bitstream Vera Sans → DejaVu Sans; DejaVu Sans
//      Condensed and Roboto → themselves. Style from the name's suffix (-Bold, ,Bold, BoldMT,
//      -BoldItalic, -Italic, -Oblique, URW's Medi/Regu/Ital). TeX names (CMR10, CMBX12, CMTT9, ECRM1095,
//      SFTI1200, LMRoman10-Regular) → Latin Modern of the same optical size, or one less than 1 pt
//      away, and CMU for 10 pt; so do the families made from CM with other letters (CS csr10, PL
//      PLRoman10-Regular, vntex VNR10, LH larm1000, CB Greek grmn1000) (parseTexName below).
//   2. the FontDescriptor: Flags (FixedPitch → mono, Serif → serif, Nonsymbolic → sans; Italic,
//      ForceBold), ItalicAngle, FontWeight, StemV (a weak hint of bold).
//   3. the widths the document draws: mean absolute difference, in 1/1000 em, between each measured
//      character's width in the PDF and its advance in the bundled face (MuPDF Font.advanceGlyph).
//
// A face is not a candidate when its widths differ by more than `maxMeanWidthDiff` (default 10 =
// 1% of the em) on average (metric-compatible pairs measure 0–2 on the corpus; a slanted upright
// Times against Times Italic 14, Computer Modern against Times Bold 29, Roboto against Liberation
// Sans 37), when it lacks every measured character, or when its weight or slant
// contradicts what the name or flags say. Symbol fonts (Symbol, ZapfDingbats, Wingdings, TeX math)
// get no candidates at all. Candidates come back ranked, best first; `font_alternatives` is their
// count and `font_attempt` = k picks candidates[k].
//
// The machine's faces (machine-fonts.ts) are ranked by a second call with `faces`, after the bundled
// ones: a machine face is judged only where the document font's name names it (its PostScript name,
// or its family with the style then checked), and then by the same style and width rules; one whose
// licence forbids embedding (OS/2 fsType) carries `embedding_refused` naming it.
//
// Loaded fonts are cached for the life of the process (one per face, a few MB in all) and never
// destroyed; everything else here is plain data.
import * as mupdf from 'mupdf';
import { BUNDLED_FACES } from './catalog.ts';
import type { BundledFace, FontClass } from './catalog.ts';
import { CLONE_RANK, embeddingRefusal, faceBytes, machineNameRank, type Face } from './machine-fonts.ts';
import { decodeName } from '../pdf/object-syntax.ts';
import { hasSubsetTag, withoutSubsetTag } from '../pdf/subset-tag.ts';

/** Facts about a font of the document (see pdf-font-facts.ts to read them from a font dictionary). */
export interface PdfFontFacts {
  /** BaseFont as in the PDF, with or without its subset tag; #xx escapes allowed. */
  baseFont: string;
  /** FontDescriptor /Flags. */
  flags?: number;
  /** FontDescriptor /ItalicAngle. */
  italicAngle?: number;
  /** FontDescriptor /StemV. */
  stemV?: number;
  /** FontDescriptor /FontWeight (100–900). */
  fontWeight?: number;
  /** Measured widths of the characters the document draws: character → width in 1/1000 em. */
  widths?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
}

export interface FontCandidate {
  face: Face;
  /** Position in the ranking (the `font_attempt` that picks it). */
  rank: number;
  /** Composite score, higher is better: 1000·family + 100·style + 20·class + width (0–10). */
  score: number;
  /** The document font's name names the family this face stands in for. */
  family_match: boolean;
  /** The face's weight and slant agree with what is known (unknown counts as regular). */
  style_match: boolean;
  /** The face's class (sans/serif/mono) agrees with the name or the flags. */
  class_match: boolean;
  /** Mean absolute width difference over the measured characters the face has, 1/1000 em. */
  width_diff: number | null;
  /** Largest single difference, 1/1000 em. */
  width_max_diff: number | null;
  /** Measured characters the face has (its widths were compared). */
  width_chars: number;
  /** Measured characters the face has no glyph for. */
  width_missing: string[];
  /**
   * Horizontal scale the face is drawn with (absent: 1): a Latin Modern optical size standing in
   * for a cm-super size it does not have, whose widths are its own scaled (designScale).
   */
  scale?: number;
  /** A machine face that would stand in but whose licence forbids embedding it (named, with why). */
  embedding_refused?: string;
  /** A machine face the name reaches only as a named clone of its design (CLONE_FAMILIES). */
  named_clone?: true;
  reasons: string[];
}

export interface FontMatch {
  base_font: string;
  /** BaseFont without subset tag and #xx escapes. */
  name: string;
  subset: boolean;
  /** The bundled family the name points to, if any. */
  named_family: string | null;
  class: FontClass | null;
  /** null: not known. */
  bold: boolean | null;
  italic: boolean | null;
  symbolic: boolean;
  /** Threshold used: mean width difference allowed, 1/1000 em. */
  max_mean_width_diff: number;
  candidates: FontCandidate[];
  rejected: { face_id: string; reason: string }[];
}

export interface MatchOptions {
  /** Mean absolute width difference allowed, in 1/1000 em (default 10, i.e. 1% of the em). */
  maxMeanWidthDiff?: number;
  /**
   * The size (pt) the font is drawn at, for a font with no name to give its design size (Type 3):
   * optical sizes with the same widths (every LM Mono size is 525/1000 em) rank nearest first.
   */
  drawnSize?: number;
  /** The faces ranked (default: the bundled catalog; tier 4 then asks again with the machine's). */
  faces?: readonly Face[];
}

export const DEFAULT_MAX_MEAN_WIDTH_DIFF = 10;

// ---------------------------------------------------------------------------------------------
// Loading bundled faces (cached per process)

const fontCache = new Map<string, mupdf.Font>();
const widthCache = new Map<string, Map<number, number>>();

/** The MuPDF Font of a face, loaded once per process (do not destroy it). */
export function loadFace(face: Face): mupdf.Font {
  let font = fontCache.get(face.id);
  if (!font) {
    font = new mupdf.Font(face.postscriptName, faceBytes(face));
    fontCache.set(face.id, font);
  }
  return font;
}

/** Advance width of a character in the face, 1/1000 em, or null when the face has no glyph for it. */
export function faceAdvance(face: Face, char: string): number | null {
  const cp = char.codePointAt(0);
  if (cp === undefined) return null;
  let widths = widthCache.get(face.id);
  if (!widths) {
    widths = new Map();
    widthCache.set(face.id, widths);
  }
  let w = widths.get(cp);
  if (w === undefined) {
    const font = loadFace(face);
    const gid = font.encodeCharacter(cp);
    w = gid === 0 ? -1 : font.advanceGlyph(gid) * 1000;
    widths.set(cp, w);
  }
  return w < 0 ? null : w;
}

/** Characters of `text` (each once, in order of appearance) that the face has no glyph for. */
export function missingGlyphs(face: Face, text: string): string[] {
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const ch of text) {
    if (seen.has(ch)) continue;
    seen.add(ch);
    if (faceAdvance(face, ch) === null) missing.push(ch);
  }
  return missing;
}

/** Sum of the advances of `text` in the face, 1/1000 em (no kerning); null if a glyph is missing. */
export function textAdvance(face: Face, text: string): number | null {
  let total = 0;
  for (const ch of text) {
    const w = faceAdvance(face, ch);
    if (w === null) return null;
    total += w;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Reading the name

interface NameFamily {
  prefix: string;
  family: string | null; // bundled family, null when the name is known but not bundled
  class: FontClass | null;
  symbolic?: boolean;
  note?: string;
  /**
   * The style is written in letters after the family (Libertine: LinLibertineO, …OB, …OI, …OBI;
   * pdfTeX's LinLibertineT-TLF, …TB-TLF; file names LinLibertine_R, …_RB), not in words.
   */
  styleLetters?: boolean;
  /** Style words of the family's own (Amiri: Slanted for italic), read as the usual ones. */
  styleWords?: Record<string, string>;
  /**
   * Only these styles are the family: a name that goes on with anything else is another family
   * of the same prefix (NotoSerifKR, NotoSerifDevanagari, NotoSerifDisplay).
   */
  onlyStyles?: string[];
  /** Families accepted after `family`, for the letters it lacks (CMU Serif's Greek after LM Roman 10). */
  alsoFamilies?: string[];
  /** An OpenType math face: `family` is its text companion (see MATH_ALPHANUMERIC). */
  math?: boolean;
}

/** Names of designs known not to be bundled (another weight or width of a bundled family). */
const notBundled = (cls: FontClass | null, ...prefixes: string[]): NameFamily[] =>
  prefixes.map((prefix) => ({ prefix, family: null, class: cls, note: `${prefix}: not bundled` }));

const NAME_FAMILIES: NameFamily[] = (
  [
    // Known designs that are not metric-compatible with anything bundled.
    { prefix: 'arialnarrow', family: null, class: 'sans', note: 'Arial Narrow is not bundled' },
    { prefix: 'arialblack', family: null, class: 'sans', note: 'Arial Black is not bundled' },
    { prefix: 'helveticanarrow', family: null, class: 'sans', note: 'Helvetica Narrow is not bundled' },
    {
      prefix: 'helveticaneue',
      family: null,
      class: 'sans',
      note: 'Helvetica Neue has other widths than Helvetica',
    },
    {
      prefix: 'liberationsansnarrow',
      family: null,
      class: 'sans',
      note: 'Liberation Sans Narrow is not bundled',
    },
    { prefix: 'dejavusansmono', family: null, class: 'mono', note: 'DejaVu Sans Mono is not bundled' },
    ...notBundled(null, 'robotocondensed', 'robotomono', 'robotoslab', 'robotoflex', 'robotoserif'),
    {
      prefix: 'dejavuserifcondensed',
      family: null,
      class: 'serif',
      note: 'DejaVu Serif Condensed is not bundled',
    },
    { prefix: 'cambriamath', family: null, class: 'serif', symbolic: true },
    // Symbol fonts: never substituted.
    ...['symbol', 'zapfdingbats', 'dingbats', 'wingdings', 'webdings', 'opensymbol', 'mtextra'].map(
      (prefix): NameFamily => ({ prefix, family: null, class: null, symbolic: true }),
    ),
    ...['cmsy', 'cmmi', 'cmex', 'msam', 'msbm', 'rsfs', 'eufm', 'stmary', 'wasy'].map(
      (prefix): NameFamily => ({ prefix, family: null, class: null, symbolic: true }),
    ),
    // Bundled families and the names that stand for them.
    ...['arial', 'helvetica', 'arimo', 'liberationsans', 'nimbussans', 'nimbussanl'].map(
      (prefix): NameFamily => ({ prefix, family: 'Liberation Sans', class: 'sans' }),
    ),
    ...['timesnewroman', 'times', 'tinos', 'liberationserif', 'nimbusroman', 'nimbusromno9l'].map(
      (prefix): NameFamily => ({ prefix, family: 'Liberation Serif', class: 'serif' }),
    ),
    // GNU FreeMono is URW's Nimbus Mono (its Latin from URW++, FreeFont's AUTHORS says): every
    // advance of U+0021–U+017F is Nimbus Mono PS's (0/1000 em apart), so Courier's.
    ...['couriernew', 'courier', 'cousine', 'liberationmono', 'nimbusmono', 'nimbusmonl', 'freemono'].map(
      (prefix): NameFamily => ({ prefix, family: 'Liberation Mono', class: 'mono' }),
    ),
    // GNU FreeSerif and FreeSans took their Latin from URW's Nimbus Roman and Sans but were
    // re-spaced since: their letters are 6–24/1000 em from Nimbus's on average (FreeSerif's f 40,
    // j 70; FreeSans Bold's M 37), so neither Nimbus nor a Times or Helvetica clone has their widths.
    {
      prefix: 'freeserif',
      family: null,
      class: 'serif',
      note: "FreeSerif (GNU FreeFont) has its own widths, not Nimbus Roman's: only FreeSerif itself stands in",
    },
    {
      prefix: 'freesans',
      family: null,
      class: 'sans',
      note: "FreeSans (GNU FreeFont) has its own widths, not Nimbus Sans's: only FreeSans itself stands in",
    },
    ...['calibri', 'carlito'].map((prefix): NameFamily => ({ prefix, family: 'Carlito', class: 'sans' })),
    ...['cambria', 'caladea'].map((prefix): NameFamily => ({ prefix, family: 'Caladea', class: 'serif' })),
    { prefix: 'roboto', family: 'Roboto', class: 'sans' },
    { prefix: 'cmuserif', family: 'CMU Serif', class: 'serif' },
    // TeX Gyre: Termes, Heros and Cursor have Times', Helvetica's and Courier's widths.
    { prefix: 'texgyretermes', family: 'Liberation Serif', class: 'serif' },
    {
      prefix: 'texgyreheroscn',
      family: null,
      class: 'sans',
      note: 'TeX Gyre Heros Condensed is not bundled',
    },
    { prefix: 'texgyreheros', family: 'Liberation Sans', class: 'sans' },
    { prefix: 'texgyrecursor', family: 'Liberation Mono', class: 'mono' },
    ...['texgyrepagella', 'palatino', 'urwpalladio', 'p052'].map((prefix): NameFamily => ({
      prefix,
      family: 'TeX Gyre Pagella',
      class: 'serif',
    })),
    { prefix: 'cmutypewriter', family: 'CMU Typewriter Text', class: 'mono' },
    { prefix: 'cmusansserif', family: 'CMU Sans Serif', class: 'sans' },
    {
      prefix: 'cmutypewritervariable',
      family: null,
      class: 'serif',
      note: 'CMU Typewriter Variable is not bundled',
    },
    { prefix: 'linlibertine', family: 'Linux Libertine O', class: 'serif', styleLetters: true },
    { prefix: 'cmutypewriterlight', family: 'CMU Typewriter Text Light', class: 'mono' },
    { prefix: 'stixtwotext', family: 'STIX Two Text', class: 'serif' },
    // OpenType math faces: their upright Latin (and Greek, figures) are their text companion's
    // letters with its widths (Latin Modern Math's are LM Roman 10's, 0/1000 em apart over 67
    // characters), so a plain letter the subset lacks is drawn with the companion. Their math
    // alphanumerics (𝑎 U+1D44E …: cmmi's widths) say nothing about it and are not compared
    // (MATH_ALPHANUMERIC); a symbol is in no companion, so it still finds no glyph.
    {
      prefix: 'latinmodernmath',
      family: 'LM Roman 10',
      class: 'serif',
      alsoFamilies: ['CMU Serif'],
      math: true,
    },
    { prefix: 'stixtwomath', family: 'STIX Two Text', class: 'serif', math: true },
    { prefix: 'texgyrepagellamath', family: 'TeX Gyre Pagella', class: 'serif', math: true },
    { prefix: 'texgyretermesmath', family: 'Liberation Serif', class: 'serif', math: true },
    { prefix: 'texgyrescholamath', family: 'TeX Gyre Schola', class: 'serif', math: true },
    // Fira Sans: the light and book weights are families of their own; other weights not bundled.
    { prefix: 'firasanslight', family: 'Fira Sans Light', class: 'sans' },
    { prefix: 'firasansbook', family: 'Fira Sans Book', class: 'sans' },
    { prefix: 'firasans', family: 'Fira Sans', class: 'sans' },
    ...notBundled(
      'sans',
      'firasansthin',
      'firasanshair',
      'firasansultralight',
      'firasansextralight',
      'firasansmedium',
      'firasanssemibold',
      'firasansextrabold',
      'firasansheavy',
      'firasansultra',
      'firasanscondensed',
      'firasansextracondensed',
      'firasanscompressed',
    ),
    { prefix: 'oldstandard', family: 'Old Standard', class: 'serif' },
    // TeX Gyre Schola has the widths of URW's Century Schoolbook L (C059, New Century Schoolbook).
    ...['texgyreschola', 'centuryschl', 'newcenturyschlbk', 'centuryschoolbook', 'c059'].map(
      (prefix): NameFamily => ({ prefix, family: 'TeX Gyre Schola', class: 'serif' }),
    ),
    { prefix: 'accanthisadfstdno3', family: 'Accanthis ADF Std No3', class: 'serif' },
    {
      prefix: 'amiri',
      family: 'Amiri',
      class: 'serif',
      styleWords: { slanted: 'italic', boldslanted: 'bolditalic' },
    },
    ...notBundled(null, 'amiriquran', 'amiriqurancolored'),
    {
      prefix: 'notoserif',
      family: 'Noto Serif',
      class: 'serif',
      onlyStyles: ['', 'regular', 'bold', 'italic', 'bolditalic'],
    },
    { prefix: 'iwona', family: 'Iwona', class: 'sans' },
    // Bitstream Charter: its Type 1 names (CharterBT-Roman; vntex's VnCharterBT-Bold and
    // VnBitstreamCharter), XCharter (its extension with the same widths), Charter of other vendors;
    // the widths decide. Charis SIL is its extension with other widths: not named.
    ...['charterbt', 'bitstreamcharter', 'vncharterbt', 'vnbitstreamcharter', 'xcharter', 'charter'].map(
      (prefix): NameFamily => ({ prefix, family: 'Bitstream Charter', class: 'serif' }),
    ),
    // Adobe Utopia: its Type 1 names (Utopia-Regular …; Adobe's OpenType UtopiaStd-*), Heuristica,
    // its extension, and the bundle's renamed copy (Nowhere Serif, embedded by an earlier
    // correction); the widths decide.
    ...['utopiastd', 'utopia', 'heuristica', 'nowhereserif'].map((prefix): NameFamily => ({
      prefix,
      family: 'Nowhere Serif',
      class: 'serif',
    })),
    {
      prefix: 'crimsonproextrabold',
      family: 'Crimson Pro ExtraBold',
      class: 'serif',
      styleWords: { '': 'bold', italic: 'bolditalic' },
    },
    { prefix: 'crimsonpro', family: 'Crimson Pro', class: 'serif' },
    ...notBundled(
      'serif',
      'crimsonproextralight',
      'crimsonprolight',
      'crimsonpromedium',
      'crimsonprosemibold',
      'crimsonproblack',
    ),
    { prefix: 'opensans', family: 'Open Sans', class: 'sans' },
    ...notBundled(
      'sans',
      'opensanslight',
      'opensanssemibold',
      'opensansextrabold',
      'opensanscond',
      'opensanscondensed',
    ),
    ...notBundled('sans', 'iwonacond', 'iwonalight', 'iwonamedium', 'iwonaheavy'),
    // Free faces bundled for themselves: a name that goes on with another weight, width or optical
    // size (NotoSansMono, NotoSansCJKjp, Lato-Light, InterDisplay, SourceSerif4Caption, PTSans-Narrow,
    // Cantarell-ExtraBold) is another design and gets none of them.
    ...(
      [
        ['notosans', 'Noto Sans', 'sans'],
        ['lato', 'Lato', 'sans'],
        ['sourcesans3', 'Source Sans 3', 'sans'],
        ['sourcesanspro', 'Source Sans 3', 'sans'],
        ['sourceserif4', 'Source Serif 4', 'serif'],
        ['sourceserifpro', 'Source Serif 4', 'serif'],
        ['ebgaramond12', 'EB Garamond 12', 'serif'],
        ['ebgaramond', 'EB Garamond 12', 'serif'],
        ['cantarell', 'Cantarell', 'sans'],
        ['ptsans', 'PT Sans', 'sans'],
        ['ptserif', 'PT Serif', 'serif'],
        ['gentiumplus', 'Gentium Plus', 'serif'],
        ['inter', 'Inter', 'sans'],
      ] as const
    ).map(([prefix, family, cls]): NameFamily => ({
      prefix,
      family,
      class: cls,
      onlyStyles: ['', 'regular', 'bold', 'italic', 'bolditalic', 'it', 'boldit'],
    })),
    { prefix: 'linbiolinum', family: 'Linux Biolinum O', class: 'sans', styleLetters: true },
    { prefix: 'nanummyeongjo', family: 'Nanum Myeongjo', class: 'serif' },
    { prefix: 'nanumgothic', family: 'Nanum Gothic', class: 'sans' },
    ...notBundled(
      null,
      'nanummyeongjoextrabold',
      'nanummyeongjoeco',
      'nanumgothicextrabold',
      'nanumgothiclight',
      'nanumgothicultralight',
      'nanumgothiceco',
      'nanumgothiccoding',
    ),
    ...notBundled('serif', 'accanthisadfstdno2', 'accanthisadfstd'),
    { prefix: 'dejavusanscondensed', family: 'DejaVu Sans Condensed', class: 'sans' },
    ...['dejavuserif', 'bitstreamveraserif'].map((prefix): NameFamily => ({
      prefix,
      family: 'DejaVu Serif',
      class: 'serif',
    })),
    ...['dejavusans', 'bitstreamverasans'].map((prefix): NameFamily => ({
      prefix,
      family: 'DejaVu Sans',
      class: 'sans',
    })),
  ] as NameFamily[]
).sort((a, b) => b.prefix.length - a.prefix.length);

const VARIANT =
  /narrow|condensed|cond$|compressed|extended|light|thin|hairline|black|ultra|caps|sc$|slant|variant$/;
const BOLD = /bold|heavy|demi|medi|semibold|bd/;
const ITALIC = /italic|oblique|ital|obl|kursiv|inclined/;
const ITALIC_SHORT = /(^|bold|bd|medi|regu|[^a-z])it(mt|ps)?$/;

export interface ParsedFontName {
  name: string;
  subset: boolean;
  family: string | null;
  /** Every bundled family the name accepts, best first (one optical size after another for TeX fonts). */
  families: string[];
  /** Design size read from a TeX font name (CMR8 → 8, SFRM1095 → 10.95). */
  design_size: number | null;
  class: FontClass | null;
  symbolic: boolean;
  bold: boolean | null;
  italic: boolean | null;
  /** A known family in a variant that is not bundled (narrow, light, black, …). */
  variant: string | null;
  /** An OpenType math face (LatinModernMath-Regular): only its letters and figures are its companion's. */
  math?: boolean;
  note: string | null;
  /**
   * TeX fonts at a design size no bundled face has within 1 pt (cm-super 14.40–35.83 pt): the
   * nearest bundled sizes of the series, offered drawn at a horizontal scale measured from the
   * document's widths (matchFont).
   */
  scaled_families?: string[];
}

/** Decodes #xx escapes and strips a subset tag. */
export function cleanFontName(baseFont: string): { name: string; subset: boolean } {
  let name = baseFont.startsWith('/') ? baseFont.slice(1) : baseFont;
  name = decodeName(name);
  const subset = hasSubsetTag(name);
  if (subset) name = withoutSubsetTag(name);
  // dvipdfmx (XeTeX, ptex) appends the CMap to a Type 0 font's name: LMSans10-BoldOblique-Identity-H.
  name = name.replace(/-Identity-[HV]$/, '');
  return { name, subset };
}

const normalise = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * CJK.sty's Type 1 Nanum fonts (the nanumtype1 package) by the names of the faces they were made
 * from: `nanummjm` + a two-digit subfont number is Nanum Myeongjo (m: regular, b: bold, e: extra
 * bold), `t1nanumgtb` its Latin in T1 encoding, `nanumgt…` Nanum Gothic.
 */
function cjkSubfontFamily(flat: string): string {
  const m = /^(?:t1)?nanum(mj|gt)([mbe])(?:[0-9a-f]{2})?$/.exec(flat);
  if (!m) return flat;
  return `nanum${m[1] === 'mj' ? 'myeongjo' : 'gothic'}${{ m: '', b: 'bold', e: 'extrabold' }[m[2]]}`;
}

/** TeX's (Karl Berry's) names of bundled Type 1 families, by the PostScript family they stand for. */
const TEX_TYPE1_FAMILIES: Record<string, string> = {
  // psnfss charter; csfonts' rbchr
  bch: 'charterbt',
  rbch: 'charterbt',
  // psnfss utopia; Fourier's text fonts (futr8t …) are Utopia's
  put: 'utopia',
  fut: 'utopia',
};

/**
 * The TeX names of bundled Type 1 fonts (bchr8t, bchri8t, bchb8a, bchro8t slanted, bchrc8t small
 * caps; putr8t, futbi8t) as the PostScript name they stand for.
 */
const TEX_TYPE1_NAME = new RegExp(
  `^(${Object.keys(TEX_TYPE1_FAMILIES).join('|')})([rb])([ioc]?)(?:\\d[a-z])?$`,
);

function texType1Family(flat: string): string {
  const m = TEX_TYPE1_NAME.exec(flat);
  if (!m) return flat;
  return `${TEX_TYPE1_FAMILIES[m[1]]}${m[2] === 'b' ? 'bold' : ''}${{ i: 'italic', o: 'slanted', c: 'sc', '': '' }[m[3]]}`;
}

/** Reads family, class and style from a BaseFont name. */
export function parseFontName(baseFont: string): ParsedFontName {
  const { name, subset } = cleanFontName(baseFont);
  const normalised = normalise(name);
  const tex = parseTexName(name, subset, normalised);
  if (tex) return tex;
  const flat = texType1Family(cjkSubfontFamily(normalised));
  const known = NAME_FAMILIES.find((f) => flat.startsWith(f.prefix));
  // The style part: what follows the family prefix, or for unknown names what follows the last
  // separator ("Foo-BoldItalic", "Foo,Bold").
  let style: string;
  if (known) {
    style = flat.slice(known.prefix.length);
  } else {
    const cut = Math.max(name.lastIndexOf('-'), name.lastIndexOf(','), name.lastIndexOf('_'));
    // Without a separator, a capitalised style word glued to the family (GNU FreeFont's
    // FreeSerifBoldItalic, Ghostscript's and many Windows producers' names): read as the style, or
    // the weight is unknown and a regular face draws into bold text.
    const glued = /[a-z](Bold|Italic|Oblique|BoldItalic|BoldOblique)$/.exec(name);
    style = cut > 0 ? normalise(name.slice(cut + 1)) : glued ? glued[1].toLowerCase() : '';
  }
  style = style.replace(/^ps/, '').replace(/(mt|ps|mtps)$/, '');
  if (known?.styleWords) style = known.styleWords[style] ?? style;
  if (known?.styleLetters) {
    // O (OpenType), T (Type 1) or G (Graphite), then R?, B?, I?; figure styles (-TLF, -OsF) do not
    // change the letters. Z (semibold), DR (display), C (capitals) are faces not bundled.
    const letters = style
      .replace(/(tlf|osf|lf|tosf|sup|inf)$/, '')
      .replace(/^[otg]/, '')
      .replace(/^r/, '');
    style = { '': '', b: 'bold', i: 'italic', bi: 'bolditalic' }[letters] ?? `${letters}variant`;
  }
  const boldWord = BOLD.test(style);
  const italicWord = ITALIC.test(style) || ITALIC_SHORT.test(style) || style === 'bi';
  const variantMatch = known?.family ? VARIANT.exec(style) : null;
  const variant = variantMatch ? variantMatch[0] : null;
  const otherFamily = known?.onlyStyles && !known.onlyStyles.includes(style);
  const family = known && !variant && !otherFamily ? known.family : null;
  return {
    name,
    subset,
    family,
    families: family ? [family, ...(known?.alsoFamilies ?? [])] : [],
    design_size: null,
    class: known?.class ?? null,
    symbolic: known?.symbolic === true,
    ...(known?.math ? { math: true } : {}),
    // A bundled family's name without a style word is its regular face; elsewhere silence is unknown.
    bold: boldWord || style === 'bi' ? true : known ? false : null,
    italic: italicWord ? true : known ? false : null,
    variant,
    note: known?.note ?? (variant ? `${name}: the ${variant} variant is not bundled` : null),
  };
}

// ---------------------------------------------------------------------------------------------
// TeX font names: Computer Modern (CMR10, CMBX12, CMTT9 …), EC / cm-super (ECRM1000, SFRM1095 …)
// and Latin Modern itself (LMRoman10-Regular). Latin Modern has CM's advance widths per optical size,
// so the name picks a series (roman, slanted, sans, mono), a style and a design size; a bundled size
// less than 1 pt away is the family (10.95 → 10), a farther one is not (its widths differ by > 1 %).

/** A Latin Modern series: a bundled family's name without its design size ("LM Roman Caps"). */
type TexSeries = string;
interface TexDesign {
  series: TexSeries | null;
  bold: boolean;
  italic: boolean;
  class: FontClass;
  note?: string;
}

const serif = (series: string, bold = false, italic = false): TexDesign => ({
  series,
  bold,
  italic,
  class: 'serif',
});
const sans = (series: string, bold = false, italic = false): TexDesign => ({
  ...serif(series, bold, italic),
  class: 'sans',
});
const mono = (series: string, bold = false, italic = false): TexDesign => ({
  ...serif(series, bold, italic),
  class: 'mono',
});

const CM_SHAPES: Record<string, TexDesign> = {
  r: serif('LM Roman'),
  bx: serif('LM Roman', true),
  ti: serif('LM Roman', false, true),
  bxti: serif('LM Roman', true, true),
  sl: serif('LM Roman Slanted', false, true),
  bxsl: serif('LM Roman Slanted', true, true),
  b: serif('LM Roman Demi', true),
  csc: serif('LM Roman Caps'),
  // The unslanted italic: LM names it a regular face.
  u: serif('LM Roman Unslanted'),
  dunh: serif('LM Roman Dunhill'),
  ss: sans('LM Sans'),
  ssbx: sans('LM Sans', true),
  ssi: sans('LM Sans', false, true),
  ssdc: sans('LM Sans Demi Cond', true),
  ssq: sans('LM Sans Quotation'),
  ssqi: sans('LM Sans Quotation', false, true),
  tt: mono('LM Mono'),
  itt: mono('LM Mono', false, true),
  sltt: mono('LM Mono Slanted', false, true),
  tcsc: mono('LM Mono Caps'),
  // The variable-width typewriter is proportional (LM Mono Prop).
  vtt: serif('LM Mono Prop'),
  // Known CM designs without a Latin Modern face.
  fib: { series: null, bold: false, italic: false, class: 'serif', note: 'CMFIB (Fibonacci)' },
  ff: { series: null, bold: false, italic: false, class: 'serif', note: 'CMFF (funny font)' },
  fi: { series: null, bold: false, italic: true, class: 'serif', note: 'CMFI (funny italic)' },
};
// EC (ecrm1000) and cm-super (SFRM1000) two-letter shapes.
const EC_SHAPES: Record<string, TexDesign> = {
  rm: CM_SHAPES.r,
  bx: CM_SHAPES.bx,
  ti: CM_SHAPES.ti,
  bi: CM_SHAPES.bxti,
  sl: CM_SHAPES.sl,
  ss: CM_SHAPES.ss,
  sx: CM_SHAPES.ssbx,
  si: CM_SHAPES.ssi,
  so: sans('LM Sans', true, true),
  tt: CM_SHAPES.tt,
  it: CM_SHAPES.itt,
  bl: CM_SHAPES.bxsl,
  rb: CM_SHAPES.b,
  cc: CM_SHAPES.csc,
  xc: { series: null, bold: true, italic: false, class: 'serif', note: 'EC bold small caps' },
  tc: CM_SHAPES.tcsc,
  st: CM_SHAPES.sltt,
  vt: CM_SHAPES.vtt,
  dh: CM_SHAPES.dunh,
};

// TeX families drawn from Computer Modern's sources with other letters added, whose Latin keeps
// CM's widths (so Latin Modern's, per optical size) and whose added letters Latin Modern (Czech,
// Polish, Vietnamese) or CMU (Cyrillic, Greek) has:
//   - CM's shape letters and size after another prefix: the CS fonts (csr10, csbx10, cscsc10 …;
//     Czech and Slovak), the PL fonts' old names (plr10 …; Polish), vntex (VNR10, VNTT10 …;
//     Vietnamese);
//   - EC's shape letters and a four-digit size after an LH prefix: T2A/T2B/T2C (larm1000, lbrm1000,
//     lcrm1000) and X2 (rxrm1000);
//   - the PL fonts as Type 1 names them (PLRoman10-Regular, PLSlanted10-Italic, PLTypewriter10-Regular);
//   - the AMS Washington Cyrillic (wncyr10 …, OT2) is known but stands in for nothing: its glyphs
//     carry Latin names (the transliteration its ligatures type), so the text layer reads Latin
//     where Cyrillic is drawn, and a Latin Modern letter would not be the letter the page shows.
//   - the CB Greek fonts (grmn1000 roman, grxn1000 bold, gsmn1000 sans, gttn1000 typewriter).
const CM_PREFIXED = /^(cm|cs|pl|vn)([a-z]+?)(\d{1,2})$/;
const EC_PREFIXED = /^(?:ec|sf|l[abc]|rx)([a-z]{2})(\d{4})$/;

/** The PL fonts' Type 1 names: series and style words → the CM shape letters. */
const PL_SHAPES: Record<string, string> = {
  romanregular: 'r',
  romanbold: 'bx',
  romanitalic: 'ti',
  romanbolditalic: 'bxti',
  slanteditalic: 'sl',
  slantedbolditalic: 'bxsl',
  romandemiregular: 'b',
  capsregular: 'csc',
  unslantedregular: 'u',
  dunhillregular: 'dunh',
  sansregular: 'ss',
  sansbold: 'ssbx',
  sansitalic: 'ssi',
  sansdemicondregular: 'ssdc',
  sansquotationregular: 'ssq',
  sansquotationitalic: 'ssqi',
  typewriterregular: 'tt',
  typewriteritalic: 'itt',
  typewriterslanteditalic: 'sltt',
  typewritercapsregular: 'tcsc',
  typewritervarwdregular: 'vtt',
};

/** CB Greek: series (roman medium/bold extended, sans, typewriter) and shape → a design. */
function cbGreekDesign(series: string, shape: string): TexDesign | undefined {
  const bold = series === 'rx' || series === 'sx';
  // n upright, i italic, o oblique (slanted), c small caps, u upright italic.
  if (series === 'rm' || series === 'rx') {
    if (shape === 'n') return serif('LM Roman', bold);
    if (shape === 'i') return serif('LM Roman', bold, true);
    if (shape === 'o') return serif('LM Roman Slanted', bold, true);
    if (shape === 'c' && !bold) return CM_SHAPES.csc;
    if (shape === 'u' && !bold) return CM_SHAPES.u;
    return undefined;
  }
  if (series === 'sm' || series === 'sx') {
    if (shape === 'n') return sans('LM Sans', bold);
    if (shape === 'o' || shape === 'i') return sans('LM Sans', bold, true);
    return undefined;
  }
  if (shape === 'n') return CM_SHAPES.tt;
  if (shape === 'i') return CM_SHAPES.itt;
  if (shape === 'o') return CM_SHAPES.sltt;
  return undefined;
}

/** A TeX font of the CM designs by its name: its design and design size, or null. */
function texDesignOf(flat: string): { design: TexDesign; size: number } | null {
  let m = CM_PREFIXED.exec(flat);
  if (m && m[2] in CM_SHAPES) return { design: CM_SHAPES[m[2]], size: Number(m[3]) };
  if ((m = EC_PREFIXED.exec(flat)) && m[1] in EC_SHAPES) {
    return { design: EC_SHAPES[m[1]], size: Number(m[2]) / 100 };
  }
  if ((m = /^wncy(r|b|i|sc|ss)(\d{1,2})$/.exec(flat))) {
    const note = 'Washington Cyrillic (OT2: its glyph names, so its text, are a Latin transliteration)';
    return {
      design: { series: null, bold: m[1] === 'b', italic: m[1] === 'i', class: 'serif', note },
      size: Number(m[2]),
    };
  }
  if ((m = /^pl([a-z]+?)(\d{1,2})(regular|bold|italic|bolditalic)$/.exec(flat))) {
    const shape = PL_SHAPES[m[1] + m[3]];
    if (shape) return { design: CM_SHAPES[shape], size: Number(m[2]) };
    if (m[1] === 'sans' && m[3] === 'bolditalic') return { design: EC_SHAPES.so, size: Number(m[2]) };
  }
  if ((m = /^g(rm|rx|sm|sx|tt)([nioucl])(\d{4})$/.exec(flat))) {
    const design = cbGreekDesign(m[1], m[2]);
    if (design) return { design, size: Number(m[3]) / 100 };
  }
  return null;
}

/** The bundled Latin Modern face a document names itself (XeTeX, LuaTeX: LMRomanCaps10-Regular). */
function latinModernByName(flat: string): BundledFace | undefined {
  if (!flat.startsWith('lm')) return undefined;
  return BUNDLED_FACES.find((f) => f.designSize !== null && normalise(f.postscriptName) === flat);
}

/**
 * Bundled families of a Latin Modern series that have the style, nearest design size first, less
 * than `within` pt from `size` (1: the same design).
 */
function texFamilies(series: TexSeries, size: number, bold: boolean, italic: boolean, within = 1): string[] {
  const sized = new Map<string, number>();
  for (const face of BUNDLED_FACES) {
    if (face.designSize === null || !face.family.startsWith(`${series} `)) continue;
    if (face.family !== `${series} ${face.designSize}`) continue; // "LM Roman" is not "LM Roman Slanted"
    if (face.bold !== bold || face.italic !== italic) continue;
    sized.set(face.family, face.designSize);
  }
  // CM and EC widths change with the design size (CMR8's a is 531/1000 em, CMR10's 500, ECRM1095's
  // 497, ECRM1440's 2 % narrower than 12 pt): only a size less than 1 pt away is the same design.
  return [...sized]
    .filter(([, s]) => Math.abs(s - size) < within)
    .sort((a, b) => Math.abs(a[1] - size) - Math.abs(b[1] - size) || a[1] - b[1])
    .map(([f]) => f);
}

function parseTexName(name: string, subset: boolean, flat: string): ParsedFontName | null {
  const named = texDesignOf(flat);
  let design: TexDesign | undefined = named?.design;
  let size = named?.size ?? 10;
  if (!named) {
    const face = latinModernByName(flat);
    if (face) {
      design = {
        series: face.family.replace(/ \d+$/, ''),
        bold: face.bold,
        italic: face.italic,
        class: face.class,
      };
      size = face.designSize ?? 10;
    }
  }
  if (!design) return null;
  const families = design.series ? texFamilies(design.series, size, design.bold, design.italic) : [];
  // CMU Serif is Computer Modern Roman at 10 pt with Cyrillic and Greek (from the LH and CB fonts,
  // as cm-super's T2A and LGR encodings): the same design after Latin Modern, for what LM lacks;
  // CMU Typewriter Text and CMU Sans Serif likewise for CM Typewriter and Sans.
  if (Math.abs(size - 10) < 1) {
    if (design.series === 'LM Roman') families.push('CMU Serif');
    // CMU's typewriter and sans are bundled upright regular only.
    if (design.series === 'LM Mono' && !design.bold && !design.italic) families.push('CMU Typewriter Text');
    if (design.series === 'LM Sans' && !design.bold && !design.italic) families.push('CMU Sans Serif');
  }
  const note = design.series
    ? families.length
      ? null
      : `${name}: no bundled ${design.series} face of this style within 1 pt of ${size} pt`
    : `${name}: ${design.note} has no bundled Latin Modern face`;
  // Without the same design, the nearest bundled sizes (one below, one above) drawn to scale.
  const scaled =
    design.series && !families.length
      ? texFamilies(design.series, size, design.bold, design.italic, Infinity).slice(0, 2)
      : [];
  return {
    ...(scaled.length ? { scaled_families: scaled } : {}),
    name,
    subset,
    family: families[0] ?? null,
    families,
    design_size: size,
    class: design.class,
    symbolic: false,
    bold: design.bold,
    italic: design.italic,
    variant: null,
    note,
  };
}

// ---------------------------------------------------------------------------------------------
// Matching

const FLAG_FIXED_PITCH = 1 << 0;
const FLAG_SERIF = 1 << 1;
const FLAG_NONSYMBOLIC = 1 << 5;
const FLAG_ITALIC = 1 << 6;
const FLAG_FORCE_BOLD = 1 << 18;

/** Letters and figures: a design's evidence (a math face's, or a clone's whose symbols are redrawn). */
const LETTER_OR_FIGURE = /[\p{L}\p{N}]/u;

/** The font's measured widths, one character each; `all` keeps the uninformative ones too. */
function widthEntries(widths: PdfFontFacts['widths'], all = false): [string, number][] {
  if (!widths) return [];
  const entries = widths instanceof Map ? [...widths.entries()] : Object.entries(widths);
  return entries.filter(
    ([ch, w]) =>
      [...ch].length === 1 &&
      Number.isFinite(w) &&
      (all || !(SHAPED.test(ch) || FULL_WIDTH.test(ch) || MATH_ALPHANUMERIC.test(ch))),
  );
}

/**
 * Mathematical alphanumerics (𝑎 U+1D44E, 𝐀, 𝔄 …, and the letterlike ones they skip, ℎ ℬ ℭ …): a
 * math face's italic, bold, script and fraktur designs, whose widths are their own (cmmi's for
 * Latin Modern Math's italic, 44/1000 em from LM Roman 10 Italic), not those of any text face.
 */
const MATH_ALPHANUMERIC =
  /[\u{1D400}-\u{1D7FF}\u210A-\u2113\u2115\u2119-\u211D\u2124\u2128\u212C\u212D\u212F-\u2131\u2133\u2134]/u;

/**
 * Scripts drawn in contextual forms (Arabic, Syriac, Thaana, N'Ko, Indic, Mongolian): a document's
 * ToUnicode maps an initial, medial or final glyph to its letter, whose nominal glyph in a bundled
 * face is the isolated form of another width, so these letters say nothing about the face's widths
 * (an Amiri page measured 42/1000 em from Amiri itself over them; its Latin and figures, 0.5).
 */
const SHAPED = /[\u0600-\u08FF\u0900-\u0DFF\u1800-\u18AF\uFB50-\uFDFF\uFE70-\uFEFF]/u;

/**
 * Han, kana, hangul, CJK punctuation and full-width forms: every CJK font draws them 1 em wide, so
 * their widths match any CJK face and name none (a Korean Type 1 subfont of hangul alone matched
 * Nanum Gothic "within 0/1000 em"). They are not compared; a name still names its family.
 */
const FULL_WIDTH =
  /[\u1100-\u11FF\u2E80-\u2FDF\u3000-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7AF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF\u{20000}-\u{3FFFF}]/u;

/**
 * The horizontal scale that best makes `face`'s widths the document's: the median ratio over at
 * least 8 measured letters, within 5 % of 1 (cm-super 14.4 pt is LM Roman 12 at 97.2 %, every
 * letter within 0.2 % of that); else null. The scaled widths then pass the ordinary width rule.
 */
function designScale(face: Face, measured: [string, number][]): number | null {
  const ratios: number[] = [];
  for (const [ch, w] of measured) {
    if (!/\p{L}/u.test(ch)) continue;
    const own = faceAdvance(face, ch);
    if (own && own > 0 && w > 0) ratios.push(w / own);
  }
  if (ratios.length < 8) return null;
  ratios.sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)];
  if (Math.abs(median - 1) > 0.05) return null;
  return Math.round(median * 10000) / 10000;
}

/**
 * A font's class, weight and slant: the name first, then the descriptor's flags, angle and weight
 * (null: not known).
 */
export function readFontStyle(facts: PdfFontFacts): {
  parsed: ParsedFontName;
  class: FontClass | null;
  bold: boolean | null;
  italic: boolean | null;
} {
  const parsed = parseFontName(facts.baseFont);
  const flags = facts.flags;
  const hasFlags = typeof flags === 'number' && flags !== 0;

  // Class: the name first, then the flags (Symbolic alone says nothing: LibreOffice sets it on
  // every TrueType subset).
  let flagClass: FontClass | null = null;
  if (hasFlags) {
    if (flags & FLAG_FIXED_PITCH) flagClass = 'mono';
    else if (flags & FLAG_SERIF) flagClass = 'serif';
    else if (flags & FLAG_NONSYMBOLIC) flagClass = 'sans';
  }

  // Weight and slant: the name first, then the descriptor.
  const flagItalic =
    (hasFlags && (flags & FLAG_ITALIC) !== 0) ||
    (facts.italicAngle !== undefined && Math.abs(facts.italicAngle) >= 1);
  const flagBold = (hasFlags && (flags & FLAG_FORCE_BOLD) !== 0) || (facts.fontWeight ?? 0) >= 600;
  const bold = parsed.bold === true ? true : flagBold ? true : parsed.bold;
  // Descriptors mark italics reliably: present flags (or an explicit angle of 0) without the Italic
  // bit say upright. ForceBold is rarely set, so its absence says nothing.
  const uprightByDescriptor = hasFlags || facts.italicAngle === 0;
  const italic =
    parsed.italic === true || flagItalic ? true : (parsed.italic ?? (uprightByDescriptor ? false : null));
  return { parsed, class: parsed.class ?? flagClass, bold, italic };
}

/** What matchFont knows of the document font, shared by every face it judges. */
interface Evidence {
  facts: PdfFontFacts;
  parsed: ParsedFontName;
  fontClass: FontClass | null;
  bold: boolean | null;
  italic: boolean | null;
  /** Weight from StemV where neither name nor flags say (null: not used). */
  stemBold: boolean | null;
  measured: [string, number][];
  /** Only letters of a contextually shaped script were measured. */
  shapedOnly: boolean;
  threshold: number;
  drawnSize: number | undefined;
}

type Judged = Omit<FontCandidate, 'rank'> | { reject: string };

/** Ranks faces (default: the bundled ones) as stand-ins for a document font. */
export function matchFont(facts: PdfFontFacts, options: MatchOptions = {}): FontMatch {
  const threshold = options.maxMeanWidthDiff ?? DEFAULT_MAX_MEAN_WIDTH_DIFF;
  const faces = options.faces ?? BUNDLED_FACES;
  const { parsed, class: fontClass, bold, italic } = readFontStyle(facts);
  // A math face's operators, delimiters and accents are its own (stretchy, display) designs: only
  // its letters and figures are compared with the companion's (Latin Modern Math's combining
  // circumflex is 1320/1000 em wide, its √ 833: LM Roman 10's are 0 and 472).
  const measured = widthEntries(facts.widths).filter(([ch]) => !parsed.math || LETTER_OR_FIGURE.test(ch));
  const evidence: Evidence = {
    facts,
    parsed,
    fontClass,
    bold,
    italic,
    stemBold: bold === null && facts.stemV !== undefined ? facts.stemV >= 120 : null,
    measured,
    // Widths measured on shaped letters only prove nothing, and do not make a name match enough.
    shapedOnly: measured.length === 0 && widthEntries(facts.widths, true).some(([ch]) => SHAPED.test(ch)),
    threshold,
    drawnSize: options.drawnSize,
  };
  const result: FontMatch = {
    base_font: facts.baseFont,
    name: parsed.name,
    subset: parsed.subset,
    named_family: parsed.family,
    class: fontClass,
    bold,
    italic,
    symbolic: parsed.symbolic,
    max_mean_width_diff: threshold,
    candidates: [],
    rejected: [],
  };
  const scored: Omit<FontCandidate, 'rank'>[] = [];
  for (const face of faces) {
    const judged: Judged = parsed.symbolic
      ? { reject: `${parsed.name} is a symbol font: no text font stands in for it` }
      : judgeFace(face, evidence);
    if ('reject' in judged) result.rejected.push({ face_id: face.id, reason: judged.reject });
    else scored.push(judged);
  }
  scored.sort((a, b) => b.score - a.score || faces.indexOf(a.face) - faces.indexOf(b.face));
  result.candidates = scored.map((c, rank) => ({ ...c, rank }));
  return result;
}

/** One face against the document font: a scored candidate, or why it is not one. */
function judgeFace(face: Face, ev: Evidence): Judged {
  if (ev.shapedOnly)
    return { reject: 'only letters of a contextually shaped script were measured: the widths are unknown' };
  if (face.standsInForScript)
    return {
      reject: `a ${face.standsInForScript.toUpperCase()} face: offered only for characters of its script`,
    };
  // A machine face stands in only for a font that names it (its PostScript name or family).
  const machineRank = face.origin === 'bundled' ? null : machineNameRank(face, ev.parsed.name);
  if (face.origin !== 'bundled' && machineRank === null)
    return { reject: `${ev.parsed.name} does not name ${face.postscriptName}` };
  const style = styleFit(face, ev);
  if ('reject' in style) return style;
  const reasons = style.reasons;

  // For TeX names every optical size of the series is the family; the nearest size ranks first.
  const familyRank = machineRank ?? ev.parsed.families.indexOf(face.family);
  const scaledRank = ev.parsed.scaled_families?.indexOf(face.family) ?? -1;
  const designScaled = scaledRank >= 0 ? designScale(face, ev.measured) : null;
  if (scaledRank >= 0 && designScaled === null)
    return {
      reject: `${face.family} is another design size, and the document's widths are not within 5 % of its own scaled`,
    };
  const familyMatch = familyRank >= 0 || designScaled !== null;
  if (machineRank === CLONE_RANK)
    reasons.push(`${face.family} is a named clone of ${ev.parsed.name}'s design (TeX Gyre / URW base35)`);
  else if (familyMatch) reasons.push(`${ev.parsed.name} names ${face.family}'s family`);
  else if (ev.parsed.note) reasons.push(ev.parsed.note);
  const classMatch = ev.fontClass !== null && ev.fontClass === face.class;
  if (ev.measured.length === 0 && !familyMatch) {
    const unvouched = withoutWidths(face, ev, classMatch);
    if (unvouched) return { reject: unvouched };
  }
  if (classMatch) reasons.push(`${face.class} as the ${ev.parsed.class ? 'name' : 'flags'} say`);

  const widths = widthFit(face, ev, designScaled, familyRank);
  if ('reject' in widths) return widths;
  const scale = widths.scale;
  if (widths.diff !== null) {
    if (scale !== null)
      reasons.push(
        `${ev.parsed.name} is ${face.family}'s design drawn ${Math.round(scale * 1000) / 10} % wide (no bundled face has the widths of ${ev.parsed.design_size} pt)`,
      );
    reasons.push(
      `widths within ${widths.diff}/1000 em on average over ${widths.n} ${widths.lettersOnly ? 'letters and figures (its symbols are drawn otherwise)' : 'characters'} (max ${widths.max})`,
    );
    if (widths.missing.length) reasons.push(`no glyph for ${widths.missing.length} measured character(s)`);
  } else if (!familyMatch) {
    reasons.push('no widths measured: not checked');
  }

  // DejaVu Sans stands in for nothing but itself: last resort, after every metric-compatible face.
  let score =
    1000 * (familyMatch ? 1 : 0) -
    (familyMatch ? 15 * (familyRank >= 0 ? familyRank : ev.parsed.families.length + scaledRank) : 0) +
    100 * style.score +
    20 * (classMatch ? 1 : 0) +
    widths.score;
  if (ev.drawnSize && face.designSize && !familyMatch)
    score -= 10 * Math.abs(Math.log(face.designSize / ev.drawnSize));
  if (!face.metricCompatible && !familyMatch) {
    score -= 1000;
    reasons.push('last resort: not metric-compatible with any other family');
  }
  const refusal = embeddingRefusal(face);
  return {
    face,
    score: Math.round(score * 100) / 100,
    family_match: familyMatch,
    style_match: style.score === 1,
    class_match: classMatch,
    width_diff: widths.diff,
    width_max_diff: widths.max,
    width_chars: widths.n,
    width_missing: widths.missing,
    ...(scale !== null ? { scale } : {}),
    ...(refusal ? { embedding_refused: refusal } : {}),
    ...(machineRank === CLONE_RANK ? { named_clone: true as const } : {}),
    reasons,
  };
}

/** Weight and slant: a contradiction of known evidence excludes the face; unknowns lower its score. */
function styleFit(face: Face, ev: Evidence): { score: number; reasons: string[] } | { reject: string } {
  const { bold, italic } = ev;
  if (bold !== null && face.bold !== bold)
    return { reject: bold ? 'the document font is bold' : 'the document font is not bold' };
  if (italic !== null && face.italic !== italic)
    return { reject: italic ? 'the document font is italic' : 'the document font is upright' };
  const reasons: string[] = [];
  let score = 1;
  if (bold === null) {
    const wanted = ev.stemBold ?? false;
    if (face.bold !== wanted) score -= 0.5;
    else
      reasons.push(
        ev.stemBold === null ? 'weight unknown: regular preferred' : `weight from StemV ${ev.facts.stemV}`,
      );
  }
  if (italic === null && face.italic) score -= 0.5;
  if (bold !== null || italic !== null) reasons.push(`style ${face.style} as the name/flags say`);
  return { score, reasons };
}

/** Without widths only the name and the flags speak: why nothing else is offered against them. */
function withoutWidths(face: Face, ev: Evidence, classMatch: boolean): string | null {
  const { parsed } = ev;
  if (parsed.family)
    return `${parsed.name} is ${parsed.family}'s family; no widths were measured to vouch for another`;
  if (parsed.note) return `${parsed.note}; no widths were measured to find a stand-in`;
  if (ev.fontClass !== null && !classMatch)
    return `the document font is ${ev.fontClass}; no widths were measured to vouch for a ${face.class} face`;
  return null;
}

interface WidthFit {
  /** Mean and largest difference (1/1000 em) over `n` characters the face has; null: none measured. */
  diff: number | null;
  max: number | null;
  n: number;
  missing: string[];
  /** Horizontal scale the face is drawn at (null: 1). */
  scale: number | null;
  /** 0–10, higher for closer widths. */
  score: number;
  /** Only letters and figures were compared (a named family whose symbols are drawn otherwise). */
  lettersOnly?: boolean;
}

/** The measured widths against the face's advances (drawn at `scale`), within the threshold or not. */
function widthFit(
  face: Face,
  ev: Evidence,
  designScaled: number | null,
  familyRank: number,
): WidthFit | { reject: string } {
  const { measured, threshold } = ev;
  if (measured.length === 0)
    return { diff: null, max: null, n: 0, missing: [], scale: designScaled, score: 0 };
  let scale = designScaled;
  let cmp = compareWidths(face, measured, scale ?? 1);
  if (cmp.n === 0) return { reject: 'has none of the measured characters' };
  // A TeX size whose named family is a neighbouring design (cm-super 17.28 pt, LM Roman 17): its
  // widths, scaled, may still be the document's.
  if (cmp.mean > threshold && scale === null && familyRank >= 0 && ev.parsed.design_size !== null) {
    const k = designScale(face, measured);
    const again = k === null ? null : compareWidths(face, measured, k);
    if (again && again.mean <= threshold) {
      scale = k;
      cmp = again;
    }
  }
  // A clone the name points to may have redrawn its symbols (TeX Gyre Pagella's parentheses, +, =,
  // brackets and bar are 100–400/1000 em off URW Palladio's, its letters within 4): the design is
  // its letters and figures, so a named family is judged on them when enough were measured.
  let lettersOnly = false;
  if (cmp.mean > threshold && familyRank >= 0) {
    const letters = measured.filter(([ch]) => LETTER_OR_FIGURE.test(ch));
    if (letters.length >= MIN_LETTERS_JUDGED && letters.length < measured.length) {
      const again = compareWidths(face, letters, scale ?? 1);
      if (again.mean <= threshold) {
        cmp = again;
        lettersOnly = true;
      }
    }
  }
  if (cmp.mean > threshold)
    return {
      reject: `widths differ by ${cmp.mean}/1000 em on average over ${cmp.n} characters (limit ${threshold})`,
    };
  return {
    lettersOnly,
    diff: cmp.mean,
    max: cmp.max,
    n: cmp.n,
    missing: cmp.missing,
    scale,
    score: 10 * (1 - cmp.mean / (threshold + 1e-9)),
  };
}

/** Letters and figures a named family is judged on when its symbols differ (fewer: all characters). */
const MIN_LETTERS_JUDGED = 20;

/** Mean and largest absolute difference between the measured widths and the face's advances × k. */
function compareWidths(face: Face, measured: [string, number][], k: number) {
  let sum = 0;
  let n = 0;
  let max = 0;
  const missing: string[] = [];
  for (const [ch, w] of measured) {
    const own = faceAdvance(face, ch);
    if (own === null) {
      missing.push(ch);
      continue;
    }
    const d = Math.abs(own * k - w);
    sum += d;
    n += 1;
    if (d > max) max = d;
  }
  return {
    n,
    mean: n ? Math.round((sum / n) * 100) / 100 : Infinity,
    max: Math.round(max * 100) / 100,
    missing,
  };
}
