// Document search: matches across pages, the cap and `truncated`, pages needing recognition,
// the query length bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DocfixError } from '../../../src/errors.ts';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { searchDocument, searchPdf } from '../../../src/documents/search.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytes = (file: string) => new Uint8Array(readFileSync(CORPUS + file));

test('matches on several pages, in page order, each with its page', () => {
  const r = searchPdf(bytes('latex-4-pages.pdf'), 'Should');
  assert.is(r.query, 'Should');
  assert.equal(r.pages_searched, [0, 1, 2, 3]);
  assert.equal(r.pages_needing_recognition, []);
  const pages = new Set(r.matches!.map((m) => m.page_index));
  assert.equal([...pages], [0, 1, 2, 3]);
  const order = r.matches!.map((m) => m.page_index);
  assert.equal(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.ok(r.matches!.every((m) => m.text.toLowerCase() === 'should'));
  assert.ok(r.matches!.length >= 80, 'every occurrence (pdftotext counts 92)');
  assert.is(r.truncated, false);
});

test('the cap truncates', () => {
  const { doc } = openPdf(bytes('latex-4-pages.pdf'));
  const all = searchDocument(doc, 'e');
  assert.ok(all.matches!.length > 20);
  const capped = searchDocument(doc, 'e', { cap: 20 });
  assert.is(capped.matches!.length, 20);
  assert.is(capped.truncated, true);
  assert.equal(capped.matches, all.matches!.slice(0, 20));
});

test('scanned pages without a text layer need recognition; OCR layers are searched', () => {
  const scan = searchPdf(bytes('scan-russian-form.pdf'), 'form');
  assert.equal(scan.pages_searched, []);
  assert.equal(scan.pages_needing_recognition, [0, 1]);
  assert.equal(scan.matches, []);
  const withKinds = searchPdf(bytes('scan-russian-form.pdf'), 'form', { kinds: ['scanned', 'scanned'] });
  assert.equal(withKinds.pages_needing_recognition, [0, 1]);
  const layered = searchPdf(bytes('vicksburg-ocr.pdf'), 'Vicksburg');
  assert.ok(layered.matches!.length > 0, 'the invisible OCR layer is text');
  assert.equal(layered.pages_needing_recognition, []);
});

test('an empty query finds nothing; a query over 200 characters is refused', () => {
  const r = searchPdf(bytes('latex-minimal.pdf'), '');
  assert.equal(r.matches, []);
  assert.equal(r.pages_searched, [0]);
  try {
    searchPdf(bytes('latex-minimal.pdf'), 'x'.repeat(201));
    assert.unreachable();
  } catch (error) {
    assert.is((error as DocfixError).code, 'invalid_request');
  }
});

test('protected documents are searched with their password', () => {
  const r = searchPdf(bytes('crazyones-aes256.pdf'), 'crazy', { password: 'password' });
  assert.ok(r.matches!.length > 0);
});

test.run();
