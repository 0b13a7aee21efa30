// The work a one-word correction does, counted (never timed): how many times MuPDF and PDFium
// render the page (on their threads) and MuPDF opens the bytes, that a second proposal on the same revision reuses the
// page's renders before the edit, that an apply after its proposal renders nothing, and that every
// MuPDF document and page the engine opened is freed before it answers (a page left to the garbage
// collector holds its whole document in MuPDF's heap, which then grows with each correction).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf, openPdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { pageReachOf } from '../../../../src/corrections/proof/page-reach.ts';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { PdfiumDocument } from '../../../../src/verify/pdfium-render.ts';
import { pdfiumThreadWork } from '../../../../src/verify/pdfium-thread.ts';
import { sha256, sha256Extending } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { editInput, makePdf } from '../fixtures.ts';
import { createHash } from 'node:crypto';

interface Work {
  opens: number;
  pageLoads: number;
  mupdfRenders: number;
  pdfiumRenders: number;
  /** Documents and pages opened while counting, to check they were destroyed. */
  opened: { pointer: number }[];
}

const work: Work = { opens: 0, pageLoads: 0, mupdfRenders: 0, pdfiumRenders: 0, opened: [] };

/** Wraps a method so each call is counted (and what it returns kept when `keep`). */
function count(
  owner: object,
  name: string,
  field: 'opens' | 'pageLoads' | 'mupdfRenders' | 'pdfiumRenders',
  keep = false,
): void {
  const target = owner as Record<string, (...args: unknown[]) => unknown>;
  const original = target[name];
  target[name] = function (this: unknown, ...args: unknown[]) {
    work[field] += 1;
    const made = original.apply(this, args);
    if (keep) work.opened.push(made as { pointer: number });
    return made;
  };
}

count(mupdf.Document, 'openDocument', 'opens', true);
count(mupdf.PDFDocument.prototype, 'loadPage', 'pageLoads', true);
count(mupdf.PDFPage.prototype, 'toPixmap', 'mupdfRenders');
count(PdfiumDocument.prototype, 'renderPage', 'pdfiumRenders');

/** Runs `fn` and answers the work it did. */
async function counted(fn: () => Promise<unknown>): Promise<Omit<Work, 'opened'> & { leftOpen: number }> {
  Object.assign(work, { opens: 0, pageLoads: 0, mupdfRenders: 0, pdfiumRenders: 0, opened: [] });
  // PDFium renders on its own thread (pdfium-thread.ts), where this thread's wrapper cannot count.
  const threadRenders = pdfiumThreadWork.renders;
  await fn();
  work.pdfiumRenders += pdfiumThreadWork.renders - threadRenders;
  const { opened, ...rest } = work;
  return { ...rest, leftOpen: opened.filter((o) => o.pointer !== 0).length };
}

/** Three pages; the words corrected are on the second. */
function document(tag: string): Uint8Array {
  return makePdf([
    { content: `BT /F1 12 Tf 20 150 Td (First page ${tag}) Tj ET` },
    { content: `BT /F1 12 Tf 20 150 Td (Hello little world ${tag}) Tj 0 -20 Td (Another line here) Tj ET` },
    { content: 'BT /F1 12 Tf 20 150 Td (Third page) Tj ET' },
  ]);
}

test('a proposal renders the page once before and once after, with each renderer, and frees what it opened', async () => {
  const pdf = document('a');
  const input = editInput(pdf, 'little', 'lintle', 1);
  const proposal = await counted(() => proposeEdit(input));
  // MuPDF: the page before and the saved bytes' page after; PDFium: the line's band before and after.
  assert.equal(proposal.mupdfRenders, 2);
  assert.equal(proposal.pdfiumRenders, 2);
  assert.equal(proposal.leftOpen, 0, 'every MuPDF document and page is destroyed before the answer');

  const apply = await counted(() => applyEdit(input));
  assert.equal(apply.mupdfRenders, 0, 'the apply reuses its proposal’s renders');
  assert.equal(apply.pdfiumRenders, 0);
  assert.equal(apply.leftOpen, 0);
});

