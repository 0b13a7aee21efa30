// A Type 3 font with no /Resources of its own (matplotlib writes its fonts so; procedures that are
// paths or inline images need none): the copy that takes the new glyph gets its first /Resources,
// holding only the face (/Resources/Font), which the object guard accepts as it accepts a font
// added to an existing /Resources. Until 2026-11-27 every such correction was refused as
// `would_not_verify` ("objects changed where the correction declared nothing: /Resources").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { editInput, withDoc } from '../fixtures.ts';
import { popplerProblemsOf as popplerProblems } from '../poppler.ts';

/** pdfTeX's bitmap fonts (inline-image procedures) with their /Resources (a bare ProcSet) removed. */
function bitmapFontsWithoutResources(): Uint8Array {
  const path = fileURLToPath(
    new URL('../../../../fixtures/corpus/pdf/pdftex-type3-bitmap.pdf', import.meta.url),
  );
  return withDoc(new Uint8Array(readFileSync(path)), (doc) => {
    let stripped = 0;
    doc
      .loadPage(0)
      .getObject()
      .get('Resources')
      .get('Font')
      .forEach((f) => {
        if (f.get('Subtype').asName() !== 'Type3' || f.get('Resources').isNull()) return;
        f.delete('Resources');
        stripped += 1;
      });
    assert.ok(stripped > 0, 'the fixture has Type 3 fonts with resources to remove');
    return takeBytes(doc.saveToBuffer(''));
  });
}

test('a Type 3 font without /Resources takes “ü” in a copy whose new /Resources holds only the face', async () => {
  const pdf = bitmapFontsWithoutResources();
  const r = await applyEdit(editInput(pdf, 'ritual', 'ritüal'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const structural = r.verification.guards.find((g) => g.name === 'objects_untouched');
  assert.ok(structural?.passed, structural?.detail);
  assert.match(structural?.detail ?? '', /\/Resources\/Font/);
  withDoc(r.output, (doc) => {
    let copies = 0;
    doc
      .loadPage(0)
      .getObject()
      .get('Resources')
      .get('Font')
      .forEach((f) => {
        if (f.get('CharProcs').get('udieresis').isNull()) return;
        copies += 1;
        // Only the face was added: the copy's resources name no other kind.
        const keys: string[] = [];
        f.get('Resources').forEach((_v, k) => keys.push(String(k)));
        assert.equal(keys, ['Font']);
      });
    assert.is(copies, 1);
  });
  assert.equal(popplerProblems(pdf, r.output, 'ritual', 'ritüal', r.verification.declared_box!), []);
});

test.run();
