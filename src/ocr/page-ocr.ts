// Words of a page and the matches of a string among them, for the OCR route and OCR targets. Pages
// that carry real text are read from their text layer (exact, confidence 100); scanned pages, and
// any page when asked to turn it, are recognised from pixels — only the region asked for, since
// recognition costs follow area. Boxes are integer render pixels at `render_dpi`, top-left origin,
// page rotation applied.
import { createRequire } from 'node:module';
import { classifyPage } from '../documents/classify.ts';
import { loadPageChecked } from '../documents/render.ts';
import { foldNeedle, foldText, readPageText, toBoxRender, unionQuads } from '../documents/text-find.ts';
import { DocfixError } from '../errors.ts';
import { loadPage, mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { OcrPageOut } from '../schemas.ts';
import { availableLanguages, installAdvice } from './languages.ts';
import { keptWork, revisionKey, wordsBytes } from './kept-work.ts';
import { installedLanguages, languagePath, recogniseWords } from './recognizer.ts';

type Box = [number, number, number, number];

export interface OcrTaskInput {
  path?: string;
  pdf?: Uint8Array;
  password: string;
  page_index: number;
  find: string;
  box_render: Box | null;
  render_dpi: number | null;
  lang: string | null;
  turn: 0 | 90 | 180 | 270;
}

interface Word {
  text: string;
  confidence: number;
  box_render: Box;
  line: number;
}

export const CONFIRM_THRESHOLD = 85;
/** Largest image handed to recognition (pixels); a full A4 page at 600 dpi is about 35 million. */
export const MAX_OCR_PIXELS = 60_000_000;
const TESSERACT_VERSION = (createRequire(import.meta.url)('tesseract.js/package.json') as { version: string })
  .version;

/** Folded form of a word for matching: compatibility- and case-folded, edge punctuation removed. */
export function matchForm(word: string): string {
  return foldText(word).replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '');
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = next;
    }
  }
  return row[b.length];
}

