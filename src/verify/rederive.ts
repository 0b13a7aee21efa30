// A proof anyone can re-derive: from the original PDF and the corrected one alone — no daemon, no
// key, no stored record — check every correction the corrected file's manifest declares
// (docs/manifest.md), with the engine's own independent pieces:
// - the manifest, read out of the corrected file, says which pages changed, where (boxes) and into
//   what text; its original_sha256 must be the original's;
// - the object guard compares every object of the original with the corrected file token for token:
//   only the objects the manifest's corrections may rewrite (declared-objects.ts) may differ, and
//   only at their kind's keys;
// - every page of both files is rendered by MuPDF and by PDFium at 300 dpi, one page at a time, and
//   no pixel may change outside the declared boxes (PDFium: its documented allowance, below);
// - the corrected page's text layer reads each correction's new text inside its box.
// A pair without a manifest is not a docfix correction: every changed region and object is reported
// and the verdict is `not_docfix`.
import { createHash } from 'node:crypto';
import { DocfixError } from '../errors.ts';
import {
  engineIdentity,
  parseManifest,
  readManifestFrom,
  type Manifest,
  type ManifestCorrection,
} from '../corrections/save/manifest.ts';
import { objectsUntouched } from '../corrections/proof/object-guard.ts';
import { repairDeclarations, repairOf, type Repair } from '../corrections/save/repair.ts';
import { keepsPrefix } from '../pdf/kept-prefix.ts';
import { diffRenders, type Box } from '../corrections/proof/render-diff.ts';
import { PDFIUM_MARGIN_PX } from '../corrections/proof/second-renderer.ts';
import { DECLARED_PAD_PX, streamDecoder } from '../corrections/proof/verify.ts';
import { loadPage, openPdf, renderPageRgb, type OpenedPdf } from '../pdf/mupdf-adapter.ts';
import { ObjectIndex } from '../pdf/xref-index.ts';
import { checkBoxText } from './box-text.ts';
import { changesOutside, type Render } from './changed-regions.ts';
import { declaredByManifest, PageReach } from './declared-objects.ts';
import { openWithPdfium, PDFIUM_RENDERER, type PdfiumDocument } from './pdfium-render.ts';
import { PDFIUM_ROUNDING_NOISE, scaleBox } from './second-opinion.ts';

export const REDERIVE_DPI = 300;

/**
 * A manifest's box is the box of the glyphs a correction redrew; the region the engine declares and
 * verifies is that box with its antialiasing margin (corrections/verify.ts, DECLARED_PAD_PX: 2 px at
 * 300 dpi), since a glyph's edge pixels are shaded a pixel or two beyond its box. The re-derivation
 * declares the same region, and says so in its output.
 */
export const DECLARED_MARGIN_PX = DECLARED_PAD_PX;

/**
 * What PDFium may differ by outside a declared box, as the engine's own PDFium guard allows
 * (corrections/second-renderer.ts): it antialiases a glyph up to one pixel beyond MuPDF, and keeps
 * glyph positions in single precision, so edge pixels after a rewritten operator can come out one
 * level (of 255) apart. Such pixels are counted and shown (`outside_pixels`); they do not fail.
 */
export const PDFIUM_ALLOWANCE = { margin_px: PDFIUM_MARGIN_PX, noise_levels: PDFIUM_ROUNDING_NOISE };

export interface RederiveCheck {
  name:
    | 'manifest'
    | 'original'
    | 'pages'
    | 'objects'
    | 'repair'
    | 'pixels_mupdf'
    | 'pixels_pdfium'
    | 'text_layer';
  passed: boolean;
  detail: string;
}

