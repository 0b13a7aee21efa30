// A letter added to a non-embedded standard font written without /Encoding and /Widths (a writer's
// page header carries UTF-8 bytes its StandardEncoding leaves undefined: MuPDF advances them by the
// .notdef, poppler by nothing). The encoding extension writes no /Widths then: the header keeps its
// spacing in both renderers (a written width of 0 closed MuPDF's gap and the edit would not verify).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import type { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, pageText, standardTimesPdf, withDoc } from '../fixtures.ts';
import { popplerProblemsOf as popplerProblems } from '../poppler.ts';

/** A header with an em dash written as UTF-8 bytes, and a body line, in non-embedded Times-Roman. */
const headedPage = () =>
  standardTimesPdf(
    'BT /T 9 Tf 20 180 Td (SORT\\(1\\) - GNU coreutils \\342\\200\\224 2) Tj ET\n' +
      'BT /T 11 Tf 20 120 Td (natural sort of \\(version\\) numbers within text) Tj ET',
  );

test('ç added to Times-Roman without /Widths: verified, the header unmoved in poppler, no widths written', async () => {
  const pdf = headedPage();
  const r = await applyEdit(editInput(pdf, 'text', 'tçxt'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier_name, 'encoding_extension');
  assert.ok(pageText(r.output).includes('numbers within tçxt'));
  assert.equal(popplerProblems(pdf, r.output, 'text', 'tçxt', r.verification.declared_box!), []);
  withDoc(r.output, (doc: mupdf.PDFDocument) => {
    const font = doc.findPage(0).get('Resources').get('Font').get('T');
    assert.ok(font.get('Encoding').get('Differences').isArray(), 'the new code is named in /Differences');
    assert.ok(font.get('Widths').isNull(), 'no /Widths written');
  });
});

test.run();
