// The input's page the proof reads the old glyphs' ink from (verify-correction.ts, InputPage): opened
// on first use only, once however many checks read it, and freed with the verification. Counted
// (mupdfWork), never timed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdfWork } from '../../../../src/pdf/mupdf-adapter.ts';
import { InputPage, lineInk, oldInkBoxes } from '../../../../src/corrections/proof/verify-correction.ts';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { editInput, makePdf } from '../fixtures.ts';

const pdf = makePdf([
  { content: 'BT /F1 12 Tf 20 150 Td (First page) Tj ET' },
  { content: 'BT /F1 12 Tf 20 150 Td (Hello little world) Tj ET' },
]);

test('nothing is opened until a check reads the page', () => {
  const before = mupdfWork();
  new InputPage(editInput(pdf, 'little', 'lintle', 1), 1).close();
  const after = mupdfWork();
  assert.is(after.opens, before.opens);
  assert.is(after.pageLoads, before.pageLoads);
});

test('the old ink and the line ink read one opened page, freed on close', () => {
  const before = mupdfWork();
  const original = new InputPage(editInput(pdf, 'little', 'lintle', 1), 1);
  const line = readPageText(original.page()).find((l) => l.text.includes('little'))!;
  const origins = line.chars.slice(6, 12).map((c) => c.origin);
  const ink = oldInkBoxes(original.page(), origins, 0.1);
  assert.is(ink.length, 6, 'one ink box per old glyph');
  assert.ok(
    ink.every((b) => b[2] > b[0] && b[3] > b[1]),
    'each box has area',
  );
  assert.ok(lineInk(original.page(), line, 0.1, 12) >= 0);
  const open = mupdfWork();
  assert.is(open.opens - before.opens, 1, 'the input opened once');
  assert.is(open.pageLoads - before.pageLoads, 1, 'its page loaded once');
  assert.is(open.livePages - before.livePages, 1);
  original.close();
  assert.is(mupdfWork().livePages, before.livePages, 'the page is freed with its document');
});

test.run();
