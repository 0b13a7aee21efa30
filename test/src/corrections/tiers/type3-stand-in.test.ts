// Tier 4 for Type 3 fonts (type3-stand-in.ts): a METAFONT bitmap font gets a letter it lacks from
// the bundled face its widths and its ink both name, drawn by a procedure added to a copy of the
// font; a face with the right widths but other letterforms is not used. Checked by poppler.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DocfixError } from '../../../../src/errors.ts';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { loadFontInfo } from '../../../../src/corrections/locate/fonts.ts';
import { INK_AGREEMENT, inkAgreement } from '../../../../src/corrections/tiers/type3-stand-in.ts';
import { faceById } from '../../../../src/fonts/catalog.ts';
import { bundledFont, editInput, makePdf, skiaType3Pdf, type3TexPdf, withDoc } from '../fixtures.ts';
import { POPPLER_DPI, popplerProblemsOf as popplerProblems, pdftoppm, type Ppm } from '../poppler.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';

const corpusPdf = (name: string) =>
  new Uint8Array(
    readFileSync(fileURLToPath(new URL(`../../../../fixtures/corpus/pdf/${name}`, import.meta.url))),
  );

interface Matched {
  matched_font: { face: string; ink_agreement: number; type3_codes: Record<string, number> };
}

test('pdfTeX bitmap fonts: cmr10 pk glyphs and LM Roman 10 share their ink, LM Roman Slanted does not', () => {
  const pdf = corpusPdf('pdftex-type3-bitmap.pdf');
  withDoc(pdf, (doc) => {
    const font = loadFontInfo(doc.loadPage(0).getObject().get('Resources').get('Font').get('F15'));
    const upright = inkAgreement(font, faceById('lm-roman-10-regular')!) ?? 0;
    const slanted = inkAgreement(font, faceById('lm-roman-slanted-10')!) ?? 0;
    assert.ok(upright >= INK_AGREEMENT, `upright ${upright}`);
    assert.ok(slanted < 0.5, `slanted ${slanted}`);
  });
});

test('a pdfTeX bitmap title (cmr17 pk) gets “ü” from LM Roman 17, drawn inside a copy of the Type 3 font', async () => {
  const pdf = corpusPdf('pdftex-type3-bitmap.pdf');
  const r = await applyEdit(editInput(pdf, 'ritual', 'ritüal'));
  assert.is(r.proposal.tier, 4);
  assert.is(r.proposal.visibility_cost, 'low');
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = (r.proposal.measurements as unknown as Matched).matched_font;
  assert.is(m.face, 'lm-roman-17-regular');
  assert.ok(m.ink_agreement >= INK_AGREEMENT);
  // The copy of the font has a procedure for the new code, drawing the face's glyph.
  withDoc(r.output, (doc) => {
    const fonts = doc.loadPage(0).getObject().get('Resources').get('Font');
    let procs = 0;
    fonts.forEach((f) => {
      if (f.get('Subtype').asName() === 'Type3' && !f.get('CharProcs').get('udieresis').isNull()) procs += 1;
    });
    assert.is(procs, 1);
  });
  const structural = r.verification.guards.find((g) => g.name === 'objects_untouched');
  assert.ok(structural?.passed, structural?.detail);
  assert.equal(popplerProblems(pdf, r.output, 'ritual', 'ritüal', r.verification.declared_box!), []);
});

