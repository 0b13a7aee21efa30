// The bundled open fonts (fonts/ at the repository root; where each came from: fonts/README.md).
// They stand in for common document fonts when a correction needs a glyph the document's own font
// does not have (tier 4, "matched font"): Liberation Sans/Serif/Mono have the advance widths of
// Arial/Helvetica, Times New Roman/Times and Courier New/Courier; Carlito those of Calibri; Caladea
// those of Cambria. DejaVu Sans matches nothing but itself (and Bitstream Vera): it is the last resort.
// Since 2026-11: Latin Modern (LM Roman/Sans/Mono in the optical sizes TeX documents use) has the
// advance widths of Computer Modern and stands in for CM, EC and cm-super fonts; Roboto and DejaVu
// Sans Condensed stand in for themselves only (documents that embed a subset of them); so does DejaVu
// Serif (documents made with it, as XeTeX and LibreOffice do for Arabic and Cyrillic text).
// CMU Serif (Computer Modern Unicode) stands in for CM Roman at 10 pt where Latin Modern lacks a
// character (Cyrillic, Greek), and for itself; CMU Typewriter Text and CMU Sans Serif (regular) do
// the same for CM Typewriter and Sans. Linux Libertine O stands in for itself (XeTeX,
// LuaTeX and pdfTeX documents set in Libertine: Cyrillic in Church Slavonic and Russian manuals);
// TeX Gyre Pagella for itself and Palatino, whose widths it has; TeX Gyre Schola likewise for
// Century Schoolbook. STIX Two Text, Fira Sans (Regular, Light, Book), Old Standard, Accanthis and
// CMU Typewriter Light stand in for themselves: open faces TeX documents set their text in; so do
// Nanum Myeongjo and Gothic, the open Korean faces (also as CJK.sty's Type 1 subfonts name them);
// Amiri (Arabic with Latin), Noto Serif, Charis SIL, Iwona, Crimson Pro and Open Sans. Bitstream
// Charter stands in for itself, XCharter and the TeX names of its Type 1 fonts (bchr8t …); Adobe
// Utopia likewise (Utopia-Regular …, putr8t, Fourier's futr8t), bundled renamed as Nowhere Serif.
// Since 2026-11-28, free faces documents embed that nothing else matched, each for itself: Noto
// Sans, Lato, Source Sans 3, Source Serif 4, EB Garamond, Cantarell, Linux Biolinum O, PT Sans,
// PT Serif, Gentium Plus and Inter. Since 2026-11-29 GNU FreeFont's FreeSerif and FreeSans, for
// themselves (TCPDF's default Unicode faces).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';

export type FontClass = 'sans' | 'serif' | 'mono';
export type FontStyle = 'regular' | 'bold' | 'italic' | 'bold-italic';

export interface BundledFace {
  /** Bundled with docfix (machine-fonts.ts finds the others). */
  origin: 'bundled';
  /** Stable id, e.g. "liberation-sans-bold-italic" (used in reports and by font_attempt). */
  id: string;
  /** Family name as the font calls itself, e.g. "Liberation Sans". */
  family: string;
  style: FontStyle;
  bold: boolean;
  italic: boolean;
  class: FontClass;
  /** PostScript name of the face (what a PDF embedding it names as BaseFont, after a subset tag). */
  postscriptName: string;
  /**
   * Absolute path of the stored font file: the TTF or OTF (CFF outlines) Brotli-compressed as
   * `<name>.br` (half the size on disk; `fontBytes` gives the font as distributed).
   */
  file: string;
  /** SPDX-style licence id and the licence file beside the font. */
  licence:
    | 'OFL-1.1'
    | 'Bitstream-Vera'
    | 'Bitstream-Charter'
    | 'Adobe-Utopia'
    | 'ParaType-Free-Font'
    | 'GFL'
    | 'Apache-2.0'
    | 'GPL-2.0-or-later WITH Font-exception-2.0'
    | 'GPL-3.0-or-later WITH Font-exception-2.0';
  licenceFile: string;
  /** Families whose advance widths this face reproduces (empty: none but its own). */
  metricCompatibleWith: string[];
  /** True when the face has another family's widths (false for the DejaVu last resort). */
  metricCompatible: boolean;
  /** Where the file came from. */
  source: string;
  /** Optical (design) size in points for faces drawn per size (Latin Modern), else null. */
  designSize: number | null;
  /** A slanted roman (LM Roman Slanted): counted as italic by the matcher, upright letterforms. */
  slanted: boolean;
  /**
   * Script faces (Droid Sans Fallback: 'cjk') stand in for any font, but only to draw characters of
   * their script where the document's font draws that script full-width (tier4.ts, cjkStandIn).
   */
  standsInForScript: 'cjk' | null;
}

const FONTS_DIR = new URL('../../fonts/', import.meta.url);
const pathOf = (relative: string) => fileURLToPath(new URL(relative, FONTS_DIR));

interface FamilyDef {
  dir: string;
  /** Start of the faces' ids when a folder holds several families (default: the folder's name). */
  idBase?: string;
  family: string;
  psFamily: string;
  class: FontClass;
  licence: BundledFace['licence'];
  metricCompatibleWith: string[];
  source: string;
  styles: FontStyle[];
  /** File name (with extension) of each style. */
  fileOf: (style: FontStyle) => string;
  /** PostScript name of each style (default `${psFamily}-${PS_STYLE[style]}`). */
  psNameOf?: (style: FontStyle) => string;
  designSize?: number;
  slanted?: boolean;
  standsInForScript?: 'cjk';
}

