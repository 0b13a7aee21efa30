// The scan behind a scanned page: which image XObject draws it, its pixels at their own resolution
// turned upright as the page shows them, and the way back from that upright raster to the image's
// own pixels and to the page's user space, so a patch can be drawn exactly over some of the scan's
// pixels while the scan itself stays byte-identical (tier 5, docs/engine.md "Scanned pages").
import { keptWork } from '../../ocr/kept-work.ts';
import { dictPath, mupdf } from '../../pdf/mupdf-adapter.ts';
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
  /** The box it covers in device space. */
  deviceBox: Box;
  /** The scan's pixels turned upright (as the page is displayed), at the image's own resolution. */
  raster: ScanRaster;
  /** Pixels per point of the upright raster (image resolution / 72). */
  pixelsPerPoint: number;
  orientation: Orientation;
  /**
   * Set when the scan is a 1-bit stencil (ImageMask) painted in one colour over white paper: its
   * colour space and colour, so a patch paints the same two colours. The raster is 0 (ink) / 255.
   */
  stencil?: { colourSpace: 'DeviceGray' | 'DeviceRGB' | 'DeviceCMYK'; colour: number[] };
  /** What the page draws over the scan (device points): a patch there would hide it, so none is made. */
  overlays: Box[];
  /**
   * Set when the word is drawn by several raster layers on one pixel grid (mixed raster content: a
   * stencil with colour images over parts of it, or scanner strips): the raster is then the page
   * rendered on that grid, and a patch is an RGB image of what the layers showed, changed.
   */
  composite?: { layers: number };
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
  mask: boolean,
): { name: string; obj: mupdf.PDFObject } | null {
  const xobjects = dictPath(page.getObject().getInheritable('Resources'), 'XObject');
  if (!xobjects?.isDictionary()) return null;
  let found: { name: string; obj: mupdf.PDFObject } | null = null;
  xobjects.forEach((value, key) => {
    if (found) return;
    const obj = value.resolve();
    if (
      value.isStream() &&
      obj.get('Subtype').asName() === 'Image' &&
      obj.get('Width').asNumber() === width &&
      obj.get('Height').asNumber() === height &&
      obj.get('ImageMask').asBoolean() === mask
    )
      found = { name: String(key), obj: value };
  });
  return found;
}

