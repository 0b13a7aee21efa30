// Scanned pages made on the spot for tier-5 tests: lines of Times set on a page, rendered at a scan
// resolution (grey, or RGB on a cream paper), and the pixels placed as the page's only image —
// JPEG-encoded like a scanner's output, or kept lossless. What the tests correct is in the pixels only.
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { takeBytes } from '../../../src/corrections/locate/pdf-bytes.ts';

export interface ScanOptions {
  dpi?: number;
  colour?: boolean;
  jpeg?: number | null;
  size?: number;
  /** Content drawn over the scan (a stamp, a line), in page points. */
  over?: string;
  /** A 1-bit stencil (ImageMask) painted in this RGB colour instead of an image (a JBIG2-like scan). */
  stencil?: [number, number, number];
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
    const ref = o.stencil
      ? stencilOf(scan, pixmap)
      : scan.addImage(o.jpeg ? new mupdf.Image(pixmap.asJPEG(o.jpeg)) : new mupdf.Image(pixmap));
    const paint = o.stencil ? `${o.stencil.join(' ')} rg ` : '';
    const sres = scan.newDictionary();
    const xo = scan.newDictionary();
    xo.put('Im0', ref);
    sres.put('XObject', xo);
    scan.insertPage(
      -1,
      scan.addPage(
        [0, 0, 400, height],
        0,
        sres,
        `q ${paint}400 0 0 ${height} 0 0 cm /Im0 Do Q\n${o.over ?? ''}`,
      ),
    );
    pixmap.destroy();
    return takeBytes(scan.saveToBuffer('compress'));
  } finally {
    text.destroy();
    scan.destroy();
  }
}

/** A grey render thresholded into a 1-bit image mask (sample 0 paints, as ImageMask reads it). */
function stencilOf(doc: mupdf.PDFDocument, pixmap: mupdf.Pixmap): mupdf.PDFObject {
  const w = pixmap.getWidth();
  const h = pixmap.getHeight();
  const stride = pixmap.getStride();
  const n = pixmap.getNumberOfComponents();
  const px = pixmap.getPixels();
  const rowBytes = Math.ceil(w / 8);
  const bits = new Uint8Array(rowBytes * h).fill(0xff);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (px[y * stride + x * n] < 128) bits[y * rowBytes + (x >> 3)] &= ~(0x80 >> (x & 7));
  const dict = doc.newDictionary();
  dict.put('Type', doc.newName('XObject'));
  dict.put('Subtype', doc.newName('Image'));
  dict.put('Width', w);
  dict.put('Height', h);
  dict.put('ImageMask', true);
  dict.put('BitsPerComponent', 1);
  return doc.addStream(bits, dict);
}
