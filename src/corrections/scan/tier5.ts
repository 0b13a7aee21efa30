// Tier 5, the pixel patch: a word on a scanned page corrected in its pixels. The word is found by
// recognition (an OCR target) or by the invisible text layer over the scan (a text target); a
// match a person could mistake is corrected only after the engine sees that this account was served
// a magnified crop of it; the patch (glyphs cloned from the same page, or drawn in a matched face)
// is written as a new image over the word's box only, the scan's own image staying byte-identical;
// the invisible text layer, where there is one, is retyped; and the result is verified like every
// tier (pixels outside the box, objects, other pages) plus an independent reading of the patch.
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { deflateSync } from 'node:zlib';
import {
  dictPath,
  loadPage,
  openPdf,
  renderPageRgb,
  type RgbImage,
  type mupdf,
} from '../../pdf/mupdf-adapter.ts';
import { exactWordRuns, findWordMatches, matchForm, ocrPage, CONFIRM_THRESHOLD } from '../../ocr/page-ocr.ts';
import { installAdvice, otherLanguageData, type LanguageData } from '../../ocr/languages.ts';
import { revisionKey } from '../../ocr/kept-work.ts';
import { recogniseWords, sharingRecognitions, type RecognisedWord } from '../../ocr/recognizer.ts';
import { cropPpm, diffRenders, padBox, scaledPpm, unionBox, type Box } from '../proof/render-diff.ts';
import { withoutRules } from './ruling-lines.ts';
import { prepareSecondRenderer, startedSecondRender } from '../proof/second-renderer.ts';
import { refuse, TIER_NAMES } from '../refusals.ts';
import { patchWord, type PatchRequest, type RasterWord } from './pixel-patch.ts';
import { processFontSettings } from '../../fonts/machine-fonts.ts';
import { patchLetterFaces } from './letter-drawing.ts';
import {
  findScanImage,
  packBilevel,
  patchInImageSpace,
  patchMatrix,
  renderBoxOfUpright,
  uprightBoxOfDevice,
  type ScanImage,
} from './scan-image.ts';
import { appendPageDrawing, type ChangedObject } from '../rewrite/write.ts';
import {
  DECLARED_PAD_PX,
  proveStructure,
  renderedPage,
  reopenOutput,
  sha256,
  sha256Extending,
  WORKING_DPI,
  type GuardResult,
  type SavedCorrection,
  type VerifyOutput,
} from '../proof/verify.ts';
import type { DeclaredObject } from '../proof/object-guard.ts';
import { retypeHiddenWord, type HiddenWord } from './hidden-text.ts';
import { lineContext, readLineBack, type LineContext } from './line-readback.ts';

/** A crop the account was served (crop.png): box in 300-dpi render pixels, pixels' dpi, when. */
export interface ServedCrop {
  revision_id?: string;
  page_index: number;
  box_render: [number, number, number, number];
  dpi: number;
  at: string;
}

/** Magnification a confirming crop must have, against the recognition's render dpi. */
export const CONFIRM_MAGNIFICATION = 2;

export interface PatchTarget {
  find: string;
  replacement: string;
  pageIndex: number;
  /** OCR target: which match, whether a person confirmed it, how it was recognised. */
  matchIndex: number;
  confirmed: boolean;
  renderDpi: number;
  lang: string | null;
  /** A text target on an invisible text layer: the hidden word's box in points (device space). */
  hidden: HiddenWord | null;
}

export interface PatchCandidate {
  tier: 5;
  cost: 'low' | 'medium';
  explanation: string;
  measurements: Record<string, unknown>;
  warnings: string[];
  output: Uint8Array;
  verify: VerifyOutput;
  beforeRender: RgbImage;
  fingerprint: string;
  box: Box;
  declared: DeclaredObject[];
  facts: PatchFacts;
}

const round1 = (v: number) => Math.round(v * 10) / 10;
const scaleBox = (b: Box, s: number): Box => [
  Math.floor(b[0] * s),
  Math.floor(b[1] * s),
  Math.ceil(b[2] * s),
  Math.ceil(b[3] * s),
];
const covers = (outer: Box, inner: Box) =>
  outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] >= inner[2] && outer[3] >= inner[3];
const overlap = (a: Box, b: Box) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) *
  Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));

type PageWord = { text: string; confidence: number; box_render: Box; line: number };

/**
 * Recognised words of the page, or of `band` (render pixels) when the word's place is known: the
 * recognition is kept per revision in this thread (ocr/kept-work.ts), so a proposal's apply and
 * other matches on the page do not recognise it again.
 */
async function pageWords(pdf: Uint8Array, password: string, t: PatchTarget, band: Box | null = null) {
  const page = await ocrPage({
    pdf,
    password,
    page_index: t.pageIndex,
    find: '',
    box_render: band,
    render_dpi: t.renderDpi,
    lang: t.lang,
    turn: 0,
  });
  if (!page.available) {
    refuse(
      'ocr_language_unavailable',
      page.message ?? 'No recognition data for this language.',
      'Without recognition data the word cannot be found or checked.',
      [
        `To read "${page.lang}", ${installAdvice(page.lang)}.`,
        'Or send `lang` with a language this machine has (GET /v1/ocr/languages, docfix ocr --languages).',
      ],
      { evidence: { lang: page.lang } },
    );
  }
  return { words: (page.words ?? []) as PageWord[], lang: page.lang };
}

/** Line heights above and below a word that the band recognised around it holds (its neighbours' lines). */
const BAND_HEIGHTS = 2.5;

/**
 * The band a word known by its box (render pixels) is recognised in: the page's full width (the
 * whole line, for its word gaps and letters to clone) and a few line heights above and below. Its
 * right edge is open: the recognition clips a region to the page it opens anyway.
 */
