// Guard `second_renderer_pdfium`: the changed page rendered before and after by PDFium, an engine
// that shares no code with MuPDF, and compared exactly. It passes only when PDFium also sees no
// changed pixel outside the declared box (MuPDF's padded glyph box, plus 1 px because PDFium can
// antialias one pixel beyond MuPDF), other than its own one-level rounding noise
// (second-opinion.ts, PDFIUM_ROUNDING_NOISE). The PDFium render of the page before is kept for the last two
// (input SHA-256, page, band) pairs, as the MuPDF one is. Given a band of rows, only that band is
// rendered, before and after alike: the engine passes the edited line's band (full page width)
// when the structural guard has proven every other object unchanged and MuPDF's exact comparison
// covers the whole page, so PDFium witnesses where a change can move glyphs (the rest of the line
// after a rewritten operator) at a fraction of a full render's cost.
//
// PDFium places each glyph at a pixel its own rounding picks: after a split operator, a glyph whose
// origin falls within float error of a rounding boundary can land one pixel over at one scale and
// not at the next (a Latin Modern line measured at 300 and 400 dpi moved, at 144, 200, 250, 299 and
// 301 dpi nothing did; MuPDF and poppler saw nothing at any). A change PDFium sees outside the box
// is therefore rendered again at RECHECK_DPIS: a moved or changed glyph is there at every scale,
// a rounding flip is not. The guard passes only when both are clean, and says so.
//
// PDFium finds a page by reading every kid of /Kids before it: on a flat tree (833 kids, as qpdf
// writes one) 15 ms for the last page, per render. Past FLAT_TREE_PAGES pages it is given a view of
// the bytes in which one object is appended: the root /Pages node written again with the page as its
// only kid, every other key kept (what the page inherits through /Parent is unchanged). The page,
// its contents, resources, annotations and catalog are the file's own bytes; PDFium finds it as
// page 0. Only where the kid at the page's index is the object MuPDF's page tree gives for that
// index (the kept page graph, page-reach.ts), before and after alike; otherwise the whole walk.
import { closeDocument, openPdf, type mupdf } from '../../pdf/mupdf-adapter.ts';
import { oneKidView } from '../../pdf/one-kid-view.ts';
import { keepsPrefix } from '../../pdf/kept-prefix.ts';
import { ObjectIndex, type StreamDecoder } from '../../pdf/xref-index.ts';
import { FLAT_TREE_PAGES } from '../../pdf/page-frame.ts';
import { sha256Extending } from '../locate/pdf-bytes.ts';
import { DocfixError } from '../../errors.ts';
import { PDFIUM_RENDERER, renderPageWithPdfium, type RgbImage } from '../../verify/pdfium-render.ts';
import { renderPageOnPdfiumThread } from '../../verify/pdfium-thread.ts';
import { secondOpinion, type Box, type SecondOpinion } from '../../verify/second-opinion.ts';
import { keptReach } from './page-reach.ts';
import { sha256, streamDecoder, WORKING_DPI, type VerifyOutput } from './verify.ts';

/** Pixels PDFium may antialias beyond the declared box (already padded for MuPDF). */
export const PDFIUM_MARGIN_PX = 1;
export const GUARD_NAME = 'second_renderer_pdfium';
/** Scales next to the working one where a real change outside the box shows as well. */
export const RECHECK_DPIS = [299, 301] as const;

/**
 * PDFium's working-dpi renders, kept or under way: the page before by content (several proposals on
 * one revision), and after by the output's bytes (started ahead by `startSecondRenderer`, taken out
 * when compared); the last two of each.
 */
const beforeCache: { key: string; render: Promise<RgbImage> }[] = [];
const afterCache: {
  output: Uint8Array;
  pageIndex: number;
  rows?: [number, number];
  render: Promise<RgbImage>;
}[] = [];

/**
 * The bytes PDFium renders the page from and its index there: `pdf` itself, or past FLAT_TREE_PAGES
 * pages of a flat tree the view with the root /Pages node's only kid the page (above), written from
 * the file's bytes (pdf/one-kid-view.ts) in a buffer of its own (`owned`). `known` is an index of
 * `pdf` or of the file it updates: a correction's output has no graph kept until its proof ends, but
 * it is its input with an update appended, so the input's graph names the page, and its index is
 * extended by the update alone; the kid found in the output's own tree must be that page.
 */
