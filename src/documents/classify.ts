// Page classification: what kind of page this is (born-digital text, a scan, a scan under an
// invisible OCR layer, or both real text and large images), with the measurements behind the verdict.
// One structured-text pass per page; pages that draw images get one more pass through a small device
// that sees every image (its pixel size and placement) and whether text is painted or invisible.
// A page whose resources name an image is recorded once into a display list that both passes replay:
// its content stream is then read once, not twice (figures' streams are the long ones).
import { DocfixError } from '../errors.ts';
import { dictPath, mupdf } from '../pdf/mupdf-adapter.ts';
import type { PageInfo } from '../schemas.ts';
import { MAX_IMAGE_PIXELS, RENDER_DPI } from './limits.ts';
import { hasAnnotations } from './text-find.ts';

/** Page kind vocabulary (docs/documents.md). */
export type PageKindName = 'text' | 'scanned' | 'scanned_with_text_layer' | 'mixed';

/** Image coverage from which a page counts as a scan (with no painted text) or as mixed (with it). */
export const SCAN_COVERAGE = 0.5;
/** One image covering this much of the page hides whatever was painted before it. */
const FULL_PAGE = 0.9;
const GRID = 128;

export const CLASSIFY_STEXT_OPTIONS = 'preserve-whitespace,preserve-images';

export interface PageFacts {
  info: PageInfo;
  /** The page's text as the structured-text pass read it (asked for by inspect: the text index). */
  plain?: string;
  /** Visible (painted) text objects and invisible ones (render mode 3, or painted under a full-page image). */
  visible_text: number;
  invisible_text: number;
}

/** Normalised /Rotate of a page: 0, 90, 180 or 270. */
export function pageRotation(page: mupdf.PDFPage): number {
  const rotate = page.getObject().getInheritable('Rotate');
  const value = rotate.isNumber() ? rotate.asNumber() : 0;
  return (((Math.round(value / 90) * 90) % 360) + 360) % 360;
}

/**
 * Classifies one page: one structured-text pass, and on pages with images one pass of a listening
 * device. Pages with annotations are first recorded into a display list (contents, annotations,
 * widgets) that both passes replay.
 */
export function classifyPage(
  page: mupdf.PDFPage,
  index: number,
  list?: mupdf.DisplayList,
  options: { text?: boolean } = {},
): PageFacts {
  const bounds = page.getBounds();
  const width = bounds[2] - bounds[0];
  const height = bounds[3] - bounds[1];
  // Annotations and widgets are part of what the page shows: record them with the contents then.
  const annotated = list === undefined && hasAnnotations(page);
  const ownList = annotated || (list === undefined && namesImages(page));
  // Without annotations that draw, the list holds the contents alone, as the page run directly does.
  const source: Drawable = list ?? (ownList ? page.toDisplayList(annotated) : page);
  try {
    return classifyFromList(page, index, source, bounds, width, height, options.text ?? false);
  } finally {
    if (ownList) (source as mupdf.DisplayList).destroy();
  }
}

/**
 * Whether the page's resources, or those of the forms it names (a few levels down), hold an image
 * XObject: such a page will most likely take the second pass. Inline images are not seen here; a page
 * drawing only those is run twice, with the same answer.
 */
function namesImages(page: mupdf.PDFPage): boolean {
  const seen = new Set<number>();
  const inResources = (resources: mupdf.PDFObject | null, depth: number): boolean => {
    // A form or page without /Resources names nothing.
    const xobjects = resources && dictPath(resources, 'XObject');
    if (!xobjects?.isDictionary()) return false;
    let found = false;
    xobjects.forEach((ref) => {
      if (found) return;
      if (ref.isIndirect()) {
        const num = ref.asIndirect();
        if (seen.has(num)) return;
        seen.add(num);
      }
      const subtype = ref.get('Subtype');
      const name = subtype.isName() ? subtype.asName() : '';
      if (name === 'Image') found = true;
      else if (name === 'Form' && depth < MAX_FORM_DEPTH)
        found = inResources(dictPath(ref, 'Resources'), depth + 1);
    });
    return found;
  };
  return inResources(page.getObject().getInheritable('Resources'), 0);
}
const MAX_FORM_DEPTH = 4;

/** A page (run directly) or its display list (replayed): both take a device and give structured text. */
type Drawable = Pick<mupdf.DisplayList, 'run' | 'toStructuredText'>;