export function bandAround(box: Box): Box {
  const h = box[3] - box[1];
  return [
    0,
    Math.max(0, Math.floor(box[1] - BAND_HEIGHTS * h)),
    Number.MAX_SAFE_INTEGER,
    Math.ceil(box[3] + BAND_HEIGHTS * h),
  ];
}

/** The crop request a person should look at before confirming a match (300-dpi working pixels). */
function cropAdvice(pageIndex: number, box300: Box, renderDpi: number): string {
  const pad = Math.round((box300[3] - box300[1]) / 2);
  const x = Math.max(0, box300[0] - pad);
  const y = Math.max(0, box300[1] - pad);
  const dpi = Math.max(600, CONFIRM_MAGNIFICATION * renderDpi);
  return `GET …/pages/${pageIndex}/crop.png?x=${x}&y=${y}&w=${box300[2] + pad - x}&h=${box300[3] + pad - y}&dpi=${dpi} (docfix review, or docfix apply --ocr, shows it)`;
}

/**
 * Whether a served crop lets `confirmed` stand: of this page, covering the match's box, at least
 * twice the recognition's resolution, served before now.
 */
export function confirmingCrop(
  served: ServedCrop[],
  pageIndex: number,
  box300: Box,
  renderDpi: number,
  now = new Date(),
): ServedCrop | null {
  return (
    served.find(
      (c) =>
        c.page_index === pageIndex &&
        covers(c.box_render, box300) &&
        c.dpi >= CONFIRM_MAGNIFICATION * renderDpi &&
        Date.parse(c.at) <= now.getTime(),
    ) ?? null
  );
}

/**
 * The run of recognised `words` (in reading order) that reads `find` where the text layer puts it
 * (`box`): one lying mostly inside the box, else the only one on the box's line within two box
 * widths of it (a layer drawn with substitute font widths drifts along its line). Null when no
 * single run answers.
 */
function wordRunUnder<W extends { text: string; box_render: number[]; line: number }>(
  words: W[],
  find: string,
  box: Box,
): W[] | null {
  const runs = exactWordRuns(words, find).map((run) => ({
    run,
    box: union(run.map((w) => w.box_render as Box)),
  }));
  const inside = runs.filter((r) => overlap(r.box, box) >= 0.45 * area(r.box));
  if (inside.length === 1) return inside[0].run;
  if (inside.length > 1) return null;
  const width = box[2] - box[0];
  const onLine = runs.filter((r) => {
    const h = r.box[3] - r.box[1];
    const shared = Math.min(r.box[3], box[3]) - Math.max(r.box[1], box[1]);
    const gap = Math.max(0, r.box[0] - box[2], box[0] - r.box[2]);
    return shared >= 0.5 * h && gap <= 2 * width;
  });
  return onLine.length === 1 ? onLine[0].run : null;
}

/**
 * The scan's reading where the invisible layer puts the word: the run that reads it there, else the
 * words overlapping the layer's box (a layer's word box can reach over a neighbour or drift along
 * its line, its font's widths not being the scan's).
 */
function scannedWordUnder(words: PageWord[], find: string, hiddenRender: Box): PageWord[] {
  const overlapping = words.filter((w) => overlap(w.box_render, hiddenRender) > 0.3 * area(w.box_render));
  return wordRunUnder(words, find, hiddenRender) ?? overlapping;
}

/** Finds the scanned word: the OCR match chosen, or the recognised words under a hidden word. */
async function locateScannedWord(pdf: Uint8Array, password: string, t: PatchTarget, served: ServedCrop[]) {
  const toPts = 72 / t.renderDpi;
  if (t.hidden) {
    // The text layer says the word is here; the pixels must say so too. Its line is recognised
    // first (a band around it); the whole page only when the band does not show the word.
    const hiddenRender = scaleBox(t.hidden.box, 1 / toPts);
    const band = bandAround(hiddenRender);
    let { words, lang } = await pageWords(pdf, password, t, band);
    let under = scannedWordUnder(words, t.find, hiddenRender);
    if (matchForm(under.map((w) => w.text).join(' ')) !== matchForm(t.find) || !under.length) {
      ({ words, lang } = await pageWords(pdf, password, t));
      under = scannedWordUnder(words, t.find, hiddenRender);
    }
    const read = under.map((w) => w.text).join(' ');
    if (!under.length || matchForm(read) !== matchForm(t.find)) {
      refuse(
        'pixels_disagree',
        `The invisible text layer says “${t.find}” here, but the scan reads “${read || 'nothing'}”.`,
        'A pixel patch replaces what the scan shows; the engine patches only a word the scan itself shows.',
        [
          'Look at the page: the text layer may be a wrong recognition.',
          'Use method "ocr" with the word as the scan shows it.',
        ],
        { evidence: { text_layer: t.find, recognised: read } },
      );
    }
    const box = union(under.map((w) => w.box_render as Box));
    return {
      lang,
      words,
      match: { text: read, confidence: Math.min(...under.map((w) => w.confidence)), box_render: box },
      confirmation: { needed: false, confirmed: false, crop: null as ServedCrop | null, competing: 0 },
    };
  }
  const { words, lang } = await pageWords(pdf, password, t);
  const matches = findWordMatches(words, t.find) ?? [];
  const match = matches[t.matchIndex];
  if (!match) {
    refuse(
      'text_not_found',
      matches.length
        ? `“${t.find}” was recognised ${matches.length} time(s) on page ${t.pageIndex}; match_index ${t.matchIndex} is beyond them.`
        : `“${t.find}” was not recognised on page ${t.pageIndex}.`,
      'The word is found by recognising the scan at the given resolution and language.',
      [
        'Look at the words POST …/pages/{page}/ocr finds, and send one of them.',
        'Try another `lang` or `render_dpi`.',
      ],
      { evidence: { matches: matches.length } },
    );
  }
  const box300 = scaleBox(match.box_render as Box, WORKING_DPI / t.renderDpi);
  let crop: ServedCrop | null = null;
  if (match.needs_confirmation) {
    const why = `${match.competing > 0 ? `${match.competing} other reading(s) on the page could be the word meant` : ''}${match.competing > 0 && match.confidence < CONFIRM_THRESHOLD ? ', and ' : ''}${match.confidence < CONFIRM_THRESHOLD ? `it was read at confidence ${match.confidence} (under ${CONFIRM_THRESHOLD})` : ''}`;
    if (!t.confirmed) {
      refuse(
        'confirmation_needed',
        `Match ${t.matchIndex} of “${t.find}” needs a person to confirm it: ${why}.`,
        'Recognition can misread a word or number the matches in another order; the engine corrects a scanned word only when a person has looked at it.',
        [
          `Look at the magnified crop: ${cropAdvice(t.pageIndex, box300, t.renderDpi)}`,
          'Then send `confirmed: true`.',
        ],
        { evidence: { match } },
      );
    }
    crop = confirmingCrop(served, t.pageIndex, box300, t.renderDpi);
    if (!crop) {
      refuse(
        'crop_not_served',
        '`confirmed` is honoured only after this account was served a magnified crop of the match.',
        `No crop.png of this revision covering ${JSON.stringify(box300)} (300-dpi pixels) at ${CONFIRM_MAGNIFICATION * t.renderDpi} dpi or more was served before this request.`,
        [
          `Request the crop first: ${cropAdvice(t.pageIndex, box300, t.renderDpi)}`,
          'Then propose again with `confirmed: true`.',
        ],
        { evidence: { match, served_crops: served.length } },
      );
    }
  }
  return {
    lang,
    words,
    match: { text: match.text, confidence: match.confidence, box_render: match.box_render as Box },
    confirmation: {
      needed: match.needs_confirmation,
      confirmed: t.confirmed,
      crop,
      competing: match.competing,
    },
  };
}

