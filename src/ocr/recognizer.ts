// Word recognition with tesseract.js. Language data are local files: the bundled
// `@tesseract.js-data/<lang>` packages and tesseract's data installed on the machine (languages.ts);
// nothing is downloaded at run time. Two recognisers per language are kept warm per thread (one on a
// single core): recognitions asked at the same time — a tier-5 proof's line readings, the line
// before the patch asked early while the page is still read — run side by side instead of queuing.
import { AsyncLocalStorage } from 'node:async_hooks';
import { availableParallelism } from 'node:os';
import { createHash } from 'node:crypto';
import { createWorker, OEM, PSM, type RecognizeOptions, type Worker, type WorkerOptions } from 'tesseract.js';
import { availableLanguages, languageData, type LanguageData } from './languages.ts';
import { keptWork, wordsBytes } from './kept-work.ts';

/** A recogniser (tesseract.js worker) and the recognitions it has in hand. */
interface Recogniser {
  worker: Promise<Worker>;
  busy: number;
}

/** The recognisers of each language. */
const pools = new Map<string, Recogniser[]>();
/**
 * Recognisers per language. Two: a tier-5 proposal asks two line readings at once (bench
 * pixel-patch: the proposal 10–20 % faster, a second word on the page 15–30 %), each costing about
 * 130 MB of resident memory with English data; one on a single core.
 */
export const RECOGNISERS = Math.min(2, availableParallelism());

/** Recognitions this thread has run, by kind, and the pixels they read: what kept work saves is counted here (tests read it). */
const counts = { page: 0, region: 0, line: 0, pixels: 0 };

/**
 * How many recognitions this thread has run so far: whole pages, regions (bands, boxes) and lines,
 * and the pixels they read in all.
 */
export function recognitionCounts(): { page: number; region: number; line: number; pixels: number } {
  return { ...counts };
}

/**
 * Recognitions shared within one piece of work (a tier-5 proposal): the same pixels asked again —
 * the line read before the patch, asked early so that it runs while the patch is built — are
 * recognised once. Keyed by the image's bytes, language, mode and resolution.
 */
const shared = new AsyncLocalStorage<Map<string, Promise<RecognisedWord[]>>>();

/** Runs `work` with its own set of shared recognitions (forgotten when it ends). */
export function sharingRecognitions<T>(work: () => Promise<T>): Promise<T> {
  return shared.run(new Map(), work);
}

export interface RecognisedWord {
  text: string;
  confidence: number;
  /** Pixel box in the recognised image: [x0, y0, x1, y1]. */
  box: [number, number, number, number];
  /** Line number in reading order (0-based). */
  line: number;
}

/** The folder holding the data of `lang` (bundled or on the machine), or null when there is none. */
export function languagePath(lang: string): string | null {
  return languageData(lang)?.folder ?? null;
}

/** Languages whose data this machine has (bundled and installed), sorted. */
export function installedLanguages(): string[] {
  return availableLanguages().map((l) => l.code);
}

/**
 * The options a recogniser of `data` is created with. `langPath` is always the local folder of the
 * file (tesseract.js fetches from a CDN only when it is unset or a URL), `gzip` says which of the
 * two file names it reads, and no cache is read or written (a cache in the working folder would
 * shadow the data chosen).
 */
export function recogniserOptions(data: LanguageData): Partial<WorkerOptions> {
  return { langPath: data.folder, gzip: data.gzip, cacheMethod: 'none' };
}

/**
 * The recogniser of `lang` with the fewest recognitions in hand. The language's recognisers are all
 * started on its first use (they load side by side; one that fails to start is dropped, and the pool
 * is started again on the next use once all are gone).
 */
function recogniserFor(lang: string, model?: LanguageData): Recogniser {
  const poolKey = model ? `${lang}:${model.file}` : lang;
  let pool = pools.get(poolKey);
  if (!pool) {
    const data = model ?? languageData(lang);
    if (!data) throw new Error(`no language data for ${lang}`);
    const started: Recogniser[] = [];
    // A second model reads a patched word alone now and then (tier 5's proof): one recogniser is enough.
    for (let i = 0; i < (model ? 1 : RECOGNISERS); i++) {
      const r: Recogniser = { worker: createWorker(lang, OEM.LSTM_ONLY, recogniserOptions(data)), busy: 0 };
      r.worker.catch(() => {
        const at = started.indexOf(r);
        if (at >= 0) started.splice(at, 1);
        if (started.length === 0 && pools.get(poolKey) === started) pools.delete(poolKey);
      });
      started.push(r);
    }
    pool = started;
    pools.set(poolKey, pool);
  }
  return pool.reduce((a, b) => (b.busy < a.busy ? b : a));
}