function union(boxes: Box[]): Box {
  return [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
}

function inside(box: Box, region: Box): boolean {
  const cx = (box[0] + box[2]) / 2;
  const cy = (box[1] + box[3]) / 2;
  return cx >= region[0] && cx < region[2] && cy >= region[1] && cy < region[3];
}

/** Words of the text layer: characters grouped by line and split at white space. */
function textLayerWords(page: mupdf.PDFPage, dpi: number): Word[] {
  const { chars } = readPageText(page);
  const words: Word[] = [];
  let current: typeof chars = [];
  const flush = () => {
    if (current.length) {
      const rect = unionQuads(current.map((c) => c.quad));
      words.push({
        text: current.map((c) => c.c).join(''),
        confidence: 100,
        box_render: toBoxRender(rect, dpi),
        line: current[0].line,
      });
    }
    current = [];
  };
  for (const c of chars) {
    if (/\s/.test(c.c) || (current.length && current[0].line !== c.line)) flush();
    if (!/\s/.test(c.c)) current.push(c);
  }
  flush();
  return words;
}

/** Refuses an empty region, or one too large to recognise (`asked`: the region at the dpi asked). */
function checkRegion(region: Box, asked: Box, dpi: number): void {
  const w = asked[2] - asked[0];
  const h = asked[3] - asked[1];
  if (region[2] <= region[0] || region[3] <= region[1] || w <= 0 || h <= 0)
    throw new DocfixError('invalid_request', 'The region is empty.', {
      problems: [{ field: 'body.box_render', problem: 'is empty on this page' }],
    });
  if (w * h > MAX_OCR_PIXELS) {
    throw new DocfixError(
      'invalid_request',
      `The region is ${Math.round((w * h) / 1e6)} megapixels at ${dpi} dpi; recognise a smaller box or a lower render_dpi.`,
      {
        problems: [
          { field: 'body.render_dpi', problem: `gives more than ${MAX_OCR_PIXELS / 1e6} megapixels` },
        ],
      },
    );
  }
}

/**
 * A grey pixmap as a binary PGM: its bytes as they are, behind a short header. Neither side
 * compresses (a PNG of a 300 dpi A4 page takes longer to deflate and inflate than to render); PGM
 * carries no resolution, so the recogniser is told it (recogniseWords' `dpi`: unlabelled, tesseract
 * takes the image for 96 dpi and a 300 dpi page's text for three times too large — lines are lost).
 */
function greyPgm(pixmap: mupdf.Pixmap): Uint8Array {
  const w = pixmap.getWidth();
  const h = pixmap.getHeight();
  const stride = pixmap.getStride();
  const samples = pixmap.getPixels();
  const head = new TextEncoder().encode(`P5\n${w} ${h}\n255\n`);
  const out = new Uint8Array(head.length + w * h);
  out.set(head);
  for (let y = 0; y < h; y++) out.set(samples.subarray(y * stride, y * stride + w), head.length + y * w);
  return out;
}

/**
 * Renders the region (render pixels at `dpi`) turned by `turn` degrees clockwise, as a grey PGM, and
 * returns a function mapping a box of that image back to page render pixels.
 */
function renderRegion(
  page: mupdf.PDFPage,
  region: Box,
  dpi: number,
  turn: number,
): { pgm: Uint8Array; back: (b: Box) => Box } {
  const w = region[2] - region[0];
  const h = region[3] - region[1];
  const s = dpi / 72;
  let matrix = mupdf.Matrix.concat(mupdf.Matrix.scale(s, s), mupdf.Matrix.translate(-region[0], -region[1]));
  const turned = turn === 90 || turn === 270;
  const outW = turned ? h : w;
  const outH = turned ? w : h;
  // Rotation about the origin, then a shift back into the positive quadrant.
  const shift: Record<number, [number, number]> = { 0: [0, 0], 90: [h, 0], 180: [w, h], 270: [0, w] };
  const turnMatrix = mupdf.Matrix.concat(mupdf.Matrix.rotate(turn), mupdf.Matrix.translate(...shift[turn]));
  matrix = mupdf.Matrix.concat(matrix, turnMatrix);
  const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, outW, outH], false);
  try {
    pixmap.clear(255);
    const device = new mupdf.DrawDevice(matrix, pixmap);
    try {
      page.run(device, mupdf.Matrix.identity);
      device.close();
    } finally {
      device.destroy();
    }
    const inverse = mupdf.Matrix.invert(turnMatrix);
    const back = (b: Box): Box => {
      const pts = [
        [b[0], b[1]],
        [b[2], b[1]],
        [b[0], b[3]],
        [b[2], b[3]],
      ].map(([x, y]) => [
        x * inverse[0] + y * inverse[2] + inverse[4],
        x * inverse[1] + y * inverse[3] + inverse[5],
      ]);
      const xs = pts.map((p) => p[0]);
      const ys = pts.map((p) => p[1]);
      return [
        Math.round(Math.min(...xs)) + region[0],
        Math.round(Math.min(...ys)) + region[1],
        Math.round(Math.max(...xs)) + region[0],
        Math.round(Math.max(...ys)) + region[1],
      ];
    };
    return { pgm: greyPgm(pixmap), back };
  } finally {
    pixmap.destroy();
  }
}

/**
 * Matches of `find` among the words (consecutive words of one line). For recognised words, a word one
 * letter away from the one sought may be the real target misread: it competes, and so does low
 * confidence; text-layer words are exact and never need confirmation.
 */
/** The words of `find`, folded as recognised words are matched (matchForm). */
const needleOf = (find: string) => foldNeedle(find).split(' ').map(matchForm).filter(Boolean);

/**
 * Runs of consecutive words on one line that read `find` word for word (folded, edge punctuation
 * aside), in reading order: the occurrences of `find` among recognised words.
 */
export function exactWordRuns<W extends { text: string; line: number }>(words: W[], find: string): W[][] {
  const needle = needleOf(find);
  if (needle.length === 0) return [];
  const runs: W[][] = [];
  for (let i = 0; i + needle.length <= words.length; i++) {
    const run = words.slice(i, i + needle.length);
    if (run.some((w) => w.line !== run[0].line)) continue;
    if (needle.every((token, k) => matchForm(run[k].text) === token)) runs.push(run);
  }
  return runs;
}

