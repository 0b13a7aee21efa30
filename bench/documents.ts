// Benchmark of the documents engine (medians of N runs, in-process, warm MuPDF): inspect + classify
// of a 300-page text PDF, search over its 300 pages (without an index, then the first and a second
// search of a revision through its text index), a 4-megapixel crop at 600 dpi, each against a
// native MuPDF baseline measured in the same run (`mutool draw` structured text / 600 dpi raster);
// and the upload + first search of the 833-page real manual through a daemon against `mutool draw -F
// txt` of the whole file.
// Run directly (`node bench/documents.ts`) or through bench/run.ts (`benchDocuments`).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeLongTextPdf } from '../fixtures/make-hostile.ts';
import { inspectPdf } from '../src/documents/inspect.ts';
import { renderCrop } from '../src/documents/render.ts';
import { searchDocument, searchFile } from '../src/documents/search.ts';
import { textIndexCache } from '../src/documents/text-index.ts';
import { mupdf, openPdf } from '../src/pdf/mupdf-adapter.ts';
import { startDaemon, stopDaemon, upload } from './daemon.ts';
import { LONG_PAGES, LONG_SEARCH, makeLongRealManual } from './long-manual.ts';

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function timeRuns(runs: number, fn: () => void): number {
  fn(); // warm-up (WASM, font caches)
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return Math.round(median(times) * 10) / 10;
}