function area(b: Box): number {
  return Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
}

function union(boxes: Box[]): Box {
  return [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
}

/** The patch as an image XObject in the scan's own colour space (so it renders as the scan does). */
function patchImage(doc: mupdf.PDFDocument, scan: ScanImage, patch: ReturnType<typeof patchInImageSpace>) {
  const dict = doc.newDictionary();
  dict.put('Type', doc.newName('XObject'));
  dict.put('Subtype', doc.newName('Image'));
  dict.put('Width', patch.width);
  dict.put('Height', patch.height);
  if (scan.stencil) {
    // A stencil paints one colour over white paper: the patch is 1-bit, index 0 the stencil's
    // colour and index 1 paper white, in the stencil's own colour space.
    const { colourSpace, colour } = scan.stencil;
    const white = colourSpace === 'DeviceCMYK' ? [0, 0, 0, 0] : colourSpace === 'DeviceRGB' ? [1, 1, 1] : [1];
    const lookup = [...colour, ...white].map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255));
    const indexed = doc.newArray();
    indexed.push(doc.newName('Indexed'));
    indexed.push(doc.newName(colourSpace));
    indexed.push(1);
    indexed.push(doc.newByteString(lookup));
    dict.put('ColorSpace', indexed);
    dict.put('BitsPerComponent', 1);
    dict.put('Filter', doc.newName('FlateDecode'));
    const bits = packBilevel(patch.data, patch.width, patch.height);
    return doc.addRawStream(deflateSync(bits, { level: 6 }), dict);
  }
  const cs = scan.composite ? doc.newName('DeviceRGB') : scan.obj.resolve().get('ColorSpace');
  const n = scan.raster.channels;
  // The scan's own colour space when it is a plain one of the raster's component count.
  const components = (name: string) => (name === 'DeviceGray' || name === 'CalGray' ? 1 : 3);
  const reusable =
    (cs.isName() &&
      ['DeviceGray', 'DeviceRGB', 'CalGray', 'CalRGB'].includes(cs.asName()) &&
      components(cs.asName()) === n) ||
    (cs.isArray() &&
      (cs.get(0).asName() === 'ICCBased'
        ? cs.get(1).resolve().get('N').asNumber() === n
        : ['CalGray', 'CalRGB'].includes(cs.get(0).asName()) && components(cs.get(0).asName()) === n));
  dict.put('ColorSpace', reusable ? cs : doc.newName(n === 1 ? 'DeviceGray' : 'DeviceRGB'));
  const bilevel = scan.raster.bilevel && n === 1;
  dict.put('BitsPerComponent', bilevel ? 1 : 8);
  dict.put('Filter', doc.newName('FlateDecode'));
  const data = bilevel ? packBilevel(patch.data, patch.width, patch.height) : patch.data;
  return doc.addRawStream(deflateSync(data, { level: 6 }), dict);
}

const LEADING = /^[\p{P}\p{S}]+/u;
const TRAILING = /[\p{P}\p{S}]+$/u;

/**
 * The replacement as the patch must draw it: recognition reads a word with the punctuation that
 * touches it ("example."), the search ignores that punctuation, so what the find did not name is
 * kept around the replacement (the full stop stays where it was).
 */
export function withRecognisedAffixes(recognised: string, find: string, replacement: string): string {
  const lead = LEADING.test(find) ? '' : (LEADING.exec(recognised)?.[0] ?? '');
  const trail = TRAILING.test(find) ? '' : (TRAILING.exec(recognised)?.[0] ?? '');
  return lead + replacement + trail;
}

function freshXObjectName(page: mupdf.PDFPage): string {
  const xobjects = dictPath(page.getObject().getInheritable('Resources'), 'XObject');
  for (let i = 1; ; i++) {
    const name = `DfxPatch${i}`;
    if (!xobjects?.isDictionary() || xobjects.get(name).isNull()) return name;
  }
}

