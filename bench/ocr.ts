// Benchmark of recognition (issue 11): OCR of a line-sized region (target ≤ 0.2 s), and OCR of a
// full scanned page against native tesseract on the same image in the same run (target ≤ 1.5×;
// native single-threaded, as tesseract.js runs). The page is the corpus's turned CCITT scan
// (scan-ocr-rotate270.pdf, 300 dpi). Medians of 3 after one warm-up.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ocrPage } from '../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../src/ocr/recognizer.ts';
import { openPdf, renderPagePng } from '../src/pdf/mupdf-adapter.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const FILE = `${root}fixtures/corpus/pdf/scan-ocr-rotate270.pdf`;
const RUNS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default async function benchOcr(): Promise<Record<string, unknown>> {
  const pdf = new Uint8Array(readFileSync(FILE));
  const base = { pdf, password: '', page_index: 0, find: '', render_dpi: 300, lang: 'eng', turn: 0 as const };
  await ocrPage({ ...base, box_render: [200, 500, 1500, 600] }); // warm-up: the recogniser starts
  const line: number[] = [];
  const page: number[] = [];
  let words = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    await ocrPage({ ...base, box_render: [200, 500, 1500, 600] });
    line.push(performance.now() - t);
    t = performance.now();
    const whole = await ocrPage({ ...base, box_render: null });
    page.push(performance.now() - t);
    words = whole.word_count;
  }
  await closeRecognisers();
  // Native tesseract on the same pixels (MuPDF's 300 dpi render of the page).
  const dir = mkdtempSync(join(tmpdir(), 'docfix-bench-ocr-'));
  const native: number[] = [];
  let nativeWords = 0;
  try {
    const { doc } = openPdf(pdf, '');
    const png = join(dir, 'page.png');
    writeFileSync(png, renderPagePng(doc.loadPage(0), 300));
    doc.destroy();
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const out = execFileSync('tesseract', [png, '-', '--dpi', '300'], {
        encoding: 'utf8',
        env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      native.push(performance.now() - t);
      nativeWords = out.split(/\s+/).filter(Boolean).length;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    page: 'scan-ocr-rotate270.pdf, 1748×2480 at 300 dpi',
    line_region_ms: Math.round(median(line)),
    full_page_ms: Math.round(median(page)),
    full_page_words: words,
    native_tesseract_ms: Math.round(median(native)),
    native_words: nativeWords,
    full_page_over_native: Math.round((median(page) / median(native)) * 100) / 100,
  };
}
