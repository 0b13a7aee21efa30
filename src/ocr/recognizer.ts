// Word recognition with tesseract.js. Language data are local files: the bundled
// `@tesseract.js-data/<lang>` packages and tesseract's data installed on the machine (languages.ts);
// nothing is downloaded at run time. One recogniser per language is kept warm per thread.
import { createWorker, OEM, PSM, type Worker, type WorkerOptions } from 'tesseract.js';
import { availableLanguages, languageData, type LanguageData } from './languages.ts';

const workers = new Map<string, Promise<Worker>>();
/** The parameters each recogniser was last given (setting them again is a round trip to its thread). */
const parameters = new Map<string, string>();

/** Recognitions this thread has run, by kind: what the kept work saves is counted here (tests read it). */
const counts = { page: 0, region: 0, line: 0 };

/** How many recognitions this thread has run so far: whole pages, regions (bands, boxes) and lines. */
export function recognitionCounts(): { page: number; region: number; line: number } {
  return { ...counts };
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
      parameters.delete(lang);
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
export async function recogniseWords(
  image: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
): Promise<RecognisedWord[]> {
  const worker = await workerFor(lang);
  const mode = wholePage === 'line' ? PSM.SINGLE_LINE : wholePage ? PSM.AUTO : PSM.SINGLE_BLOCK;
  const wanted = { tessedit_pageseg_mode: mode, user_defined_dpi: dpi ? String(dpi) : '0' };
  if (parameters.get(lang) !== JSON.stringify(wanted)) {
    await worker.setParameters(wanted);
    parameters.set(lang, JSON.stringify(wanted));
  }
  counts[wholePage === 'line' ? 'line' : wholePage ? 'page' : 'region']++;
  const result = await worker.recognize(Buffer.from(image), {}, { blocks: true });
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

/** Stops the recognisers of this thread (tests, shutdown). */
export async function closeRecognisers(): Promise<void> {
  const all = [...workers.values()];
  workers.clear();
  parameters.clear();
  await Promise.all(all.map(async (w) => (await w).terminate()));
}