const fmt = (v: number) => (Math.abs(v) < 1e-9 ? '0' : v.toFixed(6).replace(/\.?0+$/, ''));

/**
 * The word nearly alone, as an outside reader crops it: the whole word as recognition boxed it (with
 * the patch, should that reach beyond), a little of the line on each side (0.6 × its height and 2 pt)
 * and room above and below (0.3 × its height). Cut to a tenth of its height above and below, "gtue"
 * read as itself while a reader given the word with its room read "glue". The word's box, not only
 * the patch's: a swap's patch covers the letters it moves, an outside reader crops the word.
 */
function aloneBox(box300: Box, image: { width: number; height: number }): Box {
  const h = box300[3] - box300[1];
  const side = Math.round(0.6 * h + (2 * WORKING_DPI) / 72);
  return [
    Math.max(0, box300[0] - side),
    Math.max(0, box300[1] - Math.round(0.3 * h)),
    Math.min(image.width, box300[2] + side),
    Math.min(image.height, box300[3] + Math.round(0.3 * h)),
  ];
}

/** One reading of the word alone: which model read which renderer's pixels. */
interface AloneReading {
  reader: string;
  words: RecognisedWord[];
}

/** The word alone on `image`, read by the bundled model and by `second` (when the machine has one). */
async function readAlone(
  image: RgbImage,
  renderer: string,
  box300: Box,
  lang: string,
  second: LanguageData | null,
): Promise<AloneReading[]> {
  // A table's rules across the crop are no part of the word (ruling-lines.ts).
  const clean = withoutRules(image, aloneBox(box300, image));
  const crop = cropPpm(clean.image, clean.box);
  // And 5% smaller, by the other model (the bundled one where it is the only one): a reading an
  // outside reader can share holds when its render resamples the word a little otherwise
  // ("rqeuired" and "suczessive" read so at full size by every model here, and as "rgeuired" and
  // "suCZeSsSive" at 95% by the system's model, as native tesseract read them on poppler's render).
  const smaller = scaledPpm(clean.image, clean.box, 0.95);
  const named = (model: LanguageData | null) => (model ? `${model.source} ${basename(model.file)}` : lang);
  const asked: [string, Uint8Array, LanguageData | null][] = [
    [`${renderer}, ${lang}`, crop, null],
    ...(second
      ? [[`${renderer}, ${named(second)}`, crop, second] as [string, Uint8Array, LanguageData]]
      : []),
    [`${renderer} at 95%, ${named(second)}`, smaller, second],
  ];
  return Promise.all(
    asked.map(async ([reader, pixels, model]) => ({
      reader,
      words: await recogniseWords(pixels, lang, 'line', WORKING_DPI, model ?? undefined),
    })),
  );
}

/**
 * Reads the patched word back from the corrected page's pixels, with tesseract.js: the word with
 * some of its line on each side, and the word alone (`aloneBox`) by each model of the language.
 */
async function readBack(
  after: RgbImage,
  box300: Box,
  word300: Box,
  lang: string,
  second: LanguageData | null,
): Promise<{ readings: RecognisedWord[][]; tight: RecognisedWord[]; alone: AloneReading[] }> {
  const h = box300[3] - box300[1];
  const crop = (side: number): Box => [
    Math.max(0, Math.round(box300[0] - side * h)),
    Math.max(0, box300[1] - Math.round(0.1 * h)),
    Math.min(after.width, Math.round(box300[2] + side * h)),
    Math.min(after.height, box300[3] + Math.round(0.1 * h)),
  ];
  // The word with some of its line on each side: recognition reads a word with its neighbours far
  // more surely than alone (a lone non-word, as a typo fix often is, gets a low confidence). Three
  // widths of context; the replacement must be read in each and the old word in none. And the word
  // alone, as an outside reader crops it, by each model. All are asked at once: they queue on the
  // recognisers' threads while this one goes on with the proof.
  const alone = readAlone(after, 'MuPDF', word300, lang, second);
  alone.catch(() => undefined); // awaited below, after the others
  const [wide, medium, widest] = await Promise.all(
    [crop(2), crop(4), crop(8)].map((box) => recogniseWords(cropPpm(after, box), lang, 'line', WORKING_DPI)),
  );
  const aloneReadings = await alone;
  return { readings: [wide, medium, widest], tight: aloneReadings[0].words, alone: aloneReadings };
}

/**
 * Lets recognitions just asked reach the recogniser's thread (tesseract.js posts a job a few
 * promise steps after the call) before this thread gets busy with work of its own.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What tier 5 takes from the engine's shared steps (engine.ts): one way to render, declare and save. */
export interface PatchHooks {
  beforeRender(page: mupdf.PDFPage): RgbImage;
  /** Declares the page and new objects (and, for an apply, embeds the manifest with these facts). */
  declare(
    doc: mupdf.PDFDocument,
    page: mupdf.PDFPage,
    facts: PatchFacts,
    changed: ChangedObject[],
  ): { declared: DeclaredObject[]; rewrittenExisting: number[] };
  save(
    doc: mupdf.PDFDocument,
    opened: ReturnType<typeof openPdf>,
    pageCount: number,
    changed: ChangedObject[],
    objects: { declared: DeclaredObject[]; rewrittenExisting: number[] },
  ): SavedCorrection;
}

/** What the manifest records of a patch. */
export interface PatchFacts {
  box: Box;
  cost: 'low' | 'medium';
  confirmation?: Record<string, unknown>;
}

/** Tier 5 on one word of a scanned page. Throws a Refusal when the page cannot be patched. */
export function attemptPixelPatch(
  pdf: Uint8Array,
  password: string,
  t: PatchTarget,
  served: ServedCrop[],
  hooks: PatchHooks,
): Promise<PatchCandidate> {
  // The line read before the patch is asked as soon as it is known and read again by the proof:
  // one recognition, shared within this attempt (and only within it).
  return sharingRecognitions(() => pixelPatch(pdf, password, t, served, hooks));
}