/**
 * Recognises the words of an image (a PNG, or the PGM of a page reading: ocr/page-ocr.ts).
 * `wholePage` uses automatic page segmentation (mode 3; the single-block mode triples word errors
 * on full pages), a region uses single-block mode (6), and `line` one line of text (7: a patched
 * word read back with its neighbours). `dpi` is the image's resolution when the file does not say
 * it (a PGM never does; tesseract sizes its analysis by it). `model` reads with that language file
 * instead of the language's first (languages.ts, `otherLanguageData`), on a recogniser of its own.
 */
export function recogniseWords(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
  model?: LanguageData,
): Promise<RecognisedWord[]> {
  const inWork = shared.getStore();
  const line = wholePage === 'line';
  if (!inWork && !line) return recognise(image, lang, wholePage, dpi, model);
  const modelKey = model ? `:${model.file}` : '';
  const key = `${createHash('sha1').update(image).digest('hex')}:${lang}${modelKey}:${String(wholePage)}:${dpi ?? 0}`;
  const kept = line ? keptLine(key) : undefined;
  if (kept) return Promise.resolve(kept.map(copyWord));
  let reading = inWork?.get(key);
  if (!reading) {
    reading = recognise(image, lang, wholePage, dpi, model);
    if (line) reading.then((words) => keepLine(key, words)).catch(() => undefined);
    inWork?.set(key, reading);
  }
  return reading;
}

/**
 * Line readings (a proof's read-backs: the band of a patched line before and after, the word with
 * its context) kept for the thread in its bounded store (kept-work.ts), keyed by the exact pixels
 * read, language, mode and resolution: a proposal's apply done again, or another proposal of the
 * page reading the same band as it was, gets the reading the same pixels gave (recognition of the
 * same pixels with the same settings gives the same words) instead of recognising them again.
 */
const keptLine = (key: string) => keptWork.get<RecognisedWord[]>(`line:${key}`);

const copyWord = (w: RecognisedWord): RecognisedWord => ({ ...w, box: [...w.box] as RecognisedWord['box'] });

function keepLine(key: string, words: RecognisedWord[]): void {
  // Copies, kept and handed out: a caller may not change what a later task reads.
  const copy = words.map(copyWord);
  keptWork.set(`line:${key}`, copy, wordsBytes(copy));
}

async function recognise(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
  model?: LanguageData,
): Promise<RecognisedWord[]> {
  counts[wholePage === 'line' ? 'line' : wholePage ? 'page' : 'region']++;
  counts.pixels += imageArea(image);
  const halves = wholePage === true && RECOGNISERS > 1 ? pageHalves(image) : null;
  if (!halves) return (await recogniseOn(image, lang, wholePage, dpi, model)).words;
  // Both halves at once, each on a recogniser of its own; the lower half's boxes and lines follow
  // the upper half's, as tesseract numbers the lines of a page from the top.
  const [top, bottom] = await Promise.all(
    halves.map((half) => recogniseOn(half.image, lang, true, dpi, model)),
  );
  const below = halves[1].y;
  return [
    ...top.words,
    ...bottom.words.map((w) => ({
      ...w,
      box: [w.box[0], w.box[1] + below, w.box[2], w.box[3] + below] as RecognisedWord['box'],
      line: w.line + top.lines,
    })),
  ];
}

/** One recognition on one recogniser: the words, and how many lines tesseract listed (empty ones too). */
async function recogniseOn(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
  model?: LanguageData,
): Promise<{ words: RecognisedWord[]; lines: number }> {
  // Taken now, before any wait: a recognition asked right after this one sees it in hand.
  const recogniser = recogniserFor(lang, model);
  recogniser.busy++;
  try {
    const worker = await recogniser.worker;
    const mode = wholePage === 'line' ? PSM.SINGLE_LINE : wholePage ? PSM.AUTO : PSM.SINGLE_BLOCK;
    // The mode and resolution go with each call (the recogniser sets them for that image and restores
    // them after): recognitions asked at the same time, queued on the recogniser's thread in order,
    // each run with their own, where parameters set beforehand in a separate message could be
    // overtaken by another call's.
    const options: Record<string, string> = {
      tessedit_pageseg_mode: mode,
      user_defined_dpi: dpi ? String(dpi) : '0',
      // Tesseract reads a line again inverted when its confidence is low, for light text on a dark
      // ground; where the image has no dark ground that second reading can only fail, and it cost a
      // quarter of a clean 300 dpi page's recognition (bench ocr), words unchanged.
      tessedit_do_invert: hasDarkGround(image) ? '1' : '0',
    };
    // Only tesseract's TSV is built: one string made inside the recogniser. The block tree (every
    // symbol with its choices, built call by call across the WASM boundary) cost 6 % more on a dense
    // 900-word page (bench ocr), and nothing here reads below the word.
    // tesseract.js passes any option it does not know on to tesseract, but types only its own.
    const perCall = options as Partial<RecognizeOptions>;
    const result = await worker.recognize(Buffer.from(image), perCall, { tsv: true, text: false });
    const tsv = result.data.tsv ?? '';
    return { words: wordsOfTsv(tsv), lines: tsv.split('\n').filter((row) => row.startsWith('4\t')).length };
  } finally {
    recogniser.busy--;
  }
}

