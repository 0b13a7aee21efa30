// Tier 5 on a bilevel (CCITT G4) scan at 150 dpi, as a fax or an office scanner writes one: the
// pixels are pure black and white. A same-letter swap that makes a non-word ("about" → "baout") is
// patched, verified, and read back as the non-word by native tesseract (the harness's reader), with
// the spaces around the word kept within the line's own; a replacement whose letters read as another
// word ("rnachines" read "machines") is still refused. The page is made here: mupdf renders the text,
// ImageMagick thresholds it and encodes it as CCITT G4 (the tools .ci/run installs).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as mupdf from 'mupdf';
import { confirmedScanEdit, g4Strip } from '../../../../fixtures/scans/make-scans.ts';
import { applyEdit, proposeEdit, type EditTaskInput } from '../../../../src/corrections/engine.ts';
import { findWordMatches, matchForm, ocrPage } from '../../../../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../../../../src/ocr/recognizer.ts';
import { compare, pdftoppm } from '../poppler.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-bilevel-'));
const DPI = 150;

for (const tool of ['convert', 'tesseract'])
  try {
    execFileSync(tool, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(`${tool} is needed by this test (Debian: imagemagick, tesseract-ocr)`);
  }

/** A page of `lines` in Times at 11 pt, scanned at 150 dpi to pure black and white, CCITT G4. */
function g4Page(lines: string[]): Uint8Array {
  const size = 11;
  const height = 80 + lines.length * size * 1.5;
  const text = new mupdf.PDFDocument();
  const scan = new mupdf.PDFDocument();
  try {
    const fonts = text.newDictionary();
    fonts.put('F1', text.addSimpleFont(new mupdf.Font('Times-Roman')));
    const res = text.newDictionary();
    res.put('Font', fonts);
    const content = lines
      .map((l, i) => `BT /F1 ${size} Tf 40 ${height - 50 - i * size * 1.5} Td (${l}) Tj ET`)
      .join('\n');
    text.insertPage(-1, text.addPage([0, 0, 420, height], 0, res, content));
    const pixmap = text
      .loadPage(0)
      .toPixmap(mupdf.Matrix.scale(DPI / 72, DPI / 72), mupdf.ColorSpace.DeviceGray, false);
    const png = join(work, 'page.png');
    writeFileSync(png, pixmap.asPNG());
    const [w, h] = [pixmap.getWidth(), pixmap.getHeight()];
    pixmap.destroy();
    const tiff = join(work, 'page.tif');
    execFileSync('convert', [
      ...[png, '-threshold', '55%', '-type', 'bilevel', '-compress', 'Group4'],
      ...['-define', 'tiff:rows-per-strip=1000000', tiff],
    ]);
    const dict = scan.newDictionary();
    dict.put('Type', scan.newName('XObject'));
    dict.put('Subtype', scan.newName('Image'));
    dict.put('Width', w);
    dict.put('Height', h);
    dict.put('ColorSpace', scan.newName('DeviceGray'));
    dict.put('BitsPerComponent', 1);
    dict.put('Filter', scan.newName('CCITTFaxDecode'));
    const parms = scan.newDictionary();
    parms.put('K', -1);
    parms.put('Columns', w);
    parms.put('Rows', h);
    dict.put('DecodeParms', parms);
    const image = scan.addRawStream(g4Strip(tiff), dict);
    const resources = scan.addObject({ XObject: { Im0: image } });
    scan.insertPage(
      -1,
      scan.addPage([0, 0, 420, height], 0, resources, `q 420 0 0 ${height} 0 0 cm /Im0 Do Q`),
    );
    // A copy: the buffer's memory goes with the document.
    return scan.saveToBuffer('').asUint8Array().slice();
  } finally {
    text.destroy();
    scan.destroy();
  }
}

const PAGE = g4Page([
  'This document answers questions frequently asked about Debian,',
  'the free operating system, and the packages it offers for many',
  'machines. Read the manual first, then write to the mailing list.',
]);
const pagePath = join(work, 'scan.pdf');
writeFileSync(pagePath, PAGE);

/** The request for `find` → `replacement`, its match confirmed after a crop served at 600 dpi. */
async function request(find: string, replacement: string): Promise<EditTaskInput> {
  const read = await ocrPage({
    pdf: PAGE,
    password: '',
    page_index: 0,
    find: '',
    box_render: null,
    render_dpi: 300,
    lang: 'eng',
    turn: 0,
  });
  const matches = findWordMatches(read.words as Parameters<typeof findWordMatches>[0], find) ?? [];
  assert.is(matches.length, 1, `the page's recognition reads “${find}” once`);
  return confirmedScanEdit(PAGE, find, matches[0], replacement);
}

/**
 * Native tesseract's words where the fidelity harness reads them: the declared box (300 dpi render
 * pixels) padded by 0.3 × its height above and below and 0.6 × height + 2 pt on the sides.
 */
function nativeWords(pdf: string, box: number[]): string[] {
  const h = box[3] - box[1];
  const side = Math.round(0.6 * h + (2 * 300) / 72);
  const out = join(work, 'read');
  execFileSync('pdftoppm', [
    ...['-r', '300', '-gray', '-f', '1', '-l', '1', '-singlefile'],
    ...['-x', String(Math.max(0, box[0] - side)), '-y', String(Math.max(0, box[1] - Math.round(0.3 * h)))],
    ...['-W', String(box[2] - box[0] + 2 * side), '-H', String(Math.round(1.6 * h)), pdf, out],
  ]);
  const text = execFileSync('tesseract', [`${out}.pgm`, '-', '--psm', '7', '-l', 'eng'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return text.split(/\s+/).map(matchForm).filter(Boolean);
}

test('a bilevel G4 scan: a same-letter swap into a non-word verifies, and native tesseract reads it', async () => {
  const input = await request('about', 'baout');
  const proposal = await proposeEdit(input);
  assert.is(proposal.refusal, null, `${proposal.advice?.code}: ${proposal.advice?.why}`);
  assert.is(proposal.tier, 5);
  assert.is(proposal.visibility_cost, 'low', 'cloned from the page');
  const m = proposal.measurements as { scan: { bilevel: boolean } };
  assert.is(m.scan.bilevel, true);
  const applied = await applyEdit(input);
  assert.ok(applied.verification.passed, applied.verification.failure_reason ?? '');
  const guard = (name: string) => applied.verification.guards.find((g) => g.name === name);
  for (const name of ['recognition_reads_replacement', 'line_reads_as_before', 'word_spacing_kept'])
    assert.ok(guard(name)?.passed, `${name}: ${guard(name)?.detail}`);
  const out = join(work, 'out.pdf');
  writeFileSync(out, applied.output);
  const box = applied.verification.declared_box;
  const read = nativeWords(out, box);
  assert.ok(read.includes('baout'), `native tesseract reads “${read.join(' ')}”`);
  assert.not.ok(read.includes('about'), 'and not the old word');
  // poppler sees the patch and nothing changed outside the declared box.
  const k = 150 / 300;
  const { changed, outside } = compare(
    pdftoppm(pagePath, 0, '', join(work, 'a')),
    pdftoppm(out, 0, '', join(work, 'b')),
    [
      Math.floor(box[0] * k) - 2,
      Math.floor(box[1] * k) - 2,
      Math.ceil(box[2] * k) + 2,
      Math.ceil(box[3] * k) + 2,
    ],
  );
  assert.ok(changed > 0, 'poppler sees the patch');
  assert.is(outside, 0);
  // The patch stays black and white: a 1-bit image.
  const list = execFileSync('pdfimages', ['-list', out], { encoding: 'utf8' }).trim().split('\n').slice(2);
  assert.is(list[list.length - 1].trim().split(/\s+/)[7], '1', 'the patch keeps 1 bit per pixel');
});

test('a replacement whose letters a reader reads as another word is refused', async () => {
  // “r” and “n” cloned from the page, set as close as the word's own letters, read as the “m” they
  // replace: a reader sees “machines” still, so the patch must not be proposed.
  const proposal = await proposeEdit(await request('machines', 'rnachines'));
  assert.ok(proposal.refusal, 'refused');
  assert.is(proposal.advice?.code, 'would_not_verify', `${proposal.advice?.code}: ${proposal.advice?.why}`);
  assert.match(proposal.advice?.why ?? '', /recognition_reads_replacement: .*not “rnachines”/);
  // The user is told which guard refused and what it saw, not only that the verification refused.
  const what = proposal.advice?.what ?? '';
  assert.match(what, /^The patched word would not verify \(recognition_reads_replacement/);
  assert.match(what, /read .* before and .* after|reads “/);
});

test.after(async () => {
  await closeRecognisers();
  rmSync(work, { recursive: true, force: true });
});

test.run();