async function pixelPatch(
  pdf: Uint8Array,
  password: string,
  t: PatchTarget,
  served: ServedCrop[],
  hooks: PatchHooks,
): Promise<PatchCandidate> {
  refuseNoChange(t);
  // The page is recognised on the recogniser's thread while this one renders the page as it was
  // (before anything is written into it), PDFium renders it for the proof's second renderer, and
  // the page's scan is decoded into the kept work (scan-image.ts; the patch reads it from there):
  // work every patch of the page needs, whichever word is found.
  const locating = locateScannedWord(pdf, password, t, served);
  locating.catch(() => undefined); // awaited below; a refusal waits for it there
  await nextTurn();
  const opened = openPdf(pdf, password);
  const doc = opened.doc;
  let page: mupdf.PDFPage | null = null;
  try {
    const pageCount = doc.countPages();
    page = loadPage(doc, t.pageIndex);
    const before = hooks.beforeRender(page);
    await prepareSecondRenderer(pdf, null, password, t.pageIndex);
    findScanImage(page, undefined, revisionKey(pdf)); // its answer comes with the word's place, below
    const located = await locating;
    const line = lineContext(located.words, located.match.box_render, t.renderDpi, before, WORKING_DPI);
    // The line as it is, read on the recogniser's thread while this one builds the patch; the
    // line's read-back asks for the same pixels and gets this reading (its failure is the proof's).
    recogniseWords(cropPpm(before, line.band), located.lang, 'line', WORKING_DPI).catch(() => undefined);
    await nextTurn();
    const { scan, request } = patchRequest(page, located, t, revisionKey(pdf));
    const patch = patchOrRefuse(request);
    refuseDrawnOver(scan, patch);
    const written = writePatch(doc, page, scan, patch, located, t);
    const { inImage, hidden, changedObjects } = written;
    const patchBox300 = renderBoxOfUpright(scan, patch.box, WORKING_DPI);
    const confirmation = confirmationOf(located);
    const facts: PatchFacts = {
      box: patchBox300,
      cost: patch.cost,
      ...(located.confirmation.needed ? { confirmation } : {}),
    };
    const objects = hooks.declare(doc, page, facts, changedObjects);
    const saved = hooks.save(doc, opened, pageCount, changedObjects, objects);
    const verify = await verifyPatch({
      ...saved,
      before,
      patchBox300,
      wordBox300: scaleBox(located.match.box_render, WORKING_DPI / t.renderDpi),
      find: t.find,
      replacement: t.replacement,
      lang: located.lang,
      line,
      hiddenRetyped: hidden.retyped,
      hiddenBefore: hidden.before,
      drawn: patch.method !== 'clone',
    });
    const fingerprint = createHash('sha256')
      .update(JSON.stringify({ tier: 5, page: t.pageIndex, box: inImage.box, patch: sha256(inImage.data) }))
      .digest('hex');
    return {
      tier: 5,
      cost: patch.cost,
      explanation: patchExplanation(located, t, patch, written),
      measurements: patchMeasurements(located, t, scan, patch, written, confirmation, patchBox300),
      warnings: [
        ...(located.confirmation.needed
          ? [`The match was confirmed by a person after a magnified crop (${TIER_NAMES[5]}).`]
          : []),
      ],
      output: saved.output,
      verify,
      beforeRender: before,
      fingerprint,
      box: patchBox300,
      declared: objects.declared,
      facts,
    };
  } finally {
    page?.destroy(); // a page holds its document (engine.ts, attemptSpan)
    doc.destroy();
  }
}

type LocatedWord = Awaited<ReturnType<typeof locateScannedWord>>;
type Scan = Exclude<ReturnType<typeof findScanImage>, { refused: string }>;
type Patch = Exclude<ReturnType<typeof patchWord>, { refused: string }>;
type WrittenPatch = ReturnType<typeof writePatch>;

function refuseNoChange(t: PatchTarget): void {
  if (t.replacement === '' || t.replacement === t.find) {
    refuse(
      t.replacement === '' ? 'empty_replacement' : 'identical_replacement',
      t.replacement === '' ? 'The replacement is empty.' : 'The replacement is the same as the text found.',
      'A pixel patch replaces one word with another.',
      ['Send the corrected word as `replacement`.'],
    );
  }
}

/** The scan image under the word, and what patchWord is asked: the raster, the words on it, the target. */
function patchRequest(
  page: mupdf.PDFPage,
  located: LocatedWord,
  t: PatchTarget,
  revision: string,
): { scan: Scan; request: PatchRequest } {
  const toPts = 72 / t.renderDpi;
  const wordBox = located.match.box_render.map((v) => v * toPts) as Box;
  const scan = findScanImage(page, wordBox, revision);
  if ('refused' in scan) {
    refuse(
      'not_a_scan',
      `The word cannot be patched: ${scan.refused}.`,
      'Tier 5 patches the pixels of a scanned image.',
      ['Correct text pages with method "text_layer".'],
    );
  }
  const rasterBox = (b: Box) =>
    uprightBoxOfDevice(scan, [b[0] * toPts, b[1] * toPts, b[2] * toPts, b[3] * toPts]);
  // Letters are cloned only from words the same image shows.
  const onScan = (b: Box) => {
    const d = scan.deviceBox;
    return (
      b[0] * toPts >= d[0] - 0.5 &&
      b[1] * toPts >= d[1] - 0.5 &&
      b[2] * toPts <= d[2] + 0.5 &&
      b[3] * toPts <= d[3] + 0.5
    );
  };
  const words: RasterWord[] = located.words
    .filter((w) => onScan(w.box_render as Box))
    .map((w) => ({
      text: w.text,
      confidence: w.confidence,
      box: rasterBox(w.box_render as Box),
    }));
  const target: RasterWord = {
    text: located.match.text,
    confidence: located.match.confidence,
    box: rasterBox(located.match.box_render),
  };
  const request: PatchRequest = {
    raster: scan.raster,
    words,
    target,
    replacement: withRecognisedAffixes(located.match.text, t.find, t.replacement),
    letterFaces: patchLetterFaces(processFontSettings()),
  };
  return { scan, request };
}

