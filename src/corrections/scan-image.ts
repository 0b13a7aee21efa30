// The scan behind a scanned page: which image XObject draws it, its pixels at their own resolution
// turned upright as the page shows them, and the way back from that upright raster to the image's
// own pixels and to the page's user space, so a patch can be drawn exactly over some of the scan's
// pixels while the scan itself stays byte-identical (tier 5, docs/engine.md "Scanned pages").
import { mupdf } from '../pdf/mupdf-adapter.ts';
import type { ScanRaster } from './pixel-patch.ts';

type Box = [number, number, number, number];
type Mat = [number, number, number, number, number, number];

/** How a pixel of the upright raster maps to the image's own pixel: u = ui·i + uj·j + u0, v likewise. */
interface Orientation {
  ui: number;
  uj: number;
  u0: number;
  vi: number;
  vj: number;
  v0: number;
}

export interface ScanImage {
  /** The image XObject's resource name on the page and its object (its colour space is reused). */
  name: string;
  obj: mupdf.PDFObject;
  /** Image size in its own pixels. */
  width: number;
  height: number;
  bitsPerComponent: number;
  /** Placement in the page's default user space (PDF convention: unit square, row 0 at the top). */
  userMatrix: Mat;
  /** Placement in MuPDF's device space (points, top-left origin, page rotation applied). */
  deviceMatrix: Mat;
  /** The scan's pixels turned upright (as the page is displayed), at the image's own resolution. */
  raster: ScanRaster;
  /** Pixels per point of the upright raster (image resolution / 72). */
  pixelsPerPoint: number;
  orientation: Orientation;
}

/** Share of the page a drawn image must cover to be taken as the page's scan. */
const MIN_COVER = 0.5;

const near = (a: number, b: number) => Math.abs(a - b) < 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

function mul(m: Mat, n: Mat): Mat {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

function invert(m: Mat): Mat {
  const det = m[0] * m[3] - m[1] * m[2];
  return [
    m[3] / det,
    -m[1] / det,
    -m[2] / det,
    m[0] / det,
    (m[2] * m[5] - m[3] * m[4]) / det,
    (m[1] * m[4] - m[0] * m[5]) / det,
  ];
}

const apply = (m: Mat, x: number, y: number): [number, number] => [
  x * m[0] + y * m[2] + m[4],
  x * m[1] + y * m[3] + m[5],
];

/** MuPDF draws an image's row 0 at unit y = 0; PDF's image space has it at y = 1. */
const FLIP: Mat = [1, 0, 0, -1, 0, 1];

/**
 * The upright orientation of an image drawn with `ctm` (device space), or null when the image is
 * skewed or turned by other than a quarter turn (not patched: its pixels do not sit on the grid).
 */
function orientationOf(
  ctm: Mat,
  width: number,
  height: number,
): { o: Orientation; w: number; h: number } | null {
  const [a, b, c, d] = ctm;
  if (near(b, 0) && near(c, 0) && !near(a, 0) && !near(d, 0)) {
    return {
      o: {
        ui: a > 0 ? 1 : -1,
        uj: 0,
        u0: a > 0 ? 0 : width - 1,
        vi: 0,
        vj: d > 0 ? 1 : -1,
        v0: d > 0 ? 0 : height - 1,
      },
      w: width,
      h: height,
    };
  }
  if (near(a, 0) && near(d, 0) && !near(b, 0) && !near(c, 0)) {
    // Device x follows the image's rows, device y its columns.
    return {
      o: {
        ui: 0,
        uj: b > 0 ? 1 : -1,
        u0: b > 0 ? 0 : width - 1,
        vi: c > 0 ? 1 : -1,
        vj: 0,
        v0: c > 0 ? 0 : height - 1,
      },
      w: height,
      h: width,
    };
  }
  return null;
}

/** The image pixel (u, v) an upright pixel (i, j) shows. */
export function sourcePixel(o: Orientation, i: number, j: number): [number, number] {
  return [o.ui * i + o.uj * j + o.u0, o.vi * i + o.vj * j + o.v0];
}

/** A box of upright pixels as a box of the image's own pixels (x1/y1 exclusive both). */
export function sourceBox(scan: ScanImage, box: Box): Box {
  const a = sourcePixel(scan.orientation, box[0], box[1]);
  const b = sourcePixel(scan.orientation, box[2] - 1, box[3] - 1);
  return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]) + 1, Math.max(a[1], b[1]) + 1];
}

