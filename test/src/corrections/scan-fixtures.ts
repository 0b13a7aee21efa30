// Scanned pages made on the spot for tier-5 tests: lines of Times set on a page, rendered at a scan
// resolution (grey, or RGB on a cream paper), and the pixels placed as the page's only image —
// JPEG-encoded like a scanner's output, or kept lossless. What the tests correct is in the pixels only.
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { takeBytes } from '../../../src/corrections/pdf-bytes.ts';

export interface ScanOptions {
  dpi?: number;
  colour?: boolean;
  jpeg?: number | null;
  size?: number;
  /** Content drawn over the scan (a stamp, a line), in page points. */
  over?: string;
}

export function scannedPage(lines: string[], o: ScanOptions = {}): Uint8Array {
  const dpi = o.dpi ?? 300;
  const size = o.size ?? 14;
  const text = new mupdf.PDFDocument();
  const scan = new mupdf.PDFDocument();
  try {
    const font = text.addSimpleFont(new mupdf.Font('Times-Roman'));
    const res = text.newDictionary();
    const fonts = text.newDictionary();
    fonts.put('F1', font);
    res.put('Font', fonts);
    const height = 60 + lines.length * size * 2;
    const paper = o.colour ? '0.97 0.95 0.88 rg 0 0 400 ' + height + ' re f 0.1 0.1 0.2 rg ' : '';
    const content =
      paper +
      lines.map((l, i) => `BT /F1 ${size} Tf 30 ${height - 40 - i * size * 2} Td (${l}) Tj ET`).join('\n');
    text.insertPage(-1, text.addPage([0, 0, 400, height], 0, res, content));
    const page = text.loadPage(0);
    const cs = o.colour ? mupdf.ColorSpace.DeviceRGB : mupdf.ColorSpace.DeviceGray;
    const pixmap = page.toPixmap(mupdf.Matrix.scale(dpi / 72, dpi / 72), cs, false);
    const image = o.jpeg ? new mupdf.Image(pixmap.asJPEG(o.jpeg)) : new mupdf.Image(pixmap);
    const ref = scan.addImage(image);
    const sres = scan.newDictionary();
    const xo = scan.newDictionary();
    xo.put('Im0', ref);
    sres.put('XObject', xo);
    scan.insertPage(
      -1,
      scan.addPage([0, 0, 400, height], 0, sres, `q 400 0 0 ${height} 0 0 cm /Im0 Do Q\n${o.over ?? ''}`),
    );
    pixmap.destroy();
    return takeBytes(scan.saveToBuffer('compress'));
  } finally {
    text.destroy();
    scan.destroy();
  }
}