export function pdfiumPageView(
  pdf: Uint8Array,
  password: string,
  pageIndex: number,
  known?: ObjectIndex,
): { bytes: Uint8Array; pageIndex: number; owned?: boolean } {
  const whole = { bytes: pdf, pageIndex };
  const base = known?.bytes;
  const update = base !== undefined && base !== pdf && keepsPrefix(base, pdf);
  // Its hash goes on from the input's (only the update is read); the proof asks for it next.
  if (update) sha256Extending(pdf, base);
  const nodes = (keptReach(pdf) ?? (update ? keptReach(base) : undefined))?.pageNodes;
  // A page that is not an indirect object in the graph is kept as a negative number (page-reach.ts).
  const page = nodes?.[pageIndex];
  if (!nodes || nodes.length < FLAT_TREE_PAGES || page === undefined || page < 0) return whole;
  // MuPDF decodes object streams, and is opened only if a node read is in one.
  let doc: mupdf.PDFDocument | null = null;
  const decode: StreamDecoder = (num) => streamDecoder((doc ??= openPdf(pdf, password).doc))(num);
  try {
    const index =
      known && base === pdf ? known : new ObjectIndex(pdf, decode, update ? { extends: known } : {});
    const view = oneKidView(index, page, pageIndex, nodes.length);
    return view ? { bytes: view, pageIndex: 0, owned: true } : whole;
  } catch {
    return whole;
  } finally {
    closeDocument(doc);
  }
}

/**
 * PDFium's render of the page at the working dpi, through the one-kid view where it applies, drawn on
 * PDFium's own thread (verify/pdfium-thread.ts). Should that thread fail (not PDFium refusing the
 * file: that answer is the same on any thread), the page is drawn here instead.
 */
async function pdfiumPage(
  pdf: Uint8Array,
  password: string,
  pageIndex: number,
  rows?: [number, number],
  known?: ObjectIndex,
) {
  const view = pdfiumPageView(pdf, password, pageIndex, known);
  try {
    return await renderPageOnPdfiumThread(
      view.bytes,
      password,
      view.pageIndex,
      WORKING_DPI,
      rows,
      view.owned,
    );
  } catch (error) {
    if (error instanceof DocfixError) throw error;
    // A view handed to the thread is gone with it: written again.
    const again = view.bytes.byteLength ? view : pdfiumPageView(pdf, password, pageIndex, known);
    return renderPageWithPdfium(again.bytes, password, again.pageIndex, WORKING_DPI, rows);
  }
}

const rowsKey = (rows?: [number, number]) => rows?.join('-') ?? 'page';

/** A render of the page before, kept or under way; a failed one is dropped (the guard renders again). */
function pdfiumBefore(
  pdf: Uint8Array,
  password: string,
  pageIndex: number,
  rows?: [number, number],
  known?: ObjectIndex,
): Promise<RgbImage> {
  const key = `${sha256(pdf)}:${pageIndex}:${rowsKey(rows)}`;
  const hit = beforeCache.find((e) => e.key === key);
  if (hit) return hit.render;
  const render = pdfiumPage(pdf, password, pageIndex, rows, known);
  const entry = { key, render };
  beforeCache.unshift(entry);
  beforeCache.length = Math.min(beforeCache.length, 2);
  render.then(
    (image) => {
      // A page too big to keep is not kept (64 MB of pixels).
      if (image.pixels.byteLength > 64 * 1024 * 1024) drop(beforeCache, entry);
    },
    () => drop(beforeCache, entry),
  );
  return render;
}

function drop<T>(list: T[], entry: T): void {
  const at = list.indexOf(entry);
  if (at >= 0) list.splice(at, 1);
}

/**
 * Starts PDFium drawing the page before (unless kept) and `output`'s page, the band `rows` of each, on
 * its own thread, and returns at once (a promise settled when both are drawn or failed, never
 * rejected): the guard on `output` takes these renders when their band
 * holds the one it must witness (a wider band is a stricter witness). The engine calls it as soon as
 * the corrected bytes exist, so that PDFium draws while MuPDF verifies.
 */
export function startSecondRenderer(
  input: Uint8Array,
  output: Uint8Array,
  password: string,
  pageIndex: number,
  rows?: [number, number],
  inputIndex?: ObjectIndex,
): Promise<unknown> {
  const before = pdfiumBefore(input, password, pageIndex, rows, inputIndex);
  const after = pdfiumPage(output, password, pageIndex, rows, inputIndex);
  afterCache.unshift({ output, pageIndex, rows, render: after });
  afterCache.length = Math.min(afterCache.length, 2);
  // Nothing is judged here: a failure is the guard's to report (it renders again).
  return Promise.allSettled([before, after]);
}

/** The rows the guard witnesses: a started render's band when it holds `rows` (taken out: compared once). */
function takeStarted(
  output: Uint8Array,
  pageIndex: number,
  rows?: [number, number],
): { rows?: [number, number]; render: Promise<RgbImage> } | undefined {
  const at = afterCache.findIndex(
    (e) =>
      e.output === output &&
      e.pageIndex === pageIndex &&
      (e.rows === undefined
        ? rows === undefined
        : rows !== undefined && e.rows[0] <= rows[0] && e.rows[1] >= rows[1]),
  );
  return at < 0 ? undefined : afterCache.splice(at, 1)[0];
}

/**
 * PDFium's render of `output`'s page already started (whole page), without taking it from the guard;
 * null when none was started or it failed. Tier 5 reads the patched word on it too.
 */
export async function startedSecondRender(output: Uint8Array, pageIndex: number): Promise<RgbImage | null> {
  const entry = afterCache.find(
    (e) => e.output === output && e.pageIndex === pageIndex && e.rows === undefined,
  );
  return entry ? entry.render.catch(() => null) : null;
}

