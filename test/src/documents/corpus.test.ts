// Every real-world corpus file (fixtures/corpus) through the engine, no HTTP: it opens with its
// password (owner-only files without one), classifies as the manifest's facts say, and search finds
// the manifest's text-layer words on their pages, where pdftotext saw them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { inspectPdf } from '../../../src/documents/inspect.ts';
import { searchDocument } from '../../../src/documents/search.ts';
import { corpusBytes, corpusFiles } from '../../../fixtures/corpus-manifest.ts';

mupdf.setLog({ warning() {}, error() {} });

const manifest = { files: corpusFiles() };
const bytesOf = corpusBytes;

test('the manifest lists the corpus (52 files)', () => {
  assert.ok(manifest.files.length >= 50);
});

for (const entry of manifest.files) {
  test(`inspect + classify ${entry.file}`, () => {
    const result = inspectPdf(bytesOf(entry.file), { password: entry.password ?? '' });
    assert.is(result.page_count, entry.pages);
    assert.is(result.pages.length, entry.pages);
    assert.is(result.protected, entry.password !== null, 'protected exactly when a user password is needed');
    assert.is(result.unlocked, entry.password !== null);
    assert.is(result.encrypted, entry.encrypted === 'yes');
    const scanned = new Set(entry.expected.scanned_pages ?? []);
    const imageOnly = new Set(entry.image_only_pages);
    for (const page of result.pages) {
      const where = `${entry.file} page ${page.index}`;
      if (imageOnly.has(page.index)) assert.is(page.kind, 'scanned', where);
      else if (scanned.has(page.index)) assert.is(page.kind, 'scanned_with_text_layer', where);
      else assert.ok(page.kind === 'text' || page.kind === 'mixed', `${where}: ${page.kind}`);
      if (scanned.has(page.index) || imageOnly.has(page.index)) {
        assert.ok(page.image_coverage > 0.9, `${where} coverage ${page.image_coverage}`);
        assert.ok(page.natural_dpi >= 72 && page.natural_dpi <= 1200, `${where} dpi ${page.natural_dpi}`);
      } else {
        assert.is(page.natural_dpi, 300);
      }
      assert.is(page.rotation, entry.rotated_pages[String(page.index)] ?? 0, `${where} rotation`);
      assert.ok(page.width_pt > 0 && page.height_pt > 0);
      assert.ok(page.confidence > 0 && page.confidence <= 1);
    }
    if (entry.signatures.length > 0) assert.ok(result.concerns.some((c) => c.startsWith('digitally signed')));
    if ([...scanned].some((i) => !imageOnly.has(i)))
      assert.ok(result.concerns.some((c) => c.includes('OCR text layer')));
    if (imageOnly.size > 0)
      assert.ok(result.concerns.some((c) => c.startsWith('scanned pages without a text layer')));
  });
}

const searchable = manifest.files.filter((f) =>
  f.tasks.some((t) => t.method === 'text_layer' && t.mupdf_text_contains_find),
);

for (const entry of searchable) {
  test(`search finds the manifest's words in ${entry.file}`, () => {
    const opened = openPdf(bytesOf(entry.file), entry.password ?? '');
    try {
      const seen = new Set<string>();
      for (const task of entry.tasks) {
        if (task.method !== 'text_layer' || !task.mupdf_text_contains_find) continue;
        const key = `${task.page}/${task.find}/${task.match_index}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const result = searchDocument(opened.doc, task.find);
        assert.ok(result.pages_searched!.includes(task.page));
        const onPage = result.matches!.filter((m) => m.page_index === task.page);
        assert.ok(onPage.length > task.match_index, `${entry.file}: "${task.find}" on page ${task.page}`);
        // pdftotext's word box (points, displayed page, top-left) at 300 dpi must meet one of ours.
        const want = task.bbox.map((v) => (v * 300) / 72);
        const meets = onPage.some(
          (m) =>
            m.box_render[0] < want[2] + 4 &&
            m.box_render[2] > want[0] - 4 &&
            m.box_render[1] < want[3] + 4 &&
            m.box_render[3] > want[1] - 4,
        );
        assert.ok(
          meets,
          `${entry.file}: "${task.find}" box ${JSON.stringify(onPage.map((m) => m.box_render))} vs ${want.map(Math.round)}`,
        );
        for (const m of onPage) {
          assert.ok(m.box_render.every(Number.isInteger));
          assert.is(m.confidence, 1);
        }
      }
    } finally {
      opened.doc.destroy();
    }
  });
}

test.run();
