// Whether the glyphs a correction draws or moves draw over the glyphs beside them. Inside the
// declared box the render comparison cannot tell a letter drawn over its neighbour from a letter
// set beside it, and the fit rule that keeps them apart is the engine's own arithmetic. This check
// reads the edited page instead: every glyph MuPDF draws near the new ones is rasterised on its
// own, from its outline, and the ink two glyphs share is counted pixel by pixel. Glyph boxes would
// not do: an italic f's hook or a j's tail reaches over the next letter's box without touching it.
// Some designs touch by themselves (connected scripts, tight kerning, a serif meeting a serif), so
// the limit is what the line's own glyphs already share in the input, plus a little.
import { mupdf } from '../../pdf/mupdf-adapter.ts';
import { around, nearAny, pageGlyphs, type PageGlyph } from './ink.ts';

type Point = [number, number];
type Rect = [number, number, number, number];

/** Rasterising resolution: pixels per em of the line's size. */
export const PX_PER_EM = 48;
/** Shared ink (pixels at PX_PER_EM) any two glyphs may have: antialiased edges that meet. */
export const SHARED_INK_FLOOR_PX = 12;

export interface InkCollision {
  /** The most ink a drawn glyph shares with another (pixels at PX_PER_EM per em). */
  worst: number;
  /** Its two characters, or null when nothing is shared. */
  pair: string | null;
}

/** One glyph's coverage over `rect` (points) at `scale` pixels per point: true where inked. */
function coverage(g: PageGlyph, rect: Rect, scale: number, w: number, h: number): Uint8Array {
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, w, h], false);
  try {
    pix.clear(255);
    const device = new mupdf.DrawDevice([scale, 0, 0, scale, -rect[0] * scale, -rect[1] * scale], pix);
    device.fillText(g.text, g.ctm, mupdf.ColorSpace.DeviceGray, [0], 1);
    device.close();
    device.destroy();
    const stride = pix.getStride();
    const px = pix.getPixels();
    const out = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[y * w + x] = px[y * stride + x] < 128 ? 1 : 0;
    return out;
  } finally {
    pix.destroy();
  }
}

/** Pixels both glyphs ink, over the overlap of their outline boxes. */
function sharedInk(a: PageGlyph, b: PageGlyph, scale: number): number {
  const r: Rect = [
    Math.max(a.box[0], b.box[0]),
    Math.max(a.box[1], b.box[1]),
    Math.min(a.box[2], b.box[2]),
    Math.min(a.box[3], b.box[3]),
  ];
  if (r[2] <= r[0] || r[3] <= r[1]) return 0;
  const w = Math.min(400, Math.ceil((r[2] - r[0]) * scale));
  const h = Math.min(400, Math.ceil((r[3] - r[1]) * scale));
  if (w < 1 || h < 1) return 0;
  const ca = coverage(a, r, scale, w, h);
  const cb = coverage(b, r, scale, w, h);
  let n = 0;
  for (let i = 0; i < ca.length; i++) n += ca[i]! & cb[i]!;
  return n;
}

/** Marks sit on their letters by design: a pair with one is not a collision. */
const MARK = /\p{M}/u;

/**
 * The most ink a glyph drawn at one of `drawn` (points) shares with any other glyph near it, and
 * with `drawn` empty, the most any two glyphs near `near` share (the line's own touching).
 */
export function worstSharedInk(
  page: mupdf.Page,
  near: Point[],
  drawn: Point[],
  tol: number,
  emPts: number,
): InkCollision {
  if (!near.length || !(emPts > 0)) return { worst: 0, pair: null };
  const glyphs = pageGlyphs(page, around(near, 2 * emPts), () => true, false);
  try {
    const scale = PX_PER_EM / emPts;
    const marked = glyphs.map((g) => nearAny(drawn, g.origin, tol));
    let worst = 0;
    let pair: string | null = null;
    for (let i = 0; i < glyphs.length; i++)
      for (let j = i + 1; j < glyphs.length; j++) {
        if (drawn.length && !marked[i] && !marked[j]) continue;
        const a = glyphs[i]!;
        const b = glyphs[j]!;
        if (a.box[0] >= b.box[2] || b.box[0] >= a.box[2] || a.box[1] >= b.box[3] || b.box[1] >= a.box[3])
          continue;
        const ca = String.fromCodePoint(Math.max(0, a.unicode));
        const cb = String.fromCodePoint(Math.max(0, b.unicode));
        if (MARK.test(ca) || MARK.test(cb)) continue;
        const n = sharedInk(a, b, scale);
        if (n > worst) {
          worst = n;
          pair = `“${ca}” and “${cb}”`;
        }
      }
    return { worst, pair };
  } finally {
    for (const g of glyphs) g.text.destroy();
  }
}
