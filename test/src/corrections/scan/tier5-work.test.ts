// The work of one tier-5 proposal, counted (issue 35): the page recognised once, at the scan's own
// resolution (not upscaled to the 300 dpi of the boxes asked); the proof's read-backs are bands of
// the patched line — the line as it was read once, though asked both early (while the patch is
// built) and by the line's read-back — and together they read fewer pixels than the page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposeEdit, type EditTaskInput } from '../../../../src/corrections/engine.ts';
import { keptWork } from '../../../../src/ocr/kept-work.ts';
import { closeRecognisers, recognitionCounts } from '../../../../src/ocr/recognizer.ts';
import { openPdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { scannedPage } from '../scan-fixtures.ts';

const LINES = [
  'The periodic review of the contract is due',
  'Certificate of the Board, signed and dated',
  'Please return the form with your remarks',
];

test.after(async () => {
  await closeRecognisers();
});

test('a proposal: one page recognition at the scan’s resolution, eleven line read-backs smaller than the page', async () => {
  keptWork.clear();
  const pdf = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  const { doc } = openPdf(pdf, '');
  const bounds = doc.loadPage(0).getBounds();
  doc.destroy();
  const at200 =
    Math.ceil(((bounds[2] - bounds[0]) * 200) / 72) * Math.ceil(((bounds[3] - bounds[1]) * 200) / 72);
  const input: EditTaskInput = {
    pdf,
    password: '',
    request: {
      page_index: 0,
      target: { method: 'ocr', find: 'periodic', match_index: 0, confirmed: false },
      replacement: 'peridoic',
      attestation_id: 'att_test',
    },
    manifest: {
      document_id: 'doc_work',
      original_sha256: '0'.repeat(64),
      standing: [],
      engine_version: 'test',
      renderer: 'mupdf',
      dpi: 300,
    },
  };
  const start = recognitionCounts();
  const proposal = await proposeEdit(input);
  const end = recognitionCounts();
  assert.is(proposal.refusal, null, proposal.explanation);
  assert.is(proposal.tier, 5);
  assert.is(end.page - start.page, 1, 'the page is recognised once');
  assert.is(end.region - start.region, 0);
  // Three context widths on the patched page; the word alone by each of the two models (bundled and
  // the system's) and at 95% by the system's, on MuPDF's render and on PDFium's; and the line's band
  // before and after: eleven, the band before read once though asked twice.
  assert.is(end.line - start.line, 11);
  // The page read at its scan's 200 dpi (at 300 dpi it alone would be 2.25 times `at200`), and the
  // line read-backs together less than the page: a proposal (verified, or it would be refused)
  // reads under twice the page's pixels at 200 dpi.
  const pixels = end.pixels - start.pixels;
  assert.ok(pixels > at200 / 2);
  assert.ok(pixels < 2 * at200, `${pixels} pixels read in all; the page at 200 dpi is ${at200}`);
});

test.run();
