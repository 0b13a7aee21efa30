// Tier 2, encoding extension: the embedded font program has the glyph but the PDF font has no code
// for it. A copy of the font dictionary for this page adds one (Differences for simple fonts, the
// CID itself for Identity-encoded CID fonts) with its width and a ToUnicode entry.
import type { mupdf } from '../pdf/mupdf-adapter.ts';
import type { FontInfo } from './fonts.ts';
import type { Interpretation } from './text-interpreter.ts';
import type { ChangedObject } from './write.ts';

export interface Extension {
  /** The new font dictionary (indirect) to draw with. */
  ref: mupdf.PDFObject;
  /** Font facts with the added codes (widths), for measuring. */
  font: FontInfo;
  codes: Map<string, number>;
  changed: ChangedObject[];
}

export interface ExtensionRefusal {
  refused: string;
  code: string;
  evidence: Record<string, unknown>;
}

export function extendEncoding(
  _doc: mupdf.PDFDocument,
  font: FontInfo,
  missing: string[],
  _getProgram: () => mupdf.Font | null,
  _interp: Interpretation,
): Extension | ExtensionRefusal {
  return {
    refused: `Encoding extension is not built for ${font.baseFont}.`,
    code: 'not_available',
    evidence: { missing },
  };
}