function patchOrRefuse(request: PatchRequest): Patch {
  const patch = patchWord(request);
  if ('refused' in patch) {
    refuse(
      patch.code,
      `The word could not be patched: ${patch.refused}.`,
      'Tier 5 builds the new word from letters of the same page.',
      patch.advice ?? ['Choose a replacement made of letters the page shows clearly.'],
      { evidence: patch.evidence },
    );
  }
  return patch;
}

/** Nothing the page draws over the scan may lie where the patch goes (the patch would hide it). */
function refuseDrawnOver(scan: Scan, patch: Patch): void {
  const overPatch = renderBoxOfUpright(scan, patch.box, 72);
  const covered = scan.overlays.filter(
    (o) => o[0] < overPatch[2] && overPatch[0] < o[2] && o[1] < overPatch[3] && overPatch[1] < o[3],
  );
  if (covered.length) {
    refuse(
      'drawn_over_scan',
      `The word cannot be patched: the page draws ${covered.length} other thing(s) over the scan where the patch would go (a stamp, a colour layer, a line), and the patch would hide them.`,
      'Tier 5 only patches scan pixels that nothing else covers.',
      ['Correct a word that nothing is drawn over, or edit the drawing over it.'],
      { evidence: { overlays: covered.map((o) => o.map((v) => Math.round(v * 10) / 10)) } },
    );
  }
}

/** The patch written: a new image drawn over the word, and the invisible text layer retyped. */
function writePatch(
  doc: mupdf.PDFDocument,
  page: mupdf.PDFPage,
  scan: Scan,
  patch: Patch,
  located: LocatedWord,
  t: PatchTarget,
) {
  const toPts = 72 / t.renderDpi;
  const inImage = patchInImageSpace(scan, patch.box, patch.pixels);
  const image = patchImage(doc, scan, inImage);
  const name = freshXObjectName(page);
  const m = patchMatrix(scan, inImage.box);
  const drawing = new TextEncoder().encode(`q ${m.map(fmt).join(' ')} cm /${name} Do Q\n`);
  const changedObjects: ChangedObject[] = [];
  // The invisible text layer says the new word too (search finds it, not the old one).
  const hidden = retypeHiddenWord(doc, page, {
    // The layer's word where the target was one (it may drift from the scan's), else the scan's.
    box: t.hidden?.box ?? [
      located.match.box_render[0] * toPts,
      located.match.box_render[1] * toPts,
      located.match.box_render[2] * toPts,
      located.match.box_render[3] * toPts,
    ],
    find: t.hidden?.text ?? t.find,
    replacement: t.replacement,
  });
  changedObjects.push(...hidden.changed);
  changedObjects.push(...appendPageDrawing(doc, page, drawing, new Map([[name, image]])));
  changedObjects.push({
    num: image.asIndirect(),
    kind: 'image',
    replaces: 0,
    bytes_before: 0,
    bytes_after: inImage.data.length,
  });
  return { inImage, hidden, changedObjects };
}

/** What the engine checked for a match that needed a person (the manifest records it). */
function confirmationOf(located: LocatedWord) {
  return {
    needed: located.confirmation.needed,
    confirmed: located.confirmation.confirmed,
    competing: located.confirmation.competing,
    crop: located.confirmation.crop
      ? {
          box_render: located.confirmation.crop.box_render,
          dpi: located.confirmation.crop.dpi,
          served_at: located.confirmation.crop.at,
        }
      : null,
    checked_by: 'engine',
  };
}

function patchMeasurements(
  located: LocatedWord,
  t: PatchTarget,
  scan: Scan,
  patch: Patch,
  written: WrittenPatch,
  confirmation: ReturnType<typeof confirmationOf>,
  patchBox300: Box,
): Record<string, unknown> {
  const { inImage, hidden } = written;
  return {
    method: patch.method,
    recognised: {
      text: located.match.text,
      confidence: located.match.confidence,
      lang: located.lang,
      render_dpi: t.renderDpi,
    },
    confirmation,
    scan: {
      image: scan.name,
      width: scan.width,
      height: scan.height,
      dpi: round1(scan.pixelsPerPoint * 72),
      bilevel: scan.raster.bilevel,
      colour_components: scan.raster.channels,
      ...(scan.stencil ? { stencil: scan.stencil } : {}),
      ...(scan.composite ? { composite_layers: scan.composite.layers } : {}),
    },
    patch_box_image_px: inImage.box,
    patch_box_render: patchBox300,
    text_layer: hidden.retyped
      ? hidden.detail
      : hidden.before
        ? `not retyped: ${hidden.detail}`
        : 'none on this page',
    ...patch.measurements,
  };
}

function patchExplanation(located: LocatedWord, t: PatchTarget, patch: Patch, written: WrittenPatch): string {
  const { inImage, hidden } = written;
  return `Tier 5 (pixel patch): “${located.match.text}” on the scan becomes “${t.replacement}” ${
    patch.method === 'clone'
      ? 'with letters cloned from the same page, aligned on the word’s baseline and spacing and blended into the paper around it'
      : 'with letters the page never shows drawn in a matched face at the scan’s resolution and blur'
  }; the patch is a new image over the word’s box only (${inImage.width}×${inImage.height} scan pixels) and the scan image is unchanged${
    hidden.retyped ? '; the invisible text layer now says the new word' : ''
  }.`;
}

