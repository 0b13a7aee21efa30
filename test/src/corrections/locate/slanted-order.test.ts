// match_index with a word both in a slanted label and in upright text (a chart's tick label tilted
// 30° above a paragraph that names the same column, as matplotlib draws it). MuPDF reads the tilted
// label first and whole; pdftotext does not read slanted text as words, so its text shows the word
// once: the upright one. Slanted lines come after upright ones in the engine's order, so match 0 is
// the word a reader of the extracted text means, in search and in a correction alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { searchPdf } from '../../../../src/documents/search.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, makePdf } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

/** A label "colonne" at 30° near the top, drawn first; a line of upright text below it. */
function chartPage(): Uint8Array {
  const label = 'BT /F1 10 Tf 0.866025 0.5 -0.5 0.866025 60 160 Tm (colonne) Tj ET';
  const body = 'BT /F1 11 Tf 20 60 Td (Afficher la colonne de gauche des lignes communes.) Tj ET';
  return makePdf([{ content: `${label} ${body}` }]);
}

const count = (text: string, word: string) => text.split(word).length - 1;

test('poppler reads the word once (the upright one); the engine finds it twice, the upright one first', () => {
  const pdf = chartPage();
  assert.is(count(pdftotextOf(pdf), 'colonne'), 1);
  const hits = searchPdf(pdf, 'colonne').matches ?? [];
  assert.is(hits.length, 2);
  assert.equal(
    hits.map((h) => h.match_index),
    [0, 1],
  );
  // Match 0 is the body line (baseline 60 pt up from the bottom of a 200 pt page: 140 pt down from
  // the top), 1 the label (from 40 pt down, rising to the right).
  const [body, label] = hits.map((h) => h.box ?? []) as [number[], number[]];
  assert.ok(body[1]! > 125 && body[3]! < 145, `match 0 at ${body}`);
  assert.ok(label[3]! < 45, `match 1 at ${label}`);
  const doc = mupdf.PDFDocument.openDocument(pdf, 'application/pdf');
  try {
    const lines = readPageText(doc.loadPage(0));
    assert.equal(
      lines.map((l) => l.index),
      lines.map((_, i) => i),
    );
    assert.ok(lines[lines.length - 1].text.includes('colonne') && lines[lines.length - 1].dir[1] !== 0);
  } finally {
    doc.destroy();
  }
});

test('match 0 corrects the upright word: poppler reads the new word and sees no other change', async () => {
  const pdf = chartPage();
  const r = await applyEdit(editInput(pdf, 'colonne', 'colnone'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pdftotextOf(r.output).includes('la colnone de gauche'));
  assert.equal(popplerProblemsOf(pdf, r.output, 'colonne', 'colnone', r.verification.declared_box!), []);
});

test('match 1 corrects the tilted label, inside its own declared box', async () => {
  const pdf = chartPage();
  const r = await applyEdit(editInput(pdf, 'colonne', 'colnone', 0, 1));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pdftotextOf(r.output).includes('la colonne de gauche'));
  const label = (searchPdf(pdf, 'colonne').matches ?? [])[1]!.box_render;
  const box = r.verification.declared_box!;
  assert.ok(box[1] < label[3] && box[3] > label[1], `declared ${box}, label ${label}`);
});

test.run();
