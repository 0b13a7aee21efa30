// A heading set along a curve (issue 33 item 3, the poster whose “QING” was refused with
// `target_spans_lines`): each letter has a text matrix of its own, turned to the curve's tangent
// where it stands, and MuPDF starts a new line wherever the direction changes. The page reader
// joins a line that starts where the one before ends, turned from it a little (page-text.ts), so
// the word is found whole and corrected. The page is made here: “QING STAR” in Helvetica-Bold
// (standard 14) 40 pt, along a circle of 200 pt radius, letter by letter at their arc lengths.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { readPageText } from '../../../../src/corrections/locate/page-text.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { loadPage, mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, withDoc } from '../fixtures.ts';
import { compare, POPPLER_DPI, pdftoppm } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-bent-lines-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Helvetica-Bold's advances (thousandths of an em) of the letters drawn. */
const ADVANCE: Record<string, number> = {
  Q: 778,
  I: 278,
  N: 722,
  G: 778,
  ' ': 278,
  S: 667,
  T: 611,
  A: 722,
  R: 722,
};

/**
 * `word` along a circle of radius `radius` whose leftmost point is (300, 100), upward and bending
 * right; `turn` 0 draws it straight up instead (one line for MuPDF, the reference).
 */
function curvedPdf(word: string, radius: number, turn = true): Uint8Array {
  let content = 'BT /F1 40 Tf ';
  let along = 0;
  for (const ch of word) {
    const travelled = turn ? along / radius : 0;
    const x = turn ? 300 + radius - radius * Math.cos(travelled) : 300;
    const y = turn ? 100 + radius * Math.sin(travelled) : 100 + along;
    const a = Math.PI / 2 - travelled;
    const [c, s] = [Math.cos(a), Math.sin(a)].map((v) => v.toFixed(4));
    content += `${c} ${s} ${-s} ${c} ${x.toFixed(2)} ${y.toFixed(2)} Tm (${ch}) Tj `;
    along += (ADVANCE[ch]! / 1000) * 40;
  }
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica-Bold'));
    const res = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', font);
    res.put('Font', fonts);
    doc.insertPage(-1, doc.addPage([0, 0, 600, 600], 0, res, `${content}ET`));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

/** MuPDF's own lines of the page, without the reader's joining: one per direction. */
function rawLines(pdf: Uint8Array): string[] {
  return withDoc(pdf, (doc) => {
    const st = doc.loadPage(0).toStructuredText('preserve-whitespace');
    try {
      return st
        .asText()
        .split('\n')
        .filter((l) => l.trim());
    } finally {
      st.destroy();
    }
  });
}

test('a word along a curve is read as one line, as a straight one is', () => {
  const pdf = curvedPdf('QING STAR', 200);
  // The premise: MuPDF splits the curved word where the direction turns.
  assert.ok(rawLines(pdf).length > 2, JSON.stringify(rawLines(pdf)));
  const lines = withDoc(pdf, (doc) => readPageText(loadPage(doc, 0)));
  assert.equal(
    lines.map((l) => l.text),
    ['QING STAR'],
  );
  const straight = withDoc(curvedPdf('QING STAR', 200, false), (doc) => readPageText(loadPage(doc, 0)));
  assert.equal(
    straight.map((l) => l.text),
    ['QING STAR'],
  );
});

test('a letter of a curved word is corrected: verifies, poppler reads it and changes only the declared box', async () => {
  const pdf = curvedPdf('QING STAR', 200);
  for (const [find, replacement] of [
    ['QING', 'KING'],
    ['STAR', 'STIR'],
  ] as const) {
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replacement));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.visibility_cost, 'none');
    const before = join(dir, `${find}-a.pdf`);
    const after = join(dir, `${find}-b.pdf`);
    writeFileSync(before, pdf);
    writeFileSync(after, output);
    // poppler reads a curved word one letter a line even with -raw: compared without the breaks.
    const text = execFileSync('pdftotext', ['-raw', after, '-'], { encoding: 'utf8' }).replace(/\s+/g, '');
    assert.ok(text.includes(replacement) && !text.includes(find), text);
    const d = verification.declared_box.map((v) => (v * POPPLER_DPI) / 300);
    const box: [number, number, number, number] = [
      Math.floor(d[0]!) - 2,
      Math.floor(d[1]!) - 2,
      Math.ceil(d[2]!) + 2,
      Math.ceil(d[3]!) + 2,
    ];
    const { changed, outside } = compare(
      pdftoppm(before, 0, '', `${before}-r`),
      pdftoppm(after, 0, '', `${after}-r`),
      box,
    );
    assert.ok(changed > 0 && outside === 0, `${find}: ${outside} of ${changed} outside`);
  }
});

test('a letter too wide for its place on the curve is refused as on a straight line', async () => {
  for (const turn of [true, false]) {
    const proposal = await proposeEdit(editInput(curvedPdf('QING STAR', 200, turn), 'QING', 'QANG'));
    assert.is(proposal.advice?.code, 'replacement_too_wide', `turn ${turn}`);
  }
});

test.run();
