// PDFium on its own thread (src/verify/pdfium-thread.ts): the same pixels as a render on the calling
// thread, bands too; PDFium's refusals come back as the same docfix codes; several renders in flight
// at once each get their own answer; a thread that is stopped is replaced on the next call, and what
// it had in hand fails as a thread's failure, not as PDFium's answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DocfixError } from '../../../src/errors.ts';
import { renderPageWithPdfium } from '../../../src/verify/pdfium-render.ts';
import { renderPageOnPdfiumThread, stopPdfiumThread } from '../../../src/verify/pdfium-thread.ts';

const PDF_DIR = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytesOf = (file: string) => new Uint8Array(readFileSync(`${PDF_DIR}${file}`));
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

test('a page and a band render byte for byte as on the calling thread', async () => {
  const bytes = bytesOf('libreoffice-writer.pdf');
  for (const rows of [undefined, [400, 520] as [number, number]]) {
    const here = await renderPageWithPdfium(bytes, '', 0, 150, rows);
    const there = await renderPageOnPdfiumThread(bytes, '', 0, 150, rows);
    assert.equal([there.width, there.height, there.stride], [here.width, here.height, here.stride]);
    assert.ok(same(there.pixels, here.pixels), `pixels differ (rows ${rows})`);
  }
  // The bytes sent stay the caller's; a view into a larger buffer sends its own bytes only.
  assert.ok(bytes.byteLength > 0);
  const larger = new Uint8Array(bytes.byteLength + 64);
  larger.set(bytes, 32);
  const view = larger.subarray(32, 32 + bytes.byteLength);
  const fromView = await renderPageOnPdfiumThread(view, '', 0, 150);
  assert.ok(same(fromView.pixels, (await renderPageWithPdfium(bytes, '', 0, 150)).pixels));
  assert.is(view.byteLength, bytes.byteLength);
  assert.is(larger.byteLength, bytes.byteLength + 64);
  // A Buffer (whose slice() shares its memory) stays the caller's too.
  const buffer = Buffer.from(bytes);
  await renderPageOnPdfiumThread(buffer, '', 0, 50);
  assert.is(buffer.byteLength, bytes.byteLength);
  assert.ok(same(buffer, bytes));
});

test('refusals come back with their docfix codes', async () => {
  const locked = bytesOf('libreoffice-password.pdf');
  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'rendered';
    } catch (error) {
      assert.instance(error, DocfixError);
      return (error as DocfixError).code;
    }
  };
  assert.is(await codeOf(renderPageOnPdfiumThread(locked, '', 0, 72)), 'password_required');
  assert.is(await codeOf(renderPageOnPdfiumThread(locked, 'wrong', 0, 72)), 'password_incorrect');
  assert.is(
    await codeOf(renderPageOnPdfiumThread(new TextEncoder().encode('not a pdf'), '', 0, 72)),
    'unreadable_pdf',
  );
  const ok = await renderPageOnPdfiumThread(locked, 'openpassword', 0, 72);
  assert.ok(ok.width > 0 && ok.pixels.byteLength === ok.stride * ok.height);
});

test('renders in flight together each get their own page; a stopped thread is replaced', async () => {
  const bytes = bytesOf('latex-4-pages.pdf');
  const pages = await Promise.all([0, 1, 2, 3].map((i) => renderPageOnPdfiumThread(bytes, '', i, 50)));
  for (let i = 0; i < 4; i += 1) {
    const here = await renderPageWithPdfium(bytes, '', i, 50);
    assert.ok(same(pages[i]!.pixels, here.pixels), `page ${i}`);
  }
  await stopPdfiumThread();
  const again = await renderPageOnPdfiumThread(bytes, '', 1, 50);
  assert.ok(same(again.pixels, pages[1]!.pixels));
});

test('a thread stopped with a render in hand fails that render (not as a PDFium refusal), and the next call works', async () => {
  const bytes = bytesOf('latex-4-pages.pdf');
  const inFlight = renderPageOnPdfiumThread(bytes, '', 0, 300);
  await stopPdfiumThread();
  try {
    await inFlight;
    assert.unreachable('the render should fail with its thread');
  } catch (error) {
    // The caller (second-renderer.ts) renders again on its own thread for any error but a DocfixError.
    assert.not.instance(error, DocfixError);
  }
  const next = await renderPageOnPdfiumThread(bytes, '', 0, 50);
  assert.ok(same(next.pixels, (await renderPageWithPdfium(bytes, '', 0, 50)).pixels));
});

test.run();