/**
 * The words of tesseract's TSV (level, page, block, paragraph, line, word, left, top, width, height,
 * confidence, text): every level-4 row starts a line, level-5 rows are its words. Lines are numbered
 * in reading order, empty ones included, as tesseract lists them.
 */
export function wordsOfTsv(tsv: string): RecognisedWord[] {
  const words: RecognisedWord[] = [];
  let line = -1;
  for (const row of tsv.split('\n')) {
    const cells = row.split('\t');
    if (cells.length < 12) continue;
    if (cells[0] === '4') line++;
    if (cells[0] !== '5') continue;
    const text = cells.slice(11).join('\t').trim();
    if (!text) continue;
    const [left, top, width, height, confidence] = cells.slice(6, 11).map(Number);
    words.push({
      text,
      confidence: Math.round(confidence * 10) / 10,
      box: [left, top, left + width, top + height],
      line: Math.max(line, 0),
    });
  }
  return words;
}

/**
 * A page image cut in two between its lines near the middle, so that the two halves are recognised
 * at once, each on its own thread (tesseract.js runs one thread per recogniser): the page is read in
 * about the time of its bigger half. The cut is a path from the left edge to the right through paper
 * only, found in the middle third of the page: it may step one row up or down per column, so it
 * follows the gap between two lines of a scan a little skewed, or goes down a column gutter between
 * lines of each column; no dark pixel lies on it or within INK_CLEARANCE rows of it, so it crosses
 * no letter and each half holds whole words. Of the paths through paper, the one ending nearest the
 * middle. Each half is the page on its side of the cut, the other side painted white. Null where no
 * path goes through (a picture or a rule across the middle, a dense or noisy page), where the page
 * is too small to be worth it, or for an image that is not a binary PGM or PPM: the page is read whole.
 */
