// The long real manual of the corrections bench (bench/long-manual.ts, issue 35): built from corpus
// documents by qpdf, with the page count it states, and its one-page twin holding exactly the late
// page the bench corrects, where the word the bench changes is found. Needs qpdf (Debian `qpdf`).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  LONG_PAGES,
  LONG_TARGET,
  LONG_TARGET_PAGE,
  makeLongRealManual,
  makeLongTargetPage,
} from '../../bench/long-manual.ts';
import { closeDocument, loadPage, openPdf } from '../../src/pdf/mupdf-adapter.ts';

try {
  execFileSync('qpdf', ['--version'], { stdio: 'ignore' });
} catch {
  throw new Error('qpdf is missing: install the Debian package `qpdf` (bench/long-manual.ts builds with it)');
}

/** The text of one page, as MuPDF extracts it. */
function pageText(path: string, index: number): string {
  const { doc } = openPdf(new Uint8Array(readFileSync(path)));
  try {
    return loadPage(doc, index).toStructuredText('preserve-whitespace').asText();
  } finally {
    closeDocument(doc);
  }
}

test('the long manual has the pages it states, and its target page is its last', () => {
  const { doc } = openPdf(new Uint8Array(readFileSync(makeLongRealManual())));
  try {
    assert.is(doc.countPages(), LONG_PAGES);
    assert.is(LONG_TARGET_PAGE, LONG_PAGES - 1);
  } finally {
    closeDocument(doc);
  }
});

test('the one-page file is the long manual’s target page, with the word the bench corrects', () => {
  const one = makeLongTargetPage();
  const { doc } = openPdf(new Uint8Array(readFileSync(one)));
  try {
    assert.is(doc.countPages(), 1);
  } finally {
    closeDocument(doc);
  }
  const text = pageText(one, 0);
  assert.is(text, pageText(makeLongRealManual(), LONG_TARGET_PAGE));
  assert.ok(text.includes(LONG_TARGET.find), `“${LONG_TARGET.find}” is on the page`);
  // And not on the page before it (another document's page): the files were not built shifted.
  assert.is.not(pageText(makeLongRealManual(), LONG_TARGET_PAGE - 1), text);
});

test.run();