const PS_STYLE: Record<FontStyle, string> = {
  regular: 'Regular',
  bold: 'Bold',
  italic: 'Italic',
  'bold-italic': 'BoldItalic',
};
const ALL_STYLES: FontStyle[] = ['regular', 'bold', 'italic', 'bold-italic'];

/** Adobe's Source faces name their italics It. */
const ADOBE_STYLE: Record<FontStyle, string> = {
  regular: 'Regular',
  bold: 'Bold',
  italic: 'It',
  'bold-italic': 'BoldIt',
};

/** Amiri names its italics Slanted. */
const AMIRI_STYLE: Record<FontStyle, string> = {
  regular: 'Regular',
  bold: 'Bold',
  italic: 'Slanted',
  'bold-italic': 'BoldSlanted',
};

/** GNU FreeFont names its styles without a hyphen, and its regular not at all (FreeSerif, FreeSerifBold). */
const FREEFONT_STYLE: Record<FontStyle, string> = {
  regular: '',
  bold: 'Bold',
  italic: 'Italic',
  'bold-italic': 'BoldItalic',
};

/** A weight's file and PostScript style word: Fira's light and book, Crimson Pro's extra bold name their own upright. */
function weightStyleWord(style: FontStyle, upright: string, italic: string): string {
  if (upright === 'Regular') return PS_STYLE[style];
  return style === 'italic' || style === 'bold-italic' ? italic : upright;
}
const LIBERATION = 'Debian fonts-liberation2 2.1.5-1 (Liberation Fonts 2.1.5)';