export function pageHalves(
  image: Uint8Array,
): [{ image: Uint8Array; y: number }, { image: Uint8Array; y: number }] | null {
  const pnm = pnmLayout(image);
  if (!pnm || pnm.height < MIN_HALVED_ROWS) return null;
  const { width, height, channels, offset } = pnm;
  const rowBytes = width * channels;
  const y0 = Math.floor(height / 3);
  const rows = Math.ceil((2 * height) / 3) - y0;
  // Blocked: dark, or within INK_CLEARANCE rows of a dark pixel of the same column.
  const blocked = new Uint8Array(rows * width);
  for (let y = Math.max(0, y0 - INK_CLEARANCE); y < Math.min(height, y0 + rows + INK_CLEARANCE); y++) {
    for (let x = 0, i = offset + y * rowBytes; x < width; x++, i += channels) {
      if (image[i] >= 128) continue;
      const from = Math.max(0, y - INK_CLEARANCE - y0);
      const to = Math.min(rows - 1, y + INK_CLEARANCE - y0);
      for (let r = from; r <= to; r++) blocked[r * width + x] = 1;
    }
  }
  // Column by column, the rows a path through paper from the left edge reaches, and the step taken.
  let reach = new Uint8Array(rows);
  let next = new Uint8Array(rows);
  const step = new Int8Array(rows * width);
  for (let r = 0; r < rows; r++) reach[r] = blocked[r * width] ? 0 : 1;
  for (let x = 1; x < width; x++) {
    let any = false;
    for (let r = 0; r < rows; r++) {
      next[r] = 0;
      if (blocked[r * width + x]) continue;
      // Straight on when it can: a path keeps to its row.
      const from = reach[r] ? 0 : r > 0 && reach[r - 1] ? -1 : r + 1 < rows && reach[r + 1] ? 1 : 2;
      if (from === 2) continue;
      next[r] = 1;
      step[r * width + x] = from;
      any = true;
    }
    if (!any) return null;
    [reach, next] = [next, reach];
  }
  const middle = Math.floor(rows / 2);
  let end = -1;
  for (let d = 0; d <= rows && end < 0; d++) {
    if (middle - d >= 0 && reach[middle - d]) end = middle - d;
    else if (middle + d < rows && reach[middle + d]) end = middle + d;
  }
  if (end < 0) return null;
  // The cut's row in each column (page rows), followed back from its right end.
  const cut = new Int32Array(width);
  for (let x = width - 1, r = end; x >= 0; x--) {
    cut[x] = y0 + r;
    r += step[r * width + x];
  }
  let top = height;
  let bottom = 0;
  for (const y of cut) {
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  // Each half is given white rows on its cut side, the margin tesseract reads a page's edge lines with.
  const half = (
    from: number,
    to: number,
    padAbove: number,
    padBelow: number,
    keep: (x: number, y: number) => boolean,
  ) => {
    const count = padAbove + (to - from) + padBelow;
    const head = new TextEncoder().encode(`P${channels === 3 ? 6 : 5}\n${width} ${count}\n255\n`);
    const out = new Uint8Array(head.length + count * rowBytes).fill(255);
    out.set(head);
    for (let y = from; y < to; y++) {
      const at = head.length + (padAbove + y - from) * rowBytes;
      out.set(image.subarray(offset + y * rowBytes, offset + (y + 1) * rowBytes), at);
      if (y < top || y > bottom) continue;
      for (let x = 0; x < width; x++)
        if (!keep(x, y)) out.fill(255, at + x * channels, at + (x + 1) * channels);
    }
    return out;
  };
  return [
    { image: half(0, bottom + 1, 0, CUT_MARGIN, (x, y) => y < cut[x]), y: 0 },
    { image: half(top, height, CUT_MARGIN, 0, (x, y) => y >= cut[x]), y: top - CUT_MARGIN },
  ];
}

/** Rows from which a page is cut in two (below, one recognition costs less than the wait for two). */
const MIN_HALVED_ROWS = 600;
/** Rows kept clear of ink above and below the cut. */
const INK_CLEARANCE = 2;
/** White rows added on each half's cut side. */
const CUT_MARGIN = 16;

/** Side of the cells hasDarkGround counts dark pixels in; it looks at squares of 2 × 2 cells. */
const GROUND_CELL = 12;

/**
 * Whether a binary PGM or PPM image has a dark ground anywhere: a square of 2 × 2 cells (24 pixels),
 * at any cell offset, at least three quarters dark (below mid grey), which text on paper never fills
 * — a stroke of ordinary print is a few pixels wide — but a dark band, a negative heading or a very
 * bold display letter does (a band 36 pixels high fills one wherever it lies). Other images (PNG)
 * are taken to have one: the inverted reading then stays on.
 */
export function hasDarkGround(image: Uint8Array): boolean {
  const pnm = pnmLayout(image);
  if (!pnm) return true;
  const { width, height, channels, offset } = pnm;
  const rowBytes = width * channels;
  const across = Math.floor(width / GROUND_CELL);
  // Dark pixels per cell of the cell row being summed, and of the one above it.
  let above = new Uint32Array(across);
  let current = new Uint32Array(across);
  const full = GROUND_CELL * GROUND_CELL * 4;
  for (let y = 0; y < height; y++) {
    const row = offset + y * rowBytes;
    for (let c = 0; c < across; c++) {
      let n = 0;
      for (let x = c * GROUND_CELL, end = x + GROUND_CELL; x < end; x++) {
        if (image[row + x * channels] < 128) n++;
      }
      current[c] += n;
    }
    if ((y + 1) % GROUND_CELL !== 0) continue;
    if (y + 1 > GROUND_CELL) {
      for (let c = 0; c + 1 < across; c++) {
        if ((above[c] + above[c + 1] + current[c] + current[c + 1]) * 4 >= full * 3) return true;
      }
    }
    [above, current] = [current, above];
    current.fill(0);
  }
  return false;
}

/** Width, height, samples per pixel and where the pixels start, of a binary PGM (P5) or PPM (P6) with maxval 255. */
function pnmLayout(
  image: Uint8Array,
): { width: number; height: number; channels: number; offset: number } | null {
  if (image[0] !== 0x50 || (image[1] !== 0x35 && image[1] !== 0x36)) return null;
  // Four fields (magic, width, height, maxval) separated by white space; ours write no comments.
  const head = new TextDecoder().decode(image.subarray(0, 40));
  const match = /^P[56]\s+(\d+)\s+(\d+)\s+255\s/.exec(head);
  if (!match) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  const channels = image[1] === 0x36 ? 3 : 1;
  const offset = match[0].length;
  if (image.length < offset + width * height * channels) return null;
  return { width, height, channels, offset };
}

/** Width × height of a PNG or binary PNM image (0 when the header is not one of them). */
export function imageArea(image: Uint8Array): number {
  if (image[0] === 0x89 && image[1] === 0x50 && image.length >= 24) {
    const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
    return view.getUint32(16) * view.getUint32(20);
  }
  const pnm = pnmLayout(image);
  return pnm ? pnm.width * pnm.height : 0;
}

/** Stops the recognisers of this thread (tests, shutdown). */
export async function closeRecognisers(): Promise<void> {
  const all = [...pools.values()].flat();
  pools.clear();
  await Promise.all(all.map(async (r) => (await r.worker.catch(() => null))?.terminate()));
}
