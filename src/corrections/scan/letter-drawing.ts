// Letters drawn for a pixel patch (tier 5) when the scan never shows them: a bundled face's glyph
// rasterised by MuPDF at the scan's own pixel size, as ink coverage the patch lays over the paper.
// Which face is the pixel patch's choice (the one whose letters look most like the word's own).
import { mupdf } from '../../pdf/mupdf-adapter.ts';
import { faceById, type BundledFace } from '../../fonts/catalog.ts';
import { loadFace } from '../../fonts/font-match.ts';
import { machineFaces, type Face, type MachineFontSettings } from '../../fonts/machine-fonts.ts';
import type { DrawnLetter, LetterFace } from './pixel-patch.ts';

/** Faces offered to a patch: upright serif and sans, regular and bold, and fixed-pitch (scans of letters, forms and listings). */
const PATCH_FACES = [
  'liberation-serif-regular',
  'liberation-serif-bold',
  'liberation-sans-regular',
  'liberation-sans-bold',
  // TeX's Computer Modern (as Latin Modern draws it at 10 pt): the commonest scanned serif that is
  // not Times, whose thin hairlines and bracketed feet Liberation Serif does not have.
  'lm-roman-10-regular',
  'lm-roman-10-bold',
  // DejaVu, the default face of many Linux producers (LibreOffice, WeasyPrint, TCPDF): a machine's
  // own DejaVu is never offered (one face per PostScript name, and the bundle has DejaVu's), so
  // without these a DejaVu page's missing letter came from another serif or sans face.
  'dejavu-serif-regular',
  'dejavu-serif-bold',
  'dejavu-sans-regular',
  'dejavu-sans-bold',
  // Typewriter and listing pages (Courier, TeX's cmtt): without a fixed-pitch face, their missing
  // letters came from a sans face, narrower and without the slab feet of the page's own.
  'liberation-mono-regular',
  'lm-mono-10-regular',
];

/**
 * Text faces of the machine a patch may draw with too (fontconfig's or DOCFIX_FONT_DIRS'): the
 * common book and office families, URW's clones of Courier, Helvetica Narrow and Avant Garde (what
 * Ghostscript and MuPDF draw those with) and TeX's Computer Modern, upright, regular or bold (a
 * scan's slant is measured and applied; other condensed and light cuts are left out as they rarely
 * fit and cost time). A face of another width than the page's is never the nearest: Nimbus Sans
 * drew a narrow page's “û” a fifth too wide, and native tesseract read the word as another.
 */
const MACHINE_PATCH_FAMILIES =
  /^(nimbus roman|nimbus sans|nimbus sans narrow|nimbus mono ps|c059|p052|urw gothic|cmr10|cmbx10|lm roman 10|latin modern roman|tex gyre (termes|heros|pagella|schola)|free(serif|sans)|times new roman|arial|georgia|verdana)$/i;
const MAX_MACHINE_FACES = 16;

/** One glyph of `face` at `emPx` pixels per em, cropped to its ink; null when the face lacks it. */
export function rasteriseLetter(face: Face, ch: string, emPx: number): DrawnLetter | null {
  const cp = ch.codePointAt(0);
  if (cp === undefined || !(emPx > 0) || emPx > 2000) return null;
  const font = loadFace(face);
  const gid = font.encodeCharacter(cp);
  if (gid === 0) return null;
  const w = Math.ceil(emPx * 2) + 4;
  const h = Math.ceil(emPx * 2) + 4;
  const baselineY = Math.round(emPx * 1.4) + 2;
  const originX = Math.round(emPx * 0.4) + 2;
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, w, h], false);
  try {
    pix.clear(255);
    const text = new mupdf.Text();
    // Glyph space is y-up, the pixmap y-down: the text matrix flips it about the baseline.
    text.showGlyph(font, [emPx, 0, 0, -emPx, originX, baselineY], gid, cp, 0);
    const device = new mupdf.DrawDevice(mupdf.Matrix.identity, pix);
    device.fillText(text, mupdf.Matrix.identity, mupdf.ColorSpace.DeviceGray, [0], 1);
    device.close();
    const stride = pix.getStride();
    const px = pix.getPixels();
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        if (px[y * stride + x] < 250) {
          x0 = Math.min(x0, x);
          x1 = Math.max(x1, x);
          y0 = Math.min(y0, y);
          y1 = Math.max(y1, y);
        }
    if (x1 < 0) return null; // a space or a mark with no ink
    const cw = x1 - x0 + 1;
    const ch_ = y1 - y0 + 1;
    const coverage = new Uint8Array(cw * ch_);
    for (let y = 0; y < ch_; y++)
      for (let x = 0; x < cw; x++) coverage[y * cw + x] = 255 - px[(y0 + y) * stride + x0 + x];
    return {
      width: cw,
      height: ch_,
      coverage,
      baseline: baselineY - y0,
      advance: font.advanceGlyph(gid) * emPx,
      left: x0 - originX,
    };
  } finally {
    pix.destroy();
  }
}