export function findWordMatches(words: Word[], find: string, recognised = true): OcrPageOut['matches'] {
  const needle = needleOf(find);
  const matches = exactWordRuns(words, find).map((run) => ({
    text: run.map((w) => w.text).join(' '),
    confidence: Math.min(...run.map((w) => w.confidence)),
    box_render: union(run.map((w) => w.box_render)),
  }));
  // Near misses: single recognised words one letter away from a one-word `find`.
  let nearMisses = 0;
  if (recognised && needle.length === 1) {
    for (const w of words) {
      const form = matchForm(w.text);
      if (form.length > 2 && editDistance(form, needle[0]) === 1) nearMisses++;
    }
  }
  // Every other reading that could be the word meant competes: the other occurrences (reading order
  // is not stable across resolution and skew, so match_index alone may point at another one) and
  // the near misses. Text-layer words are exact and in a fixed order: they never need a person.
  return matches.map((m, index) => {
    const competing = matches.length - 1 + nearMisses;
    return {
      index,
      text: m.text,
      confidence: m.confidence,
      box_render: m.box_render,
      competing,
      needs_confirmation: recognised && (m.confidence < CONFIRM_THRESHOLD || competing > 0),
    };
  });
}

/**
 * ISO 639-1 codes (a catalog's /Lang, e.g. "de-DE") to tesseract's language names. A /Lang already in
 * tesseract's three letters ("rus") is taken as it is.
 */
const ISO_TO_TESSERACT: Record<string, string> = {
  ar: 'ara',
  be: 'bel',
  bg: 'bul',
  ca: 'cat',
  cs: 'ces',
  da: 'dan',
  de: 'deu',
  el: 'ell',
  en: 'eng',
  es: 'spa',
  et: 'est',
  fi: 'fin',
  fr: 'fra',
  he: 'heb',
  hr: 'hrv',
  hu: 'hun',
  it: 'ita',
  ja: 'jpn',
  ko: 'kor',
  lt: 'lit',
  lv: 'lav',
  nb: 'nor',
  nl: 'nld',
  no: 'nor',
  pl: 'pol',
  pt: 'por',
  ro: 'ron',
  ru: 'rus',
  sk: 'slk',
  sl: 'slv',
  sr: 'srp',
  sv: 'swe',
  tr: 'tur',
  uk: 'ukr',
  zh: 'chi_sim',
};

/** The tesseract language a catalog's /Lang names ("ru-RU", "ru", "rus"), or null. */
export function languageOfTag(tag: string): string | null {
  const primary = tag.toLowerCase().split(/[-_]/)[0];
  if (primary === 'zh' && /-(tw|hk|mo|hant)\b/i.test(tag)) return 'chi_tra';
  return ISO_TO_TESSERACT[primary] ?? (/^[a-z]{3}$/.test(primary) ? primary : null);
}

const CYRILLIC = /[\u0400-\u04ff]/g;
const HAN = /[\u4e00-\u9fff]/g;

/**
 * Letters only one language writes (or one script, named by the language most written in it), as
 * evidence in a document's text layer. A language whose own letters are shown (3 or more) also
 * counts the script it shares (`shared`): Ukrainian text is mostly Cyrillic Russian also has, and
 * Japanese writes Chinese characters; kana or і, ї, є decide.
 */
const LETTERS: { letters: RegExp; lang: string; shared?: RegExp }[] = [
  { letters: /[іїєґІЇЄҐ]/g, lang: 'ukr', shared: CYRILLIC },
  { letters: /[ўЎ]/g, lang: 'bel', shared: CYRILLIC },
  { letters: /[а-яА-ЯёЁ]/g, lang: 'rus' },
  { letters: /[ąęłśżźćńĄĘŁŚŻŹĆŃ]/g, lang: 'pol' },
  { letters: /[ěščřůĚŠČŘŮ]/g, lang: 'ces' },
  { letters: /[ğışĞİŞ]/g, lang: 'tur' },
  { letters: /[äöüßÄÖÜ]/g, lang: 'deu' },
  { letters: /[ñ¿¡Ñ]/g, lang: 'spa' },
  { letters: /[àâçèêëîïôœùûÀÂÇÈÊÎÔŒ]/g, lang: 'fra' },
  { letters: /[ãõÃÕ]/g, lang: 'por' },
  { letters: /[α-ωΑ-Ωά-ώ]/g, lang: 'ell' },
  { letters: /[\u05d0-\u05ea]/g, lang: 'heb' },
  { letters: /[\u0621-\u064a]/g, lang: 'ara' },
  { letters: /[\u3040-\u30ff]/g, lang: 'jpn', shared: HAN },
  { letters: /[\uac00-\ud7af]/g, lang: 'kor' },
  { letters: HAN, lang: 'chi_sim' },
];

