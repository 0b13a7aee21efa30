// The one-kid view PDFium renders a page of a long flat page tree from (proof/second-renderer.ts,
// pdfiumPageView; pdf/one-kid-view.ts): the file's bytes kept as a prefix, the root /Pages node
// appended with the page as its only kid, and PDFium's render of page 0 of the view the same pixels
// as its render of the page in the whole file — after a cross-reference table, a cross-reference
// stream (the node in an object stream), and in an encrypted file. A short file, or one whose page
// graph is not kept, is rendered whole; so is an encrypted file's node read from an object stream. A
// correction's output (its input with an update appended) is viewed through its input's graph.
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
import { ObjectIndex } from '../../../../src/pdf/xref-index.ts';
import { renderPageWithPdfium } from '../../../../src/verify/pdfium-render.ts';

const corpus = (name: string) => join(import.meta.dirname, '../../../../fixtures/corpus/pdf', name);
const dir = mkdtempSync(join(tmpdir(), 'docfix-pdfium-view-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** TraceMonkey's 14 pages and the 4 LaTeX pages 20 times: 94 pages, flat, as qpdf writes them. */
function longFlat(options: string[] = []): Uint8Array {
  const pages = [corpus('tracemonkey-two-column.pdf'), '1-z'];
  for (let i = 0; i < 20; i += 1) pages.push(corpus('latex-4-pages.pdf'), '1-4');
  const out = join(dir, 'long.pdf');
  execFileSync('qpdf', ['--empty', ...options, '--pages', ...pages, '--', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Uint8Array(readFileSync(out));
}

const tail = (bytes: Uint8Array, from: number) => Buffer.from(bytes.subarray(from)).toString('latin1');

const same = (a: { width: number; pixels: Uint8Array }, b: { width: number; pixels: Uint8Array }) =>
  a.width === b.width && Buffer.compare(Buffer.from(a.pixels), Buffer.from(b.pixels)) === 0;

const kinds = [
  { name: 'a cross-reference table', options: [], password: '', section: /\nxref\n\d+ 1\n/ },
  {
    name: 'a cross-reference stream, the node in an object stream',
    options: ['--object-streams=generate'],
    password: '',
    section: /\/Type \/XRef/,
  },
  {
    name: 'an encrypted file (AES-256)',
    options: ['--encrypt', 'user', 'owner', '256', '--'],
    password: 'user',
    section: /\nxref\n\d+ 1\n/,
  },
];

for (const kind of kinds)
  test(`a late page of a long flat tree, after ${kind.name}: PDFium draws it from the one-kid view as from the file`, async () => {
    const pdf = longFlat(kind.options);
    const { reach } = pageReachOf(pdf, () => openPdf(pdf, kind.password).doc);
    assert.ok(reach.pageNodes.length > FLAT_TREE_PAGES, `${reach.pageNodes.length} pages`);
    const first = await renderPageWithPdfium(pdf, kind.password, 0, 50);
    for (const i of [1, 60, reach.pageNodes.length - 1]) {
      const view = pdfiumPageView(pdf, kind.password, i);
      assert.is(view.pageIndex, 0);
      assert.ok(view.bytes.byteLength > pdf.byteLength && view.bytes.byteLength < pdf.byteLength + 1024);
      assert.ok(
        Buffer.from(view.bytes.subarray(0, pdf.byteLength)).equals(Buffer.from(pdf)),
        'file kept as prefix',
      );
      assert.match(tail(view.bytes, pdf.byteLength), kind.section);
      const whole = await renderPageWithPdfium(pdf, kind.password, i, 50);
      const viewed = await renderPageWithPdfium(view.bytes, kind.password, 0, 50);
      assert.ok(same(whole, viewed), `page ${i}: the view draws the page as the file does`);
      assert.not.ok(same(first, viewed), `page ${i}: the view does not draw page 0`);
    }
  });

test('an encrypted file whose root node is in an object stream is rendered whole', () => {
  const pdf = longFlat(['--object-streams=generate', '--encrypt', 'user', 'owner', '256', '--']);
  pageReachOf(pdf, () => openPdf(pdf, 'user').doc);
  const v = pdfiumPageView(pdf, 'user', 60);
  assert.is(v.bytes, pdf);
  assert.is(v.pageIndex, 60);
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

test('an update of a file whose graph is kept is viewed through that graph; other bytes are not', async () => {
  const pdf = longFlat();
  const { reach } = pageReachOf(pdf, () => openPdf(pdf).doc);
  const last = reach.pageNodes.length - 1;
  // An incremental update as a correction appends one: the page's content stream written again.
  const doc = openPdf(pdf).doc;
  const contents = doc.findPage(last).get('Contents');
  const stream = contents.isArray() ? contents.get(0) : contents;
  stream.writeStream(Buffer.concat([Buffer.from(stream.readStream().asUint8Array()), Buffer.from('\n')]));
  const output = new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  doc.destroy();
  assert.ok(Buffer.from(output.subarray(0, pdf.byteLength)).equals(Buffer.from(pdf)), 'an update');

  assert.is(pdfiumPageView(output, '', last).bytes, output, 'no graph of its own: whole');
  const index = new ObjectIndex(pdf, () => null);
  const view = pdfiumPageView(output, '', last, index);
  assert.is(view.pageIndex, 0);
  assert.ok(Buffer.from(view.bytes.subarray(0, output.byteLength)).equals(Buffer.from(output)));
  const whole = await renderPageWithPdfium(output, '', last, 50);
  assert.ok(same(whole, await renderPageWithPdfium(view.bytes, '', 0, 50)), 'the view draws the page');

  // Bytes that do not begin with the file's are not its update: no view.
  const other = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n%x\n'), Buffer.from(output)]));
  assert.is(pdfiumPageView(other, '', last, index).bytes, other);
});

test.run();
