// PDFium renders: same size and orientation as MuPDF's renderPage, deterministic, encrypted files
// open with their password, errors come back as docfix codes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mupdf, openPdf, renderPage } from '../../../src/pdf/mupdf-adapter.ts';
import type { RgbImage } from '../../../src/pdf/mupdf-adapter.ts';
import {
  openWithPdfium,
  PDFIUM_RENDERER,
  renderPageWithPdfium,
  renderSize,
} from '../../../src/verify/pdfium-render.ts';
import { DocfixError } from '../../../src/errors.ts';

mupdf.setLog({ warning() {}, error() {} });

const PDF_DIR = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytesOf = (file: string) => new Uint8Array(readFileSync(`${PDF_DIR}${file}`));

function mupdfRender(bytes: Uint8Array, pageIndex: number, dpi: number, password = ''): RgbImage {
  const { doc } = openPdf(bytes, password);
  try {
    const page = doc.loadPage(pageIndex);
    try {
      return renderPage(page, dpi);
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

/** Bounding box of dark pixels (any channel under 128), x1/y1 exclusive. */
function inkBox(img: RgbImage): [number, number, number, number] {
  let x0 = img.width;
  let y0 = img.height;
  let x1 = 0;
  let y1 = 0;
  for (let y = 0; y < img.height; y += 1) {
    for (let x = 0; x < img.width; x += 1) {
      const i = y * img.stride + x * 3;
      if (img.pixels[i] < 128 || img.pixels[i + 1] < 128 || img.pixels[i + 2] < 128) {
        if (x < x0) x0 = x;
        if (x >= x1) x1 = x + 1;
        if (y < y0) y0 = y;
        if (y >= y1) y1 = y + 1;
      }
    }
  }
  return [x0, y0, x1, y1];
}

function darkPixels(img: RgbImage, [x0, y0, x1, y1]: [number, number, number, number]): number {
  let n = 0;
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const i = y * img.stride + x * 3;
      if (img.pixels[i] + img.pixels[i + 1] + img.pixels[i + 2] < 3 * 200) n += 1;
    }
  }
  return n;
}

async function expectCode(run: () => Promise<unknown>, code: string) {
  try {
    await run();
  } catch (error) {
    assert.instance(error, DocfixError);
    assert.is((error as DocfixError).code, code);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

test('names itself with the wrapper version', () => {
  assert.match(PDFIUM_RENDERER, /^pdfium \d+\.\d+\.\d+$/);
});

test('renderSize rounds like MuPDF (ceil, with MuPDF epsilon)', () => {
  assert.equal(renderSize(612, 792, 300), { width: 2550, height: 3300 });
  assert.equal(renderSize(595.2756, 841.8898, 300), { width: 2481, height: 3508 });
  assert.equal(renderSize(72.0002, 72, 72), { width: 72, height: 72 });
});

test('a page rendered twice is identical, packed RGB of the right size', async () => {
  const bytes = bytesOf('tracemonkey-two-column.pdf');
  const a = await renderPageWithPdfium(bytes, '', 0, 300);
  const b = await renderPageWithPdfium(bytes, '', 0, 300);
  assert.is(a.width, 2550);
  assert.is(a.height, 3300);
  assert.is(a.stride, a.width * 3);
  assert.is(a.pixels.byteLength, a.stride * a.height);
  assert.ok(Buffer.from(a.pixels).equals(Buffer.from(b.pixels)));
  // Real content: ink over most of the page, white margins.
  const small = await renderPageWithPdfium(bytes, '', 0, 72);
  const ink = inkBox(small);
  assert.ok(ink[2] - ink[0] > 360 && ink[3] - ink[1] > 600, `ink ${ink}`);
  assert.equal(Array.from(a.pixels.subarray(0, 3)), [255, 255, 255]);
});

test('colours come out as R, G, B', async () => {
  const doc = new mupdf.PDFDocument();
  try {
    const page = doc.addPage([0, 0, 100, 100], 0, {}, '1 0 0 rg 0 50 50 50 re f 0 0 1 rg 50 0 50 50 re f');
    doc.insertPage(-1, page);
    const buf = doc.saveToBuffer('');
    const bytes = new Uint8Array(buf.asUint8Array());
    buf.destroy();
    const img = await renderPageWithPdfium(bytes, '', 0, 72);
    const px = (x: number, y: number) =>
      Array.from(img.pixels.subarray(y * img.stride + x * 3, y * img.stride + x * 3 + 3));
    assert.equal(px(25, 25), [255, 0, 0]); // top-left quarter: red (PDF y 50–100)
    assert.equal(px(75, 75), [0, 0, 255]); // bottom-right quarter: blue
    assert.equal(px(75, 25), [255, 255, 255]);
  } finally {
    doc.destroy();
  }
});

for (const [file, pageIndex, rotation] of [
  ['arabic-rotated.pdf', 0, 90],
  ['arabic-rotated.pdf', 1, 180],
  ['arabic-rotated.pdf', 2, 270],
  ['linearized-rotate90.pdf', 1, 90],
  ['autocad-rotate270.pdf', 0, 270],
] as const) {
  test(`${file} page ${pageIndex} (/Rotate ${rotation}): MuPDF's size at 300 dpi and its orientation`, async () => {
    const bytes = bytesOf(file);
    const doc = await openWithPdfium(bytes);
    try {
      assert.is(doc.pageInfo(pageIndex).rotation, rotation);
      // The 300 dpi render itself, against MuPDF's 300 dpi render.
      if (file !== 'autocad-rotate270.pdf') {
        const ours = doc.renderPage(pageIndex, 300);
        const theirs = mupdfRender(bytes, pageIndex, 300);
        assert.equal([ours.width, ours.height], [theirs.width, theirs.height]);
      }
      // Same orientation: the ink sits in the same place (within anti-aliasing of two renderers).
      const ours = doc.renderPage(pageIndex, 100);
      const theirs = mupdfRender(bytes, pageIndex, 100);
      assert.equal([ours.width, ours.height], [theirs.width, theirs.height]);
      const a = inkBox(ours);
      const b = inkBox(theirs);
      for (let k = 0; k < 4; k += 1) assert.ok(Math.abs(a[k] - b[k]) <= 2, `ink ${a} vs MuPDF ${b}`);
    } finally {
      doc.close();
    }
  });
}

test('every corpus page that opens has the size MuPDF renders it at, at any dpi', async () => {
  let pages = 0;
  for (const file of readdirSync(PDF_DIR).filter((f) => f.endsWith('.pdf'))) {
    const bytes = bytesOf(file);
    let opened;
    try {
      opened = openPdf(bytes);
    } catch {
      continue; // password-protected: covered below
    }
    let doc;
    try {
      doc = await openWithPdfium(bytes);
    } catch (error) {
      opened.doc.destroy();
      throw new Error(`${file}: PDFium could not open it: ${(error as Error).message}`);
    }
    try {
      assert.is(doc.pageCount, opened.doc.countPages(), file);
      const count = Math.min(3, doc.pageCount);
      for (let i = 0; i < count; i += 1) {
        const page = opened.doc.loadPage(i);
        try {
          const [x0, y0, x1, y1] = page.getBounds();
          const info = doc.pageInfo(i);
          assert.ok(
            Math.abs(info.width - (x1 - x0)) < 1e-3 && Math.abs(info.height - (y1 - y0)) < 1e-3,
            file,
          );
          for (const dpi of [72, 96, 150, 300]) {
            // MuPDF's pixmap size, without rendering it: fz_round_rect of the scaled page bounds.
            const s = dpi / 72;
            const mupdfSize = {
              width: Math.ceil(x1 * s - 0.001) - Math.floor(x0 * s + 0.001),
              height: Math.ceil(y1 * s - 0.001) - Math.floor(y0 * s + 0.001),
            };
            assert.equal(renderSize(info.width, info.height, dpi), mupdfSize, `${file} page ${i} at ${dpi}`);
          }
          pages += 1;
        } finally {
          page.destroy();
        }
      }
    } finally {
      doc.close();
      opened.doc.destroy();
    }
  }
  assert.ok(pages >= 70, `${pages} pages`);
});

test('real renders agree with MuPDF on size at odd resolutions', async () => {
  for (const [file, pageIndex] of [
    ['libreoffice-writer.pdf', 0],
    ['arabic-rotated.pdf', 0],
    ['latex-minimal.pdf', 0],
  ] as const) {
    const bytes = bytesOf(file);
    for (const dpi of [37, 97, 199]) {
      const ours = await renderPageWithPdfium(bytes, '', pageIndex, dpi);
      const theirs = mupdfRender(bytes, pageIndex, dpi);
      assert.equal([ours.width, ours.height], [theirs.width, theirs.height], `${file} at ${dpi}`);
    }
  }
});

test('an encrypted document renders with its password; errors without or with a wrong one', async () => {
  const bytes = bytesOf('libreoffice-password.pdf');
  const img = await renderPageWithPdfium(bytes, 'openpassword', 0, 100);
  const ref = mupdfRender(bytes, 0, 100, 'openpassword');
  assert.is(img.width, ref.width);
  assert.is(img.height, ref.height);
  const ink = inkBox(img);
  assert.ok(ink[2] > ink[0] && ink[3] > ink[1], 'has ink');
  await expectCode(() => renderPageWithPdfium(bytes, '', 0, 100), 'password_required');
  await expectCode(() => renderPageWithPdfium(bytes, 'nope', 0, 100), 'password_incorrect');
});

test('AES-256 with user password, owner-only without one', async () => {
  const a = await renderPageWithPdfium(bytesOf('aes256-user-owner.pdf'), 'foo', 0, 50);
  assert.ok(a.width > 0);
  const b = await renderPageWithPdfium(bytesOf('owner-only-rc4-40.pdf'), '', 0, 50);
  assert.ok(b.width > 0);
});

test('form widgets are drawn (as MuPDF draws them)', async () => {
  const bytes = bytesOf('libreoffice-form.pdf');
  const ours = await renderPageWithPdfium(bytes, '', 0, 100);
  const theirs = mupdfRender(bytes, 0, 100);
  // The text field holding "Bob" exists only as a widget appearance (x 103–325, y 471–492 at 100 dpi).
  const field: [number, number, number, number] = [104, 472, 324, 491];
  assert.ok(darkPixels(ours, field) > 20, `pdfium ${darkPixels(ours, field)}`);
  assert.ok(darkPixels(theirs, field) > 20, `mupdf ${darkPixels(theirs, field)}`);
});

test('renders inside a worker thread (engine slots), which loads its own PDFium', async () => {
  const { Worker } = await import('node:worker_threads');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.url).then(async (m) => {
      const img = await m.renderPageWithPdfium(workerData.bytes, '', 0, 72);
      parentPort.postMessage({ width: img.width, height: img.height, renderer: m.PDFIUM_RENDERER });
    }, (error) => parentPort.postMessage({ error: String(error) }));`;
  const worker = new Worker(code, {
    eval: true,
    workerData: {
      url: new URL('../../../src/verify/pdfium-render.ts', import.meta.url).href,
      bytes: bytesOf('libreoffice-writer.pdf'),
    },
  });
  try {
    const answer = await new Promise<any>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    assert.equal(answer, { width: 596, height: 842, renderer: PDFIUM_RENDERER });
  } finally {
    await worker.terminate();
  }
});

test('errors: not a PDF, page out of range', async () => {
  await expectCode(
    () => renderPageWithPdfium(new TextEncoder().encode('hello'), '', 0, 72),
    'unreadable_pdf',
  );
  await expectCode(
    () => renderPageWithPdfium(bytesOf('libreoffice-writer.pdf'), '', 1, 72),
    'page_out_of_range',
  );
});

test.run();
