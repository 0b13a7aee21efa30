// The bundled open fonts (fonts/ at the repository root; where each came from: fonts/README.md).
// They stand in for common document fonts when a correction needs a glyph the document's own font
// does not have (tier 4, "matched font"): Liberation Sans/Serif/Mono have the advance widths of
// Arial/Helvetica, Times New Roman/Times and Courier New/Courier; Carlito those of Calibri; Caladea
// those of Cambria. DejaVu Sans matches nothing but itself (and Bitstream Vera): it is the last resort.
import { fileURLToPath } from 'node:url';

export type FontClass = 'sans' | 'serif' | 'mono';
export type FontStyle = 'regular' | 'bold' | 'italic' | 'bold-italic';

export interface BundledFace {
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
  /** Absolute path of the TTF file. */
  file: string;
  /** SPDX-style licence id and the licence file beside the font. */
  licence: 'OFL-1.1' | 'Bitstream-Vera';
  licenceFile: string;
  /** Families whose advance widths this face reproduces (empty: none but its own). */
  metricCompatibleWith: string[];
  /** True when the face has another family's widths (false for the DejaVu last resort). */
  metricCompatible: boolean;
  /** Where the file came from. */
  source: string;
}

const FONTS_DIR = new URL('../../fonts/', import.meta.url);
const pathOf = (relative: string) => fileURLToPath(new URL(relative, FONTS_DIR));

interface FamilyDef {
  dir: string;
  family: string;
  psFamily: string;
  class: FontClass;
  licence: BundledFace['licence'];
  metricCompatibleWith: string[];
  source: string;
  styles: FontStyle[];
  /** File name (without .ttf) of each style. */
  fileOf: (style: FontStyle) => string;
}

const PS_STYLE: Record<FontStyle, string> = {
  regular: 'Regular',
  bold: 'Bold',
  italic: 'Italic',
  'bold-italic': 'BoldItalic',
};
const ALL_STYLES: FontStyle[] = ['regular', 'bold', 'italic', 'bold-italic'];
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
    fileOf: (s) => `LiberationSans-${PS_STYLE[s]}`,
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
    fileOf: (s) => `LiberationSerif-${PS_STYLE[s]}`,
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
    fileOf: (s) => `LiberationMono-${PS_STYLE[s]}`,
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
    fileOf: (s) => `Carlito-${PS_STYLE[s]}`,
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
    fileOf: (s) => `Caladea-${PS_STYLE[s]}`,
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
    fileOf: (s) => (s === 'regular' ? 'DejaVuSans' : 'DejaVuSans-Bold'),
  },
];

export const BUNDLED_FACES: readonly BundledFace[] = FAMILIES.flatMap((f) =>
  f.styles.map((style): BundledFace => ({
    id: `${f.dir}-${style}`,
    family: f.family,
    style,
    bold: style === 'bold' || style === 'bold-italic',
    italic: style === 'italic' || style === 'bold-italic',
    class: f.class,
    postscriptName: f.psFamily === 'DejaVuSans' ? f.fileOf(style) : `${f.psFamily}-${PS_STYLE[style]}`,
    file: pathOf(`${f.dir}/${f.fileOf(style)}.ttf`),
    licence: f.licence,
    licenceFile: pathOf(`${f.dir}/LICENSE`),
    metricCompatibleWith: f.metricCompatibleWith,
    metricCompatible: f.metricCompatibleWith.length > 0,
    source: f.source,
  })),
);

/** The bundled face with this id, or undefined. */
export function faceById(id: string): BundledFace | undefined {
  return BUNDLED_FACES.find((f) => f.id === id);
}

/** The bundled faces of one family ("Liberation Sans"), in style order. */
export function facesOfFamily(family: string): BundledFace[] {
  return BUNDLED_FACES.filter((f) => f.family === family);
}