/** A box in device points (top-left origin, rotation applied) as upright raster pixels, outward. */
export function uprightBoxOfDevice(scan: ScanImage, box: Box): Box {
  const inv = invert(scan.deviceMatrix);
  const uv = [
    apply(inv, box[0], box[1]),
    apply(inv, box[2], box[1]),
    apply(inv, box[0], box[3]),
    apply(inv, box[2], box[3]),
  ].map(([s, t]) => [s * scan.width, t * scan.height] as [number, number]);
  // Image-pixel corners to upright corners: invert the orientation (a signed permutation).
  const o = scan.orientation;
  const upright = uv.map(([u, v]) => {
    // u = ui·i + uj·j + u0 with exactly one of ui, uj non-zero (same for v); corners sit on pixel
    // edges, so a flipped axis maps edge x to (size - x).
    const fromU =
      o.ui !== 0
        ? { axis: 'i', val: o.ui > 0 ? u : scan.width - u }
        : { axis: 'j', val: o.uj > 0 ? u : scan.width - u };
    const fromV =
      o.vi !== 0
        ? { axis: 'i', val: o.vi > 0 ? v : scan.height - v }
        : { axis: 'j', val: o.vj > 0 ? v : scan.height - v };
    const i = fromU.axis === 'i' ? fromU.val : fromV.val;
    const j = fromU.axis === 'j' ? fromU.val : fromV.val;
    return [i, j];
  });
  const is = upright.map((p) => p[0]);
  const js = upright.map((p) => p[1]);
  return [
    Math.max(0, Math.floor(Math.min(...is))),
    Math.max(0, Math.floor(Math.min(...js))),
    Math.min(scan.raster.width, Math.ceil(Math.max(...is))),
    Math.min(scan.raster.height, Math.ceil(Math.max(...js))),
  ];
}

/** An upright raster box as a box in render pixels at `dpi` (outward). */
export function renderBoxOfUpright(scan: ScanImage, box: Box, dpi: number): Box {
  const src = sourceBox(scan, box);
  const corners = [
    [src[0], src[1]],
    [src[2], src[1]],
    [src[0], src[3]],
    [src[2], src[3]],
  ].map(([u, v]) => apply(scan.deviceMatrix, u / scan.width, v / scan.height));
  const s = dpi / 72;
  const xs = corners.map((p) => p[0] * s);
  const ys = corners.map((p) => p[1] * s);
  return [
    Math.floor(Math.min(...xs)),
    Math.floor(Math.min(...ys)),
    Math.ceil(Math.max(...xs)),
    Math.ceil(Math.max(...ys)),
  ];
}

/** Finds the image that is the page's scan among the resource names the page draws directly. */
function imageObject(
  page: mupdf.PDFPage,
  width: number,
  height: number,
): { name: string; obj: mupdf.PDFObject } | null {
  const xobjects = page.getObject().getInheritable('Resources').get('XObject');
  if (!xobjects.isDictionary()) return null;
  let found: { name: string; obj: mupdf.PDFObject } | null = null;
  xobjects.forEach((value, key) => {
    if (found) return;
    const obj = value.resolve();
    if (
      value.isStream() &&
      obj.get('Subtype').asName() === 'Image' &&
      obj.get('Width').asNumber() === width &&
      obj.get('Height').asNumber() === height
    )
      found = { name: String(key), obj: value };
  });
  return found;
}

/**
 * The page's scan: the largest image drawn over at least half the page, upright. Null (with why)
 * when the page has none this engine can patch.
 */
