// A subset may keep a glyph's id, advance and cmap entry and empty its outline (iText does). Tiers 1
// and 2 took such a glyph for a letter the page never shows, and glyphs_drawn, which reads MuPDF's
// glyph boxes, let it pass: “clock” → “cloqk” verified as “clo k” on this fixture (a whole DejaVu
// Sans whose “q” outline is emptied, embedded as MuPDF embeds a font). Now a glyph that draws no ink
// is not taken, and the ladder goes on to a face that draws the letter.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFont, editInput } from '../fixtures.ts';
import { pdftotextOf } from '../poppler.ts';

/** `font` (a TrueType file) with the outline of `ch`'s glyph emptied: its loca entry made zero-length. */
function emptiedGlyph(font: Uint8Array, ch: string): Uint8Array {
  const out = font.slice();
  const v = new DataView(out.buffer);
  const table = (tag: string) => {
    for (let i = 0; i < v.getUint16(4); i += 1)
      if (String.fromCharCode(...out.subarray(12 + 16 * i, 16 + 16 * i)) === tag)
        return v.getUint32(12 + 16 * i + 8);
    throw new Error(`no ${tag} table`);
  };
  const [head, loca] = [table('head'), table('loca')];
  const gid = new mupdf.Font('face', font).encodeCharacter(ch.codePointAt(0)!);
  if (v.getInt16(head + 50) === 1) v.setUint32(loca + 4 * gid, v.getUint32(loca + 4 * gid + 4));
  else v.setUint16(loca + 2 * gid, v.getUint16(loca + 2 * gid + 2));
  return out;
}

function pagePdf(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('DejaVuSans', emptiedGlyph(bundledFont('dejavu-sans-regular'), 'q'));
    const fonts = doc.newDictionary();
    fonts.put('F1', doc.addFont(font));
    const res = doc.newDictionary();
    res.put('Font', fonts);
    const hex = [...'the clock strikes seven']
      .map((c) => font.encodeCharacter(c.codePointAt(0)!).toString(16).padStart(4, '0'))
      .join('');
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, res, `BT /F1 12 Tf 20 50 Td <${hex}> Tj ET`));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

test('a letter whose glyph the subset emptied is drawn from a face that has it', async () => {
  const pdf = pagePdf();
  const applied = await applyEdit(editInput(pdf, 'clock', 'cloqk'));
  assert.ok(applied.verification.passed, applied.verification.failure_reason ?? '');
  assert.ok(applied.proposal.tier > 2, `tier ${applied.proposal.tier}: the emptied glyph was taken`);
  assert.match(pdftotextOf(applied.output), /the cloqk strikes seven/);
  // poppler draws the “q”: ink where it stands (between the “o” and the “k”), a blank before this.
  const work = mkdtempSync(join(tmpdir(), 'docfix-emptied-'));
  try {
    writeFileSync(join(work, 'out.pdf'), applied.output);
    // 20 pt + “the clo” (34.6 pt at 12 pt) puts the “q” at 54.6–62.2 pt, on the line 50 pt up.
    const ppm = execFileSync('pdftoppm', [
      '-r',
      '72',
      '-gray',
      '-x',
      '55',
      '-y',
      '41',
      '-W',
      '7',
      '-H',
      '8',
      join(work, 'out.pdf'),
    ]);
    const pixels = ppm.subarray(ppm.length - 7 * 8);
    assert.ok(
      pixels.some((p) => p < 128),
      'the q leaves ink in poppler’s render',
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
