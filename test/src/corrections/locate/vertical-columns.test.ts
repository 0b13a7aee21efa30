// Vertical writing set glyph by glyph with ruby beside it (issue 33 item 3): MuPDF gives each glyph
// of a column its own line, and the ruby drawn between the column's glyphs cut the column into
// pieces, so a word across a ruby was “found only across a line break”. The column is joined
// across them (locate/page-text.ts), and a swap of glyphs each placed by an operator of its own is
// made in place (cross-font-swap.ts, vertical-rule.ts). The page: a column of DroidSansFallback
// glyphs at 12 pt, each placed by its own Tm as dvipdfmx writes them, Identity-V, with ruby at 6 pt.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { loadPage } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFacePdf, editInput, withDoc } from '../fixtures.ts';
import { pdftotext } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-vertical-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function rubyColumnPdf(): Uint8Array {
  const ruby: Record<number, string> = { 0: 'に', 1: 'ほん' };
  return bundledFacePdf(
    { name: 'DroidSansFallback', id: 'droid-sans-fallback-regular' },
    [0, 0, 240, 200],
    (hex) => {
      let body = 'BT';
      [...'日本語の文章を直す'].forEach((c, i) => {
        body += ` /F1 12 Tf 1 0 0 1 200 ${180 - i * 12} Tm <${hex(c)}> Tj`;
        if (ruby[i]) body += ` /F1 6 Tf 1 0 0 1 212 ${180 - i * 12} Tm <${hex(ruby[i])}> Tj`;
      });
      return `${body} /F1 12 Tf 1 0 0 1 170 180 Tm <${hex('二列目の文')}> Tj ET`;
    },
    (font, doc) => font.put('Encoding', doc.newName('Identity-V')),
  );
}

test('a column is one line across the ruby drawn between its glyphs; the ruby stay lines of their own', () => {
  const lines = withDoc(rubyColumnPdf(), (doc) => readPageText(loadPage(doc, 0)).map((l) => l.text));
  assert.equal(lines, ['日本語の文章を直す', 'に', 'ほん', '二列目の文']);
});

test('a swap across the ruby verifies in place; poppler reads the new column', async () => {
  const pdf = rubyColumnPdf();
  const input = editInput(pdf, '日本語', '本日語');
  const proposal = await proposeEdit(input);
  assert.is(proposal.refusal, null, proposal.explanation);
  assert.is(proposal.tier, 1);
  assert.is(proposal.visibility_cost, 'none');
  const { output, verification } = await applyEdit(input);
  assert.ok(verification.passed, verification.failure_reason ?? '');
  const path = join(dir, 'column.pdf');
  writeFileSync(path, output);
  const text = pdftotext(path, 0, '').replace(/\s+/g, '');
  assert.ok(text.includes('本日語'), text);
  assert.not.ok(text.includes('日本語'), text);
});

test('a replacement of another length in the column is still refused (vertical_text)', async () => {
  const proposal = await proposeEdit(editInput(rubyColumnPdf(), '文章を', '文を'));
  assert.is(proposal.visibility_cost, 'refused');
  assert.ok(['vertical_text', 'split_drawing'].includes(proposal.advice!.code), proposal.advice!.code);
});

test.run();
