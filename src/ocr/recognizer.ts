// Word recognition with tesseract.js. Language data are local files: the bundled
// `@tesseract.js-data/<lang>` packages and tesseract's data installed on the machine (languages.ts);
// nothing is downloaded at run time. One recogniser per language is kept warm per thread.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { createWorker, OEM, PSM, type RecognizeOptions, type Worker, type WorkerOptions } from 'tesseract.js';
import { availableLanguages, languageData, type LanguageData } from './languages.ts';

const workers = new Map<string, Promise<Worker>>();

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

async function workerFor(lang: string): Promise<Worker> {
  let worker = workers.get(lang);
  if (!worker) {
    const data = languageData(lang);
    if (!data) throw new Error(`no language data for ${lang}`);
    worker = createWorker(lang, OEM.LSTM_ONLY, recogniserOptions(data));
    workers.set(lang, worker);
    worker.catch(() => {
      workers.delete(lang);
    });
  }
  return worker;
}

/**
 * Recognises the words of an image (a PNG, or the PGM of a page reading: ocr/page-ocr.ts).
 * `wholePage` uses automatic page segmentation (mode 3; the single-block mode triples word errors
 * on full pages), a region uses single-block mode (6), and `line` one line of text (7: a patched
 * word read back with its neighbours). `dpi` is the image's resolution when the file does not say
 * it (a PGM never does; tesseract sizes its analysis by it).
 */
export function recogniseWords(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
): Promise<RecognisedWord[]> {
  const kept = shared.getStore();
  if (!kept) return recognise(image, lang, wholePage, dpi);
  const key = `${createHash('sha1').update(image).digest('hex')}:${lang}:${String(wholePage)}:${dpi ?? 0}`;
  let reading = kept.get(key);
  if (!reading) {
    reading = recognise(image, lang, wholePage, dpi);
    kept.set(key, reading);
  }
  return reading;
}

async function recognise(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
): Promise<RecognisedWord[]> {
  const worker = await workerFor(lang);
  const mode = wholePage === 'line' ? PSM.SINGLE_LINE : wholePage ? PSM.AUTO : PSM.SINGLE_BLOCK;
  // The mode and resolution go with each call (the recogniser sets them for that image and restores
  // them after): recognitions asked at the same time, queued on the recogniser's thread in order,
  // each run with their own, where parameters set beforehand in a separate message could be
  // overtaken by another call's.
  const options: Record<string, string> = {
    tessedit_pageseg_mode: mode,
    user_defined_dpi: dpi ? String(dpi) : '0',
  };
  counts[wholePage === 'line' ? 'line' : wholePage ? 'page' : 'region']++;
  counts.pixels += imageArea(image);
  // Only the blocks are read (the plain text output is not built).
  // tesseract.js passes any option it does not know on to tesseract, but types only its own.
  const perCall = options as Partial<RecognizeOptions>;
  const result = await worker.recognize(Buffer.from(image), perCall, { blocks: true, text: false });
  const words: RecognisedWord[] = [];
  let line = 0;
  for (const block of result.data.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const l of paragraph.lines) {
        for (const w of l.words) {
          const text = w.text.trim();
          if (!text) continue;
          words.push({
            text,
            confidence: Math.round(w.confidence * 10) / 10,
            box: [w.bbox.x0, w.bbox.y0, w.bbox.x1, w.bbox.y1],
            line,
          });
        }
        line++;
      }
    }
  }
  return words;
}

/** Width × height of a PNG or binary PNM image (0 when the header is not one of them). */
export function imageArea(image: Uint8Array): number {
  if (image[0] === 0x89 && image[1] === 0x50 && image.length >= 24) {
    const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
    return view.getUint32(16) * view.getUint32(20);
  }
  if (image[0] === 0x50 && (image[1] === 0x35 || image[1] === 0x36)) {
    // "P5"/"P6", white space, width, white space, height (no comments: ours write none).
    const head = new TextDecoder().decode(image.subarray(0, 40)).split(/\s+/);
    return Number(head[1]) * Number(head[2]) || 0;
  }
  return 0;
}

/** Stops the recognisers of this thread (tests, shutdown). */
export async function closeRecognisers(): Promise<void> {
  const all = [...workers.values()];
  workers.clear();
  await Promise.all(all.map(async (w) => (await w).terminate()));
}