/** One renderer's comparison of one page, before and after. */
export interface RenderComparison {
  renderer: string;
  width: number;
  height: number;
  changed_pixels: number;
  /** Bounding box of every changed pixel (null: identical). */
  bbox: Box | null;
  /** The declared boxes as compared (300 dpi render pixels; PDFium's widened by its margin). */
  declared_boxes: Box[];
  /** Changed pixels outside every declared box. */
  outside_pixels: number;
  outside_max_delta: number;
  /** Outside pixels beyond the renderer's allowance (MuPDF: none allowed): these fail the page. */
  counted_outside: number;
  /** Where the counted pixels are: bounding boxes of groups of them, largest first. */
  regions: Box[];
  region_count: number;
  passed: boolean;
}

export interface PageRederivation {
  page_index: number;
  /** The page exists in only one of the files. */
  only_in: 'original' | 'corrected' | null;
  /** The manifest's boxes on this page with the declared margin (300 dpi render pixels). */
  declared_boxes: Box[];
  mupdf: RenderComparison | null;
  /** Null when PDFium could not open a file (the check `pixels_pdfium` says why). */
  pdfium: RenderComparison | null;
  /** Changed objects this page draws from: allowed by the manifest, or not. */
  objects: { declared: number[]; undeclared: number[] };
  passed: boolean;
}

export interface CorrectionRederivation {
  /** Position in the manifest (0 = oldest). */
  index: number;
  page: number;
  /** The declared box at 300 dpi (null when the manifest records none). */
  box: Box | null;
  text_before: string | null;
  text_after: string | null;
  /** What the page reads in the box. */
  read: string;
  /** A later correction's box overlaps this one: its text was corrected again. */
  superseded_by: number | null;
  passed: boolean;
  detail: string;
}

export interface ObjectFindings {
  /** The corrected file keeps every byte of the original as its prefix (incremental updates). */
  incremental: boolean;
  compared: number;
  declared: { num: number; kind: string }[];
  changed_as_declared: { num: number; kind: string; changed: string[] }[];
  changed_undeclared: { num: number; paths: string[] }[];
}

export interface FileFacts {
  sha256: string;
  bytes: number;
  page_count: number;
  encrypted: boolean;
}

export interface Rederivation {
  /** proven: every check holds; failed: a docfix manifest whose claims do not hold; not_docfix: no manifest. */
  verdict: 'proven' | 'failed' | 'not_docfix';
  passed: boolean;
  /** One line per failed check. */
  failures: string[];
  dpi: number;
  renderers: { mupdf: string; pdfium: string };
  /** Pixels added on every side of a manifest box (at 300 dpi) to make the declared region. */
  declared_margin_px: number;
  pdfium_allowance: typeof PDFIUM_ALLOWANCE;
  original: FileFacts;
  corrected: FileFacts;
  manifest: Manifest | null;
  checks: RederiveCheck[];
  objects: ObjectFindings;
  pages: PageRederivation[];
  corrections: CorrectionRederivation[];
}

