// Preflight bench: a whole dense page (every word, through the engine's dry run) in-process, median
// of N runs, beside one 300 dpi render of the same page. Words that the dry run cannot settle go
// through a full proposal each; their count is reported.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { preflightPage } from '../src/preflight/page-preflight.ts';
import { mupdf, openPdf, renderPageRgb } from '../src/pdf/mupdf-adapter.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/pdf/', import.meta.url));
/** Dense pages: two-column paper (723 words), LaTeX text (710), a tax form (430 words, many refusals). */
const PAGES: [string, number][] = [
  ['tracemonkey-two-column.pdf', 0],
  ['latex-4-pages.pdf', 0],
  ['tax-form-incremental.pdf', 0],
];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return Math.round((s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) * 10) / 10;
}

export async function benchPreflight(options: { runs?: number } = {}): Promise<Record<string, unknown>> {
  const runs = options.runs ?? 5;
  mupdf.setLog({ warning() {}, error() {} });
  const pages: Record<string, unknown>[] = [];
  for (const [file, pageIndex] of PAGES) {
    const pdf = new Uint8Array(readFileSync(CORPUS + file));
    const input = { pdf, password: '', page_index: pageIndex, box_render: null, render_dpi: null };
    let out = await preflightPage(input); // warm-up
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      out = await preflightPage(input);
      times.push(performance.now() - t);
    }
    const { doc } = openPdf(pdf);
    const page = doc.loadPage(pageIndex);
    const renders: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      renderPageRgb(page, 300);
      renders.push(performance.now() - t);
    }
    page.destroy();
    doc.destroy();
    pages.push({
      file,
      page: pageIndex,
      words_checked: out.checked,
      words_skipped: out.skipped,
      refusing_words: out.regions?.length ?? 0,
      preflight_ms: median(times),
      render_300dpi_ms: median(renders),
    });
  }
  return {
    runs,
    /** The densest page's whole-page preflight (the target is at most 1 s). */
    preflight_page_ms: pages[0].preflight_ms,
    pages,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchPreflight(), null, 2));
}