/**
 * The faces a pixel patch may draw missing letters with: the bundled ones, and with `machine` settings
 * the machine's text faces too. Each remembers what it drew: one patch asks for the same letter at
 * the same size several times (widths to cut by, the face fit, the drawing).
 */
export function patchLetterFaces(machine?: MachineFontSettings): LetterFace[] {
  const bundled: Face[] = PATCH_FACES.map((id) => faceById(id)).filter(
    (f): f is BundledFace => f !== undefined,
  );
  const found = machine
    ? machineFaces(machine)
        .filter((f) => MACHINE_PATCH_FAMILIES.test(f.family) && !f.italic)
        .filter((f) => !/condensed|narrow|light|thin|oblique|italic/i.test(f.styleName))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, MAX_MACHINE_FACES)
    : [];
  return [...bundled, ...found].map((face) => {
    const drawn = new Map<string, DrawnLetter | null>();
    const draw = (ch: string, emPx: number) => {
      if (emPx === REFERENCE_EM_PX) return referenceLetter(face, ch);
      const key = `${ch}@${emPx}`;
      if (!drawn.has(key)) drawn.set(key, rasteriseLetter(face, ch, emPx));
      return drawn.get(key)!;
    };
    return { id: face.id, draw, fixedPitch: face.class === 'mono' };
  });
}

/**
 * The size the patch measures faces at (a face's letter heights and widths against the scan's, in
 * pixel-patch.ts and letter-matching.ts): the same for every scan, so its drawings are kept for the
 * thread (referenceLetter) where a drawing at a scan's own size is kept for one patch only.
 */
export const REFERENCE_EM_PX = 100;

/** Reference drawings the thread keeps at most (a letter at 100 px per em is a few kilobytes). */
const MAX_REFERENCE_LETTERS = 4096;
const referenceLetters = new Map<string, DrawnLetter | null>();
let referenceDrawingCount = 0;

/**
 * A letter of `face` at REFERENCE_EM_PX, drawn once per thread: each patch compares every offered
 * face on the word's letters at this size (16 faces on a machine with fonts: some 30–90 ms of
 * drawing a patch, the same for every page). Faces are named by id, as loadFace keeps them.
 */
function referenceLetter(face: Face, ch: string): DrawnLetter | null {
  const key = `${face.id}\u0000${ch}`;
  if (referenceLetters.has(key)) return referenceLetters.get(key)!;
  const letter = rasteriseLetter(face, ch, REFERENCE_EM_PX);
  referenceDrawingCount++;
  // Bounded: past the limit the oldest drawings go (Map keeps insertion order).
  if (referenceLetters.size >= MAX_REFERENCE_LETTERS) {
    const oldest = referenceLetters.keys().next().value;
    if (oldest !== undefined) referenceLetters.delete(oldest);
  }
  referenceLetters.set(key, letter);
  return letter;
}

/** How many reference drawings the thread has made (tests count them). */
export function referenceDrawings(): number {
  return referenceDrawingCount;
}
