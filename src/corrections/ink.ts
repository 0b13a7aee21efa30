// Glyph ink boxes from the glyph outlines MuPDF draws: the page is run through a device that sees
// every text object, and the glyphs whose origins are asked for are bounded one by one
// (fz_bound_text: the glyph's own outline box, not its advance). Used for the declared box, so an
// overhanging glyph (italic f, a negative side bearing) is inside the region it changes.
import { mupdf } from '../pdf/mupdf-adapter.ts';

/** Render-independent boxes in page space (points), one per glyph found near an asked origin. */
export function glyphInkBoxes(
  page: mupdf.Page,
  origins: [number, number][],
  tol: number,
): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  if (!origins.length) return out;
  const near = (x: number, y: number) =>
    origins.some((o) => Math.abs(o[0] - x) <= tol && Math.abs(o[1] - y) <= tol);
  // Origins grown by a generous reach: a text object whose bounds miss them all is not walked.
  const reach = 4 * tol + 200;
  const xs = origins.map((o) => o[0]);
  const ys = origins.map((o) => o[1]);
  const area = [
    Math.min(...xs) - reach,
    Math.min(...ys) - reach,
    Math.max(...xs) + reach,
    Math.max(...ys) + reach,
  ];
  const collect = (text: mupdf.Text, ctm: mupdf.Matrix) => {
    const b = text.getBounds(null as unknown as mupdf.StrokeState, ctm);
    if (b[2] < area[0] || b[0] > area[2] || b[3] < area[1] || b[1] > area[3]) return;
    text.walk({
      showGlyph(font: mupdf.Font, trm: mupdf.Matrix, glyph: number, unicode: number, wmode: number) {
        const x = trm[4] * ctm[0] + trm[5] * ctm[2] + ctm[4];
        const y = trm[4] * ctm[1] + trm[5] * ctm[3] + ctm[5];
        if (!near(x, y)) return;
        const one = new mupdf.Text();
        try {
          one.showGlyph(font, trm, glyph, unicode, wmode);
          const r = one.getBounds(null as unknown as mupdf.StrokeState, ctm);
          if (r[2] > r[0] && r[3] > r[1]) out.push([r[0], r[1], r[2], r[3]]);
        } finally {
          one.destroy();
        }
      },
    });
  };
  const device = new mupdf.Device({
    fillText: (text: mupdf.Text, ctm: mupdf.Matrix) => collect(text, ctm),
    strokeText: (text: mupdf.Text, _s: mupdf.StrokeState, ctm: mupdf.Matrix) => collect(text, ctm),
    clipText: (text: mupdf.Text, ctm: mupdf.Matrix) => collect(text, ctm),
    clipStrokeText: (text: mupdf.Text, _s: mupdf.StrokeState, ctm: mupdf.Matrix) => collect(text, ctm),
  });
  try {
    page.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  return out;
}
