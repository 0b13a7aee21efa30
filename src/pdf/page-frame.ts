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

/** True when two boxes differ by half a point or more on any side. */
function differ(a: mupdf.Rect, b: mupdf.Rect): boolean {
  return a.some((v, i) => Math.abs(v - b[i]!) >= 0.5);
}

/** Loads a page in docfix's frame: the whole MediaBox. */
export function loadPage(doc: mupdf.PDFDocument, index: number): mupdf.PDFPage {
  const page = doc.loadPage(index) as mupdf.PDFPage;
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
