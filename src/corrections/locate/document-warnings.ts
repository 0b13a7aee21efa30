// Warnings about the document rather than the correction: a font not embedded, text found only in
// the fonts' own reading, a CropBox inside a larger MediaBox, a signed document.
import { shownBox, type mupdf } from '../../pdf/mupdf-adapter.ts';
import type { FontInfo } from './fonts.ts';

const round = (v: number) => Math.round(v * 1000) / 1000;

export const codeReadingWarning = (font: FontInfo, find: string) =>
  `“${find}” is in the page's text as pdftotext reads it, not as MuPDF does: the codes of ${font.baseFont ? `the font ${font.baseFont}` : 'a font of the page'} read through the PDF's own maps (the whole ToUnicode stream, the encoding, a code nothing maps read as itself), letter-spaced words read whole. MuPDF, and readers like it, do not find “${find}”; the text check read the corrected page the same way.`;

export const notEmbedded = (font: FontInfo) =>
  `The font ${font.baseFont} is not embedded: the new characters are drawn by each viewer's own font, as the rest of the text is.`;

/**
 * A page whose CropBox lies inside a larger MediaBox: viewers show the crop, docfix works on the whole
 * MediaBox (page-frame.ts), as printers and poppler do. Say so, and where the crop starts, so a box
 * read against a viewer's picture is not misplaced.
 */
export function cropBoxWarnings(doc: mupdf.PDFDocument, page: mupdf.PDFPage): string[] {
  const shown = shownBox(doc, page);
  if (!shown) return [];
  const media = String(page.getObject().getInheritable('MediaBox'));
  return [
    `The page shows its CropBox ${shown.written} of a larger MediaBox ${media}: boxes and renders cover the whole MediaBox, as printers and poppler (pdftoppm, pdftotext) see the page; a viewer shows only the CropBox, which starts ${round(shown.box[0])} pt from the left and ${round(shown.box[1])} pt from the top.`,
  ];
}

export function signatureWarnings(doc: mupdf.PDFDocument): string[] {
  const signed = signedFields(doc);
  if (!signed.names.length && !(signed.sigFlags & 1)) return [];
  return [
    `The document is signed (${signed.names.length ? `signature field(s) ${signed.names.map((n) => `“${n}”`).join(', ')}` : 'AcroForm SigFlags'}): the correction is saved as an incremental update, so the signed revision stays byte-exact, but viewers will show the signature as covering an earlier revision — the document as modified after signing.`,
  ];
}

/** Names of signed signature fields (FT /Sig with a value), read from the AcroForm field tree. */
export function signedFields(doc: mupdf.PDFDocument): { names: string[]; sigFlags: number } {
  const form = doc.getTrailer().get('Root').get('AcroForm');
  if (!form.isDictionary()) return { names: [], sigFlags: 0 };
  const names: string[] = [];
  const sigFlags = form.get('SigFlags').isNumber() ? form.get('SigFlags').asNumber() : 0;
  const walk = (fields: mupdf.PDFObject, inheritedType: string, prefix: string, depth: number) => {
    if (!fields.isArray() || depth > 16) return;
    for (let i = 0; i < fields.length && names.length < 20; i += 1) {
      const f = fields.get(i);
      if (!f.isDictionary()) continue;
      const ft = f.get('FT').isName() ? f.get('FT').asName() : inheritedType;
      const t = f.get('T').isString() ? f.get('T').asString() : '';
      const name = prefix && t ? `${prefix}.${t}` : t || prefix;
      if (ft === 'Sig' && !f.get('V').isNull()) names.push(name || '(unnamed)');
      walk(f.get('Kids'), ft, name, depth + 1);
    }
  };
  walk(form.get('Fields'), '', '', 0);
  return { names, sigFlags };
}
