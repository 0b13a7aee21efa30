// A content stream naming a font or a form its page's resources do not hold (no /Resources at all,
// an empty one, a `Do` of a name never defined): MuPDF draws what it can, and a correction gets a
// refusal or a verified edit, never an internal error. MuPDF.js answers a missing key with a null
// object whose own get() throws, and the interpreter's lookups of a font and a form went through one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { buildPdf } from '../../../../fixtures/make-hostile.ts';
import { editInput, pageText } from '../fixtures.ts';

function pagePdf(pageDict: string, content: string): Uint8Array {
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    pageDict,
    { dict: '<< >>', stream: new Uint8Array(Buffer.from(content, 'latin1')) },
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ]);
}

const LINE = 'BT /F1 12 Tf 20 100 Td (Hello world) Tj ET';

test('a font the page has no /Resources for, or an empty /Resources: refused text_not_mapped', async () => {
  for (const resources of ['', '/Resources << >>']) {
    const pdf = pagePdf(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] ${resources} /Contents 4 0 R >>`,
      LINE,
    );
    assert.ok(pageText(pdf).includes('Hello world'), 'MuPDF draws the line with a stand-in font');
    const p = await proposeEdit(editInput(pdf, 'Hello', 'Hlelo'));
    assert.is(p.visibility_cost, 'refused', resources);
    assert.is(p.advice?.code, 'text_not_mapped', resources);
  }
});

test('a form name the resources do not define is skipped: the line is corrected', async () => {
  const pdf = pagePdf(
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `${LINE} /X0 Do`,
  );
  const r = await applyEdit(editInput(pdf, 'Hello', 'Hlelo'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pageText(r.output).includes('Hlelo world'));
});

test.run();