/**
 * Renders the page before and after with PDFium ahead of the guard, for a caller with time on its
 * hands (tier 5 while recognition reads the page or the patched line on its own thread), and waits
 * for them: the guard then compares the kept renders. Without `output`, the page before alone.
 * Nothing is judged here; a render that fails is left for the guard to report.
 */
export async function prepareSecondRenderer(
  input: Uint8Array,
  output: Uint8Array | null,
  password: string,
  pageIndex: number,
  rows?: [number, number],
  inputIndex?: ObjectIndex,
): Promise<void> {
  try {
    if (!output) {
      await pdfiumBefore(input, password, pageIndex, rows, inputIndex);
      return;
    }
    await startSecondRenderer(input, output, password, pageIndex, rows, inputIndex);
  } catch {
    // The guard renders again and records the failure.
  }
}

/** Adds the guard to `v` (and fails it when PDFium disagrees or cannot read the file). */
export async function secondRendererGuard(
  input: Uint8Array,
  output: Uint8Array,
  password: string,
  pageIndex: number,
  v: VerifyOutput,
  band?: [number, number],
): Promise<void> {
  let guard: Record<string, unknown> & { name: string; passed: boolean; detail: string };
  try {
    const started = takeStarted(output, pageIndex, band);
    const rows = started ? started.rows : band;
    const [before, after] = await Promise.all([
      pdfiumBefore(input, password, pageIndex, rows),
      started?.render.catch(() => pdfiumPage(output, password, pageIndex, rows)) ??
        pdfiumPage(output, password, pageIndex, rows),
    ]);
    const so = await secondOpinion(input, output, password, pageIndex, v.declared_box as Box, WORKING_DPI, {
      marginPx: PDFIUM_MARGIN_PX,
      beforeRender: before,
      afterRender: after,
      rows,
    });
    const where = so.rows ? ` in rows ${so.rows[0]}–${so.rows[1]} (the line's band, full width)` : '';
    const rechecks = so.passed ? [] : await otherScales(input, output, password, pageIndex, v, rows);
    const flips = rechecks.length > 0 && rechecks.every((r) => r.passed);
    guard = {
      name: GUARD_NAME,
      passed: so.passed || flips,
      detail:
        so.changed_pixels === 0
          ? `${so.renderer} sees no changed pixel${where || ' on the page'}`
          : `${so.renderer}: ${so.changed_pixels} changed pixel(s)${where}, ${so.outside_pixels} outside the declared box ${JSON.stringify(so.declared_box)} (changed ${JSON.stringify(so.bbox)})${so.outside_pixels && so.passed ? `, each by ${so.outside_max_delta}/255 at most: PDFium's rounding of the positions after a split operator, not a moved glyph` : so.outside_pixels ? `, by up to ${so.outside_max_delta}/255` : ''}${rechecks.length ? `; at ${rechecks.map((r) => `${r.dpi} dpi ${r.outside_pixels}`).join(', ')} outside${flips ? ': glyphs PDFium rounds onto another pixel at one scale only, not a moved glyph' : ''}` : ''}`,
      renderer: so.renderer,
      changed_pixels: so.changed_pixels,
      outside_pixels: so.outside_pixels,
      outside_max_delta: so.outside_max_delta,
      bbox: so.bbox,
      declared_box: so.declared_box,
      rows: so.rows,
      ...(rechecks.length
        ? {
            other_scales: rechecks.map((r) => ({
              dpi: r.dpi,
              outside_pixels: r.outside_pixels,
              passed: r.passed,
            })),
          }
        : {}),
    };
  } catch (error) {
    guard = {
      name: GUARD_NAME,
      passed: false,
      detail: `${PDFIUM_RENDERER} could not render the page: ${(error as Error).message}`,
      renderer: PDFIUM_RENDERER,
    };
  }
  v.guards.push(guard);
  if (!guard.passed) {
    v.passed = false;
    v.failure_reason = [v.failure_reason, `${GUARD_NAME}: ${guard.detail}`].filter(Boolean).join('; ');
  }
}

/** PDFium's opinion at RECHECK_DPIS, the band's rows scaled outward from the working dpi. */
async function otherScales(
  input: Uint8Array,
  output: Uint8Array,
  password: string,
  pageIndex: number,
  v: VerifyOutput,
  rows: [number, number] | undefined,
): Promise<SecondOpinion[]> {
  const out: SecondOpinion[] = [];
  for (const dpi of RECHECK_DPIS) {
    const k = dpi / WORKING_DPI;
    const scaled: [number, number] | undefined = rows && [Math.floor(rows[0] * k), Math.ceil(rows[1] * k)];
    out.push(
      await secondOpinion(input, output, password, pageIndex, v.declared_box as Box, dpi, {
        marginPx: PDFIUM_MARGIN_PX,
        rows: scaled,
      }),
    );
  }
  return out;
}