function classifyFromList(
  page: mupdf.PDFPage,
  index: number,
  list: Drawable,
  bounds: mupdf.Rect,
  width: number,
  height: number,
  withText: boolean,
): PageFacts {
  const st = list.toStructuredText(CLASSIFY_STEXT_OPTIONS);
  let plain: string;
  let hasImageBlock = false;
  try {
    // One text dump serves both the count of visible characters and the upload's text index (the
    // same text a search's pass reads; image blocks carry none). A JSON dump parsed in JavaScript
    // cost as much again as the pass itself on long documents.
    plain = st.asText();
    st.walk({
      onImageBlock(_bbox, _matrix, image) {
        hasImageBlock = true;
        image.destroy();
      },
    });
  } finally {
    st.destroy();
  }
  const charCount = countVisibleChars(plain);
  const base = {
    index,
    width_pt: round2(width),
    height_pt: round2(height),
    rotation: pageRotation(page),
    char_count: charCount,
  };
  if (!hasImageBlock) {
    return {
      info: {
        ...base,
        kind: 'text',
        image_count: 0,
        image_coverage: 0,
        confidence: charCount > 0 ? 1 : 0.5,
        natural_dpi: RENDER_DPI,
      },
      visible_text: charCount > 0 ? 1 : 0,
      invisible_text: 0,
      ...(withText ? { plain } : {}),
    };
  }
  const seen = scanDrawing(list, bounds);
  const coverage = seen.coverage;
  const visible = seen.visibleText - seen.hiddenText;
  const invisible = seen.invisibleText + seen.hiddenText;
  let kind: PageKindName;
  let confidence: number;
  if (seen.images.length === 0) {
    kind = 'text';
    confidence = charCount > 0 ? 1 : 0.5;
  } else if (charCount === 0) {
    kind = 'scanned';
    confidence = round2(Math.min(1, 0.5 + coverage / 2));
  } else if (visible === 0 && coverage >= SCAN_COVERAGE * 0.6) {
    kind = 'scanned_with_text_layer';
    confidence = round2(Math.min(1, 0.6 + coverage / 2.5));
  } else if (visible > 0 && coverage >= SCAN_COVERAGE) {
    kind = 'mixed';
    confidence = round2(0.6 + 0.4 * Math.min(1, visible / Math.max(1, visible + invisible)));
  } else {
    kind = 'text';
    confidence = round2(1 - coverage / 2);
  }
  const scanned = kind === 'scanned' || kind === 'scanned_with_text_layer' || kind === 'mixed';
  return {
    info: {
      ...base,
      kind,
      image_count: seen.images.length,
      image_coverage: round3(coverage),
      confidence,
      natural_dpi: scanned ? naturalDpi(seen.images) : RENDER_DPI,
    },
    visible_text: visible,
    invisible_text: invisible,
    ...(withText ? { plain } : {}),
  };
}

/** Characters other than white space (the dump's line and block breaks are white space too). */
function countVisibleChars(text: string): number {
  let n = 0;
  for (const c of text) if (!WHITE.test(c)) n++;
  return n;
}
const WHITE = /\s/u;

interface PlacedImage {
  width: number;
  height: number;
  /** Size on the page in points along the image's own axes. */
  wPt: number;
  hPt: number;
}

interface Drawing {
  images: PlacedImage[];
  coverage: number;
  visibleText: number;
  invisibleText: number;
  /** Visible text painted before a full-page image that covers it. */
  hiddenText: number;
}

/** Runs the page through a listening device: images (size, placement) and text visibility. */
function scanDrawing(list: Drawable, bounds: mupdf.Rect): Drawing {
  const pageW = Math.max(1e-6, bounds[2] - bounds[0]);
  const pageH = Math.max(1e-6, bounds[3] - bounds[1]);
  const grid = new Uint8Array(GRID * GRID);
  const images: PlacedImage[] = [];
  let visibleText = 0;
  let invisibleText = 0;
  let hiddenText = 0;
  const checkSize = (image: mupdf.Image) => {
    const px = image.getWidth() * image.getHeight();
    if (px > MAX_IMAGE_PIXELS) {
      throw new DocfixError(
        'image_too_large',
        `A page carries an image of ${image.getWidth()} × ${image.getHeight()} pixels (${Math.round(px / 1e6)} megapixels); the limit is ${MAX_IMAGE_PIXELS / 1e6}.`,
      );
    }
  };
  const place = (image: mupdf.Image, ctm: mupdf.Matrix) => {
    checkSize(image);
    const r = mupdf.Rect.transform([0, 0, 1, 1], ctm);
    const x0 = clamp01((r[0] - bounds[0]) / pageW);
    const x1 = clamp01((r[2] - bounds[0]) / pageW);
    const y0 = clamp01((r[1] - bounds[1]) / pageH);
    const y1 = clamp01((r[3] - bounds[1]) / pageH);
    const own = (x1 - x0) * (y1 - y0);
    if (own <= 0) return;
    for (let gy = Math.floor(y0 * GRID); gy < Math.ceil(y1 * GRID); gy++) {
      grid.fill(1, gy * GRID + Math.floor(x0 * GRID), gy * GRID + Math.ceil(x1 * GRID));
    }
    images.push({
      width: image.getWidth(),
      height: image.getHeight(),
      wPt: Math.hypot(ctm[0], ctm[1]),
      hPt: Math.hypot(ctm[2], ctm[3]),
    });
    // Text painted so far lies under this image: an OCR layer printed first, then the scan on top.
    if (own >= FULL_PAGE) hiddenText = visibleText;
  };
  const device = new mupdf.Device({
    fillText(_t, _m, _cs, _c, alpha) {
      if (alpha > 0) visibleText++;
      else invisibleText++;
    },
    strokeText() {
      visibleText++;
    },
    clipText() {
      visibleText++;
    },
    clipStrokeText() {
      visibleText++;
    },
    ignoreText() {
      invisibleText++;
    },
    fillImage(image, ctm) {
      place(image, ctm);
    },
    fillImageMask(image, ctm) {
      place(image, ctm);
    },
    clipImageMask(image) {
      checkSize(image);
    },
  });
  try {
    list.run(device, mupdf.Matrix.identity);
    device.close();
  } finally {
    device.destroy();
  }
  let filled = 0;
  for (const cell of grid) filled += cell;
  return { images, coverage: filled / grid.length, visibleText, invisibleText, hiddenText };
}

/** Pixels per inch of the largest image (by pixel count) as placed on the page. */
function naturalDpi(images: PlacedImage[]): number {
  let best: PlacedImage | null = null;
  for (const im of images) if (!best || im.width * im.height > best.width * best.height) best = im;
  if (!best || best.wPt <= 0 || best.hPt <= 0) return RENDER_DPI;
  const dpi = Math.max(best.width / (best.wPt / 72), best.height / (best.hPt / 72));
  return Number.isFinite(dpi) && dpi >= 1 ? Math.round(dpi) : RENDER_DPI;
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
const round2 = (v: number) => Math.round(v * 100) / 100;
const round3 = (v: number) => Math.round(v * 1000) / 1000;
