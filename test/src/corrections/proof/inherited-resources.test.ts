// A page that inherits its resources from the page tree (gropdf, groff's PDF writer, puts them on
// /Pages): a correction that changes only the page's /Contents leaves it inheriting them, and the
// object guard must compare the page as it stands, not as if the inherited resources had been
// taken away (every such correction was refused with `would_not_verify` until 2026-11-27).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput, makePdf, pageText, withDoc } from '../fixtures.ts';
import { popplerProblemsOf } from '../poppler.ts';

/** makePdf's page with its /Resources moved up to the /Pages node, as gropdf writes them. */
function inheritedResourcesPdf(content: string): Uint8Array {
  const made = makePdf([{ content }]);
  return withDoc(made, (doc) => {
    const page = doc.findPage(0);
    doc.getTrailer().get('Root').get('Pages').put('Resources', page.get('Resources'));
    page.delete('Resources');
    return takeBytes(doc.saveToBuffer('compress'));
  });
}

test('the fixture really inherits: the page has no /Resources of its own', () => {
  const pdf = inheritedResourcesPdf('BT /F1 12 Tf 20 100 Td (Hello World) Tj ET');
  withDoc(pdf, (doc) => {
    assert.ok(doc.findPage(0).get('Resources').isNull());
    assert.ok(doc.findPage(0).getInheritable('Resources').get('Font').get('F1').isIndirect());
  });
  assert.ok(pageText(pdf).includes('Hello World'));
});

test('a swap of glyphs the page draws verifies at cost none, the page still inheriting', async () => {
  const pdf = inheritedResourcesPdf('BT /F1 12 Tf 20 100 Td (Hello World) Tj ET');
  const r = await applyEdit(editInput(pdf, 'Hello', 'Hlelo'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.visibility_cost, 'none');
  assert.ok(pageText(r.output).includes('Hlelo World'));
  withDoc(r.output, (doc) => assert.ok(doc.findPage(0).get('Resources').isNull()));
  assert.equal(popplerProblemsOf(pdf, r.output, 'Hello', 'Hlelo', r.verification.declared_box!), []);
});

test('a letter the page lacks still gets its font through a page copy of the resources', async () => {
  const pdf = inheritedResourcesPdf('BT /F1 12 Tf 20 100 Td (Hello World) Tj ET');
  const r = await applyEdit(editInput(pdf, 'World', 'Wørld'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pageText(r.output).includes('Hello Wørld'));
});

test.run();
