// Page kinds on generated pages whose make-up is known: text, a bare scan, a scan under an invisible
// OCR layer (render mode 3, or text painted before the image hides it), mixed, a small logo on text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deflateSync } from 'node:zlib';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { classifyPage } from '../../../src/documents/classify.ts';
import { buildPdf } from '../../../fixtures/make-hostile.ts';

mupdf.setLog({ warning() {}, error() {} });

/** A letter page drawing `content`, with a 850 × 1100 gray image as /Im0 (100 dpi across the page). */
function page(content: string) {
  const pixels = Buffer.alloc(850 * 1100, 0xe0);
  const bytes = buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im0 5 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    {
      dict: '<< /Type /XObject /Subtype /Image /Width 850 /Height 1100 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode >>',
      stream: new Uint8Array(deflateSync(pixels)),
    },
    { dict: '<< >>', stream: new Uint8Array(Buffer.from(content, 'latin1')) },
  ]);
  const { doc } = openPdf(bytes);
  return classifyPage(doc.loadPage(0), 0);
}

const FULL_IMAGE = 'q 612 0 0 792 0 0 cm /Im0 Do Q';
const TEXT = 'BT /F1 24 Tf 72 700 Td (Invoice number 12345) Tj ET';
const INVISIBLE = 'BT 3 Tr /F1 24 Tf 72 700 Td (Invoice number 12345) Tj ET';

test('text only', () => {
  const { info } = page(TEXT);
  assert.is(info.kind, 'text');
  assert.is(info.char_count, 'Invoicenumber12345'.length);
  assert.is(info.image_count, 0);
  assert.is(info.natural_dpi, 300);
  assert.is(info.confidence, 1);
});

test('a bare scan: image only, natural dpi from its pixels', () => {
  const { info } = page(FULL_IMAGE);
  assert.is(info.kind, 'scanned');
  assert.is(info.char_count, 0);
  assert.is(info.image_count, 1);
  assert.is(info.image_coverage, 1);
  assert.is(info.natural_dpi, 100);
});

test('a scan under invisible text (render mode 3)', () => {
  const facts = page(`${FULL_IMAGE}\n${INVISIBLE}`);
  assert.is(facts.info.kind, 'scanned_with_text_layer');
  assert.is(facts.visible_text, 0);
  assert.ok(facts.invisible_text > 0);
  assert.is(facts.info.natural_dpi, 100);
});

test('text painted before a full-page image is hidden by it', () => {
  assert.is(page(`${TEXT}\n${FULL_IMAGE}`).info.kind, 'scanned_with_text_layer');
});

test('visible text over a full-page image is mixed', () => {
  const { info } = page(`${FULL_IMAGE}\n${TEXT}`);
  assert.is(info.kind, 'mixed');
  assert.is(info.natural_dpi, 100);
});

test('a small logo on a text page stays text', () => {
  const { info } = page(`q 100 0 0 100 400 650 cm /Im0 Do Q\n${TEXT}`);
  assert.is(info.kind, 'text');
  assert.is(info.image_count, 1);
  assert.ok(info.image_coverage > 0.01 && info.image_coverage < 0.05, String(info.image_coverage));
  assert.is(info.natural_dpi, 300);
});

test('a form without /Resources, and a page without them, classify as text (mutool convert writes such forms)', () => {
  // MuPDF.js answers a missing key with a null object whose own get() throws: the resources walk
  // looking for images took a form's missing /Resources so, and the upload failed unreadable_pdf.
  const bytes = buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R 7 0 R] /Count 2 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Fm0 5 0 R >> >> /Contents 6 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    {
      dict: '<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] >>',
      stream: new Uint8Array(Buffer.from('0 0 1 rg 72 72 100 100 re f', 'latin1')),
    },
    { dict: '<< >>', stream: new Uint8Array(Buffer.from(`/Fm0 Do\n${TEXT}`, 'latin1')) },
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 8 0 R >>',
    { dict: '<< >>', stream: new Uint8Array(Buffer.from('0 0 1 rg 72 72 100 100 re f', 'latin1')) },
  ]);
  const { doc } = openPdf(bytes);
  const first = classifyPage(doc.loadPage(0), 0).info;
  assert.is(first.kind, 'text');
  assert.is(first.char_count, 'Invoicenumber12345'.length);
  const second = classifyPage(doc.loadPage(1), 1).info;
  assert.is(second.kind, 'text');
  assert.is(second.char_count, 0);
});

test.run();
