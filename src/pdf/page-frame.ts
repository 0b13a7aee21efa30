// The page frame docfix works in: the whole MediaBox, as printers, poppler (pdftoppm, pdftotext
// -bbox) and the fidelity harness see a page. Viewers show only the CropBox; a page cropped inside a
// larger MediaBox would otherwise be rendered, measured and verified in the CropBox's frame, and a
// proof would neither look at the printed area around the crop nor agree with poppler's coordinates.
//
// MuPDF places every page (bounds, transform, structured text, renders, devices) by the page's
// effective CropBox, read from the page dictionary each time it is asked. A page loaded through
// `loadPage` here therefore gets its CropBox set, in memory only, to its MediaBox. Nothing of that
// may reach a saved file: every save restores each page's own entry first (`restoreShownBoxes`, called
// by the savers in mupdf-adapter.ts and the engine), and the structural guard would name a CropBox
// left changed. The CropBox a viewer shows is kept (`shownBox`) for the warning that says so.
import type * as mupdf from 'mupdf';

interface Override {
  page: mupdf.PDFObject;
  /** The page's own CropBox entry, or null when it inherited one (the entry is then removed). */
  own: mupdf.PDFObject | null;
  shown: ShownBox;
}

/** The CropBox a viewer shows: in docfix's frame (points, rotation applied, top-left origin), and as written. */
export interface ShownBox {
  box: mupdf.Rect;
  written: string;
}

const overrides = new WeakMap<mupdf.PDFDocument, Override[]>();

/**
 * The pages loaded through `loadPage`, by their document: a page holds its document, so they are
 * freed together by `closeDocument` (mupdf-adapter.ts), never one by one at each call site.
 */
const pagesOf = new WeakMap<mupdf.PDFDocument, mupdf.PDFPage[]>();
/** Every page `loadPage` gave that may still be live (some callers outside the engine free their own pages). */
const tracked = new Set<WeakRef<mupdf.PDFPage>>();
/** Pages loaded through `loadPage` since the process started (a test counts the work a correction does). */
let loaded = 0;

/** Drops the entries of pages already freed (MuPDF.js sets a destroyed object's pointer to 0). */
function prune(): void {
  for (const ref of tracked) {
    const page = ref.deref();
    if (!page || page.pointer === 0) tracked.delete(ref);
  }
}

/** Frees the pages `loadPage` gave for `doc` (those a caller already destroyed are skipped). */
export function freePages(doc: mupdf.PDFDocument): void {
  const pages = pagesOf.get(doc);
  if (!pages) return;
  pagesOf.delete(doc);
  for (const page of pages) if (page.pointer !== 0) page.destroy();
}

/** Pages loaded through `loadPage` whose document has not been closed yet, and pages loaded at all. */
export function pageCounts(): { live: number; loaded: number } {
  prune();
  return { live: tracked.size, loaded };
}

/** True when two boxes differ by half a point or more on any side. */
function differ(a: mupdf.Rect, b: mupdf.Rect): boolean {
  return a.some((v, i) => Math.abs(v - b[i]!) >= 0.5);
}

/** Loads a page in docfix's frame: the whole MediaBox. Freed with its document (`closeDocument`). */
export function loadPage(doc: mupdf.PDFDocument, index: number): mupdf.PDFPage {
  const page = doc.loadPage(index) as mupdf.PDFPage;
  const pages = pagesOf.get(doc) ?? [];
  pagesOf.set(doc, pages);
  pages.push(page);
  if (tracked.size >= 256) prune();
  tracked.add(new WeakRef(page));
  loaded += 1;
  const crop = page.getBounds('CropBox');
  const media = page.getBounds('MediaBox');
  if (!differ(crop, media)) return page;
  const obj = page.getObject();
  const own = obj.get('CropBox');
  const list = overrides.get(doc) ?? [];
  overrides.set(doc, list);
  // Both boxes are given in the CropBox's frame; moved to the MediaBox's, the crop starts here.
  const box: mupdf.Rect = [crop[0] - media[0], crop[1] - media[1], crop[2] - media[0], crop[3] - media[1]];
  const shown = { box, written: String(obj.getInheritable('CropBox')) };
  list.push({ page: obj, own: own.isNull() ? null : own, shown });
  obj.put('CropBox', obj.getInheritable('MediaBox'));
  return page;
}