export interface RederiveOptions {
  /** The password both files open with ('' or absent: none). */
  password?: string;
  /** Called after each page (for progress). */
  onPage?: (done: number, total: number) => void;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Opens one of the two files, saying which in the error. */
function openSide(bytes: Uint8Array, password: string, which: string): OpenedPdf {
  try {
    return openPdf(bytes, password);
  } catch (error) {
    if (error instanceof DocfixError)
      throw new DocfixError(error.code, `The ${which} file: ${error.message}`, error.extra, { cause: error });
    throw error;
  }
}

function facts(bytes: Uint8Array, opened: OpenedPdf): FileFacts {
  return {
    sha256: sha256(bytes),
    bytes: bytes.byteLength,
    page_count: opened.doc.countPages(),
    encrypted: opened.encrypted,
  };
}

/** The corrected file's manifest, and the check that says what was found. */
function readDeclaration(opened: OpenedPdf): { manifest: Manifest | null; check: RederiveCheck } {
  const without = (detail: string) => ({
    manifest: null,
    check: { name: 'manifest' as const, passed: false, detail },
  });
  let bytes: Uint8Array | null;
  try {
    bytes = readManifestFrom(opened.doc);
  } catch (error) {
    return without(`the manifest could not be read: ${(error as Error).message}`);
  }
  if (!bytes)
    return without(
      'the corrected file carries no docfix manifest: not a docfix correction, every change is undeclared',
    );
  try {
    const manifest = parseManifest(bytes);
    const n = manifest.corrections.length;
    return {
      manifest,
      check: {
        name: 'manifest',
        passed: true,
        detail: `${manifest.schema}: ${n} correction${n === 1 ? '' : 's'} declared, made by ${manifest.engine_version} with ${manifest.renderer}`,
      },
    };
  } catch (error) {
    return without(`the embedded manifest is not valid: ${(error as Error).message}`);
  }
}

function originalCheck(original: FileFacts, manifest: Manifest): RederiveCheck {
  const passed = original.sha256 === manifest.original_sha256;
  return {
    name: 'original',
    passed,
    detail: passed
      ? `the original's SHA-256 is the manifest's original_sha256 (${original.sha256})`
      : `the original's SHA-256 ${original.sha256} is not the manifest's original_sha256 ${manifest.original_sha256}: this is not the file the corrections were made to`,
  };
}

function pagesCheck(a: OpenedPdf, b: OpenedPdf): RederiveCheck {
  const na = a.doc.countPages();
  const nb = b.doc.countPages();
  const problems: string[] = [];
  if (na !== nb) problems.push(`the original has ${na} page(s), the corrected file ${nb}`);
  if (b.doc.wasRepaired()) problems.push('MuPDF had to repair the corrected file to open it');
  return {
    name: 'pages',
    passed: problems.length === 0,
    detail: problems.length
      ? problems.join('; ')
      : `${nb} page(s) in both; the corrected file opens without repair`,
  };
}

/** The object guard over the whole pair, with each changed object listed once. */
function compareObjects(
  original: Uint8Array,
  corrected: Uint8Array,
  a: OpenedPdf,
  b: OpenedPdf,
  manifest: Manifest | null,
  password: string,
): { findings: ObjectFindings; check: RederiveCheck; repaired: RederiveCheck | null } {
  const declared = manifest ? declaredByManifest(a.doc, manifest) : [];
  // A corrected file that does not keep the original as its prefix was saved repaired (the original
  // is damaged): the repair is re-derived from the original alone, declared, and compared exactly
  // (corrections/save/repair.ts); the manifest must say so (repairedCheck).
  const repair = keepsPrefix(original, corrected) ? null : repairOf(original, password);
  if (repair) declared.push(...repairDeclarations(repair));
  const guard = objectsUntouched(
    original,
    corrected,
    new ObjectIndex(original, streamDecoder(a.doc)),
    new ObjectIndex(corrected, streamDecoder(b.doc)),
    declared,
    { encrypted: a.encrypted, ...(repair && { repaired: repair.file }) },
  );
  // An object rewritten by several incremental updates is written (and compared) once per update.
  const asDeclared = new Map(
    guard.rewritten.map((r) => [r.num, { num: r.num, kind: r.kind, changed: r.changed }]),
  );
  const undeclared = new Map<number, { num: number; paths: string[] }>();
  for (const u of guard.undeclared) {
    const seen = undeclared.get(u.num);
    undeclared.set(u.num, { num: u.num, paths: [...new Set([...(seen?.paths ?? []), ...u.paths])] });
    asDeclared.delete(u.num);
  }
  const findings: ObjectFindings = {
    incremental: keepsPrefix(original, corrected),
    compared: guard.compared,
    declared: declared.map((d) => ({ num: d.num, kind: d.kind })),
    changed_as_declared: [...asDeclared.values()],
    changed_undeclared: [...undeclared.values()],
  };
  // Incremental: the original's bytes are kept, and each object an update writes is compared (an
  // object rewritten by two updates twice); a full rewrite: every object of the original.
  const how = findings.incremental
    ? `${plural(guard.compared, 'object')} written after the unchanged original bytes compared token for token with the original`
    : `${plural(guard.compared, 'object')} of the original compared token for token in a full rewrite`;
  const rewritten = findings.changed_as_declared.map(
    (r) => `${r.num} (${r.kind}) ${r.changed.slice(0, 4).join(' ')}`,
  );
  const detail = !guard.passed
    ? `${plural(undeclared.size, 'object')} changed where ${manifest ? 'the manifest declares nothing' : 'nothing declares any change'}: ${describeUndeclared(findings)}`
    : `${how}; ${
        rewritten.length
          ? `changed only where the manifest's corrections may: ${rewritten.join('; ')}`
          : 'none changed'
      }`;
  return {
    findings,
    check: { name: 'objects', passed: guard.passed, detail },
    repaired: repairedCheck(repair, manifest),
  };
}

/** A repaired save is never hidden: the manifest's corrections record the objects the repair changed. */
function repairedCheck(repair: Repair | null, manifest: Manifest | null): RederiveCheck | null {
  if (!repair || !manifest) return null;
  const derived = repair.objects.map((o) => o.num).sort((x, y) => x - y);
  const recorded = manifest.corrections.find((c) => c.repaired_objects !== undefined)?.repaired_objects;
  const listed = (recorded ?? []).map((o) => o.num).sort((x, y) => x - y);
  const passed = recorded !== undefined && listed.join(',') === derived.join(',');
  return {
    name: 'repair',
    passed,
    detail: passed
      ? `the original is damaged (${repair.cause}) and was saved repaired; the repair, re-derived from the original, changes objects ${derived.join(', ') || 'none'}, as the manifest records`
      : recorded
        ? `the original is damaged (${repair.cause}); its repair changes objects ${derived.join(', ') || 'none'}, the manifest records ${listed.join(', ') || 'none'}`
        : `the original is damaged (${repair.cause}) and the corrected file was saved repaired, but no correction in the manifest records the repair`,
  };
}

function describeUndeclared(f: ObjectFindings): string {
  const shown = f.changed_undeclared
    .slice(0, 5)
    .map((u) => `${u.num ? `object ${u.num}` : 'trailer'} ${u.paths.slice(0, 3).join(' ')}`);
  return `${shown.join('; ')}${f.changed_undeclared.length > 5 ? `; … ${f.changed_undeclared.length - 5} more` : ''}`;
}

/**
 * Compares two renders: the engine's comparator for what changed, then every changed pixel checked
 * against the declared boxes; pixels within `noise` levels count as outside but not against the page.
 */
function compareRenders(
  renderer: string,
  ra: Render,
  rb: Render,
  boxes: Box[],
  noise: number,
): RenderComparison {
  const whole = diffRenders(ra, rb, null);
  const outside = whole.identical
    ? { outside_pixels: 0, outside_max_delta: 0, beyond_noise_pixels: 0, regions: [], region_count: 0 }
    : changesOutside(ra, rb, boxes, noise);
  return {
    renderer,
    width: rb.width,
    height: rb.height,
    changed_pixels: whole.changed_pixels,
    bbox: whole.bbox,
    declared_boxes: boxes,
    outside_pixels: outside.outside_pixels,
    outside_max_delta: outside.outside_max_delta,
    counted_outside: outside.beyond_noise_pixels,
    regions: outside.regions,
    region_count: outside.region_count,
    passed: outside.beyond_noise_pixels === 0,
  };
}

interface PairContext {
  a: OpenedPdf;
  b: OpenedPdf;
  pdfium: { a: PdfiumDocument; b: PdfiumDocument } | null;
  manifest: Manifest | null;
  /** Declared boxes per page, at 300 dpi. */
  boxes: Map<number, Box[]>;
  reach: PageReach;
  declaredChanges: Set<number>;
  undeclaredChanges: Set<number>;
  mupdfRenderer: string;
}

/** The manifest box of a correction at 300 dpi, or null when it records none. */
const boxOf = (c: ManifestCorrection): Box | null =>
  c.box_render && c.box_render.length === 4 ? scaleBox(c.box_render as Box, c.box_dpi, REDERIVE_DPI) : null;

/** The text checks of the corrections on one page, with that page of the corrected file loaded. */
function correctionsOnPage(
  ctx: PairContext,
  pageIndex: number,
  page: Parameters<typeof checkBoxText>[0] | null,
): CorrectionRederivation[] {
  const all = ctx.manifest?.corrections ?? [];
  const out: CorrectionRederivation[] = [];
  all.forEach((c, index) => {
    if (c.page !== pageIndex) return;
    const box = boxOf(c);
    // Corrected again: a later correction on the page whose box overlaps this one's.
    const later = all.findIndex((l, j) => {
      const other = j > index && l.page === c.page ? boxOf(l) : null;
      return box !== null && other !== null && overlaps(box, other);
    });
    const report = (passed: boolean, detail: string, read = '') =>
      out.push({
        index,
        page: c.page,
        box,
        text_before: c.text_before,
        text_after: c.text_after,
        read,
        superseded_by: later >= 0 ? later : null,
        passed,
        detail,
      });
    if (later >= 0) report(true, `corrected again by correction ${later}, whose box overlaps this one`);
    else if (!page) report(false, `page ${c.page} is not in the corrected file`);
    else if (c.text_after === null && c.text_before === null)
      report(true, 'no text recorded for this correction');
    else {
      const text = checkBoxText(page, box, REDERIVE_DPI, c.text_before, c.text_after ?? '');
      report(text.passed, text.detail, text.read);
    }
  });
  return out;
}

const overlaps = (p: Box, q: Box) => p[0] < q[2] && q[0] < p[2] && p[1] < q[3] && q[1] < p[3];

/** Renders page `i` of both files with MuPDF, compares them and reads the corrected page's text. */
function mupdfPage(ctx: PairContext, i: number, boxes: Box[]) {
  const pa = loadPage(ctx.a.doc, i);
  const pb = loadPage(ctx.b.doc, i);
  try {
    const ra = renderPageRgb(pa, REDERIVE_DPI);
    const rb = renderPageRgb(pb, REDERIVE_DPI);
    return {
      comparison: compareRenders(ctx.mupdfRenderer, ra, rb, boxes, 0),
      corrections: correctionsOnPage(ctx, i, pb),
    };
  } finally {
    pa.destroy();
    pb.destroy();
  }
}

function pdfiumPage(ctx: PairContext, i: number, boxes: Box[]): RenderComparison | null {
  if (!ctx.pdfium) return null;
  const m = PDFIUM_ALLOWANCE.margin_px;
  const widened = boxes.map((b): Box => [b[0] - m, b[1] - m, b[2] + m, b[3] + m]);
  const ra = ctx.pdfium.a.renderPage(i, REDERIVE_DPI);
  const rb = ctx.pdfium.b.renderPage(i, REDERIVE_DPI);
  return compareRenders(PDFIUM_RENDERER, ra, rb, widened, PDFIUM_ALLOWANCE.noise_levels);
}

/** One page: both renderers, the objects it draws from, the text of its corrections. */
function rederivePage(
  ctx: PairContext,
  i: number,
): { page: PageRederivation; corrections: CorrectionRederivation[] } {
  const boxes = ctx.boxes.get(i) ?? [];
  const na = ctx.a.doc.countPages();
  const nb = ctx.b.doc.countPages();
  if (i >= na || i >= nb) {
    return {
      page: {
        page_index: i,
        only_in: i < na ? 'original' : 'corrected',
        declared_boxes: boxes,
        mupdf: null,
        pdfium: null,
        objects: { declared: [], undeclared: [] },
        passed: false,
      },
      corrections: correctionsOnPage(ctx, i, null),
    };
  }
  const { comparison, corrections } = mupdfPage(ctx, i, boxes);
  const pdfium = pdfiumPage(ctx, i, boxes);
  const reached = ctx.reach.reached(i, new Set([...ctx.declaredChanges, ...ctx.undeclaredChanges]));
  const objects = {
    declared: reached.filter((n) => ctx.declaredChanges.has(n)),
    undeclared: reached.filter((n) => ctx.undeclaredChanges.has(n)),
  };
  return {
    page: {
      page_index: i,
      only_in: null,
      declared_boxes: boxes,
      mupdf: comparison,
      pdfium,
      objects,
      passed: comparison.passed && (pdfium?.passed ?? false) && objects.undeclared.length === 0,
    },
    corrections,
  };
}

function boxesByPage(manifest: Manifest | null): Map<number, Box[]> {
  const out = new Map<number, Box[]>();
  const m = DECLARED_MARGIN_PX;
  for (const c of manifest?.corrections ?? []) {
    if (!c.box_render || c.box_render.length !== 4) continue;
    const b = scaleBox(c.box_render as Box, c.box_dpi, REDERIVE_DPI);
    const list = out.get(c.page) ?? [];
    list.push([b[0] - m, b[1] - m, b[2] + m, b[3] + m]);
    out.set(c.page, list);
  }
  return out;
}

/** Both files opened with PDFium, or the reason it could not (then its check fails). */
async function openPdfium(
  original: Uint8Array,
  corrected: Uint8Array,
  password: string,
): Promise<{ a: PdfiumDocument; b: PdfiumDocument } | string> {
  let a: PdfiumDocument | null = null;
  try {
    a = await openWithPdfium(original, password);
    const b = await openWithPdfium(corrected, password);
    return { a, b };
  } catch (error) {
    a?.close();
    return `${PDFIUM_RENDERER} could not open the ${a ? 'corrected' : 'original'} file: ${(error as Error).message}`;
  }
}

/**
 * Re-derives the proof of every correction `corrected` declares against `original`, from the two
 * files alone. Renders one page at a time (four 300 dpi renders held at most). Errors (DocfixError,
 * naming the file): not_a_pdf, unreadable_pdf, password_required, password_incorrect, not_protected.
 */
export async function rederiveProof(
  original: Uint8Array,
  corrected: Uint8Array,
  options: RederiveOptions = {},
): Promise<Rederivation> {
  const password = options.password ?? '';
  const a = openSide(original, password, 'original');
  let b: OpenedPdf | null = null;
  let pdfium: Awaited<ReturnType<typeof openPdfium>> | null = null;
  try {
    b = openSide(corrected, password, 'corrected');
    const originalFacts = facts(original, a);
    const { manifest, check: manifestCheck } = readDeclaration(b);
    const checks: RederiveCheck[] = [manifestCheck];
    if (manifest) checks.push(originalCheck(originalFacts, manifest));
    checks.push(pagesCheck(a, b));
    const objects = compareObjects(original, corrected, a, b, manifest, password);
    checks.push(objects.check);
    if (objects.repaired) checks.push(objects.repaired);
    pdfium = await openPdfium(original, corrected, password);
    const ctx: PairContext = {
      a,
      b,
      pdfium: typeof pdfium === 'string' ? null : pdfium,
      manifest,
      boxes: boxesByPage(manifest),
      reach: new PageReach(b.doc),
      declaredChanges: new Set(objects.findings.changed_as_declared.map((o) => o.num)),
      undeclaredChanges: new Set(objects.findings.changed_undeclared.map((o) => o.num).filter((n) => n > 0)),
      mupdfRenderer: engineIdentity().renderer,
    };
    const total = Math.max(a.doc.countPages(), b.doc.countPages());
    const pages: PageRederivation[] = [];
    const corrections: CorrectionRederivation[] = [];
    for (let i = 0; i < total; i += 1) {
      const done = rederivePage(ctx, i);
      pages.push(done.page);
      corrections.push(...done.corrections);
      options.onPage?.(i + 1, total);
    }
    // Corrections on pages neither file has.
    const beyond = new Set((manifest?.corrections ?? []).map((c) => c.page).filter((p) => p >= total));
    for (const p of beyond) corrections.push(...correctionsOnPage(ctx, p, null));
    corrections.sort((p, q) => p.index - q.index);
    checks.push(
      pixelCheck('pixels_mupdf', pages, (p) => p.mupdf),
      typeof pdfium === 'string'
        ? { name: 'pixels_pdfium', passed: false, detail: pdfium }
        : pixelCheck('pixels_pdfium', pages, (p) => p.pdfium),
    );
    if (manifest) checks.push(textCheck(corrections));
    const failures = checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`);
    return {
      verdict: !manifest ? 'not_docfix' : failures.length ? 'failed' : 'proven',
      passed: manifest !== null && failures.length === 0,
      failures,
      dpi: REDERIVE_DPI,
      renderers: { mupdf: ctx.mupdfRenderer, pdfium: PDFIUM_RENDERER },
      declared_margin_px: DECLARED_MARGIN_PX,
      pdfium_allowance: PDFIUM_ALLOWANCE,
      original: originalFacts,
      corrected: facts(corrected, b),
      manifest,
      checks,
      objects: objects.findings,
      pages,
      corrections,
    };
  } finally {
    if (pdfium && typeof pdfium !== 'string') {
      pdfium.a.close();
      pdfium.b.close();
    }
    b?.doc.destroy();
    a.doc.destroy();
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function pixelCheck(
  name: 'pixels_mupdf' | 'pixels_pdfium',
  pages: PageRederivation[],
  of: (p: PageRederivation) => RenderComparison | null,
): RederiveCheck {
  const missing = pages.filter((p) => p.only_in !== null);
  const compared = pages.filter((p) => of(p) !== null);
  const changed = compared.filter((p) => of(p)!.changed_pixels > 0);
  const failing = compared.filter((p) => !of(p)!.passed);
  const renderer = name === 'pixels_mupdf' ? 'MuPDF' : 'PDFium';
  const problems = [
    ...failing.map((p) => {
      const r = of(p)!;
      const where = r.regions
        .slice(0, 3)
        .map((b) => `[${b.join(', ')}]`)
        .join(', ');
      return `page ${p.page_index}: ${plural(r.counted_outside, 'pixel')} changed outside the declared boxes, in ${plural(r.region_count, 'region')} (${where}${r.region_count > 3 ? ', …' : ''})`;
    }),
    ...missing.map((p) => `page ${p.page_index} is only in the ${p.only_in} file`),
  ];
  if (problems.length) return { name, passed: false, detail: problems.join('; ') };
  const tolerated = compared.reduce((n, p) => n + of(p)!.outside_pixels, 0);
  return {
    name,
    passed: true,
    detail: `${renderer} rendered ${plural(compared.length, 'page')} of each file at ${REDERIVE_DPI} dpi: ${changed.length} changed, no pixel changed outside the declared boxes${
      tolerated
        ? ` (${plural(tolerated, 'edge pixel')} within PDFium's allowance: ${PDFIUM_ALLOWANCE.margin_px} px beyond the box, ${PDFIUM_ALLOWANCE.noise_levels}/255 elsewhere)`
        : ''
    }`,
  };
}

function textCheck(corrections: CorrectionRederivation[]): RederiveCheck {
  const failing = corrections.filter((c) => !c.passed);
  const checked = corrections.filter((c) => c.superseded_by === null);
  return {
    name: 'text_layer',
    passed: failing.length === 0,
    detail: failing.length
      ? failing.map((c) => `correction ${c.index} (page ${c.page}): ${c.detail}`).join('; ')
      : `${checked.length === 1 ? 'the correction' : `each of the ${checked.length} corrections`} standing reads its new text at its box${
          checked.length < corrections.length
            ? ` (${corrections.length - checked.length} corrected again later)`
            : ''
        }`,
  };
}