/**
 * The language to recognise a page of this document in, when the caller names none: the catalog's
 * /Lang, else the letters its text layer uses most (first pages), else English — among every
 * language the machine has (bundled or installed).
 */
export function documentLanguage(doc: mupdf.PDFDocument): string {
  const installed = new Set(installedLanguages());
  const declared = doc.getTrailer().get('Root').get('Lang');
  if (declared.isString()) {
    const code = languageOfTag(declared.asString());
    if (code && installed.has(code)) return code;
  }
  let text = '';
  for (let i = 0; i < Math.min(3, doc.countPages()) && text.length < 20_000; i++) {
    const page = loadPage(doc, i);
    try {
      text += page.toStructuredText('preserve-whitespace').asText();
    } finally {
      page.destroy();
    }
  }
  return languageOfText(text, installed) ?? 'eng';
}

/** The language whose letters `text` uses most (at least 3), among `installed`; a tie keeps the earlier. */
export function languageOfText(text: string, installed: Set<string>): string | null {
  const count = (letters: RegExp) => text.match(letters)?.length ?? 0;
  let best: { lang: string; count: number } | null = null;
  for (const { letters, lang, shared } of LETTERS) {
    const own = count(letters);
    if (own < 3 || !installed.has(lang)) continue;
    // The shared script is counted as well, plus one, so that a tie goes to the language shown.
    const n = shared ? own + count(shared) + 1 : own;
    if (!best || n > best.count) best = { lang, count: n };
  }
  return best?.lang ?? null;
}

/** The answer for a language this machine has no data for: what there is, and what installs it. */
function languageUnavailable(input: OcrTaskInput, lang: string, dpi: number): OcrPageOut {
  const available = availableLanguages().map((l) => l.code);
  return {
    page_index: input.page_index,
    provider: `tesseract.js ${TESSERACT_VERSION}`,
    lang,
    render_dpi: dpi,
    word_count: 0,
    available: false,
    message: `No recognition data for language "${lang}" on this machine (available: ${available.join(', ') || 'none'}; docfix ocr --languages lists them). To add it, ${installAdvice(lang)}.`,
    matches: [],
    confirm_threshold: CONFIRM_THRESHOLD,
    word_source: '',
    words: [],
  };
}

