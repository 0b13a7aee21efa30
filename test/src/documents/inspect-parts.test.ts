// An upload's inspection split over several engine threads (inspect.ts startInspect, classifyPages
// per range, finishInspect): the same pages, concerns and text index as one pass over the file, on
// real corpus files (a 117-page linearized manual, scans, rotated pages, vertical writing); and a search of the
// revision afterwards reads the kept index, never the pages again to build it (counted).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  classifyPages,
  finishInspect,
  inspectPdf,
  joinTextIndex,
  splitPages,
  startInspect,
  type InspectedPages,
} from '../../../src/documents/inspect.ts';
import { openPdfFile } from '../../../src/documents/pdf-file.ts';
import { documentTasks } from '../../../src/documents/tasks.ts';
import { pagesRead, searchFile } from '../../../src/documents/search.ts';
import {
  textIndexCache,
  textIndexPath,
  textIndexUse,
  writeTextIndex,
} from '../../../src/documents/text-index.ts';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));

let scratch = '';
test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'docfix-inspect-parts-'));
});
test.after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

test('splitPages: contiguous ranges over every page, at most `parts`, none under the minimum', () => {
  assert.equal(splitPages(833, 2), [
    [0, 416],
    [416, 833],
  ]);
  assert.equal(splitPages(117, 2), [
    [0, 58],
    [58, 117],
  ]);
  assert.equal(splitPages(60, 2), [[0, 60]], 'too short to split');
  assert.equal(splitPages(1, 4), [[0, 1]]);
  assert.equal(splitPages(10, 3, 1), [
    [0, 3],
    [3, 6],
    [6, 10],
  ]);
});

for (const name of [
  'geotopo-linearized-type1c.pdf',
  'scan-ocr-mixed-pages.pdf',
  'vicksburg-ocr.pdf',
  'indirect-rotation.pdf',
  'japanese-vertical.pdf',
  'geobase-uml.pdf',
  'tracemonkey-two-column.pdf',
]) {
  test(`${name}: classified in ranges, joined, it answers as one pass (pages, concerns, index)`, () => {
    const bytes = new Uint8Array(readFileSync(CORPUS + name));
    const serialIndex = join(scratch, `${name}.serial.json`);
    const serial = inspectPdf(bytes, { indexPath: serialIndex });
    const started = startInspect(bytes, {}, 3, 1);
    assert.ok('head' in started, 'split');
    if (!('head' in started)) return;
    assert.is(started.ranges.length, 3);
    // Each range as an engine thread classifies it (the task, reading the stored file), last first.
    const parts: InspectedPages[] = [...started.ranges].reverse().map(([from, to]) =>
      documentTasks['documents.inspect-pages']({
        path: CORPUS + name,
        password: '',
        from,
        to,
        index: true,
      }),
    );
    assert.equal(finishInspect(started.head, parts), serial);
    const splitIndex = join(scratch, `${name}.split.json`);
    writeTextIndex(splitIndex, joinTextIndex(started.head.page_count, parts));
    assert.is(readFileSync(splitIndex, 'utf8'), readFileSync(serialIndex, 'utf8'));
  });
}

test('a range missing from the join is an error, not a shorter document', () => {
  const bytes = new Uint8Array(readFileSync(CORPUS + 'tracemonkey-two-column.pdf'));
  const started = startInspect(bytes, {}, 2, 1);
  if (!('head' in started)) throw new Error('not split');
  const doc = openPdfFile(CORPUS + 'tracemonkey-two-column.pdf');
  try {
    const [from, to] = started.ranges[0];
    assert.throws(
      () => finishInspect(started.head, [classifyPages(doc, from, to, false)]),
      /classified 7 of 14/,
    );
  } finally {
    doc.destroy();
  }
});

test('a split upload index serves the first search: no page is read again to build it (counted)', () => {
  const name = 'geotopo-linearized-type1c.pdf';
  const blob = join(scratch, `${'1'.repeat(64)}.pdf`);
  copyFileSync(CORPUS + name, blob);
  const started = startInspect(new Uint8Array(readFileSync(blob)), {}, 2, 1);
  if (!('head' in started)) throw new Error('not split');
  const doc = openPdfFile(blob);
  const parts = started.ranges.map(([from, to]) => classifyPages(doc, from, to, true));
  doc.destroy();
  writeTextIndex(textIndexPath(blob), joinTextIndex(started.head.page_count, parts));
  textIndexCache.delete(blob);

  const before = { ...pagesRead, ...textIndexUse };
  const first = searchFile(blob, 'Topologie');
  assert.is(pagesRead.indexed - before.indexed, 0, 'no page read to build the index');
  assert.is(textIndexUse.file - before.file, 1, 'the index came from the file beside the blob');
  const matchedFirst = pagesRead.matched - before.matched;
  assert.ok(matchedFirst > 0 && matchedFirst < started.head.page_count, `${matchedFirst} pages opened`);
  assert.ok((first.matches ?? []).length > 0);

  // The same answer as a search that builds its own index from the file.
  const other = join(scratch, `${'2'.repeat(64)}.pdf`);
  copyFileSync(CORPUS + name, other);
  const indexedBefore = pagesRead.indexed;
  assert.equal(searchFile(other, 'Topologie'), first);
  assert.is(pagesRead.indexed - indexedBefore, started.head.page_count, 'the other one read every page');

  const second = { ...textIndexUse };
  assert.equal(searchFile(blob, 'Topologie'), first);
  assert.is(textIndexUse.cache - second.cache, 1, 'the second search used the kept index');
  assert.is(textIndexUse.file - second.file, 0);
  textIndexCache.delete(blob);
  textIndexCache.delete(other);
});

test.run();
