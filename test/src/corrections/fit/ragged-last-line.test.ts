// A paragraph's last line is not set flush, even where lines elsewhere on the page happen to end
// where it does (a man page set by pdf-lib: "partir du fichier." ended within half a point of two
// other short lines). Only the lines just above and below it decide; with free space after it,
// a wider word moves the rest of the line right, its word gaps kept as set.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { editInput, helveticaWidth, makePdf } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const JUSTIFIED = [
  'Record the output and the input in the',
  'same file with timing data kept for a',
  'replay of the whole session later on',
];
const LAST = 'partir du fichier.';
/** The justified lines' width: the widest line's, a little more (MuPDF keeps the words one line). */
const EDGE = Math.max(...JUSTIFIED.map((line) => helveticaWidth(line))) + 4;
/** The same letters backwards: the same width in Helvetica, without the word corrected. */
const ELSEWHERE = [...LAST].reverse().join('');

function pagePdf(): Uint8Array {
  const justified = JUSTIFIED.map((line, i) => {
    const spaces = line.split(' ').length - 1;
    const tw = (EDGE - helveticaWidth(line)) / spaces;
    return `BT /F1 10 Tf ${tw.toFixed(4)} Tw 20 ${180 - 12 * i} Td (${line}) Tj ET`;
  });
  const content = [
    ...justified,
    `BT /F1 10 Tf 0 Tw 20 144 Td (${LAST}) Tj ET`,
    `BT /F1 10 Tf 20 40 Td (${ELSEWHERE}) Tj ET`,
    `BT /F1 10 Tf 20 20 Td (${ELSEWHERE}) Tj ET`,
  ].join('\n');
  return makePdf([{ content }]);
}

test('a last line ending where far lines end gets the free space after it; its gaps stay as set', async () => {
  const pdf = pagePdf();
  const r = await applyEdit(editInput(pdf, 'partir', 'partår'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = r.proposal.measurements as {
    fit_rule: string;
    overflow_pt: number;
    respaced: { last_word_move_pt: number };
  };
  assert.ok(m.overflow_pt > 3.3, String(m.overflow_pt));
  assert.match(m.fit_rule, /their gaps kept/);
  assert.ok(Math.abs(m.respaced.last_word_move_pt - m.overflow_pt) < 0.01, JSON.stringify(m.respaced));
  assert.ok(pdftotextOf(r.output).includes('partår du fichier.'));
  assert.equal(popplerProblemsOf(pdf, r.output, 'partir', 'partår', r.verification.declared_box!), []);
});

test('a justified line is still set flush with the line above it: its last word does not move past it', async () => {
  const pdf = pagePdf();
  // "later" is followed by "on", the last word of the third justified line, flush with the two above.
  const p = await proposeEdit(editInput(pdf, 'later', 'lamer'));
  const m = p.measurements as { fit_rule?: string; respaced?: { last_word_move_pt: number } };
  assert.ok(p.visibility_cost !== 'refused', p.refusal ?? '');
  assert.is(m.respaced?.last_word_move_pt, 0, JSON.stringify(m));
  assert.match(m.fit_rule ?? '', /last word stays where it was/);
});

test.run();
