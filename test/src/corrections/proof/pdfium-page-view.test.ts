// The one-kid view PDFium renders a page of a long flat page tree from (proof/second-renderer.ts,
// pdfiumPageView): the file's bytes kept as a prefix, the root /Pages node appended with the page as
// its only kid, and PDFium's render of page 0 of the view the same pixels as its render of the page
// in the whole file. A short file, or one whose page graph is not kept, is rendered whole.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageReachOf } from '../../../../src/corrections/proof/page-reach.ts';
import { pdfiumPageView } from '../../../../src/corrections/proof/second-renderer.ts';
import { FLAT_TREE_PAGES } from '../../../../src/pdf/page-frame.ts';
import { openPdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { renderPageWithPdfium } from '../../../../src/verify/pdfium-render.ts';

const corpus = (name: string) => join(import.meta.dirname, '../../../../fixtures/corpus/pdf', name);
const dir = mkdtempSync(join(tmpdir(), 'docfix-pdfium-view-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** TraceMonkey's 14 pages and the 4 LaTeX pages 20 times: 94 pages, flat, as qpdf writes them. */
function longFlat(): Uint8Array {
  const pages = [corpus('tracemonkey-two-column.pdf'), '1-z'];
  for (let i = 0; i < 20; i += 1) pages.push(corpus('latex-4-pages.pdf'), '1-4');
  const out = join(dir, 'long.pdf');
  execFileSync('qpdf', ['--empty', '--pages', ...pages, '--', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Uint8Array(readFileSync(out));
}

const same = (a: { width: number; pixels: Uint8Array }, b: { width: number; pixels: Uint8Array }) =>
  a.width === b.width && Buffer.compare(Buffer.from(a.pixels), Buffer.from(b.pixels)) === 0;

test('a late page of a long flat tree: PDFium draws it from the one-kid view as from the file', async () => {
  const pdf = longFlat();
  const { reach } = pageReachOf(pdf, () => openPdf(pdf).doc);
  assert.ok(reach.pageNodes.length > FLAT_TREE_PAGES, `${reach.pageNodes.length} pages`);
  const first = await renderPageWithPdfium(pdf, '', 0, 50);
  for (const i of [1, 60, reach.pageNodes.length - 1]) {
    const view = pdfiumPageView(pdf, '', i);
    assert.is(view.pageIndex, 0);
    assert.ok(view.bytes.byteLength > pdf.byteLength && view.bytes.byteLength < pdf.byteLength + 1024);
    assert.ok(
      Buffer.from(view.bytes.subarray(0, pdf.byteLength)).equals(Buffer.from(pdf)),
      'file kept as prefix',
    );
    const whole = await renderPageWithPdfium(pdf, '', i, 50);
    const viewed = await renderPageWithPdfium(view.bytes, '', 0, 50);
    assert.ok(same(whole, viewed), `page ${i}: the view draws the page as the file does`);
    assert.not.ok(same(first, viewed), `page ${i}: the view does not draw page 0`);
  }
});

test('a short file, or one whose page graph is not kept, is rendered whole', () => {
  const short = new Uint8Array(readFileSync(corpus('tracemonkey-two-column.pdf')));
  pageReachOf(short, () => openPdf(short).doc);
  const v = pdfiumPageView(short, '', 5);
  assert.is(v.bytes, short);
  assert.is(v.pageIndex, 5);
  // The same file with a comment after its end: other bytes, no graph kept for them.
  const unknown = new Uint8Array(Buffer.concat([longFlat(), Buffer.from('%unread\n')]));
  const u = pdfiumPageView(unknown, '', 80);
  assert.is(u.bytes, unknown);
  assert.is(u.pageIndex, 80);
});

test.run();