test('a second correction on the same revision and page reuses the renders before the edit', async () => {
  const pdf = document('b');
  await proposeEdit(editInput(pdf, 'little', 'lintle', 1));
  const second = await counted(() => proposeEdit(editInput(pdf, 'Another', 'Anothre', 1)));
  assert.equal(second.mupdfRenders, 1, 'only the new bytes’ page is rendered by MuPDF');
  // PDFium's band is the edited line's: another line is another band, rendered before as well.
  assert.equal(second.pdfiumRenders, 2);
  // The input opened for the edit and the saved bytes reopened for the proof, one page loaded in
  // each: the page graph and the line's ink were read from the input by the first correction.
  assert.equal(second.opens, 2);
  assert.equal(second.pageLoads, 2);
  assert.equal(second.leftOpen, 0);
  // The same line again: PDFium's band before is kept too.
  const again = await counted(() => proposeEdit(editInput(pdf, 'Another', 'Anothre', 1)));
  assert.equal(again.mupdfRenders, 1);
  assert.equal(again.pdfiumRenders, 1);
});

test('a correction refused after its proof ran frees what it opened too', async () => {
  const pdf = document('c');
  const refused = await counted(async () => {
    // Five letters fewer leave a gap the proof sees: refused once rendered and compared.
    const proposal = await proposeEdit(editInput(pdf, 'little', 'l', 1));
    assert.is(proposal.tier, -1);
    assert.is(proposal.advice?.code, 'would_not_verify');
  });
  assert.ok(refused.mupdfRenders >= 1, 'the proof rendered the page');
  assert.equal(refused.leftOpen, 0);
});

test('a page graph read once stays kept while corrections on two other documents are proposed and applied', async () => {
  const pdf = document('graph');
  let reads = 0;
  const open = () => {
    reads += 1;
    return openPdf(pdf).doc;
  };
  assert.is(pageReachOf(pdf, open).kept, false);
  for (const tag of ['other-1', 'other-2']) {
    const input = editInput(document(tag), 'little', 'lintle', 1);
    await proposeEdit(input);
    await applyEdit(input);
  }
  // Their outputs' graphs (each the input's, updated) are kept apart from the graphs read.
  const again = pageReachOf(pdf, open);
  assert.is(again.kept, true);
  assert.is(reads, 1);
});

test('the hash of bytes that append to hashed ones goes on from them, and equals the whole hash', () => {
  const whole = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const input = new Uint8Array(200_000).map((_, i) => (i * 7) & 255);
  const output = new Uint8Array(input.length + 500);
  output.set(input);
  output.fill(42, input.length);
  assert.is(sha256Extending(output, input), whole(output));
  // A second update on the first: from the output's state.
  const applied = new Uint8Array(output.length + 300);
  applied.set(output);
  applied.fill(7, output.length);
  assert.is(sha256Extending(applied, output), whole(applied));
  // Bytes that do not begin with the prefix's are hashed whole.
  const other = output.slice();
  other[10] ^= 1;
  assert.is(sha256Extending(other, input), whole(other));
  assert.is(sha256(other), whole(other));
  // A prefix not hashed before.
  const fresh = input.slice(0, 1000);
  const longer = input.slice(0, 5000);
  assert.is(sha256Extending(longer, fresh), whole(longer));
  // A prefix whose digest is known but whose state was let go: three other files hashed since (as
  // when several documents' corrections share an engine thread). The load bench met it: 39 applies
  // answered "verified other bytes than it wrote".
  const first = new Uint8Array(30_000).map((_, i) => (i * 13) & 255);
  sha256(first);
  for (let k = 0; k < 3; k++) sha256(new Uint8Array(1000 + k).fill(k));
  const extended = new Uint8Array(first.length + 50);
  extended.set(first);
  extended.fill(9, first.length);
  assert.is(sha256Extending(extended, first), whole(extended));
  // A prefix handed to another thread (detached: 0 bytes) gives nothing to go on from.
  const handed = new Uint8Array(4000).fill(5);
  const after = new Uint8Array(4100).fill(5);
  sha256(handed);
  structuredClone(handed.buffer, { transfer: [handed.buffer] });
  assert.is(handed.byteLength, 0);
  assert.is(sha256Extending(after, handed), whole(after));
});

test.run();