export async function ocrPage(input: OcrTaskInput): Promise<OcrPageOut> {
  const dpi = input.render_dpi ?? 300;
  const bytes = input.pdf ?? new Uint8Array((await import('node:fs')).readFileSync(input.path!));
  const { doc } = openPdf(bytes, input.password);
  try {
    const page = loadPageChecked(doc, input.page_index);
    try {
      const lang = input.lang ?? documentLanguage(doc);
      const region = regionAsked(page, input.box_render, dpi);
      const facts = classifyPage(page, input.page_index).info;
      const kind = facts.kind;
      const fromTextLayer = (kind === 'text' || kind === 'mixed') && input.turn === 0;
      let words: Word[];
      let provider: string;
      if (fromTextLayer) {
        provider = 'text-layer';
        words = textLayerWords(page, dpi);
        if (input.box_render) words = words.filter((w) => inside(w.box_render, region));
      } else {
        if (!languagePath(lang)) return languageUnavailable(input, lang, dpi);
        provider = `tesseract.js ${TESSERACT_VERSION}`;
        const ownDpi = kind === 'text' ? null : facts.natural_dpi;
        words = await recognisedWords(page, revisionKey(bytes), input, { lang, region, dpi, ownDpi });
      }
      const selection = input.box_render ? words : [];
      return {
        page_index: input.page_index,
        provider,
        lang: fromTextLayer ? '' : lang,
        render_dpi: dpi,
        word_count: words.length,
        available: true,
        message: fromTextLayer
          ? 'Words read from the page’s text layer.'
          : `Words recognised from ${input.box_render ? 'the region' : 'the page'} at ${dpi} dpi.`,
        matches: input.find ? findWordMatches(words, input.find, !fromTextLayer) : [],
        confirm_threshold: CONFIRM_THRESHOLD,
        selection_text: selection.map((w) => w.text).join(' '),
        selection_confidence: selection.length
          ? Math.round((selection.reduce((sum, w) => sum + w.confidence, 0) / selection.length) * 10) / 10
          : 0,
        word_source: fromTextLayer ? 'text_layer' : 'recognised',
        words,
      };
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

/** The region to read (render pixels at `dpi`): the box asked, clipped to the page, or the whole page. */
function regionAsked(page: mupdf.PDFPage, box: Box | null, dpi: number): Box {
  const bounds = page.getBounds();
  const s = dpi / 72;
  const pageBox: Box = [0, 0, Math.ceil((bounds[2] - bounds[0]) * s), Math.ceil((bounds[3] - bounds[1]) * s)];
  return box
    ? [Math.max(0, box[0]), Math.max(0, box[1]), Math.min(pageBox[2], box[2]), Math.min(pageBox[3], box[3])]
    : pageBox;
}

/** Scans at this resolution or finer are recognised at their own (below it tesseract reads small print worse). */
const OWN_RESOLUTION_MIN_DPI = 200;

/**
 * The resolution to recognise a scanned page at when `dpi` is asked: the scan's own (`own`, the
 * classification's natural_dpi: its largest image's pixels per inch; null for a page of text) when it is
 * coarser than `dpi` (and fine enough to read), so that its pixels are read as they are, not
 * upscaled — a third fewer pixels for a 200 dpi scan read for 300 dpi boxes, and the pixels a
 * native tesseract run on the scan reads. Boxes are mapped back to `dpi`.
 */
function recognitionDpi(own: number | null, dpi: number): number {
  if (own === null || own >= dpi || own < OWN_RESOLUTION_MIN_DPI) return dpi;
  return Math.round(own);
}

/**
 * The image `region` (render pixels at `dpi`) is recognised in: a grey PGM at the resolution
 * recognitionDpi picks (`at`; `k` = at / dpi), and the map of its boxes back to page render pixels.
 */
function recognitionImage(
  page: mupdf.PDFPage,
  region: Box,
  dpi: number,
  ownDpi: number | null,
  turn: number,
) {
  const at = recognitionDpi(ownDpi, dpi);
  const k = at / dpi;
  const scaled: Box = [
    Math.floor(region[0] * k),
    Math.floor(region[1] * k),
    Math.ceil(region[2] * k),
    Math.ceil(region[3] * k),
  ];
  checkRegion(scaled, region, dpi);
  return { ...renderRegion(page, scaled, at, turn), at, k };
}

/**
 * The pixels a whole scanned page asked at `dpi` is recognised from, and their resolution: what a
 * native tesseract run must read to be compared like for like (bench/ocr.ts).
 */
export function pageRecognitionImage(
  pdf: Uint8Array,
  password: string,
  pageIndex: number,
  dpi: number,
): { pgm: Uint8Array; dpi: number } {
  const { doc } = openPdf(pdf, password);
  try {
    const page = loadPageChecked(doc, pageIndex);
    try {
      const facts = classifyPage(page, pageIndex).info;
      const ownDpi = facts.kind === 'text' ? null : facts.natural_dpi;
      const { pgm, at } = recognitionImage(page, regionAsked(page, null, dpi), dpi, ownDpi, 0);
      return { pgm, dpi: at };
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

/**
 * Recognised words of `region` (render pixels at `dpi`), kept per revision, page, region, resolution,
 * language and turn (kept-work.ts): the same page asked again in this thread — a proposal's apply,
 * another match on the page, the OCR route before a proposal — is not recognised again.
 */
async function recognisedWords(
  page: mupdf.PDFPage,
  revision: string,
  input: OcrTaskInput,
  asked: { lang: string; region: Box; dpi: number; ownDpi: number | null },
): Promise<Word[]> {
  const { lang, region, dpi, ownDpi } = asked;
  const key = `words:${revision}:${input.page_index}:${dpi}:${lang}:${input.turn}:${region.join(',')}:${input.box_render ? 'region' : 'page'}`;
  const kept = keptWork.get<Word[]>(key);
  if (kept) return kept;
  const { pgm, at, k, back } = recognitionImage(page, region, dpi, ownDpi, input.turn);
  const recognised = await recogniseWords(pgm, lang, !input.box_render, at);
  const words = recognised.map((w) => {
    const b = back(w.box);
    return {
      text: w.text,
      confidence: w.confidence,
      box_render: [
        Math.floor(b[0] / k),
        Math.floor(b[1] / k),
        Math.ceil(b[2] / k),
        Math.ceil(b[3] / k),
      ] as Box,
      line: w.line,
    };
  });
  keptWork.set(key, words, wordsBytes(words));
  return words;
}
