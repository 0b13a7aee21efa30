// Second renderer cost: median PDFium render of a dense text page at 300 dpi against MuPDF's
// renderPage of the same page in the same run, plus the exact comparison and a whole second
// opinion (two opens, two renders, one comparison). Run alone: node bench/second-renderer.ts
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf, openPdf, renderPage } from '../src/pdf/mupdf-adapter.ts';
import { openWithPdfium, PDFIUM_RENDERER } from '../src/verify/pdfium-render.ts';
import { compareExact, secondOpinion } from '../src/verify/second-opinion.ts';

export interface SecondRendererBench {
  renderer: string;
  file: string;
  page: number;
  dpi: number;
  runs: number;
  /** PDFium: render of a page of an already open document. */
  pdfium_render_ms: number;
  /** PDFium: open the bytes, render, close (what secondOpinion pays per side). */
  pdfium_open_render_ms: number;
  /** MuPDF: renderPage of a loaded page. */
  mupdf_render_ms: number;
  /** pdfium_render_ms / mupdf_render_ms. */
  ratio: number;
  /** compareExact of two identical 300 dpi renders (the full row scan). */
  compare_ms: number;
  /** secondOpinion(before, after = before) end to end. */
  second_opinion_ms: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const round = (ms: number) => Math.round(ms * 100) / 100;

async function time(runs: number, fn: () => unknown): Promise<number> {
  await fn(); // warm-up: WASM load, font caches
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return round(median(samples));
}

export async function benchSecondRenderer(runs = 15): Promise<SecondRendererBench> {
  mupdf.setLog({ warning() {}, error() {} });
  const file = 'tracemonkey-two-column.pdf'; // page 4: two full columns of 9 pt text, ~7,500 characters
  const pageIndex = 3;
  const dpi = 300;
  const bytes = new Uint8Array(
    readFileSync(fileURLToPath(new URL(`../fixtures/corpus/pdf/${file}`, import.meta.url))),
  );

  // MuPDF and PDFium samples alternate, so load from other processes falls on both alike.
  const opened = openPdf(bytes);
  const page = opened.doc.loadPage(pageIndex);
  const doc = await openWithPdfium(bytes);
  const mupdfSamples: number[] = [];
  const pdfiumSamples: number[] = [];
  let a;
  try {
    renderPage(page, dpi); // warm-up
    a = doc.renderPage(pageIndex, dpi);
    for (let i = 0; i < runs; i += 1) {
      let t = performance.now();
      renderPage(page, dpi);
      mupdfSamples.push(performance.now() - t);
      t = performance.now();
      doc.renderPage(pageIndex, dpi);
      pdfiumSamples.push(performance.now() - t);
    }
  } finally {
    doc.close();
    page.destroy();
    opened.doc.destroy();
  }
  const mupdfMs = round(median(mupdfSamples));
  const pdfiumMs = round(median(pdfiumSamples));
  const b = { ...a, pixels: new Uint8Array(a.pixels) };
  const openRenderMs = await time(runs, async () => {
    const d = await openWithPdfium(bytes);
    try {
      return d.renderPage(pageIndex, dpi);
    } finally {
      d.close();
    }
  });
  const compareMs = await time(runs, () => compareExact(a, b, null));
  const opinionMs = await time(Math.min(runs, 5), () =>
    secondOpinion(bytes, bytes, '', pageIndex, null, dpi),
  );
  return {
    renderer: PDFIUM_RENDERER,
    file,
    page: pageIndex,
    dpi,
    runs,
    pdfium_render_ms: pdfiumMs,
    pdfium_open_render_ms: openRenderMs,
    mupdf_render_ms: mupdfMs,
    ratio: round(pdfiumMs / mupdfMs),
    compare_ms: compareMs,
    second_opinion_ms: opinionMs,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchSecondRenderer(), null, 2));
}