const FAMILIES: FamilyDef[] = [
  {
    dir: 'liberation-sans',
    family: 'Liberation Sans',
    psFamily: 'LiberationSans',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Arial', 'Helvetica', 'Arimo', 'Nimbus Sans'],
    source: LIBERATION,
    styles: ALL_STYLES,
    fileOf: (s) => `LiberationSans-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'liberation-serif',
    family: 'Liberation Serif',
    psFamily: 'LiberationSerif',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Times New Roman', 'Times', 'Tinos', 'Nimbus Roman'],
    source: LIBERATION,
    styles: ALL_STYLES,
    fileOf: (s) => `LiberationSerif-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'liberation-mono',
    family: 'Liberation Mono',
    psFamily: 'LiberationMono',
    class: 'mono',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Courier New', 'Courier', 'Cousine', 'Nimbus Mono'],
    source: LIBERATION,
    styles: ALL_STYLES,
    fileOf: (s) => `LiberationMono-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'carlito',
    family: 'Carlito',
    psFamily: 'Carlito',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Calibri'],
    source: 'Debian fonts-crosextra-carlito 20220224-1',
    styles: ALL_STYLES,
    fileOf: (s) => `Carlito-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'caladea',
    family: 'Caladea',
    psFamily: 'Caladea',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Cambria'],
    source: 'Debian fonts-crosextra-caladea 20200211-1',
    styles: ALL_STYLES,
    fileOf: (s) => `Caladea-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'dejavu-sans',
    family: 'DejaVu Sans',
    psFamily: 'DejaVuSans',
    class: 'sans',
    licence: 'Bitstream-Vera',
    metricCompatibleWith: [],
    source: 'Debian fonts-dejavu-core 2.37-6 (DejaVu 2.37)',
    styles: ['regular', 'bold'],
    fileOf: (s) => (s === 'regular' ? 'DejaVuSans.ttf' : 'DejaVuSans-Bold.ttf'),
    psNameOf: (s) => (s === 'regular' ? 'DejaVuSans' : 'DejaVuSans-Bold'),
  },
  {
    dir: 'dejavu-serif',
    family: 'DejaVu Serif',
    psFamily: 'DejaVuSerif',
    class: 'serif',
    licence: 'Bitstream-Vera',
    metricCompatibleWith: [],
    source: 'Debian fonts-dejavu-core 2.37-6 (DejaVu 2.37)',
    styles: ['regular', 'bold'],
    fileOf: (s) => (s === 'regular' ? 'DejaVuSerif.ttf' : 'DejaVuSerif-Bold.ttf'),
    psNameOf: (s) => (s === 'regular' ? 'DejaVuSerif' : 'DejaVuSerif-Bold'),
  },
  {
    dir: 'dejavu-sans-condensed',
    family: 'DejaVu Sans Condensed',
    psFamily: 'DejaVuSansCondensed',
    class: 'sans',
    licence: 'Bitstream-Vera',
    metricCompatibleWith: [],
    source: 'Debian fonts-dejavu-extra 2.37-6 (DejaVu 2.37)',
    styles: ['regular', 'bold'],
    fileOf: (s) => (s === 'regular' ? 'DejaVuSansCondensed.ttf' : 'DejaVuSansCondensed-Bold.ttf'),
    psNameOf: (s) => (s === 'regular' ? 'DejaVuSansCondensed' : 'DejaVuSansCondensed-Bold'),
  },
  {
    dir: 'roboto',
    family: 'Roboto',
    psFamily: 'Roboto',
    class: 'sans',
    licence: 'Apache-2.0',
    metricCompatibleWith: [],
    source: 'Debian fonts-roboto-unhinted 2:0~20170802-3 (Roboto 2.137, unhinted TTF)',
    styles: ['regular', 'bold', 'italic'],
    fileOf: (s) => `Roboto-${PS_STYLE[s]}.ttf`,
  },
  {
    // Computer Modern Roman 10 pt with Cyrillic and Greek: Latin widths within 0.5/1000 em of LM
    // Roman 10 (CM's), Cyrillic from the LH fonts (cm-super's T2A), Greek from CB (LGR).
    dir: 'cmu-serif',
    family: 'CMU Serif',
    psFamily: 'CMUSerif',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Computer Modern', 'EC', 'cm-super', 'LH'],
    source: 'Debian fonts-cmu 0.7.0-5 (CM Unicode 0.7.0), /usr/share/fonts/truetype/cmu/',
    styles: ALL_STYLES,
    fileOf: (s) =>
      ({ regular: 'cmunrm.ttf', bold: 'cmunbx.ttf', italic: 'cmunti.ttf', 'bold-italic': 'cmunbi.ttf' })[s],
    psNameOf: (s) => `CMUSerif-${s === 'regular' ? 'Roman' : PS_STYLE[s]}`,
  },
  {
    // CMU Typewriter Text and CMU Sans Serif: Computer Modern Typewriter and Sans at 10 pt with
    // Cyrillic and Greek, as CMU Serif is for the roman (regular faces only).
    dir: 'cmu-typewriter',
    family: 'CMU Typewriter Text',
    psFamily: 'CMUTypewriter',
    class: 'mono',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Computer Modern', 'EC', 'cm-super', 'LH'],
    source: 'Debian fonts-cmu 0.7.0-5 (CM Unicode 0.7.0), /usr/share/fonts/truetype/cmu/',
    styles: ['regular'],
    fileOf: () => 'cmuntt.ttf',
  },
  {
    dir: 'cmu-sans-serif',
    family: 'CMU Sans Serif',
    psFamily: 'CMUSansSerif',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Computer Modern', 'EC', 'cm-super', 'LH'],
    source: 'Debian fonts-cmu 0.7.0-5 (CM Unicode 0.7.0), /usr/share/fonts/truetype/cmu/',
    styles: ['regular'],
    fileOf: () => 'cmunss.ttf',
    psNameOf: () => 'CMUSansSerif',
  },
  {
    // TeX Gyre Pagella: URW's Palladio (Palatino's widths) as the TeX Gyre project extended it; the
    // Latin face XeTeX and LuaTeX documents (ctex among them) name TeXGyrePagella.
    dir: 'texgyre-pagella',
    family: 'TeX Gyre Pagella',
    psFamily: 'TeXGyrePagella',
    class: 'serif',
    licence: 'GFL',
    metricCompatibleWith: ['Palatino', 'URW Palladio', 'P052'],
    source:
      'Debian fonts-texgyre 20180621-6 (TeX Gyre 2.501), /usr/share/texmf/fonts/opentype/public/tex-gyre/',
    styles: ALL_STYLES,
    fileOf: (s) => `texgyrepagella-${s.replace('-', '')}.otf`,
  },
  {
    // Linux Libertine O 5.3.0, the face XeTeX and LuaTeX documents name LinLibertineO(B/I/BI) and
    // pdfTeX's libertine package LinLibertineT: Latin, Cyrillic (not in Bold Italic) and Greek.
    dir: 'linux-libertine',
    family: 'Linux Libertine O',
    psFamily: 'LinLibertineO',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Linux Libertine'],
    source:
      'Debian fonts-linuxlibertine 5.3.0-6, /usr/share/fonts/opentype/linux-libertine/ (GPL-2+ with font exception, or OFL-1.1)',
    styles: ALL_STYLES,
    fileOf: (s) =>
      ({
        regular: 'LinLibertine_R.otf',
        bold: 'LinLibertine_RB.otf',
        italic: 'LinLibertine_RI.otf',
        'bold-italic': 'LinLibertine_RBI.otf',
      })[s],
    psNameOf: (s) => `LinLibertineO${{ regular: '', bold: 'B', italic: 'I', 'bold-italic': 'BI' }[s]}`,
  },
  {
    // CMU Typewriter Text Light and Light Oblique: the light typewriter XeTeX documents name
    // CMUTypewriter-Light (a Chinese package's manual sets its code in it).
    dir: 'cmu-typewriter',
    idBase: 'cmu-typewriter-light',
    family: 'CMU Typewriter Text Light',
    psFamily: 'CMUTypewriter',
    class: 'mono',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['CMU Typewriter Text Light'],
    source: 'Debian fonts-cmu 0.7.0-5 (CM Unicode 0.7.0), /usr/share/fonts/truetype/cmu/',
    styles: ['regular', 'italic'],
    fileOf: (s) => (s === 'regular' ? 'cmunbtl.ttf' : 'cmunbto.ttf'),
    psNameOf: (s) => (s === 'regular' ? 'CMUTypewriter-Light' : 'CMUTypewriter-LightOblique'),
  },
  {
    // TeX Gyre Schola: URW's Century Schoolbook L (C059) as the TeX Gyre project extended it.
    dir: 'texgyre-schola',
    family: 'TeX Gyre Schola',
    psFamily: 'TeXGyreSchola',
    class: 'serif',
    licence: 'GFL',
    metricCompatibleWith: ['Century Schoolbook', 'New Century Schoolbook', 'Century Schoolbook L', 'C059'],
    source:
      'Debian fonts-texgyre 20180621-6 (TeX Gyre 2.005), /usr/share/texmf/fonts/opentype/public/tex-gyre/',
    styles: ALL_STYLES,
    fileOf: (s) => `texgyreschola-${s.replace('-', '')}.otf`,
  },
  {
    // STIX Two Text 2.12, the text faces of STIX Two (scientific publishers', and many XeTeX and
    // LuaTeX documents' Latin, Greek and Cyrillic).
    dir: 'stix-two-text',
    family: 'STIX Two Text',
    psFamily: 'STIXTwoText',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['STIX Two Text'],
    source:
      'Debian texlive-fonts-extra 2022.20230122-4 (CTAN stix2-otf), /usr/share/texlive/texmf-dist/fonts/opentype/public/stix2-otf/',
    styles: ALL_STYLES,
    fileOf: (s) => `STIXTwoText-${PS_STYLE[s]}.otf`,
  },
  ...(
    [
      ['Fira Sans', 'Regular', 'Italic', ALL_STYLES],
      ['Fira Sans Light', 'Light', 'LightItalic', ['regular', 'italic']],
      ['Fira Sans Book', 'Book', 'BookItalic', ['regular', 'italic']],
    ] as const
  ).map(([family, upright, italic, styles]): FamilyDef => ({
    // Fira Sans 4.301 in the weights documents set text in (Beamer's metropolis theme: Light, Book).
    dir: 'fira-sans',
    idBase: family.toLowerCase().replace(/ /g, '-'),
    family,
    psFamily: 'FiraSans',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: [family],
    source:
      'Debian texlive-fonts-extra 2022.20230122-4 (CTAN fira), /usr/share/texlive/texmf-dist/fonts/opentype/public/fira/',
    styles: [...styles],
    fileOf: (s) => `FiraSans-${weightStyleWord(s, upright, italic)}.otf`,
    psNameOf: (s) => `FiraSans-${weightStyleWord(s, upright, italic)}`,
  })),
  {
    dir: 'old-standard',
    family: 'Old Standard',
    psFamily: 'OldStandard',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Old Standard'],
    source:
      'Debian texlive-fonts-extra 2022.20230122-4 (CTAN oldstandard 2.6), /usr/share/texlive/texmf-dist/fonts/opentype/public/oldstandard/',
    styles: ALL_STYLES,
    fileOf: (s) => `OldStandard-${PS_STYLE[s]}.otf`,
  },
  {
    dir: 'accanthis',
    family: 'Accanthis ADF Std No3',
    psFamily: 'AccanthisADFStdNo3',
    class: 'serif',
    licence: 'GPL-2.0-or-later WITH Font-exception-2.0',
    metricCompatibleWith: ['Accanthis ADF Std No3'],
    source: 'Debian fonts-adf-accanthis 0.20190904-2, /usr/share/fonts/truetype/adf/',
    styles: ALL_STYLES,
    fileOf: (s) => `AccanthisADFStdNo3-${PS_STYLE[s]}.otf`,
  },
  {
    // GNU FreeFont: TCPDF's default Unicode faces (freeserif, freesans), embedded as themselves; their
    // bold italics are not bundled (the 32 MB the bundle keeps under).
    dir: 'freefont',
    idBase: 'free-serif',
    family: 'FreeSerif',
    psFamily: 'FreeSerif',
    class: 'serif',
    licence: 'GPL-3.0-or-later WITH Font-exception-2.0',
    metricCompatibleWith: ['FreeSerif'],
    source:
      'Debian fonts-freefont-ttf 20120503-10 (GNU FreeFont 20120503), /usr/share/fonts/truetype/freefont/',
    styles: ['regular', 'bold', 'italic'],
    fileOf: (s) => `FreeSerif${FREEFONT_STYLE[s]}.ttf`,
    psNameOf: (s) => `FreeSerif${FREEFONT_STYLE[s]}`,
  },
  {
    dir: 'freefont',
    idBase: 'free-sans',
    family: 'FreeSans',
    psFamily: 'FreeSans',
    class: 'sans',
    licence: 'GPL-3.0-or-later WITH Font-exception-2.0',
    metricCompatibleWith: ['FreeSans'],
    source:
      'Debian fonts-freefont-ttf 20120503-10 (GNU FreeFont 20120503), /usr/share/fonts/truetype/freefont/',
    styles: ['regular', 'bold', 'italic'],
    fileOf: (s) => `FreeSans${FREEFONT_STYLE[s].replace('Italic', 'Oblique')}.ttf`,
    psNameOf: (s) => `FreeSans${FREEFONT_STYLE[s].replace('Italic', 'Oblique')}`,
  },
  {
    // Nanum Myeongjo and Nanum Gothic, the open Korean faces most documents use: hangul, hanja and
    // Latin. They stand in for themselves, as XeTeX and office programs embed them (NanumMyeongjo)
    // and as CJK.sty's Type 1 subfonts name them (nanummjm + a subfont number, t1nanummjm).
    dir: 'nanum',
    idBase: 'nanum-myeongjo',
    family: 'Nanum Myeongjo',
    psFamily: 'NanumMyeongjo',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Nanum Myeongjo'],
    source: 'Debian fonts-nanum 20200506-1 (Nanum 3.011), /usr/share/fonts/truetype/nanum/',
    styles: ['regular', 'bold'],
    fileOf: (s) => (s === 'bold' ? 'NanumMyeongjoBold.ttf' : 'NanumMyeongjo.ttf'),
    psNameOf: (s) => (s === 'bold' ? 'NanumMyeongjoBold' : 'NanumMyeongjo'),
  },
  {
    dir: 'nanum',
    idBase: 'nanum-gothic',
    family: 'Nanum Gothic',
    psFamily: 'NanumGothic',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Nanum Gothic'],
    source: 'Debian fonts-nanum 20200506-1 (Nanum 3.011), /usr/share/fonts/truetype/nanum/',
    styles: ['regular', 'bold'],
    fileOf: (s) => (s === 'bold' ? 'NanumGothicBold.ttf' : 'NanumGothic.ttf'),
    psNameOf: (s) => (s === 'bold' ? 'NanumGothicBold' : 'NanumGothic'),
  },
  {
    // Amiri, the Naskh face Arabic XeTeX and LuaTeX documents are set in, with its Latin; its
    // slanted faces are its italics.
    dir: 'amiri',
    family: 'Amiri',
    psFamily: 'Amiri',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Amiri'],
    source: 'Debian fonts-hosny-amiri 0.113-1, /usr/share/fonts/opentype/fonts-hosny-amiri/',
    styles: ALL_STYLES,
    fileOf: (s) => `Amiri-${AMIRI_STYLE[s]}.ttf`,
    psNameOf: (s) => `Amiri-${AMIRI_STYLE[s]}`,
  },
  {
    dir: 'noto-serif',
    family: 'Noto Serif',
    psFamily: 'NotoSerif',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Noto Serif'],
    source: 'Debian fonts-noto-core 20201225-1 (Noto Serif 2.004), /usr/share/fonts/truetype/noto/',
    styles: ALL_STYLES,
    fileOf: (s) => `NotoSerif-${PS_STYLE[s]}.ttf`,
  },
  {
    // Charis SIL, the serif MuPDF's HTML layout embeds (mutool convert, EPUB to PDF) and DBLaTeX
    // documents are set in; the commonest face the outside corpora drew that nothing bundled matched.
    dir: 'charis-sil',
    family: 'Charis SIL',
    psFamily: 'CharisSIL',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Charis SIL'],
    source: 'Debian fonts-sil-charis 6.101-1 (Charis SIL 6.101), /usr/share/fonts/truetype/charis/',
    styles: ALL_STYLES,
    fileOf: (s) => `CharisSIL-${PS_STYLE[s]}.ttf`,
    psNameOf: (s) => (s === 'regular' ? 'CharisSIL' : `CharisSIL-${PS_STYLE[s]}`),
  },
  {
    // Bitstream Charter, the Type 1 faces of TeX's charter package (CharterBT-Roman …: KOMA-Script,
    // vntex and many LaTeX classes), converted to CFF (scripts/type1-to-otf.py). XCharter keeps its
    // widths; Charis SIL, its extension, does not (17/1000 em apart).
    dir: 'charter',
    family: 'Bitstream Charter',
    psFamily: 'CharterBT',
    class: 'serif',
    licence: 'Bitstream-Charter',
    metricCompatibleWith: ['Bitstream Charter', 'XCharter'],
    source:
      'Debian texlive-fonts-recommended 2022.20230122-3 (CTAN fonts/charter), texmf-dist/fonts/type1/bitstrea/charter/, converted to OpenType CFF',
    styles: ALL_STYLES,
    fileOf: (s) =>
      `${{ regular: 'bchr8a', bold: 'bchb8a', italic: 'bchri8a', 'bold-italic': 'bchbi8a' }[s]}.otf`,
    psNameOf: (s) => `CharterBT-${s === 'regular' ? 'Roman' : PS_STYLE[s]}`,
  },
  {
    // Adobe Utopia, the Type 1 faces Adobe released through TUG (2006) that pdfTeX's utopia and
    // fourier packages embed (Utopia-Regular …), converted to CFF (scripts/type1-to-otf.py) and
    // renamed Nowhere Serif: the licence lets a modified font be redistributed only without the
    // Utopia name (as Heuristica and Erewhon were renamed). Outlines and widths are Adobe's.
    dir: 'nowhere-serif',
    family: 'Nowhere Serif',
    psFamily: 'NowhereSerif',
    class: 'serif',
    licence: 'Adobe-Utopia',
    metricCompatibleWith: ['Utopia', 'Heuristica', 'Nowhere Serif'],
    source:
      'Adobe Utopia from Debian texlive-fonts-recommended 2022.20230122-3 (CTAN fonts/utopia), texmf-dist/fonts/type1/adobe/utopia/, converted to OpenType CFF and renamed',
    styles: ALL_STYLES,
    fileOf: (s) => `NowhereSerif-${PS_STYLE[s]}.otf`,
  },
  {
    // Iwona, a sans of Polish design TeX documents use (the iwona package).
    dir: 'iwona',
    family: 'Iwona',
    psFamily: 'Iwona',
    class: 'sans',
    licence: 'GFL',
    metricCompatibleWith: ['Iwona'],
    source:
      'Debian texlive-fonts-extra 2022.20230122-4 (CTAN iwona), /usr/share/texlive/texmf-dist/fonts/opentype/nowacki/iwona/',
    styles: ALL_STYLES,
    fileOf: (s) => `Iwona-${PS_STYLE[s]}.otf`,
  },
  ...(
    [
      ['Crimson Pro', 'Regular', 'Italic', ALL_STYLES],
      ['Crimson Pro ExtraBold', 'ExtraBold', 'ExtraBoldItalic', ['bold', 'bold-italic']],
    ] as const
  ).map(([family, upright, italic, styles]): FamilyDef => ({
    // Crimson Pro, the Latin of Korean (kotex's oblivoir) and other XeTeX documents; its extra bold
    // weight, oblivoir's bold, is a family of its own as the font names it, with bold styles only.
    dir: 'crimson-pro',
    idBase: family.toLowerCase().replace(/ /g, '-'),
    family,
    psFamily: 'CrimsonPro',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: [family],
    source:
      'Debian texlive-fonts-extra 2022.20230122-4 (CTAN crimsonpro, Crimson Pro 1.001), /usr/share/texlive/texmf-dist/fonts/truetype/public/crimsonpro/',
    styles: [...styles],
    fileOf: (s) => `CrimsonPro-${weightStyleWord(s, upright, italic)}.ttf`,
    psNameOf: (s) => `CrimsonPro-${weightStyleWord(s, upright, italic)}`,
  })),
  {
    // Open Sans, a sans XeTeX, LuaTeX and office documents are set in. Version 1.10; the 3.x
    // releases kept its advance widths.
    dir: 'open-sans',
    family: 'Open Sans',
    psFamily: 'OpenSans',
    class: 'sans',
    licence: 'Apache-2.0',
    metricCompatibleWith: ['Open Sans'],
    source: 'Debian fonts-open-sans 1.11-2 (Open Sans 1.10), /usr/share/fonts/truetype/open-sans/',
    styles: ALL_STYLES,
    fileOf: (s) => `OpenSans-${PS_STYLE[s]}.ttf`,
    psNameOf: (s) => (s === 'regular' ? 'OpenSans' : `OpenSans-${PS_STYLE[s]}`),
  },
  // Free faces documents commonly embed and nothing above matches (office suites, browsers,
  // WeasyPrint and LaTeX's fontspec set text in them): each stands in for itself only.
  {
    dir: 'noto-sans',
    family: 'Noto Sans',
    psFamily: 'NotoSans',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Noto Sans'],
    source: 'Debian fonts-noto-core 20201225-1 (Noto Sans 2.004), /usr/share/fonts/truetype/noto/',
    styles: ALL_STYLES,
    fileOf: (s) => `NotoSans-${PS_STYLE[s]}.ttf`,
  },
  {
    dir: 'lato',
    family: 'Lato',
    psFamily: 'Lato',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Lato'],
    source: 'Debian fonts-lato 2.0-2.1 (Lato 2.007), /usr/share/fonts/truetype/lato/',
    styles: ALL_STYLES,
    fileOf: (s) => `Lato-${PS_STYLE[s]}.ttf`,
  },
  {
    // Adobe names its italics It (SourceSans3-It, -BoldIt).
    dir: 'source-sans-3',
    family: 'Source Sans 3',
    psFamily: 'SourceSans3',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Source Sans 3', 'Source Sans Pro'],
    source: 'npm source-sans 3.52.0 (Adobe, Source Sans 3.052), TTF/',
    styles: ALL_STYLES,
    fileOf: (s) => `SourceSans3-${ADOBE_STYLE[s]}.ttf`,
    psNameOf: (s) => `SourceSans3-${ADOBE_STYLE[s]}`,
  },
  {
    // The text optical size (SourceSerif4-Regular); Caption, SmText, Subhead and Display are not bundled.
    dir: 'source-serif-4',
    family: 'Source Serif 4',
    psFamily: 'SourceSerif4',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Source Serif 4', 'Source Serif Pro'],
    source: 'npm source-serif 4.5.1 (Adobe, Source Serif 4.005), TTF/',
    styles: ALL_STYLES,
    fileOf: (s) => `SourceSerif4-${ADOBE_STYLE[s]}.ttf`,
    psNameOf: (s) => `SourceSerif4-${ADOBE_STYLE[s]}`,
  },
  {
    // Georg Duffner's EB Garamond at its 12 pt design; its bold (128 glyphs) and the 8 pt design are not bundled.
    dir: 'eb-garamond',
    family: 'EB Garamond 12',
    psFamily: 'EBGaramond12',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['EB Garamond'],
    source:
      'Debian fonts-ebgaramond 0.016+git20210310.42d4f9f2-1 (EB Garamond 0.016), /usr/share/fonts/opentype/ebgaramond/',
    styles: ['regular', 'italic'],
    fileOf: (s) => `EBGaramond12-${PS_STYLE[s]}.otf`,
  },
  {
    // GNOME's sans; its thin, light and extra bold are not bundled.
    dir: 'cantarell',
    family: 'Cantarell',
    psFamily: 'Cantarell',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Cantarell'],
    source: 'Debian fonts-cantarell 0.303.1-1 (Cantarell 0.303), /usr/share/fonts/opentype/cantarell/',
    styles: ['regular', 'bold'],
    fileOf: (s) => `Cantarell-${PS_STYLE[s]}.otf`,
  },
  {
    // Libertine's sans companion; it has no bold italic; the keyboard face (LinBiolinum_K) is not bundled.
    dir: 'linux-libertine',
    idBase: 'linux-biolinum',
    family: 'Linux Biolinum O',
    psFamily: 'LinBiolinumO',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Linux Biolinum'],
    source:
      'Debian fonts-linuxlibertine 5.3.0-6, /usr/share/fonts/opentype/linux-libertine/ (GPL-2+ with font exception, or OFL-1.1)',
    styles: ['regular', 'bold', 'italic'],
    fileOf: (s) => `LinBiolinum_${{ regular: 'R', bold: 'RB', italic: 'RI', 'bold-italic': 'RBI' }[s]}.otf`,
    psNameOf: (s) => `LinBiolinumO${{ regular: '', bold: 'B', italic: 'I', 'bold-italic': 'BI' }[s]}`,
  },
  // ParaType's PT Sans and PT Serif (Russian public types: Cyrillic and Latin), by their file names.
  ...(
    [
      ['PT Sans', 'PTSans', 'PTS', 'sans', '2.005'],
      ['PT Serif', 'PTSerif', 'PTF', 'serif', '1.002'],
    ] as const
  ).map(([family, psFamily, file, cls, version]): FamilyDef => ({
    dir: 'paratype',
    idBase: family.toLowerCase().replace(/ /g, '-'),
    family,
    psFamily,
    class: cls,
    licence: 'ParaType-Free-Font',
    metricCompatibleWith: [family],
    source: `Debian fonts-paratype 20181108-3 (${family} ${version}), /usr/share/fonts/truetype/paratype/`,
    styles: ALL_STYLES,
    fileOf: (s) => `${file}${{ regular: 55, italic: 56, bold: 75, 'bold-italic': 76 }[s]}F.ttf`,
  })),
  {
    dir: 'gentium-plus',
    family: 'Gentium Plus',
    psFamily: 'GentiumPlus',
    class: 'serif',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Gentium Plus'],
    source:
      'Debian fonts-sil-gentiumplus 6.101-1 (Gentium Plus 6.101), /usr/share/fonts/truetype/gentiumplus/',
    styles: ALL_STYLES,
    fileOf: (s) => `GentiumPlus-${PS_STYLE[s]}.ttf`,
    psNameOf: (s) => (s === 'regular' ? 'GentiumPlus' : `GentiumPlus-${PS_STYLE[s]}`),
  },
  {
    // Inter 3.019 (static CFF faces); Inter Display and the other weights are not bundled.
    dir: 'inter',
    family: 'Inter',
    psFamily: 'Inter',
    class: 'sans',
    licence: 'OFL-1.1',
    metricCompatibleWith: ['Inter'],
    source: 'Debian fonts-inter 4.0~beta7+ds-1 (Inter 3.019), /usr/share/fonts/opentype/inter/',
    styles: ALL_STYLES,
    fileOf: (s) => `Inter-${PS_STYLE[s]}.otf`,
  },
  {
    // Chinese (simplified and traditional), Japanese kana and kanji, Korean hangul: drawn full-width
    // (1 em) as every CJK font draws them, so it keeps a CJK font's advances for those characters.
    // It has no Latin letters; the matcher weighs it last (see font-match.ts).
    dir: 'droid-sans-fallback',
    family: 'Droid Sans Fallback',
    psFamily: 'DroidSansFallback',
    class: 'sans',
    licence: 'Apache-2.0',
    metricCompatibleWith: [],
    source:
      'Debian fonts-droid-fallback 1:6.0.1r16-1.1 (Android 6.0.1), /usr/share/fonts-droid-fallback/truetype/',
    styles: ['regular'],
    fileOf: () => 'DroidSansFallback.ttf',
    psNameOf: () => 'DroidSansFallback',
    standsInForScript: 'cjk',
  },
  ...latinModern(),
];

/**
 * Latin Modern 2.005, all 72 faces of fonts-lmodern: one family per optical size, as the fonts name
 * themselves ("LM Roman 10", "LM Roman Caps 10"). Each series says which word its files and
 * PostScript names use for a style: the slanted and demi series call their basic face "Regular".
 */
function latinModern(): FamilyDef[] {
  const LM = 'Debian fonts-lmodern 2.005-1 (Latin Modern 2.005)';
  const CM = ['Computer Modern', 'EC', 'cm-super', 'Latin Modern'];
  const ROMAN: Record<FontStyle, string> = {
    regular: 'regular',
    bold: 'bold',
    italic: 'italic',
    'bold-italic': 'bolditalic',
  };
  const OBLIQUE = { ...ROMAN, italic: 'oblique', 'bold-italic': 'boldoblique' };
  // Slanted series: the slanted face is "Regular", the bold slanted "Bold".
  const SLANTED = { ...ROMAN, italic: 'regular', 'bold-italic': 'bold' };
  // Demi series (CMB, CMSSDC: bold, not extended): "Regular" is bold, "Oblique" bold slanted.
  const DEMI = { ...ROMAN, bold: 'regular', 'bold-italic': 'oblique' };
  const R: FontStyle[] = ['regular'];
  const series: {
    dir: string;
    family: string;
    ps: string;
    file: string;
    class: FontClass;
    slanted?: boolean;
    words?: Record<FontStyle, string>;
    sizes: [number, FontStyle[]][];
  }[] = [
    {
      dir: 'lm-roman',
      family: 'LM Roman',
      ps: 'LMRoman',
      file: 'lmroman',
      class: 'serif',
      sizes: [
        [5, ['regular', 'bold']],
        [6, ['regular', 'bold']],
        [7, ['regular', 'bold', 'italic']],
        [8, ['regular', 'bold', 'italic']],
        [9, ['regular', 'bold', 'italic']],
        [10, ALL_STYLES],
        [12, ['regular', 'bold', 'italic']],
        [17, R],
      ],
    },
    {
      dir: 'lm-roman',
      family: 'LM Roman Slanted',
      ps: 'LMRomanSlant',
      file: 'lmromanslant',
      class: 'serif',
      slanted: true,
      words: SLANTED,
      sizes: [
        [8, ['italic']],
        [9, ['italic']],
        [10, ['italic', 'bold-italic']],
        [12, ['italic']],
        [17, ['italic']],
      ],
    },
    ...(
      [
        ['LM Roman Caps', 'LMRomanCaps', 'lmromancaps', OBLIQUE, ['regular', 'italic']],
        ['LM Roman Demi', 'LMRomanDemi', 'lmromandemi', DEMI, ['bold', 'bold-italic']],
        ['LM Roman Dunhill', 'LMRomanDunh', 'lmromandunh', OBLIQUE, ['regular', 'italic']],
        ['LM Roman Unslanted', 'LMRomanUnsl', 'lmromanunsl', ROMAN, R],
      ] as const
    ).map(([family, ps, file, words, styles]) => ({
      dir: 'lm-roman',
      family,
      ps,
      file,
      class: 'serif' as const,
      words,
      sizes: [[10, [...styles]]] as [number, FontStyle[]][],
    })),
    {
      dir: 'lm-sans',
      family: 'LM Sans',
      ps: 'LMSans',
      file: 'lmsans',
      class: 'sans',
      words: OBLIQUE,
      sizes: [
        [8, ['regular', 'italic']],
        [9, ['regular', 'italic']],
        [10, ALL_STYLES],
        [12, ['regular', 'italic']],
        [17, ['regular', 'italic']],
      ],
    },
    {
      dir: 'lm-sans',
      family: 'LM Sans Demi Cond',
      ps: 'LMSansDemiCond',
      file: 'lmsansdemicond',
      class: 'sans',
      words: DEMI,
      sizes: [[10, ['bold', 'bold-italic']]],
    },
    {
      dir: 'lm-sans',
      family: 'LM Sans Quotation',
      ps: 'LMSansQuot',
      file: 'lmsansquot',
      class: 'sans',
      words: OBLIQUE,
      sizes: [[8, ALL_STYLES]],
    },
    {
      dir: 'lm-mono',
      family: 'LM Mono',
      ps: 'LMMono',
      file: 'lmmono',
      class: 'mono',
      sizes: [
        [8, R],
        [9, R],
        [10, ['regular', 'italic']],
        [12, R],
      ],
    },
    ...(
      [
        ['LM Mono Slanted', 'LMMonoSlant', 'lmmonoslant', SLANTED, ['italic'], true],
        ['LM Mono Caps', 'LMMonoCaps', 'lmmonocaps', OBLIQUE, ['regular', 'italic'], false],
        ['LM Mono Light', 'LMMonoLt', 'lmmonolt', OBLIQUE, ALL_STYLES, false],
        ['LM Mono Light Cond', 'LMMonoLtCond', 'lmmonoltcond', OBLIQUE, ['regular', 'italic'], false],
        ['LM Mono Prop', 'LMMonoProp', 'lmmonoprop', OBLIQUE, ['regular', 'italic'], false],
        ['LM Mono Prop Light', 'LMMonoPropLt', 'lmmonoproplt', OBLIQUE, ALL_STYLES, false],
      ] as const
    ).map(([family, ps, file, words, styles, slanted]) => ({
      dir: 'lm-mono',
      family,
      ps,
      file,
      // The proportional "typewriter" (CMVTT) is not monospaced.
      class: family.startsWith('LM Mono Prop') ? ('serif' as const) : ('mono' as const),
      slanted,
      words,
      sizes: [[10, [...styles]]] as [number, FontStyle[]][],
    })),
  ];
  return series.flatMap((s) =>
    s.sizes.map(([size, styles]): FamilyDef => {
      const word = (st: FontStyle) => (s.words ?? ROMAN)[st];
      const psWord = (st: FontStyle) =>
        word(st).replace(/bold|italic|oblique|regular/g, (w) => w[0].toUpperCase() + w.slice(1));
      return {
        dir: s.dir,
        family: `${s.family} ${size}`,
        psFamily: `${s.ps}${size}`,
        class: s.class,
        licence: 'GFL',
        metricCompatibleWith: CM,
        source: LM,
        styles,
        fileOf: (st) => `${s.file}${size}-${word(st)}.otf`,
        psNameOf: (st) => `${s.ps}${size}-${psWord(st)}`,
        designSize: size,
        slanted: s.slanted === true,
      };
    }),
  );
}

export const BUNDLED_FACES: readonly BundledFace[] = FAMILIES.flatMap((f) =>
  f.styles.map((style): BundledFace => ({
    origin: 'bundled',
    id: f.designSize
      ? `${f.family.toLowerCase().replace(/ /g, '-')}${f.slanted ? (style === 'bold-italic' ? '-bold' : '') : `-${style}`}`
      : `${f.idBase ?? f.dir}-${style}`,
    family: f.family,
    style,
    bold: style === 'bold' || style === 'bold-italic',
    italic: style === 'italic' || style === 'bold-italic',
    class: f.class,
    postscriptName: f.psNameOf ? f.psNameOf(style) : `${f.psFamily}-${PS_STYLE[style]}`,
    file: pathOf(`${f.dir}/${f.fileOf(style)}.br`),
    licence: f.licence,
    licenceFile: pathOf(`${f.dir}/LICENSE`),
    metricCompatibleWith: f.metricCompatibleWith,
    metricCompatible: f.metricCompatibleWith.length > 0,
    source: f.source,
    designSize: f.designSize ?? null,
    slanted: f.slanted === true,
    standsInForScript: f.standsInForScript ?? null,
  })),
);

/** The font file of a face as distributed (TTF or OTF bytes), read from its stored `.br`. */
export function fontBytes(face: BundledFace): Uint8Array {
  return new Uint8Array(brotliDecompressSync(readFileSync(face.file)));
}

/** The bundled face with this id, or undefined. */
export function faceById(id: string): BundledFace | undefined {
  return BUNDLED_FACES.find((f) => f.id === id);
}

/** The bundled faces of one family ("Liberation Sans"), in style order. */
export function facesOfFamily(family: string): BundledFace[] {
  return BUNDLED_FACES.filter((f) => f.family === family);
}