export function findScanImage(page: mupdf.PDFPage): ScanImage | { refused: string } {
  const bounds = page.getBounds();
  const pageArea = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1]);
  let best: { image: mupdf.Image; ctm: Mat; area: number } | null = null;
  let stencil = 0;
  const device = new mupdf.Device({
    fillImageMask(_image, ctm) {
      const m = ctm as Mat;
      stencil = Math.max(stencil, Math.abs(m[0] * m[3] - m[1] * m[2]));
    },
    fillImage(image, ctm) {
      const m = ctm as Mat;
      const area = Math.abs(m[0] * m[3] - m[1] * m[2]);
      if (image.getWidth() < 16 || image.getHeight() < 16 || image.getMask()) return;
      if (!best || area > best.area) best = { image, ctm: m, area };
    },
  });
  try {
    page.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  const chosen = best as { image: mupdf.Image; ctm: Mat; area: number } | null;
  if (!chosen || chosen.area < MIN_COVER * pageArea)
    return {
      refused:
        stencil >= MIN_COVER * pageArea
          ? 'the scan is drawn as a 1-bit stencil with separate colour layers over it (mixed raster content), which this engine does not patch'
          : 'no image covers most of the page: it is not a scanned page',
    };
  const { image, ctm } = chosen;
  const width = image.getWidth();
  const height = image.getHeight();
  const turned = orientationOf(ctm, width, height);
  if (!turned) return { refused: 'the scan is drawn skewed or turned by other than a quarter turn' };
  const found = imageObject(page, width, height);
  if (!found)
    return { refused: 'the scan is not an image XObject of the page itself (inline or inside a form)' };
  const n = image.getNumberOfComponents();
  if (n !== 1 && n !== 3)
    return { refused: `the scan has ${n} colour components (grey and RGB scans are patched)` };
  const bpc = image.getBitsPerComponent();
  const pixmap = image.toPixmap();
  try {
    const pw = pixmap.getWidth();
    const ph = pixmap.getHeight();
    const stride = pixmap.getStride();
    const pn = pixmap.getNumberOfComponents() + (pixmap.getAlpha() ? 1 : 0);
    if (pw !== width || ph !== height || pixmap.getNumberOfComponents() !== n)
      return { refused: 'the scan did not decode to its declared size and colours' };
    const samples = pixmap.getPixels();
    const { o, w, h } = turned;
    const data = new Uint8Array(w * h * n);
    for (let j = 0; j < h; j++) {
      for (let i = 0; i < w; i++) {
        const [u, v] = sourcePixel(o, i, j);
        const src = v * stride + u * pn;
        const dst = (j * w + i) * n;
        for (let k = 0; k < n; k++) data[dst + k] = samples[src + k];
      }
    }
    const pageTransform = page.getTransform() as Mat;
    // device = FLIP × user × page transform, so user = FLIP × device × page transform⁻¹.
    const userMatrix = mul(mul(FLIP, ctm), invert(pageTransform));
    const widthPts = Math.hypot(ctm[0], ctm[1]);
    return {
      name: found.name,
      obj: found.obj,
      width,
      height,
      bitsPerComponent: bpc,
      userMatrix,
      deviceMatrix: ctm,
      raster: { width: w, height: h, channels: n as 1 | 3, data, bilevel: bpc === 1 },
      pixelsPerPoint: width / widthPts,
      orientation: o,
    };
  } finally {
    pixmap.destroy();
  }
}

/**
 * The patch as image pixels in the scan's own orientation: `pixels` (upright, `box`-sized) turned
 * back, with the box of the image's pixels it replaces.
 */
export function patchInImageSpace(
  scan: ScanImage,
  box: Box,
  pixels: Uint8Array,
): { box: Box; width: number; height: number; data: Uint8Array } {
  const src = sourceBox(scan, box);
  const width = src[2] - src[0];
  const height = src[3] - src[1];
  const n = scan.raster.channels;
  const bw = box[2] - box[0];
  const data = new Uint8Array(width * height * n);
  for (let j = box[1]; j < box[3]; j++) {
    for (let i = box[0]; i < box[2]; i++) {
      const [u, v] = sourcePixel(scan.orientation, i, j);
      const from = ((j - box[1]) * bw + (i - box[0])) * n;
      const to = ((v - src[1]) * width + (u - src[0])) * n;
      for (let k = 0; k < n; k++) data[to + k] = pixels[from + k];
    }
  }
  return { box: src, width, height, data };
}

/** The `cm` matrix (page user space) that draws an image over `box` of the scan's own pixels. */
export function patchMatrix(scan: ScanImage, box: Box): Mat {
  // PDF image space of the sub-rectangle: x from u0/W to u1/W, y from 1 - v1/H to 1 - v0/H.
  const sub: Mat = [
    (box[2] - box[0]) / scan.width,
    0,
    0,
    (box[3] - box[1]) / scan.height,
    box[0] / scan.width,
    1 - box[3] / scan.height,
  ];
  return mul(sub, scan.userMatrix);
}

/** Packs 8-bit grey samples that are 0/255 into 1-bit rows (1 = white, as DeviceGray reads them). */
export function packBilevel(data: Uint8Array, width: number, height: number): Uint8Array {
  const rowBytes = Math.ceil(width / 8);
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x] >= 128) out[y * rowBytes + (x >> 3)] |= 0x80 >> (x & 7);
    }
  }
  return out;
}
