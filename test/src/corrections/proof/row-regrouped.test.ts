// The text-layer guard reads the edited line as MuPDF groups it after the edit. A justified line
// whose last run is in another font (developers-reference-de: “… wenden Sie sich unter” then
// “listmaster@lists.debian.org an den” in typewriter, 7.7 pt word gaps) was read as two lines before
// and as one after a correction re-spaced it, and the correction was refused although every
// character stayed what and where it was. rowRegrouped (proof/line-band.ts) accepts exactly that:
// the expected line joined, in row order, with whole unchanged lines of its row; nothing else.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { rowRegrouped } from '../../../../src/corrections/proof/line-band.ts';
import { loadPage } from '../../../../src/pdf/mupdf-adapter.ts';
import { makePdf, withDoc } from '../fixtures.ts';

// Two runs on one row, far enough apart for MuPDF to read them as two lines, and a row below.
const pdf = makePdf([
  {
    content:
      'BT /F1 10 Tf 10 150 Td (Falls es Probleme gibt, wenden) Tj ET ' +
      'BT /F1 10 Tf 200 150 Td (listmaster an den) Tj ET ' +
      'BT /F1 10 Tf 10 120 Td (Administrator der Liste) Tj ET',
  },
]);
const lines = withDoc(pdf, (doc) => readPageText(loadPage(doc, 0)));
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const edited = lines.find((l) => l.text.includes('Probleme'))!;
const expected = 'Falls es Probleme gibæ, wenden';

test('premise: MuPDF reads the row as two lines', () => {
  assert.equal(
    lines.map((l) => l.text.trim()),
    ['Falls es Probleme gibt, wenden', 'listmaster an den', 'Administrator der Liste'],
  );
});

test('the edited line joined with the unchanged line beside it on its row is accepted', () => {
  assert.ok(rowRegrouped(lines, edited, expected, `${expected} listmaster an den`, norm));
});

test('a changed neighbour, a line of another row, or the wrong order is not', () => {
  assert.not.ok(rowRegrouped(lines, edited, expected, `${expected} listmaster an dem`, norm));
  assert.not.ok(rowRegrouped(lines, edited, expected, `${expected} Administrator der Liste`, norm));
  assert.not.ok(rowRegrouped(lines, edited, expected, `listmaster an den ${expected}`, norm));
  assert.not.ok(
    rowRegrouped(lines, edited, expected, `${expected} listmaster an den listmaster an den`, norm),
  );
  // The old line beside the new one is no neighbour: the text layer would read both.
  assert.not.ok(rowRegrouped(lines, edited, expected, `${expected} ${edited.text}`, norm));
});

test.run();
