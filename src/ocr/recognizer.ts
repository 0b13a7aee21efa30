// Word recognition with tesseract.js. Language data come from installed `@tesseract.js-data/<lang>`
// packages (nothing is downloaded at run time); one recogniser per language is kept warm per thread.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

const require = createRequire(import.meta.url);
const workers = new Map<string, Promise<Worker>>();

export interface RecognisedWord {
  text: string;
  confidence: number;
  /** Pixel box in the recognised image: [x0, y0, x1, y1]. */
  box: [number, number, number, number];
  /** Line number in reading order (0-based). */
  line: number;
}

/** The folder holding `<lang>.traineddata.gz` for an installed language package, or null. */
export function languagePath(lang: string): string | null {
  if (!/^[a-z]{3}(_[a-z]+)?$/.test(lang)) return null;
  try {
    const pkg = require.resolve(`@tesseract.js-data/${lang}/package.json`);
    const dir = join(dirname(pkg), '4.0.0');
    return existsSync(join(dir, `${lang}.traineddata.gz`)) ? dir : null;
  } catch {
    return null;
  }
}

/** Languages whose data is installed (the `@tesseract.js-data/*` packages found), sorted. */
export function installedLanguages(): string[] {
  const scope = join(dirname(require.resolve('tesseract.js/package.json')), '..', '@tesseract.js-data');
  try {
    return readdirSync(scope)
      .filter((lang) => languagePath(lang) !== null)
      .sort();
  } catch {
    return [];
  }
}

async function workerFor(lang: string): Promise<Worker> {
  let worker = workers.get(lang);
  if (!worker) {
    const langPath = languagePath(lang);
    if (!langPath) throw new Error(`no language data for ${lang}`);
    worker = createWorker(lang, OEM.LSTM_ONLY, { langPath, cacheMethod: 'none', gzip: true });
    workers.set(lang, worker);
    worker.catch(() => workers.delete(lang));
  }
  return worker;
}

/**
 * Recognises the words of a PNG image. `wholePage` uses automatic page segmentation (mode 3; the
 * single-block mode triples word errors on full pages), a region uses single-block mode (6), and
 * `line` one line of text (7: a patched word read back with its neighbours). `dpi` is the image's
 * resolution when its PNG does not say it (tesseract sizes its analysis by it).
 */
export async function recogniseWords(
  png: Uint8Array,
  lang: string,
  wholePage: boolean | 'line',
  dpi?: number,
): Promise<RecognisedWord[]> {
  const worker = await workerFor(lang);
  const mode = wholePage === 'line' ? PSM.SINGLE_LINE : wholePage ? PSM.AUTO : PSM.SINGLE_BLOCK;
  await worker.setParameters({
    tessedit_pageseg_mode: mode,
    user_defined_dpi: dpi ? String(dpi) : '0',
  });
  const result = await worker.recognize(Buffer.from(png), {}, { blocks: true });
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
  await Promise.all(all.map(async (w) => (await w).terminate()));
}