/** Page count from which a page of a flat page tree is looked up alone (`loadPageAlone`; PDFium's view). */
export const FLAT_TREE_PAGES = 64;

/** The root page-tree node `loadPageAlone` set and put back, by document (left out of its save). */
const treeTouched = new WeakMap<mupdf.PDFDocument, Set<number>>();

/**
 * Loads page `index` like `loadPage`, without MuPDF mapping the whole page tree. Its first page
 * lookup parses every page's dictionary: 8–15 ms on an 833-page manual, paid again by each document
 * opened. On a flat tree of FLAT_TREE_PAGES kids or more, the root's Kids is, while the page is
 * looked up, this one page written `index + 1` times: MuPDF parses one dictionary and numbers the
 * page `index`, as its open pages are known by (with the page alone it would be page 0, and a later
 * lookup of page 0 would answer it). Kids and Count are then put back, which drops MuPDF's map, so
 * a later lookup maps the whole tree again. The page reads what it inherits through its own
 * /Parent, unchanged. MuPDF now counts the root node as changed: a save leaves it out of the update
 * when it is written as it was (`pageTreeTouched`, save/save-correction.ts). Not in an encrypted
 * document, where the node written again could not be told equal to the original.
 */
export function loadPageAlone(doc: mupdf.PDFDocument, index: number): mupdf.PDFPage {
  const trailer = doc.getTrailer();
  const root = trailer.get('Root');
  // (A null object answers no get: a broken file takes MuPDF's own way, and its repair.)
  const pages = root.isDictionary() && trailer.get('Encrypt').isNull() ? root.get('Pages') : null;
  if (!pages?.isDictionary() || !pages.isIndirect()) return loadPage(doc, index);
  const kids = pages.get('Kids');
  const count = pages.get('Count');
  if (
    !kids.isArray() ||
    kids.length < FLAT_TREE_PAGES ||
    !count.isNumber() ||
    count.asNumber() !== kids.length
  )
    return loadPage(doc, index);
  const kid = kids.get(index);
  if (!kid.isIndirect() || kid.get('Type').asName() !== 'Page') return loadPage(doc, index);
  const touched = treeTouched.get(doc) ?? new Set<number>();
  treeTouched.set(doc, touched.add(pages.asIndirect()));
  const view = doc.newArray();
  for (let i = 0; i <= index; i += 1) view.push(kid);
  pages.put('Kids', view);
  pages.put('Count', index + 1);
  try {
    return loadPage(doc, index);
  } finally {
    pages.put('Kids', kids);
    pages.put('Count', count);
  }
}

/** The objects `loadPageAlone` touched in `doc` only to look a page up (none: an empty set). */
export function pageTreeTouched(doc: mupdf.PDFDocument): ReadonlySet<number> {
  return treeTouched.get(doc) ?? new Set();
}

/**
 * The CropBox a viewer shows of page `page` of `doc`, in docfix's frame, when it lies inside a larger
 * MediaBox; null when the page shows its whole MediaBox.
 */
export function shownBox(doc: mupdf.PDFDocument, page: mupdf.PDFPage): ShownBox | null {
  const num = page.getObject().asIndirect();
  return overrides.get(doc)?.find((o) => o.page.asIndirect() === num)?.shown ?? null;
}

/** Puts every page's own CropBox entry back, as it was read: called before any save. */
export function restoreShownBoxes(doc: mupdf.PDFDocument): void {
  const list = overrides.get(doc);
  if (!list) return;
  for (const o of list.reverse()) {
    if (o.own) o.page.put('CropBox', o.own);
    else o.page.delete('CropBox');
  }
  overrides.delete(doc);
}