test('a Type 3 font drawing slanted letters at the roman’s widths is matched by its ink to LM Roman Slanted', async () => {
  // LM Roman 10 and LM Roman Slanted 10 have the same widths: only the ink tells them apart. Every
  // code is named (dvipdfm): the new code is one whose name has no procedure.
  const pdf = type3TexPdf('lm-roman-slanted-10', 'Hello world quick brown fox');
  const r = await applyEdit(editInput(pdf, 'Hello', 'Hellö'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = (r.proposal.measurements as unknown as Matched).matched_font;
  assert.is(m.face, 'lm-roman-slanted-10');
  const pdfium = r.verification.guards.find((g) => g.name === 'second_renderer_pdfium');
  assert.ok(pdfium?.passed, pdfium?.detail);
  assert.equal(popplerProblems(pdf, r.output, 'Hello', 'Hellö', r.verification.declared_box!), []);
});

test('a Type 3 font whose glyphs no face draws alike is refused, whatever its widths', async () => {
  const pdf = type3TexPdf('boxes', 'Hello world quick brown fox');
  const p = await proposeEdit(editInput(pdf, 'Hello', 'Hellö'));
  assert.is(p.tier, -1);
  assert.is(p.advice?.code, 'glyph_not_available');
  assert.match(p.advice?.why ?? '', /ink in common/);
  try {
    await applyEdit(editInput(pdf, 'Hello', 'Hellö'));
    assert.unreachable('applied');
  } catch (error) {
    assert.instance(error, DocfixError);
    assert.is((error as DocfixError).code, 'edit_refused');
  }
});

test('a new letter much wider than the one it replaces does not take its width (it would overlap the next): the line is re-spaced', async () => {
  // "æ" (722/1000 em) where "c" (444) stood: given the "c"'s width it would "fit" and overlap the
  // "k"; at its own width it needs 2.8 pt, which the word gaps after it give (the line re-spaced).
  const pdf = type3TexPdf('lm-roman-10-regular', 'Hello world quick brown fox');
  const r = await applyEdit(editInput(pdf, 'quick', 'quiæk'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = r.proposal.measurements as {
    width_before_pt: number;
    width_after_pt: number;
    respaced?: unknown;
  };
  assert.ok(m.width_after_pt - m.width_before_pt > 2.7, JSON.stringify(m));
  assert.ok(m.respaced);
  assert.equal(popplerProblems(pdf, r.output, 'quick', 'quiæk', r.verification.declared_box!), []);
  // Two such letters need more than every gap after the word gives: the gaps before it give too,
  // the word and "world" moving left ("Hello", the line's first word, stays).
  const two = await applyEdit(editInput(pdf, 'quick', 'quææk'));
  assert.ok(two.verification.passed, two.verification.failure_reason ?? '');
  const gaps = (two.proposal.measurements as { respaced: { word_gaps_before_pt: unknown[] } }).respaced;
  assert.is(gaps.word_gaps_before_pt.length, 2);
  assert.equal(popplerProblems(pdf, two.output, 'quick', 'quææk', two.verification.declared_box!), []);
  // Five need more than every gap of the line gives: refused.
  const p = await proposeEdit(editInput(pdf, 'quick', 'ææææk'));
  assert.is(p.advice?.code, 'replacement_too_wide', p.explanation);
});

test('a narrower letter inside a word keeps its own width: the rest of the word is redrawn after it, the gap joins the space after the word', async () => {
  // "ı" (278/1000 em) where "r" (392) stood: in the old advance it would leave a hole in the word,
  // and a TJ gap of 114/1000 em after it reads as a space in pdftotext. The rest of the word moves
  // left after it instead.
  const pdf = type3TexPdf('lm-roman-10-regular', 'Hello world quick brown fox', 0.011);
  const r = await applyEdit(editInput(pdf, 'brown', 'bıown'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = r.proposal.measurements as { old_text: string; new_text: string };
  assert.equal([m.old_text, m.new_text], ['rown', 'ıown']);
  assert.equal(popplerProblems(pdf, r.output, 'brown', 'bıown', r.verification.declared_box!), []);
});

test('a wider letter of its own width in a pk font (widths in tenths of a pixel) is read alike by MuPDF and poppler', async () => {
  // Glyph space 1/91 em (a 600 dpi pk at 11 pt): "o" is written 45.5 units, 500.5/1000 em for
  // poppler and 500 for MuPDF, which truncates. "þ" (556/1000 em) takes a width of its own that
  // MuPDF truncates by the same half thousandth, or the rest of the line would sit apart in the two
  // (widths_read_alike).
  const pdf = type3TexPdf('lm-roman-10-regular', 'Hello world quick brown fox', 0.011);
  const r = await applyEdit(editInput(pdf, 'Hello', 'Hellþ'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const alike = r.verification.guards.find((g) => g.name === 'widths_read_alike');
  assert.ok(alike?.passed, alike?.detail);
  assert.equal(popplerProblems(pdf, r.output, 'Hello', 'Hellþ', r.verification.declared_box!), []);
});

/** The dark pixels (gray < 128) of a poppler render inside `box` (render pixels). */
function darkIn(ppm: Ppm, box: [number, number, number, number]): Set<number> {
  const out = new Set<number>();
  for (let y = box[1]; y < box[3]; y += 1)
    for (let x = box[0]; x < box[2]; x += 1) {
      const i = ppm.offset + (y * ppm.width + x) * 3;
      if (ppm.data[i] + ppm.data[i + 1] + ppm.data[i + 2] < 3 * 128) out.add(y * ppm.width + x);
    }
  return out;
}

test('a Type 3 font as Skia writes it (y down, named by its descriptor) gets “ç” from that face, upright', async () => {
  const line = 'greater than or equal to';
  const pdf = skiaType3Pdf('liberation-serif-regular', 'LiberationSerif', line);
  const r = await applyEdit(editInput(pdf, 'equal', 'equçl'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = (r.proposal.measurements as unknown as Matched).matched_font;
  assert.is(m.face, 'liberation-serif-regular');
  assert.ok(m.ink_agreement >= INK_AGREEMENT, `ink ${m.ink_agreement}`);
  assert.equal(popplerProblems(pdf, r.output, 'equal', 'equçl', r.verification.declared_box!), []);
  // Upright as the face draws it: poppler's pixels of the corrected word are those of the word set
  // in the face itself (0.70 of their ink in common at 150 dpi; with the ç turned over, 0.14).
  const reference = withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const page = doc.findPage(0);
    page
      .get('Resources')
      .get('Font')
      .put(
        'R',
        doc.addSimpleFont(new mupdf.Font('LiberationSerif', bundledFont('liberation-serif-regular'))),
      );
    page.put(
      'Contents',
      doc.addStream('BT /R 14 Tf 40 100 Td (greater than or equ\\347l to) Tj ET', doc.newDictionary()),
    );
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
  const dir = mkdtempSync(join(tmpdir(), 'docfix-skia-t3-'));
  try {
    writeFileSync(join(dir, 'out.pdf'), r.output);
    writeFileSync(join(dir, 'ref.pdf'), reference);
    const got = pdftoppm(join(dir, 'out.pdf'), 0, '', join(dir, 'out'));
    const want = pdftoppm(join(dir, 'ref.pdf'), 0, '', join(dir, 'ref'));
    const box = r.verification.declared_box as [number, number, number, number];
    // The declared box is in 300 dpi render pixels; poppler renders at its own resolution.
    const k = POPPLER_DPI / 300;
    const word: [number, number, number, number] = [
      Math.floor(box[0] * k) - 2,
      Math.floor(box[1] * k) - 4,
      Math.ceil(box[2] * k) + 2,
      Math.ceil(box[3] * k) + 6,
    ];
    const a = darkIn(got, word);
    const b = darkIn(want, word);
    const both = [...a].filter((p) => b.has(p)).length;
    const iou = both / new Set([...a, ...b]).size;
    assert.ok(a.size > 20, `${a.size} dark pixels`);
    assert.ok(iou >= 0.6, `ink in common with the face's own “equçl”: ${iou.toFixed(3)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
