// OCR of pages: text pages read from the text layer; scanned pages recognised from the pixels of the
// region asked for (manifest words found at their measured place); a sideways page recognised when
// turned, with boxes mapped back onto the page; unknown languages answered, not crashed.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeRecognisers } from '../../../src/ocr/recognizer.ts';
import { documentLanguage, findWordMatches, ocrPage } from '../../../src/ocr/page-ocr.ts';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { CORPUS_DIR } from '../../daemon/harness.ts';

const corpus = (name: string) => new Uint8Array(readFileSync(`${CORPUS_DIR}${name}`));
const px = (pt: number) => (pt * 300) / 72;
const overlaps = (a: number[], b: number[]) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
const base = {
  password: '',
  page_index: 0,
  find: '',
  box_render: null,
  render_dpi: null,
  lang: null,
  turn: 0 as const,
};

test.after(async () => {
  await closeRecognisers();
});

test('a text page is read from its text layer, exactly', async () => {
  const out = await ocrPage({ ...base, pdf: corpus('libreoffice-writer.pdf'), find: 'dolore' });
  assert.is(out.word_source, 'text_layer');
  assert.ok(out.word_count > 50);
  assert.ok(out.matches!.length >= 1);
  assert.is(out.matches![0].confidence, 100);
  assert.is(out.matches![0].needs_confirmation, false);
});

test('a scanned region is recognised and the manifest word is found where it was measured', async () => {
  // manifest: scan-russian-form.pdf page 0 "periodic" at [337.9, 38.6, 369.8, 46.3] points
  const measured = [px(337.9), px(38.6), px(369.8), px(46.3)];
  const region: [number, number, number, number] = [
    Math.round(measured[0]) - 400,
    Math.round(measured[1]) - 60,
    Math.round(measured[2]) + 400,
    Math.round(measured[3]) + 60,
  ];
  const out = await ocrPage({
    ...base,
    pdf: corpus('scan-russian-form.pdf'),
    find: 'periodic',
    box_render: region,
  });
  assert.is(out.word_source, 'recognised');
  assert.is(out.available, true);
  const match = out.matches!.find((m) => overlaps(m.box_render, measured));
  assert.ok(match, `found near the measured box: ${JSON.stringify(out.matches)} words ${out.selection_text}`);
  assert.ok(match.confidence > 50);
  for (const w of out.words!) {
    assert.ok(
      w.box_render[0] >= region[0] - 2 && w.box_render[2] <= region[2] + 2,
      'boxes are page pixels inside the region',
    );
  }
});

test('a sideways page is recognised when turned, and boxes map back onto the page', async () => {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const resources = doc.addObject({ Font: { F1: font } });
    // Text running bottom-to-top, as on a page scanned sideways.
    const contents = 'q 0 1 -1 0 200 120 cm BT /F1 28 Tf 0 0 Td (Invoice 4711 paid) Tj ET Q';
    doc.insertPage(-1, doc.addPage([0, 0, 300, 500], 0, resources, contents));
    const pdf = new Uint8Array(doc.saveToBuffer('').asUint8Array());
    const layer = await ocrPage({ ...base, pdf, find: 'Invoice' });
    const truth = layer.matches![0].box_render;
    const turned = await ocrPage({ ...base, pdf, find: 'Invoice', turn: 90 });
    assert.is(turned.word_source, 'recognised');
    const found = turned.matches!.find((m) => overlaps(m.box_render, truth));
    assert.ok(found, `recognised and mapped back: ${JSON.stringify(turned.words)} truth ${truth}`);
    assert.ok(
      found.box_render[3] - found.box_render[1] > found.box_render[2] - found.box_render[0],
      'a vertical word box',
    );
  } finally {
    doc.destroy();
  }
});

test('a language the machine has no data for is answered as unavailable, with what installs it', async () => {
  // "qaa" is reserved for local use by ISO 639: no tesseract data has that name.
  const out = await ocrPage({ ...base, pdf: corpus('imagemagick-ccitt-scan.pdf'), lang: 'qaa' });
  assert.is(out.available, false);
  assert.match(out.message!, /apt-get install tesseract-ocr-qaa/);
  assert.match(out.message!, /available: .*deu.*eng.*fra/, 'the languages there are named');
});

test('matches: low confidence or a near miss on the page needs confirmation', () => {
  const w = (text: string, confidence: number, x: number) => ({
    text,
    confidence,
    box_render: [x, 0, x + 10, 10] as [number, number, number, number],
    line: 0,
  });
  let matches = findWordMatches([w('Total', 96, 0), w('due:', 95, 20), w('1200', 97, 40)], 'total due');
  assert.is(matches!.length, 1);
  assert.equal(matches![0].box_render, [0, 0, 30, 10]);
  assert.is(matches![0].needs_confirmation, false);
  matches = findWordMatches([w('Total', 70, 0)], 'total');
  assert.is(matches![0].needs_confirmation, true);
  matches = findWordMatches([w('Total', 96, 0), w('Tota1', 90, 20)], 'total');
  assert.is(matches![0].competing, 1);
  assert.is(matches![0].needs_confirmation, true);
  // Three occurrences, each read clearly: each competes with the two others (and the near miss).
  matches = findWordMatches(
    [w('total', 96, 0), w('total', 95, 20), w('Tota1', 90, 40), w('total', 97, 60)],
    'total',
  );
  assert.is(matches!.length, 3);
  for (const m of matches!) {
    assert.is(m.competing, 3);
    assert.is(m.needs_confirmation, true);
  }
  // The text layer is exact: occurrences are counted, none needs a person.
  matches = findWordMatches([w('total', 100, 0), w('total', 100, 20)], 'total', false);
  assert.is(matches![0].competing, 1);
  assert.is(matches![0].needs_confirmation, false);
});

test('the language, when none is asked for: the catalog /Lang, else the letters of the text layer', () => {
  const make = (text: string, lang?: string) => {
    const doc = new mupdf.PDFDocument();
    const res = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', doc.addSimpleFont(new mupdf.Font('Helvetica'), 'Latin'));
    res.put('Font', fonts);
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, res, `BT /F1 12 Tf 10 50 Td (${text}) Tj ET`));
    if (lang) doc.getTrailer().get('Root').put('Lang', doc.newString(lang));
    return doc;
  };
  const cases: [mupdf.PDFDocument, string][] = [
    [make('Plain words only', 'de-DE'), 'deu'],
    [make('Plain words only', 'fr'), 'fra'],
    [make('Plain words only'), 'eng'],
  ];
  for (const [doc, want] of cases) {
    try {
      assert.is(documentLanguage(doc), want);
    } finally {
      doc.destroy();
    }
  }
});

test('the picture handed to recognition carries its resolution, and a turned 1-bit scan is read', async () => {
  const pdf = corpus('scan-ocr-rotate270.pdf');
  const out = await ocrPage({
    pdf,
    password: '',
    page_index: 0,
    find: 'tempor',
    box_render: null,
    render_dpi: 300,
    lang: 'eng',
    turn: 0,
  });
  // Labelled 96 dpi this page read as nothing at all; native tesseract reads it whole.
  assert.ok(out.word_count >= 140, `${out.word_count} words (native tesseract: 145)`);
  assert.ok((out.matches ?? []).length >= 1);
});

test.run();
