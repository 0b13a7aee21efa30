// An indexed search of a long document split into page ranges, one per engine thread
// (joinSearchParts): the same answer as one search over every page (matches and boxes in page
// order, the cap and truncation, totals when counted, scanned pages named), on real corpus files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectPdf, splitPages } from '../../../src/documents/inspect.ts';
import { joinSearchParts, searchFile, type SearchOptions } from '../../../src/documents/search.ts';
import { textIndexCache } from '../../../src/documents/text-index.ts';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));

let scratch = '';
test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'docfix-search-parts-'));
});
test.after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A corpus file stored as a revision blob, its index built by a first search. */
function stored(name: string, sha: string): { blob: string; kinds: string[]; pages: number } {
  const blob = join(scratch, `${sha.repeat(64)}.pdf`);
  copyFileSync(CORPUS + name, blob);
  const inspected = inspectPdf(new Uint8Array(readFileSync(blob)));
  const kinds = inspected.pages.map((p) => p.kind);
  searchFile(blob, '', { kinds });
  return { blob, kinds, pages: inspected.page_count };
}

function splitSearch(
  blob: string,
  pages: number,
  q: string,
  options: SearchOptions,
): ReturnType<typeof searchFile> {
  const parts = splitPages(pages, 3, 1).map(([from, to]) =>
    searchFile(blob, q, { ...options, pages: Array.from({ length: to - from }, (_, k) => from + k) }),
  );
  return joinSearchParts(parts, {
    ...(options.cap ? { cap: options.cap } : {}),
    count: options.count ?? false,
  });
}

const CASES: { q: string; options: SearchOptions }[] = [
  { q: 'Topologie', options: {} },
  { q: 'Topologie', options: { cap: 5 } },
  { q: 'Topologie', options: { cap: 5, count: true } },
  { q: 'e', options: { cap: 40 } },
  { q: 'e', options: { cap: 40, count: true } },
  { q: 'raum', options: { rule: { ignoreCase: true, word: false } } },
  { q: 'Menge', options: { rule: { ignoreCase: false, word: true }, cap: 3 } },
  { q: 'nothing like this at all', options: {} },
  { q: '', options: {} },
];

test('geotopo (117 pages): split in three ranges, joined, the answer of one search', () => {
  const { blob, kinds, pages } = stored('geotopo-linearized-type1c.pdf', 'a');
  for (const { q, options } of CASES) {
    const whole = searchFile(blob, q, { ...options, kinds });
    assert.equal(
      splitSearch(blob, pages, q, { ...options, kinds }),
      whole,
      `${q} ${JSON.stringify(options)}`,
    );
  }
  const truncated = searchFile(blob, 'e', { cap: 40, kinds });
  assert.ok(truncated.truncated && truncated.total === undefined, 'a truncated listing without totals');
  assert.ok((searchFile(blob, 'Topologie', { kinds }).matches ?? []).length > 10);
  textIndexCache.delete(blob);
});

test('pages the record calls scanned are named in page order across the ranges', () => {
  const { blob, kinds, pages } = stored('scan-ocr-mixed-pages.pdf', 'b');
  // As the route passes the record's kinds: two pages there classified as scans without text.
  const marked = kinds.map((k, i) => (i === 1 || i === 5 ? 'scanned' : k));
  for (const q of ['the', 'e', 'nothing like this']) {
    const whole = searchFile(blob, q, { kinds: marked, cap: 4 });
    assert.equal(whole.pages_needing_recognition, [1, 5]);
    assert.equal(splitSearch(blob, pages, q, { kinds: marked, cap: 4 }), whole, q);
  }
  textIndexCache.delete(blob);
});

test.run();
