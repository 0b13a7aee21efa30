// MuPDF page lifetimes (mupdf-adapter.ts): a page loaded in docfix's frame is freed with its
// document by `closeDocument`, and the pages still live are counted (`mupdfWork().livePages`): a
// correction, proposed, applied or refused, leaves none behind. Counted, never timed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeDocument, loadPage, mupdfWork, openPdf } from '../../src/pdf/mupdf-adapter.ts';
import { applyEdit, proposeEdit } from '../../src/corrections/engine.ts';
import { editInput, makePdf } from './corrections/fixtures.ts';

const file = fileURLToPath(new URL('../../fixtures/corpus/pdf/latex-4-pages.pdf', import.meta.url));
const bytes = new Uint8Array(readFileSync(file));

test('pages loaded from a document are live until the document is closed, then all freed', () => {
  const before = mupdfWork();
  const { doc } = openPdf(bytes, '');
  const pages = [loadPage(doc, 0), loadPage(doc, 1), loadPage(doc, 3)];
  const open = mupdfWork();
  assert.is(open.opens - before.opens, 1);
  assert.is(open.pageLoads - before.pageLoads, 3);
  assert.is(open.livePages - before.livePages, 3);
  closeDocument(doc);
  assert.ok(
    pages.every((p) => p.pointer === 0),
    'each page is destroyed with its document',
  );
  assert.is(doc.pointer, 0);
  assert.is(mupdfWork().livePages, before.livePages);
});

test('a page its caller destroyed is neither counted live nor destroyed twice', () => {
  const before = mupdfWork().livePages;
  const { doc } = openPdf(bytes, '');
  loadPage(doc, 2).destroy();
  const kept = loadPage(doc, 0);
  assert.is(mupdfWork().livePages - before, 1);
  closeDocument(doc);
  assert.is(kept.pointer, 0);
  assert.is(mupdfWork().livePages, before);
  closeDocument(null); // nothing opened: nothing to do
});

function document(tag: string): Uint8Array {
  return makePdf([
    { content: `BT /F1 12 Tf 20 150 Td (First page ${tag}) Tj ET` },
    { content: `BT /F1 12 Tf 20 150 Td (Hello little world ${tag}) Tj ET` },
  ]);
}

test('a correction proposed, applied or refused leaves no page live', async () => {
  const before = mupdfWork();
  const input = editInput(document('a'), 'little', 'lintle', 1);
  const proposal = await proposeEdit(input);
  assert.ok(proposal.tier > 0, proposal.refusal ?? '');
  await applyEdit(input);
  // Five letters fewer leave a gap the proof sees: refused once rendered and compared.
  const refused = await proposeEdit(editInput(document('b'), 'little', 'l', 1));
  assert.is(refused.tier, -1);
  const after = mupdfWork();
  assert.ok(after.pageLoads > before.pageLoads, 'the corrections loaded pages');
  assert.is(after.livePages, before.livePages, 'every page loaded was freed with its document');
});

test.run();