function hasMutool(): boolean {
  try {
    execFileSync('mutool', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface DocumentsBench {
  pages: number;
  runs: number;
  inspect_classify_ms: number;
  inspect_per_page_ms: number;
  search_common_word_ms: number;
  search_common_word_matches: number;
  search_rare_word_ms: number;
  /** The revision's first search (reads every page, builds its text index), then a second one. */
  search_first_ms: number;
  search_cached_ms: number;
  /** A second search by another engine thread: the index read back from the file beside the blob. */
  search_index_file_ms: number;
  crop_600dpi_4mp_ms: number;
  baseline: {
    mutool_stext_300_pages_ms: number | null;
    mutool_draw_600dpi_page_ms: number | null;
  };
  /** The long real manual: upload + first search through the daemon vs `mutool draw -F txt`. */
  long_real: {
    pages: number;
    upload_first_search_ms: number;
    matches: number;
    mutool_txt_ms: number | null;
    first_search_vs_mutool: number | null;
  };
  /** Upload + first search of the long real manual ÷ `mutool draw -F txt` of it (target ≤ 1.0). */
  long_real_first_search_vs_mutool: number | null;
  ratios: {
    inspect_vs_mutool_stext: number | null;
    search_vs_mutool_stext: number | null;
    crop_vs_mutool_draw_page: number | null;
    /** The crop against mutool's whole-page time scaled to the crop's 4 of the page's megapixels. */
    crop_vs_mutool_same_pixels: number | null;
  };
}

/**
 * Upload and first search of the 833-page real manual (bench/long-manual.ts) through a real daemon
 * (the local plan: no page cap), against `mutool draw -F txt` of the whole file in the same run.
 * The first search of a revision reads every page (its text index): what a user waits for once.
 */
export async function longRealFirstSearch(runs = 3): Promise<DocumentsBench['long_real']> {
  const path = makeLongRealManual();
  const d = await startDaemon(2);
  const times: number[] = [];
  let matches = 0;
  try {
    for (let i = 0; i < runs; i += 1) {
      const t = performance.now();
      const id = await upload(d, path);
      const res = await fetch(`${d.url}/v1/documents/${id}/search?q=${LONG_SEARCH}`, {
        headers: { authorization: `Bearer ${d.key}` },
      });
      const body = (await res.json()) as { matches: unknown[] };
      if (res.status !== 200) throw new Error(`long search: ${res.status} ${JSON.stringify(body)}`);
      times.push(performance.now() - t);
      matches = body.matches.length;
    }
  } finally {
    await stopDaemon(d);
  }
  const mutool = hasMutool()
    ? timeRuns(runs, () =>
        execFileSync('mutool', ['draw', '-q', '-F', 'txt', '-o', '/dev/null', path], { stdio: 'ignore' }),
      )
    : null;
  const ms = Math.round(median(times) * 10) / 10;
  return {
    pages: LONG_PAGES,
    upload_first_search_ms: ms,
    matches,
    mutool_txt_ms: mutool,
    first_search_vs_mutool: mutool ? Math.round((ms / mutool) * 100) / 100 : null,
  };
}

export async function benchDocuments(options: { runs?: number } = {}): Promise<DocumentsBench> {
  const runs = options.runs ?? 5;
  mupdf.setLog({ warning() {}, error() {} });
  const path = makeLongTextPdf(300);
  const bytes = new Uint8Array(readFileSync(path));
  const inspect = timeRuns(runs, () => inspectPdf(bytes));

  const { doc } = openPdf(bytes);
  let common = 0;
  const searchCommon = timeRuns(runs, () => {
    common = searchDocument(doc, 'the').matches!.length;
  });
  const searchRare = timeRuns(runs, () => searchDocument(doc, 'trace monkey'));
  // Through the text index, on a copy stored as the daemon stores a revision (`<sha256>.pdf`).
  const blobDir = mkdtempSync(join(tmpdir(), 'docfix-bench-blob-'));
  const blob = join(blobDir, `${'0'.repeat(64)}.pdf`);
  copyFileSync(path, blob);
  let first = 0;
  let cached = 0;
  let fromFile = 0;
  try {
    const t = performance.now();
    searchFile(blob, 'trace monkey');
    first = Math.round((performance.now() - t) * 10) / 10;
    cached = timeRuns(runs, () => searchFile(blob, 'trace monkey'));
    fromFile = timeRuns(runs, () => {
      textIndexCache.delete(blob);
      searchFile(blob, 'trace monkey');
    });
  } finally {
    textIndexCache.delete(blob);
    rmSync(blobDir, { recursive: true, force: true });
  }
  // 1000 × 1000 render pixels at 300 dpi → 2000 × 2000 output pixels at 600 dpi (the 4 MP maximum).
  const crop = timeRuns(runs, () =>
    renderCrop(doc, { page_index: 1, x: 300, y: 300, w: 1000, h: 1000, dpi: 600 }),
  );
  const bounds = doc.loadPage(1).getBounds();
  const pageMegapixels =
    ((((bounds[2] - bounds[0]) * 600) / 72) * (((bounds[3] - bounds[1]) * 600) / 72)) / 1e6;
  doc.destroy();

  let stext: number | null = null;
  let draw: number | null = null;
  if (hasMutool()) {
    const out = mkdtempSync(join(tmpdir(), 'docfix-bench-'));
    try {
      stext = timeRuns(runs, () =>
        execFileSync('mutool', ['draw', '-q', '-F', 'stext', '-o', join(out, 'all.stext'), path], {
          stdio: 'ignore',
        }),
      );
      // Per page at 600 dpi, amortising process start-up: 6 pages minus 1 page, divided by 5.
      const six = timeRuns(runs, () =>
        execFileSync('mutool', ['draw', '-q', '-r', '600', '-o', join(out, 'p%d.png'), path, '2-7'], {
          stdio: 'ignore',
        }),
      );
      const one = timeRuns(runs, () =>
        execFileSync('mutool', ['draw', '-q', '-r', '600', '-o', join(out, 'p%d.png'), path, '2'], {
          stdio: 'ignore',
        }),
      );
      draw = Math.round(((six - one) / 5) * 10) / 10;
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  const ratio = (a: number, b: number | null) => (b && b > 0 ? Math.round((a / b) * 100) / 100 : null);
  const longReal = await longRealFirstSearch();
  return {
    pages: 300,
    runs,
    inspect_classify_ms: inspect,
    inspect_per_page_ms: Math.round((inspect / 300) * 100) / 100,
    search_common_word_ms: searchCommon,
    search_common_word_matches: common,
    search_rare_word_ms: searchRare,
    search_first_ms: first,
    search_cached_ms: cached,
    search_index_file_ms: fromFile,
    crop_600dpi_4mp_ms: crop,
    baseline: { mutool_stext_300_pages_ms: stext, mutool_draw_600dpi_page_ms: draw },
    long_real: longReal,
    long_real_first_search_vs_mutool: longReal.first_search_vs_mutool,
    ratios: {
      inspect_vs_mutool_stext: ratio(inspect, stext),
      search_vs_mutool_stext: ratio(searchCommon, stext),
      crop_vs_mutool_draw_page: ratio(crop, draw),
      crop_vs_mutool_same_pixels: ratio(crop, draw === null ? null : (draw * 4) / pageMegapixels),
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchDocuments(), null, 2));
}
