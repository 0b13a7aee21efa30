// Glyph ink boxes from the glyph outlines MuPDF draws: the page is run through a device that sees
// every text object, and the glyphs whose origins are asked for are bounded one by one
// (fz_bound_text: the glyph's own outline box, not its advance). Used for the declared box, so an
// overhanging glyph (italic f, a negative side bearing) is inside the region it changes, and by the
// ink check (ink-collision.ts), which rasterises glyphs one at a time.
import { mupdf } from '../../pdf/mupdf-adapter.ts';

type Rect = [number, number, number, number];

/** One glyph a page draws, as a text object of its own, with its origin and outline box (points). */
export interface PageGlyph {
  text: mupdf.Text;
  ctm: mupdf.Matrix;
  origin: [number, number];
  box: Rect;
  unicode: number;
}

/** Whether `p` lies within `tol` points (on each axis) of one of `origins`. */
export const nearAny = (origins: [number, number][], p: [number, number], tol: number) =>
  origins.some((o) => Math.abs(o[0] - p[0]) <= tol && Math.abs(o[1] - p[1]) <= tol);

/** The area `points` span, grown by `reach` points. */
export function around(points: [number, number][], reach: number): Rect {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  return [Math.min(...xs) - reach, Math.min(...ys) - reach, Math.max(...xs) + reach, Math.max(...ys) + reach];
}

/**
 * Every inked glyph the page draws whose origin is inside `area` and for which `wanted` holds,
 * each as a text of its own (the caller destroys them). Text objects whose bounds miss the area are
 * not walked. `clips`: text drawn as a clipping path counts too.
 */
export function pageGlyphs(
  page: mupdf.Page,
  area: Rect,
  wanted: (x: number, y: number) => boolean,
  clips: boolean,
): PageGlyph[] {
  const out: PageGlyph[] = [];
  const collect = (text: mupdf.Text, ctm: mupdf.Matrix) => {
    const b = text.getBounds(null as unknown as mupdf.StrokeState, ctm);
    if (b[2] < area[0] || b[0] > area[2] || b[3] < area[1] || b[1] > area[3]) return;
    text.walk({
      showGlyph(font: mupdf.Font, trm: mupdf.Matrix, glyph: number, unicode: number, wmode: number) {
        const x = trm[4] * ctm[0] + trm[5] * ctm[2] + ctm[4];
        const y = trm[4] * ctm[1] + trm[5] * ctm[3] + ctm[5];
        if (x < area[0] || x > area[2] || y < area[1] || y > area[3] || !wanted(x, y)) return;
        const one = new mupdf.Text();
        one.showGlyph(font, trm, glyph, unicode, wmode);
        const r = one.getBounds(null as unknown as mupdf.StrokeState, ctm);
        if (r[2] > r[0] && r[3] > r[1])
          out.push({ text: one, ctm, origin: [x, y], box: [r[0], r[1], r[2], r[3]], unicode });
        else one.destroy();
      },
    });
  };
  const device = new mupdf.Device({
    fillText: (text: mupdf.Text, ctm: mupdf.Matrix) => collect(text, ctm),
    strokeText: (text: mupdf.Text, _s: mupdf.StrokeState, ctm: mupdf.Matrix) => collect(text, ctm),
    ...(clips && {
      clipText: (text: mupdf.Text, ctm: mupdf.Matrix) => collect(text, ctm),
      clipStrokeText: (text: mupdf.Text, _s: mupdf.StrokeState, ctm: mupdf.Matrix) => collect(text, ctm),
    }),
  });
  try {
    page.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  return out;
}

/** Render-independent boxes in page space (points), one per glyph found near an asked origin. */
export function glyphInkBoxes(page: mupdf.Page, origins: [number, number][], tol: number): Rect[] {
  if (!origins.length) return [];
  // Origins grown by a generous reach: a text object whose bounds miss them all is not walked.
  const near = (x: number, y: number) => nearAny(origins, [x, y], tol);
  const glyphs = pageGlyphs(page, around(origins, 4 * tol + 200), near, true);
  for (const g of glyphs) g.text.destroy();
  return glyphs.map((g) => g.box);
}