interface PatchVerifyInput extends SavedCorrection {
  before: RgbImage;
  /** Letters the page never shows were drawn (cost medium). */
  drawn: boolean;
  patchBox300: Box;
  /** The word's box as recognition found it on the page before, in working render pixels. */
  wordBox300: Box;
  find: string;
  replacement: string;
  lang: string;
  line: LineContext;
  hiddenRetyped: boolean;
  hiddenBefore: boolean;
}

/**
 * The proof of a patch: outside its box every pixel unchanged, inside it recognition reads the
 * replacement and not the old word, the line reads as before except the word, the text layer (if
 * any) says the replacement, and the objects and other pages as for every tier. The recognitions
 * are asked first and run on the recogniser's thread while this one checks the text layer and the
 * structure and renders the page for the second renderer (engine.ts runs its guard on those renders).
 */
async function verifyPatch(v: PatchVerifyInput): Promise<VerifyOutput> {
  const { doc, reopen } = reopenOutput(v);
  let page: mupdf.PDFPage | null = null;
  try {
    page = loadPage(doc, v.pageIndex);
    const after = renderPageRgb(page, WORKING_DPI);
    const declared = padBox(v.patchBox300, DECLARED_PAD_PX, after);
    const diff = diffRenders(v.before, after, declared);
    const confined: GuardResult = {
      name: 'patch_confined',
      passed: diff.outside_pixels === 0,
      detail: `${diff.changed_pixels} pixel(s) changed, ${diff.outside_pixels} outside the patch box ${JSON.stringify(declared)}`,
    };
    // The word alone is read by a second model too, where the machine has one.
    const second = otherLanguageData(v.lang);
    const wordAndPatch = unionBox([v.wordBox300, v.patchBox300]) ?? v.patchBox300;
    const reading = Promise.all([
      readBack(after, v.patchBox300, wordAndPatch, v.lang, second),
      // The line around the word reads as before, except the word, and the word keeps the line's spacing.
      readLineBack(v.before, after, v.line, v.patchBox300, {
        find: v.find,
        replacement: v.replacement,
        lang: v.lang,
        dpi: WORKING_DPI,
      }),
    ]);
    reading.catch(() => undefined); // awaited below; handled here so a failure waits for it
    await nextTurn();
    const textLayer = v.hiddenBefore ? textLayerGuard(page, v) : null;
    const proof = proveStructure(doc, v, renderedPage(v.pageIndex, diff, declared));
    // The input's index (its cross-reference chain, read once for the save) lets PDFium's one-kid
    // view of a long file be written without reading the chain again.
    if (confined.passed)
      await prepareSecondRenderer(v.input, v.output, v.password, v.pageIndex, undefined, v.inputIndex);
    // And on PDFium's render of the page (other resampling of the scan, other antialiasing).
    const pdfiumAfter = confined.passed ? await startedSecondRender(v.output, v.pageIndex) : null;
    const onPdfium = pdfiumAfter ? readAlone(pdfiumAfter, 'PDFium', wordAndPatch, v.lang, second) : null;
    onPdfium?.catch(() => undefined); // awaited below
    const [{ readings, tight, alone }, lineBack] = await reading;
    const guards: GuardResult[] = [
      confined,
      readsReplacement(readings, tight, v, lineBack.word),
      aloneReadsReplacement([...alone, ...((await onPdfium) ?? [])], v),
      lineBack.reading,
      lineBack.spacing,
      ...(textLayer ? [textLayer] : []),
      reopen,
      ...proof.guards,
    ];
    const failures = guards.filter((g) => !g.passed).map((g) => `${g.name}: ${g.detail}`);
    return {
      passed: failures.length === 0,
      failure_reason: failures.length ? failures.join('; ') : null,
      output_sha256: sha256Extending(v.output, v.input),
      dpi: WORKING_DPI,
      pages: proof.pages,
      guards,
      stream_changes: proof.stream_changes,
      declared_box: declared,
      changed_box: diff.bbox,
      text_before: v.find,
      text_after: v.replacement,
      diff,
      afterRender: after,
    };
  } finally {
    page?.destroy(); // a page holds its document (engine.ts, attemptSpan)
    doc.destroy();
  }
}

/**
 * The least confidence a patched word read the same by every reader may have. Recognition gives a
 * non-word — as a typo fix usually is — a far lower confidence than a word on the same pixels (a
 * heading read at 87 before the patch, its typo at 64–69 by each of five readers after
 * it); under 60 a reading is a guess.
 */
const AGREED_CONFIDENCE = 60;

/**
 * The confidence the patched word must reach: CONFIRM_THRESHOLD; or AGREED_CONFIDENCE when every
 * reading agrees — the three widths of line, the band of the word and its neighbours after the patch
 * (which read as before except the word), and the word alone as an outside reader crops it, each
 * reading exactly the replacement. Agreement of five readings, the last the one a reader checks,
 * stands in for the confidence a non-word cannot get.
 */
function confidenceBar(
  best: number | null,
  word: { before: number; after: number } | null,
  aloneReads: boolean,
): { bar: number; why: string } {
  // Read at the absolute threshold, the word needs no more agreement than it ever did.
  if ((best !== null && best >= CONFIRM_THRESHOLD) || !word || !aloneReads)
    return { bar: CONFIRM_THRESHOLD, why: `threshold ${CONFIRM_THRESHOLD}` };
  return {
    bar: AGREED_CONFIDENCE,
    why: `threshold ${AGREED_CONFIDENCE}: read so alone and in the band of its neighbours too, there at ${word.after} after the patch where the old word read at ${word.before}`,
  };
}

