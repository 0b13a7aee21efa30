// A Type0/Identity-H font over a name-keyed CFF program (CIDFontType0, glyph id = CID = code), the
// way MuPDF writes its fonts (mutool convert, mupdf.js addFont), drawn from a Form XObject that has
// no /Resources of its own (it uses the page's, as mutool convert writes pages). Its ToUnicode is
// wrong for one glyph, as mutool convert's is above ASCII: the program's glyph names are the proof
// of what each code draws. Checked by poppler: the new word is read, nothing moves outside the box;
// and native tesseract reads poppler's render of the line, so the glyph drawn is the letter (the
// text layer alone would read the ToUnicode whatever glyph the code drew).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { glyphNameIs, loadFontInfo, nameKeyedCidGlyphs } from '../../../../src/corrections/locate/fonts.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { fontFactsFromPdf } from '../../../../src/fonts/pdf-font-facts.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, formDict, identityToUnicode, withDoc } from '../fixtures.ts';
import { pdftotextOf, popplerProblemsOf } from '../poppler.ts';

const LINE = 'Full locally';

/** MuPDF's Helvetica (Nimbus Sans, name-keyed CFF) in a form without resources; ø's glyph reads “ù”. */
function nameKeyedPdf(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('Helvetica');
    const ref = doc.addFont(font);
    const gid = (c: string) => font.encodeCharacter(c.codePointAt(0)!);
    const hex4 = (n: number) => n.toString(16).padStart(4, '0');
    const hex = (t: string) => [...t].map((c) => hex4(gid(c))).join('');
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    const form = doc.addStream(`BT /F1 12 Tf 20 50 Td <${hex(LINE)}> Tj ET`, formDict(doc, [0, 0, 300, 100]));
    const xobjects = doc.newDictionary();
    xobjects.put('Fm0', form);
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    resources.put('XObject', xobjects);
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, resources, '/Fm0 Do'));
    const ascii = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ '];
    const entries = [
      ...ascii.map((c) => `<${hex(c)}> <${hex4(c.codePointAt(0)!)}>`),
      `<${hex('ø')}> <00f9>`, // the producer's mistake: oslash's code read as “ù”
    ];
    const cmap = identityToUnicode(entries);
    ref.resolve().put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

/** Native tesseract's reading of poppler's 300 dpi render of the page (one line). */
function popplerRenderReads(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-name-keyed-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '300', '-gray', '-singlefile', join(dir, 'in.pdf'), join(dir, 'page')]);
    return execFileSync('tesseract', [join(dir, 'page.pgm'), '-', '--psm', '7', '-l', 'eng'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    }).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fontOf = (doc: mupdf.PDFDocument) => doc.loadPage(0).getObject().get('Resources').get('Font').get('F1');

test('the fixture is what MuPDF writes: a CIDFontType0 over a name-keyed CFF, in a form without resources', () => {
  const pdf = nameKeyedPdf();
  assert.is(pdftotextOf(pdf).trim(), LINE);
  withDoc(pdf, (doc) => {
    const info = loadFontInfo(fontOf(doc));
    assert.is(info.descendantKind, 'CIDFontType0');
    const names = nameKeyedCidGlyphs(info);
    assert.ok(names, 'the program is name-keyed');
    const z = names.findIndex((n) => n === 'Z');
    assert.ok(z > 0);
    assert.ok(glyphNameIs(names[z], 'Z'));
    assert.not.ok(glyphNameIs('Z.sc', 'Z'), 'a variant is not the letter');
  });
});

test('widths for font matching follow the glyph names, not a wrong ToUnicode', () => {
  withDoc(nameKeyedPdf(), (doc) => {
    const facts = fontFactsFromPdf(fontOf(doc));
    const helvetica = new mupdf.Font('Helvetica');
    const own = (c: string) =>
      Math.round(helvetica.advanceGlyph(helvetica.encodeCharacter(c.codePointAt(0)!)) * 1000);
    assert.is(Math.round(facts.widths.get('ø')!), own('ø'));
    assert.is(Math.round(facts.widths.get('ù')!), own('ù'));
  });
});

test('a letter the program names but the page never drew: its own code (tier 1)', async () => {
  const pdf = nameKeyedPdf();
  const r = await applyEdit(editInput(pdf, 'Full', 'Zull'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier, 1);
  assert.is(r.proposal.visibility_cost, 'none');
  assert.is(pdftotextOf(r.output).trim(), 'Zull locally');
  assert.is(popplerRenderReads(r.output), 'Zull locally');
  assert.equal(popplerProblemsOf(pdf, r.output, 'Full', 'Zull', r.verification.declared_box!), []);
});

test('a letter without a ToUnicode entry: its glyph found by name and given one (tier 2)', async () => {
  const pdf = nameKeyedPdf();
  const r = await applyEdit(editInput(pdf, 'locally', 'locallé'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier, 2);
  assert.is(pdftotextOf(r.output).trim(), 'Full locallé');
  assert.is(popplerRenderReads(r.output), 'Full locallé');
  assert.equal(popplerProblemsOf(pdf, r.output, 'locally', 'locallé', r.verification.declared_box!), []);
});

test('a glyph the ToUnicode reads as another letter is not used; a matched face draws it, its font in the page resources the form uses', async () => {
  const pdf = nameKeyedPdf();
  const r = await applyEdit(editInput(pdf, 'locally', 'løcally'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.is(r.proposal.tier, 4);
  const tier2 = r.proposal.rejected?.find((x) => x.tier === 2);
  assert.is(tier2?.code, 'glyph_not_provable');
  assert.is(pdftotextOf(r.output).trim(), 'Full løcally');
  assert.equal(popplerProblemsOf(pdf, r.output, 'locally', 'løcally', r.verification.declared_box!), []);
  withDoc(r.output, (doc) => {
    const resources = doc.loadPage(0).getObject().get('Resources');
    const form = resources.get('XObject').get('Fm0');
    assert.ok(form.get('Resources').isNull(), 'the form still draws with the page resources');
    const added: string[] = [];
    resources.get('Font').forEach((font, name) => {
      if (name !== 'F1') added.push(font.get('BaseFont').asName());
    });
    assert.equal(added.length, 1, 'the added face sits beside F1 in the page resources');
    assert.match(added[0], /LiberationSans/);
  });
});

test.run();
