// The text as pdftotext reads it where MuPDF reads otherwise (code-reading.ts): a code nothing maps
// read as itself, and letter-spaced figures read as one word; the engine finds and corrects a word
// in that reading, checked by poppler.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codeReading } from '../../../src/corrections/code-reading.ts';
import { applyEdit } from '../../../src/corrections/engine.ts';
import type { FontInfo } from '../../../src/corrections/fonts.ts';
import { GlyphIndex } from '../../../src/corrections/locate.ts';
import type { TextChar, TextLine } from '../../../src/corrections/page-text.ts';
import type { Glyph } from '../../../src/corrections/text-interpreter.ts';
import { editInput, makePdf, pageText } from './fixtures.ts';
import { popplerCheck } from './poppler.ts';

test('a simple font code nothing maps, which MuPDF reads as U+FFFD, reads as its Latin-1 character', () => {
  // A CFF font with a built-in encoding of unknown names and no ToUnicode (arabi's TraditionalArabic).
  const font = { toUnicode: null, encodingUnicode: new Map(), composite: false } as unknown as FontInfo;
  const glyph = (code: number, x: number) =>
    ({ code, font, origin: [x, 100], lost: false, state: { Tr: 0 } }) as unknown as Glyph;
  const char = (c: string, x: number) =>
    ({ c, origin: [x, 100], size: 10, quad: [x, 90, x + 5, 90, x, 100, x + 5, 100] }) as unknown as TextChar;
  const line = {
    wmode: 0,
    dir: [1, 0],
    chars: [char('\ufffd', 10), char('\ufffd', 15), char('\ufffd', 20)],
  } as unknown as TextLine;
  const read = codeReading([line], new GlyphIndex([glyph(0x41, 10), glyph(0x68, 15), glyph(0x07, 20)]));
  assert.ok(read.changed);
  // A control code stays as MuPDF read it.
  assert.is(read.lines[0].text, 'Ah\ufffd');
});

test('figures set one by one with small gaps: one word, found, swapped and read so by poppler', async () => {
  // MuPDF reads “8 1 2 5” (a space in every 0.17 em gap), pdftotext “812 5”.
  const pdf = makePdf([
    { content: 'BT /F1 12 Tf 20 60 Td (8) Tj 8.7 0 Td (1) Tj 8.7 0 Td (2) Tj 14 0 Td (5) Tj ET' },
  ]);
  assert.ok(pageText(pdf).includes('8 1 2 5'));
  const r = await applyEdit(editInput(pdf, '812', '182'));
  assert.is(r.proposal.tier, 1);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is((r.proposal.measurements as { overflow_pt: number }).overflow_pt, 0);
  assert.ok(pageText(r.output).includes('1 8 2 5'));
  const work = mkdtempSync(join(tmpdir(), 'docfix-letterspaced-'));
  try {
    writeFileSync(join(work, 'a.pdf'), pdf);
    writeFileSync(join(work, 'b.pdf'), r.output);
    const check = popplerCheck(
      join(work, 'a.pdf'),
      join(work, 'b.pdf'),
      0,
      '',
      '812',
      '182',
      r.verification.declared_box!,
      work,
    );
    assert.equal(check.problems, []);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
