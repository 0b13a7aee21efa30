// Bytes opened by src/pdf/mupdf-adapter.ts are put into MuPDF's heap once for the last arrays opened
// (`sourceBuffer`): a document keeps reading its own bytes after they are dropped from there, and
// each array opens as the document it holds.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { mupdf } from '../../src/pdf/mupdf-adapter.ts';
import { loadPage, openPdf } from '../../src/pdf/mupdf-adapter.ts';
import { makePdf } from './corrections/fixtures.ts';

/** A one-page PDF whose page says `text`. */
function pdfSaying(text: string): Uint8Array {
  return makePdf([{ content: `BT /F1 12 Tf 20 100 Td (${text}) Tj ET` }]);
}

function textOf(doc: mupdf.PDFDocument): string {
  const page = loadPage(doc, 0);
  try {
    return page.toStructuredText('preserve-whitespace').asText().trim();
  } finally {
    page.destroy();
  }
}

test('a document reads its bytes after five other arrays were opened after it', () => {
  const first = pdfSaying('first document');
  const kept = openPdf(first).doc;
  const others: mupdf.PDFDocument[] = [];
  try {
    for (let i = 0; i < 5; i += 1) others.push(openPdf(pdfSaying(`other ${i}`)).doc);
    assert.is(textOf(kept), 'first document');
    others.forEach((doc, i) => assert.is(textOf(doc), `other ${i}`));
  } finally {
    kept.destroy();
    for (const doc of others) doc.destroy();
  }
});

test('the same array opened again, and an array over part of a larger buffer, open as their own bytes', () => {
  const bytes = pdfSaying('same bytes');
  const a = openPdf(bytes).doc;
  const b = openPdf(bytes).doc;
  const inner = pdfSaying('inside a larger buffer');
  const larger = new Uint8Array(inner.byteLength + 64);
  larger.set(inner, 32);
  const c = openPdf(larger.subarray(32, 32 + inner.byteLength)).doc;
  try {
    assert.is(textOf(a), 'same bytes');
    assert.is(textOf(b), 'same bytes');
    assert.is(textOf(c), 'inside a larger buffer');
  } finally {
    a.destroy();
    b.destroy();
    c.destroy();
  }
});

test.run();
