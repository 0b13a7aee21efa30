// Charis SIL is bundled (fonts/charis-sil): the serif MuPDF's HTML layout embeds ("Charis SIL
// Regular", CID CFF) and DBLaTeX documents use ("ABCDEF+CharisSIL", CID TrueType), and the face the
// outside corpora most often drew without a bundled match: a letter its subset lacks was refused
// with `glyph_not_available` unless the machine had fonts-sil-charis. Tier 4 now draws it with the
// bundled face, whatever the machine has. The page is made here: a subset of Charis SIL holding
// only the letters of its line, named as each producer names it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { bundledFacePdf, editInput } from '../fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-charis-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** "The checks are made yearly" in a subset of Charis SIL (regular or bold), named `baseFont`. */
function charisPdf(baseFont: string, id: string): Uint8Array {
  return bundledFacePdf(
    { name: 'CharisSIL', id },
    [0, 0, 400, 120],
    (hex) => `BT /F1 14 Tf 20 60 Td <${hex('The checks are made yearly')}> Tj ET`,
    (font, doc) => {
      font.put('BaseFont', doc.newName(baseFont));
      const descendant = font.get('DescendantFonts').get(0);
      descendant.put('BaseFont', doc.newName(baseFont));
      descendant.get('FontDescriptor').put('FontName', doc.newName(baseFont));
    },
  );
}

for (const [baseFont, id] of [
  ['Charis SIL Regular', 'charis-sil-regular'],
  ['ABCDEF+CharisSIL', 'charis-sil-regular'],
  ['ABCDEF+CharisSIL-Bold', 'charis-sil-bold'],
] as const) {
  test(`a letter ${baseFont}'s subset lacks is drawn with the bundled Charis SIL: verifies, poppler reads it`, async () => {
    const pdf = charisPdf(baseFont, id);
    const { proposal, output, verification } = await applyEdit(editInput(pdf, 'checks', 'checkz'));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    assert.is(proposal.visibility_cost, 'low');
    const m = proposal.measurements as { matched_font: { face: string; family: string } };
    assert.is(m.matched_font.family, 'Charis SIL');
    assert.is(m.matched_font.face, id);
    const after = join(dir, `${id}.pdf`);
    writeFileSync(after, output);
    const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
    assert.ok(text.includes('The checkz are made yearly'), text);
  });
}

test.run();
