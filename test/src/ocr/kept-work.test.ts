// The work an engine thread keeps between tasks (src/ocr/kept-work.ts): bounded by bytes, least
// recently used first out; a page's recognition kept per revision, so the same page asked again is
// not recognised again, and a changed document (another hash) is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KeptWork, keptWork } from '../../../src/ocr/kept-work.ts';
import { ocrPage } from '../../../src/ocr/page-ocr.ts';
import { classifyPage } from '../../../src/documents/classify.ts';
import { openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { closeRecognisers, recognitionCounts } from '../../../src/ocr/recognizer.ts';
import { scannedPage } from '../corrections/scan-fixtures.ts';

test.after(async () => {
  await closeRecognisers();
});

test('the store is bounded by bytes and forgets the least recently used entry first', () => {
  const store = new KeptWork(100);
  store.set('a', 'A', 40);
  store.set('b', 'B', 40);
  assert.is(store.get('a'), 'A'); // a is now the most recent
  store.set('c', 'C', 40); // 120 > 100: b, the least recently used, goes
  assert.is(store.get('b'), undefined);
  assert.is(store.get('a'), 'A');
  assert.is(store.get('c'), 'C');
  assert.is(store.bytes, 80);
  store.set('huge', 'H', 101); // larger than the whole store: not kept, nothing else lost
  assert.is(store.get('huge'), undefined);
  assert.is(store.size, 2);
  store.set('a', 'A2', 10); // replaced, counted once
  assert.is(store.bytes, 50);
  assert.is(store.get('a'), 'A2');
});

const LINES = ['The periodic review of the contract is due', 'Please return the form with your remarks'];

test('a page recognised once per revision: asked again it is not recognised again, a changed document is', async () => {
  keptWork.clear();
  const pdf = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  const ask = (bytes: Uint8Array) =>
    ocrPage({
      pdf: bytes,
      password: '',
      page_index: 0,
      find: 'periodic',
      box_render: null,
      render_dpi: 300,
      lang: 'eng',
      turn: 0,
    });
  const start = recognitionCounts().page;
  const first = await ask(pdf);
  assert.is(recognitionCounts().page, start + 1);
  assert.is(first.matches!.length, 1, JSON.stringify(first.words?.map((w) => w.text)));
  // The same bytes in another buffer (as a second request brings them): the same revision.
  const second = await ask(new Uint8Array(pdf));
  assert.is(recognitionCounts().page, start + 1, 'the same revision is not recognised again');
  assert.equal(second.words, first.words);
  // One byte more (an incremental comment): another revision, recognised again.
  const changed = new Uint8Array(pdf.length + 10);
  changed.set(pdf);
  changed.set(new TextEncoder().encode('\n%changed\n'), pdf.length);
  const third = await ask(changed);
  assert.is(recognitionCounts().page, start + 2, 'a changed document is recognised again');
  assert.equal(
    third.words!.map((w) => w.text),
    first.words!.map((w) => w.text),
  );
});

test('a 200 dpi scan asked at 300 dpi is read at its own resolution, boxes in 300 dpi pixels', async () => {
  keptWork.clear();
  const pdf = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  const { doc } = openPdf(pdf, '');
  try {
    const own = classifyPage(doc.loadPage(0), 0).info.natural_dpi;
    assert.ok(own !== null && Math.abs(own - 200) < 1, `the scan's own resolution: ${own}`);
  } finally {
    doc.destroy();
  }
  const out = await ocrPage({
    pdf,
    password: '',
    page_index: 0,
    find: 'remarks',
    box_render: null,
    render_dpi: 300,
    lang: 'eng',
    turn: 0,
  });
  // scannedPage sets line i's baseline at 40 + 28·i pt from the top, at x = 30 pt, 14 pt Times.
  const m = out.matches![0];
  assert.ok(m, JSON.stringify(out.words?.map((w) => w.text)));
  const px = (pt: number) => (pt * 300) / 72;
  assert.ok(Math.abs(m.box_render[3] - px(40 + 28)) < px(5), `bottom ${m.box_render[3]} near the baseline`);
  assert.ok(m.box_render[0] > px(30 + 14 * 8) && m.box_render[2] < px(400), JSON.stringify(m.box_render));
});

test.run();