/** The patched word read back: the replacement in every reading, the old word in none, and alone not surely another word. */
function readsReplacement(
  readings: RecognisedWord[][],
  tight: RecognisedWord[],
  v: { find: string; replacement: string },
  word: { before: number; after: number } | null,
): GuardResult {
  const wanted = matchForm(v.replacement);
  const old = matchForm(v.find);
  const found = readings.flat().filter((w) => matchForm(w.text) === wanted);
  const best = found.length ? Math.max(...found.map((w) => w.confidence)) : null;
  // Read so in every reading, not once by chance.
  const agreeing = readings.filter((r) => r.some((w) => matchForm(w.text) === wanted)).length;
  const oldStill = old !== wanted && [...readings.flat(), ...tight].some((w) => matchForm(w.text) === old);
  // Read alone, the patch must not be read surely as some other word of its length.
  const other = tight.find(
    (w) =>
      w.confidence >= 80 &&
      matchForm(w.text) !== wanted &&
      Math.abs(matchForm(w.text).length - wanted.length) <= 1 &&
      matchForm(w.text).length >= 3,
  );
  // Read alone, the new word must not be joined to a piece of its neighbour, however unsurely: an
  // outside reader cropping the word with a little of its line reads it so ("reconunes" read at
  // 88–90 in the line's three crops, "treconunes" at 46 alone, and "treconunes" by native tesseract
  // on such a crop; "хэчет" read "хэчетве" at 15 alone, native "хэчетье": a non-word holds less
  // firmly to its own letters than the word it replaced).
  const joined = tight.find((w) => {
    const text = matchForm(w.text);
    return text.length > wanted.length && text.includes(wanted);
  });
  const aloneReads = tight.some((w) => matchForm(w.text) === wanted);
  const { bar, why } = confidenceBar(best, word, aloneReads);
  // Under the absolute threshold, the band's own reading after the patch must reach the bar too.
  const bandSure = bar >= CONFIRM_THRESHOLD || (word !== null && word.after >= bar);
  return {
    name: 'recognition_reads_replacement',
    passed:
      best !== null &&
      best >= bar &&
      bandSure &&
      agreeing === readings.length &&
      !oldStill &&
      !other &&
      !joined,
    detail: `recognition of the patched line reads ${readings
      .map((r) => `“${r.map((w) => `${w.text} (${w.confidence})`).join(' ')}”`)
      .join(' and ')}; ${best !== null ? `“${v.replacement}” at ${best}` : `not “${v.replacement}”`}${
      oldStill ? `, and still “${v.find}”` : ''
    }${other ? `; alone it reads “${other.text}” (${other.confidence})` : ''}${
      joined ? `; alone it reads “${joined.text}” (${joined.confidence}), joined to a neighbour's ink` : ''
    } (${why}; read in ${agreeing} of ${readings.length})`,
  };
}

/**
 * The word alone, as an outside reader crops it, read by every model of the language on the machine
 * on each renderer's pixels: each must read the replacement, none the old word, and none the new word
 * joined to a piece of its neighbour. The line's crops read a patched word in its context, and read
 * it surely; an outside reader reads the word alone, on its own render: on unseen scans, words read
 * as the replacement at 91–92 in every line crop were read by native tesseract, on its crop of the
 * word, as another ("tlems" for "tiems", which this bundled model also reads there at 71, under the
 * bar an "other" reading needs) or joined to the ink of the word before ("teienr", which the
 * system's model reads there too). Drawn letters showed it first: "profondûur" read at 89–90 by the
 * engine's model in every crop was "profondüur" to the system's.
 */
function aloneReadsReplacement(alone: AloneReading[], v: { find: string; replacement: string }): GuardResult {
  const wanted = matchForm(v.replacement);
  const old = matchForm(v.find);
  const verdicts = alone.map(({ reader, words }) => {
    const texts = words.map((w) => matchForm(w.text));
    const problems = [
      ...(texts.includes(wanted) ? [] : [`not “${v.replacement}”`]),
      ...(old !== wanted && texts.includes(old) ? [`still “${v.find}”`] : []),
      ...(texts.some((t) => t.length > wanted.length && t.includes(wanted)) ? ['joined to a neighbour'] : []),
    ];
    const read = words.map((w) => `${w.text} (${w.confidence})`).join(' ');
    return {
      ok: problems.length === 0,
      said: `${reader}: “${read}”${problems.length ? `, ${problems.join(', ')}` : ''}`,
    };
  });
  return {
    name: 'word_alone_reads_replacement',
    passed: verdicts.every((r) => r.ok),
    detail: `the word alone, as an outside reader crops it, read ${alone.length} way(s): ${verdicts.map((r) => r.said).join('; ')}`,
  };
}

/** The invisible text layer says the replacement once more and the old word once less. */
function textLayerGuard(page: mupdf.PDFPage, v: PatchVerifyInput): GuardResult {
  const text = page.toStructuredText('preserve-whitespace').asText();
  const count = (s: string, w: string) => s.split(w).length - 1;
  const beforeDoc = openPdf(v.input, v.password).doc;
  const beforePage = loadPage(beforeDoc, v.pageIndex);
  let textBefore = '';
  try {
    textBefore = beforePage.toStructuredText('preserve-whitespace').asText();
  } finally {
    beforePage.destroy();
    beforeDoc.destroy();
  }
  const ok =
    v.hiddenRetyped &&
    count(text, v.replacement) === count(textBefore, v.replacement) + 1 &&
    (v.replacement.includes(v.find) || count(text, v.find) === count(textBefore, v.find) - 1);
  return {
    name: 'text_layer_true',
    passed: ok,
    detail: ok
      ? `the invisible text layer now says “${v.replacement}” where it said “${v.find}”`
      : `the invisible text layer does not say “${v.replacement}” in place of “${v.find}”`,
  };
}

export const _internals = { confirmingCrop, cropAdvice, readsReplacement };