/** The device-space box of the unit square drawn with `ctm`. */
function boxOfUnit(m: Mat): Box {
  const pts = [apply(m, 0, 0), apply(m, 1, 0), apply(m, 0, 1), apply(m, 1, 1)];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

// MuPDF bounds a fill when given no stroke state; its typings only omit null.
const NO_STROKE = null as unknown as mupdf.StrokeState;

const STENCIL_SPACES = ['DeviceGray', 'DeviceRGB', 'DeviceCMYK'] as const;

interface Drawn {
  /**
   * `masked`: an image drawn through its own (soft) mask, a layer of mixed raster content; `flat`: an
   * image of a few pixels stretched over an area (a paper colour under such layers).
   */
  kind: 'image' | 'stencil' | 'masked' | 'flat' | 'other';
  box: Box;
  area: number;
  image?: mupdf.Image;
  ctm?: Mat;
  colourSpace?: string;
  colour?: number[];
  alpha?: number;
}

const within = (inner: Box, outer: Box, slack: number) =>
  inner[0] >= outer[0] - slack &&
  inner[1] >= outer[1] - slack &&
  inner[2] <= outer[2] + slack &&
  inner[3] <= outer[3] + slack;
const meets = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/**
 * Which drawing holds the scan's pixels. For a word (`word`, device points): the topmost image
 * drawn over all of it, so a page built of several images (scanner strips, mixed raster content
 * with a word per colour image) is patched in the image that shows the word. Without a word: the
 * largest image over at least half the page. A 1-bit stencil counts when nothing is drawn under it
 * there (its paper is then the page's white) and it paints in a device colour.
 */
function chooseScan(
  drawn: Drawn[],
  pageArea: number,
  word?: Box,
): { drawn: Drawn; stencil?: ScanImage['stencil'] } | { refused: string } {
  const scanLike = (d: Drawn) => d.kind === 'image' || d.kind === 'stencil';
  let chosen: Drawn | undefined;
  if (word) {
    for (const d of drawn) if (scanLike(d) && within(word, d.box, 0.5)) chosen = d;
    if (!chosen) return { refused: 'no scanned image lies under the word' };
  } else {
    for (const d of drawn)
      if (scanLike(d) && d.area >= MIN_COVER * pageArea && (!chosen || d.area > chosen.area)) chosen = d;
    if (!chosen) return { refused: 'no image covers most of the page: it is not a scanned page' };
  }
  if (chosen.kind === 'image') return { drawn: chosen };
  const space = STENCIL_SPACES.find((c) => c === chosen.colourSpace);
  const region = word ?? chosen.box;
  const under = drawn.slice(0, drawn.indexOf(chosen)).some((d) => meets(d.box, region));
  if (under || !space || chosen.alpha !== 1)
    return {
      refused:
        'the scan is drawn as a 1-bit stencil over other content or in a special colour (mixed raster content this engine does not patch there)',
    };
  return { drawn: chosen, stencil: { colourSpace: space, colour: chosen.colour ?? [] } };
}

/**
 * The finest pixel grid of the layers (pixels per point and the grid's offset in pixels) when every
 * layer is drawn upright and unskewed, at a resolution that divides the finest one, with its pixels
 * on that grid (mixed raster content: a 300 ppi text mask over 75–100 ppi colour layers); null
 * otherwise. A masked image counts at its mask's resolution.
 */
function commonGrid(layers: Drawn[]): { k: number; sx: number; sy: number } | null {
  const grids: { k: number; box: Box }[] = [];
  for (const d of layers) {
    if (d.kind === 'flat') continue; // one colour: any grid shows it the same
    const m = d.ctm as Mat;
    const image = d.image as mupdf.Image;
    if (!near(m[1], 0) || !near(m[2], 0)) return null;
    // A masked image's ink is its mask's: the colour under it may be as coarse as one pixel.
    const mask = d.kind === 'masked' ? image.getMask() : null;
    for (const im of mask ? [mask] : [image]) {
      const kx = im.getWidth() / Math.abs(m[0]);
      const ky = im.getHeight() / Math.abs(m[3]);
      if (Math.abs(kx - ky) > 1e-3 * kx) return null;
      grids.push({ k: kx, box: d.box });
    }
  }
  if (!grids.length) return null;
  const k = Math.max(...grids.map((g) => g.k));
  if (!(k > 0)) return null;
  const frac = (v: number) => v - Math.round(v);
  const sx = frac(grids[0].box[0] * k);
  const sy = frac(grids[0].box[1] * k);
  for (const g of grids) {
    const ratio = k / g.k;
    if (Math.abs(ratio - Math.round(ratio)) > 1e-3 * ratio) return null;
    if (Math.abs(frac(g.box[0] * k) - sx) > 0.02 * ratio || Math.abs(frac(g.box[1] * k) - sy) > 0.02 * ratio)
      return null;
  }
  return { k, sx, sy };
}

/** The page rendered on the layers' pixel grid, as a scan a patch can be cut from. */
function compositeScan(
  page: mupdf.PDFPage,
  grid: { k: number; sx: number; sy: number },
  layers: number,
  key: string | null,
): ScanImage {
  const { k, sx, sy } = grid;
  const kept = key ? keptWork.get<{ raster: ScanRaster; deviceMatrix: Mat }>(key) : undefined;
  if (kept) return compositeOf(page, k, layers, kept);
  // Render pixel (i, j) covers device [(i + sx)/k, (i + 1 + sx)/k]: the layers' own pixels.
  const pixmap = page.toPixmap([k, 0, 0, k, -sx, -sy], mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    const w = pixmap.getWidth();
    const h = pixmap.getHeight();
    const x0 = pixmap.getX();
    const y0 = pixmap.getY();
    const stride = pixmap.getStride();
    const samples = pixmap.getPixels();
    const data = new Uint8Array(w * h * 3);
    for (let j = 0; j < h; j++) data.set(samples.subarray(j * stride, j * stride + w * 3), j * w * 3);
    const rendered = {
      raster: { width: w, height: h, channels: 3 as const, data, bilevel: false },
      deviceMatrix: [w / k, 0, 0, h / k, (x0 + sx) / k, (y0 + sy) / k] as Mat,
    };
    if (key) keptWork.set(key, rendered, data.byteLength);
    return compositeOf(page, k, layers, rendered);
  } finally {
    pixmap.destroy();
  }
}

/** The composite scan of a page from its rendered raster and where that raster lies (device space). */
function compositeOf(
  page: mupdf.PDFPage,
  k: number,
  layers: number,
  rendered: { raster: ScanRaster; deviceMatrix: Mat },
): ScanImage {
  const { raster, deviceMatrix } = rendered;
  const pageTransform = page.getTransform() as Mat;
  return {
    name: 'composite',
    obj: page.getObject(),
    width: raster.width,
    height: raster.height,
    bitsPerComponent: 8,
    userMatrix: mul(mul(FLIP, deviceMatrix), invert(pageTransform)),
    deviceMatrix,
    deviceBox: boxOfUnit(deviceMatrix),
    raster,
    pixelsPerPoint: k,
    orientation: { ui: 1, uj: 0, u0: 0, vi: 0, vj: 1, v0: 0 },
    overlays: [],
    composite: { layers },
  };
}

/**
 * The scan behind a word (`word`, device points, top-left origin) or, without one, the page's
 * scan; upright. `{refused}` (with why) when there is none this engine can patch.
 */
export function findScanImage(
  page: mupdf.PDFPage,
  word?: Box,
  revision?: string,
): ScanImage | { refused: string } {
  const bounds = page.getBounds();
  const pageArea = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1]);
  const drawn = drawnOnPage(page, bounds);
  // Decoded pixels are kept per revision and page (ocr/kept-work.ts): an apply, or another word of
  // the page, does not decode the scan again.
  const keyOf = (what: string) =>
    revision ? `scan:${revision}:${page.getObject().asIndirect()}:${what}` : null;
  if (word) {
    const composite = layeredScan(page, drawn, word, keyOf);
    if (composite) return composite;
  }
  const chosen = chooseScan(drawn, pageArea, word);
  if ('refused' in chosen) return chosen;
  const stencil = chosen.stencil;
  const image = chosen.drawn.image as mupdf.Image;
  const ctm = chosen.drawn.ctm as Mat;
  const index = drawn.indexOf(chosen.drawn);
  // Whatever is drawn after the scan lies over it: a patch must stay clear of it.
  const overlays = drawn.slice(index + 1).map((d) => d.box);
  const width = image.getWidth();
  const height = image.getHeight();
  const turned = orientationOf(ctm, width, height);
  if (!turned) return { refused: 'the scan is drawn skewed or turned by other than a quarter turn' };
  const found = imageObject(page, width, height, !!stencil);
  if (!found)
    return { refused: 'the scan is not an image XObject of the page itself (inline or inside a form)' };
  const n = stencil ? 1 : image.getNumberOfComponents();
  if (n !== 1 && n !== 3)
    return { refused: `the scan has ${n} colour components (grey and RGB scans are patched)` };
  const bpc = image.getBitsPerComponent();
  const data = decodedUpright(image, { width, height, n, stencil: !!stencil, turned }, keyOf(found.name));
  if (!data) return { refused: 'the scan did not decode to its declared size and colours' };
  const { w, h, o } = turned;
  const pageTransform = page.getTransform() as Mat;
  // device = FLIP × user × page transform, so user = FLIP × device × page transform⁻¹.
  const userMatrix = mul(mul(FLIP, ctm), invert(pageTransform));
  const widthPts = Math.hypot(ctm[0], ctm[1]);
  return {
    name: found.name,
    obj: found.obj,
    width,
    height,
    bitsPerComponent: stencil ? 1 : bpc,
    userMatrix,
    deviceMatrix: ctm,
    deviceBox: chosen.drawn.box,
    raster: {
      width: w,
      height: h,
      channels: n as 1 | 3,
      data,
      bilevel: stencil ? true : bpc === 1,
    },
    pixelsPerPoint: width / widthPts,
    orientation: o,
    ...(stencil ? { stencil } : {}),
    overlays,
  };
}

