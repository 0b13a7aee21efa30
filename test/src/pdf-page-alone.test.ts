// Pages looked up alone (page-frame.ts, loadPageAlone): on a long flat page tree the page comes
// through a view of the root node's /Kids, and must be the very page `loadPage` gives — the same
// object, the boxes and rotation it inherits from the root, the same pixels and text — with the tree
// put back as it was, so later lookups of other pages still find them. The engine's own input is
// looked up so too: its save leaves the root node out of the update (exact-save.ts), in a classic
// cross-reference table and in a stream alike, so the proof finds only the declared objects written.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeDocument, loadPage, loadPageAlone, mupdf, openPdf } from '../../src/pdf/mupdf-adapter.ts';
import { FLAT_TREE_PAGES } from '../../src/pdf/page-frame.ts';
import { takeBytes } from '../../src/corrections/locate/pdf-bytes.ts';
import { applyEdit } from '../../src/corrections/engine.ts';
import { streamDecoder } from '../../src/corrections/proof/verify.ts';
import { readSavedRegion } from '../../src/pdf/exact-save.ts';
import { ObjectIndex } from '../../src/pdf/xref-index.ts';
import { editInput } from './corrections/fixtures.ts';

/**
 * `count` pages in one flat /Kids, each writing its number; MediaBox, Rotate and Resources set on the
 * root /Pages node only, so every page inherits them through /Parent.
 */
function flatTree(count: number, options = 'compress'): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', font);
    resources.put('Font', fonts);
    for (let i = 0; i < count; i += 1) {
      const page = doc.addPage(
        [0, 0, 300, 200],
        0,
        resources,
        `BT /F1 ${10 + (i % 7)} Tf 20 100 Td (page ${i}) Tj ET`,
      );
      doc.insertPage(-1, page);
    }
    const pages = doc.getTrailer().get('Root').get('Pages');
    pages.put('MediaBox', [0, 0, 320, 180]);
    pages.put('Rotate', 90);
    pages.put('Resources', resources);
    for (let i = 0; i < count; i += 1) {
      const page = pages.get('Kids').get(i);
      page.delete('MediaBox');
      page.delete('Rotate');
      page.delete('Resources');
    }
    return takeBytes(doc.saveToBuffer(options));
  } finally {
    doc.destroy();
  }
}

/** What a reader sees of a page: its object, bounds, text and a small render. */
function seen(page: mupdf.PDFPage) {
  const pixmap = page.toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false, true);
  try {
    return {
      num: page.getObject().asIndirect(),
      bounds: page.getBounds(),
      text: page.toStructuredText('preserve-whitespace').asText().trim(),
      pixels: Buffer.from(pixmap.getPixels()).toString('base64'),
    };
  } finally {
    pixmap.destroy();
  }
}

const long = flatTree(FLAT_TREE_PAGES + 6);

test('a page of a long flat tree looked up alone is the page loadPage gives, inherited entries and all', () => {
  for (const index of [0, 37, FLAT_TREE_PAGES + 5]) {
    const whole = openPdf(long).doc;
    const alone = openPdf(long).doc;
    try {
      const expected = seen(loadPage(whole, index));
      const got = seen(loadPageAlone(alone, index));
      assert.equal(got, expected, `page ${index}`);
      assert.match(got.text, `page ${index}`);
      // Rotate 90 from the root: the 320 × 180 MediaBox stands upright.
      assert.equal(got.bounds, [0, 0, 180, 320]);
    } finally {
      closeDocument(whole);
      closeDocument(alone);
    }
  }
});

test('the tree is put back: the document still counts and finds every other page', () => {
  const { doc } = openPdf(long);
  try {
    const last = FLAT_TREE_PAGES + 5;
    loadPageAlone(doc, last);
    const pages = doc.getTrailer().get('Root').get('Pages');
    assert.is(pages.get('Kids').length, FLAT_TREE_PAGES + 6);
    assert.is(pages.get('Count').asNumber(), FLAT_TREE_PAGES + 6);
    assert.is(doc.countPages(), FLAT_TREE_PAGES + 6);
    for (const index of [0, 3, last])
      assert.match(loadPage(doc, index).toStructuredText('preserve-whitespace').asText(), `page ${index}`);
  } finally {
    closeDocument(doc);
  }
});

test('a short tree, a page past the end and a nested tree take loadPage’s own way', () => {
  const short = flatTree(3);
  const { doc } = openPdf(short);
  try {
    assert.match(loadPageAlone(doc, 2).toStructuredText('preserve-whitespace').asText(), 'page 2');
    assert.throws(() => loadPageAlone(doc, 3));
  } finally {
    closeDocument(doc);
  }
  // Nested: the root's only kid is an intermediate /Pages node holding the long tree's pages.
  const nested = openPdf(long).doc;
  try {
    const root = nested.getTrailer().get('Root').get('Pages');
    const inner = nested.addObject(nested.newDictionary());
    inner.put('Type', nested.newName('Pages'));
    inner.put('Kids', root.get('Kids'));
    inner.put('Count', root.get('Count'));
    inner.put('Parent', root);
    for (let i = 0; i < root.get('Kids').length; i += 1) root.get('Kids').get(i).put('Parent', inner);
    const kids = nested.newArray();
    kids.push(inner);
    root.put('Kids', kids);
    const bytes = takeBytes(nested.saveToBuffer('compress'));
    const reopened = openPdf(bytes).doc;
    try {
      assert.match(loadPageAlone(reopened, 40).toStructuredText('preserve-whitespace').asText(), 'page 40');
    } finally {
      closeDocument(reopened);
    }
  } finally {
    closeDocument(nested);
  }
});

for (const [table, options] of [
  ['a classic cross-reference table', 'compress'],
  ['a cross-reference stream, the root node in an object stream', 'compress,objstms'],
] as const) {
  test(`a correction on a long flat tree (${table}) writes the page, not the root node it looked it up by`, async () => {
    const pdf = flatTree(FLAT_TREE_PAGES + 6, options);
    const index = FLAT_TREE_PAGES + 4;
    const result = await applyEdit(editInput(pdf, 'page', 'gape', index));
    assert.ok(result.verification.passed, result.verification.failure_reason ?? '');
    const root = (() => {
      const { doc } = openPdf(pdf);
      try {
        return doc.getTrailer().get('Root').get('Pages').asIndirect();
      } finally {
        closeDocument(doc);
      }
    })();
    const region = readSavedRegion(pdf, result.output);
    assert.ok(region.incremental);
    assert.not.ok(
      region.objects.some((o) => o.num === root),
      `object ${root} (the root /Pages) is not in the update`,
    );
    const { doc } = openPdf(result.output);
    try {
      const before = new ObjectIndex(pdf, streamDecoder(doc));
      const after = new ObjectIndex(result.output, streamDecoder(doc));
      assert.equal(after.entries.get(root), before.entries.get(root), 'its entry points at the original');
      assert.is(doc.countPages(), FLAT_TREE_PAGES + 6);
      assert.match(loadPage(doc, index).toStructuredText('preserve-whitespace').asText(), `gape ${index}`);
      assert.match(loadPage(doc, 0).toStructuredText('preserve-whitespace').asText(), 'page 0');
    } finally {
      closeDocument(doc);
    }
    // Every other page proven by its objects: nothing the update wrote reaches them.
    const pages = result.verification.pages as { proven_by: string }[];
    assert.is(pages.filter((p) => p.proven_by === 'objects').length, FLAT_TREE_PAGES + 5);
  });
}

test.run();