/** The scan's pixels decoded and turned upright, kept under `key` (when given) for the next task. */
function decodedUpright(
  image: mupdf.Image,
  scan: Parameters<typeof uprightPixels>[1],
  key: string | null,
): Uint8Array | null {
  const id = key && `${key}:${scan.n}:${scan.stencil}:${JSON.stringify(scan.turned.o)}`;
  const kept = id ? keptWork.get<Uint8Array>(id) : undefined;
  if (kept) return kept;
  const pixmap = image.toPixmap();
  try {
    const data = uprightPixels(pixmap, scan);
    if (data && id) keptWork.set(id, data, data.byteLength);
    return data;
  } finally {
    pixmap.destroy();
  }
}

/** Everything the page draws, in order: images, stencils, flat colours, and the rest as boxes. */
function drawnOnPage(page: mupdf.PDFPage, bounds: number[]): Drawn[] {
  const drawn: Drawn[] = [];
  const other = (box: Box) => drawn.push({ kind: 'other', box, area: 0 });
  const device = new mupdf.Device({
    fillImageMask(image, ctm, colorspace, color, alpha) {
      const m = ctm as Mat;
      drawn.push({
        kind: 'stencil',
        box: boxOfUnit(m),
        area: Math.abs(m[0] * m[3] - m[1] * m[2]),
        image,
        ctm: m,
        colourSpace: colorspace.getName(),
        colour: [...color],
        alpha,
      });
    },
    fillImage(image, ctm) {
      const m = ctm as Mat;
      const big = (im: mupdf.Image) => im.getWidth() >= 16 && im.getHeight() >= 16;
      const mask = image.getMask();
      const usable = big(image) && !mask;
      // A few pixels each stretched over 8 pt or more: a flat colour, not a picture (an icon is not).
      const flat =
        !mask &&
        !big(image) &&
        Math.hypot(m[0], m[1]) / image.getWidth() >= 8 &&
        Math.hypot(m[2], m[3]) / image.getHeight() >= 8;
      drawn.push({
        kind: usable ? 'image' : mask ? (big(mask) ? 'masked' : 'other') : flat ? 'flat' : 'other',
        box: boxOfUnit(m),
        area: usable ? Math.abs(m[0] * m[3] - m[1] * m[2]) : 0,
        image,
        ctm: m,
      });
    },
    fillPath(path, _evenOdd, ctm) {
      other(path.getBounds(NO_STROKE, ctm) as Box);
    },
    strokePath(path, stroke, ctm) {
      other(path.getBounds(stroke, ctm) as Box);
    },
    fillText(text, ctm) {
      other(text.getBounds(NO_STROKE, ctm) as Box);
    },
    strokeText(text, stroke, ctm) {
      other(text.getBounds(stroke, ctm) as Box);
    },
    fillShade() {
      other([bounds[0], bounds[1], bounds[2], bounds[3]]);
    },
  });
  try {
    page.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  return drawn;
}

/** Several raster layers under and around the word (and nothing else): their composite, or null. */
function layeredScan(
  page: mupdf.PDFPage,
  drawn: Drawn[],
  word: Box,
  keyOf: (what: string) => string | null,
): ScanImage | null {
  const h = word[3] - word[1];
  const region: Box = [word[0] - h, word[1] - h / 2, word[2] + h, word[3] + h / 2];
  const layers = drawn.filter((d) => meets(d.box, region));
  const rasters = layers.filter((d) => d.kind !== 'other');
  if (rasters.length > 1 && rasters.length === layers.length) {
    const grid = commonGrid(rasters);
    if (grid)
      return compositeScan(page, grid, rasters.length, keyOf(`composite:${grid.k}:${grid.sx}:${grid.sy}`));
  }
  return null;
}

/** The scan's pixels turned upright (a stencil as black on white), or null when they do not decode as declared. */
function uprightPixels(
  pixmap: mupdf.Pixmap,
  scan: {
    width: number;
    height: number;
    n: number;
    stencil: boolean;
    turned: NonNullable<ReturnType<typeof orientationOf>>;
  },
): Uint8Array | null {
  const { width, height, n, stencil, turned } = scan;
  const pw = pixmap.getWidth();
  const ph = pixmap.getHeight();
  const stride = pixmap.getStride();
  // A stencil decodes to coverage alone (one byte a pixel, 255 where it paints).
  const pn = stencil ? 1 : pixmap.getNumberOfComponents() + (pixmap.getAlpha() ? 1 : 0);
  if (pw !== width || ph !== height || (!stencil && pixmap.getNumberOfComponents() !== n)) return null;
  const samples = pixmap.getPixels();
  const { o, w, h } = turned;
  const data = new Uint8Array(w * h * n);
  // Along a row of the upright raster the source pixel moves by a fixed step (the orientation is a
  // signed permutation): each row is walked from its first source pixel (sourcePixel's map), and
  // an upright scan without alpha, its rows the image's own, is copied row by row.
  const step = o.vi * stride + o.ui * pn;
  const rowCopy = !stencil && o.ui === 1 && o.vi === 0 && pn === n;
  for (let j = 0; j < h; j++) {
    const [u, v] = sourcePixel(o, 0, j);
    let src = v * stride + u * pn;
    let dst = j * w * n;
    if (rowCopy) {
      data.set(samples.subarray(src, src + w * n), dst);
      continue;
    }
    for (let i = 0; i < w; i++, src += step, dst += n) {
      if (stencil) data[dst] = samples[src] >= 128 ? 0 : 255;
      else for (let k = 0; k < n; k++) data[dst + k] = samples[src + k];
    }
  }
  return data;
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
