// Scans that do not make people wait (issue 35, item 2), proven by counting recognitions: a
// proposal and its apply recognise the page once, two words on one page share one recognition, a
// changed revision is recognised again, a word known by the invisible layer is recognised in a band
// around its line, not the whole page, and the band finds the same words in the same boxes (within
// 2 px) as the page's recognition.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { applyEdit, proposeEdit, type EditTaskInput } from '../../../../src/corrections/engine.ts';
import { keptProposals } from '../../../../src/corrections/save/kept-proposals.ts';
import { bandAround } from '../../../../src/corrections/scan/tier5.ts';
import { keptWork } from '../../../../src/ocr/kept-work.ts';
import { ocrPage } from '../../../../src/ocr/page-ocr.ts';
import { closeRecognisers, recognitionCounts } from '../../../../src/ocr/recognizer.ts';
import { scannedPage } from '../scan-fixtures.ts';

const CORPUS = new URL('../../../../fixtures/corpus/pdf/', import.meta.url).pathname;
const LINES = [
  'The periodic review of the contract is due',
  'Certificate of the Board, signed and dated',
  'Please return the form with your remarks',
];

test.after(async () => {
  await closeRecognisers();
});

function input(
  pdf: Uint8Array,
  target: EditTaskInput['request']['target'],
  replacement: string,
): EditTaskInput {
  return {
    pdf,
    password: '',
    request: { page_index: 0, target, replacement, attestation_id: 'att_test' },
    manifest: {
      document_id: 'doc_kept',
      original_sha256: '0'.repeat(64),
      standing: [],
      engine_version: 'test',
      renderer: 'mupdf',
      dpi: 300,
    },
  };
}

/** Recognitions run by `work`, by kind. */
async function counted<T>(
  work: () => Promise<T>,
): Promise<{ result: T; page: number; region: number; line: number }> {
  const before = recognitionCounts();
  const result = await work();
  const after = recognitionCounts();
  return {
    result,
    page: after.page - before.page,
    region: after.region - before.region,
    line: after.line - before.line,
  };
}

test('a proposal and its apply recognise the page once; the apply reads the kept recognition', async () => {
  keptWork.clear();
  const pdf = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  const request = input(pdf, { method: 'ocr', find: 'periodic', match_index: 0 }, 'peridoic');
  const proposed = await counted(() => proposeEdit(request));
  assert.is(proposed.result.refusal, null, proposed.result.explanation);
  assert.is(proposed.result.tier, 5);
  assert.is(proposed.page, 1, 'the proposal recognises the page once');
  // The apply does the whole work again (the kept proposal is set aside): the page's recognition
  // and its decoded scan come from the kept work, and so do the patched line's readings — the
  // applied bytes render to the pixels the proposal read (the readings are kept by their exact
  // pixels, ocr/recognizer.ts), and the proof judges them again.
  keptProposals.length = 0;
  const applied = await counted(() => applyEdit(request));
  assert.ok(applied.result.verification.passed, applied.result.verification.failure_reason ?? '');
  assert.is(applied.page, 0, 'the apply does not recognise the page again');
  assert.is(applied.region, 0);
  assert.is(applied.line, 0, 'the same pixels of the patched line are not recognised again');
  for (const name of ['recognition_reads_replacement', 'line_reads_as_before', 'word_spacing_kept'])
    assert.ok(
      applied.result.verification.guards.some((g) => g.name === name && g.passed),
      `${name} judged on the apply`,
    );
});

test('two words on one page share one recognition; a changed revision is recognised again', async () => {
  keptWork.clear();
  const pdf = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  const first = await counted(() =>
    proposeEdit(input(pdf, { method: 'ocr', find: 'contract', match_index: 0 }, 'contarct')),
  );
  const second = await counted(() =>
    proposeEdit(input(pdf, { method: 'ocr', find: 'remarks', match_index: 0 }, 'remakrs')),
  );
  assert.is(first.page, 1);
  assert.is(
    second.page,
    0,
    `the second word reads the first one's recognition (${second.result.explanation})`,
  );
  assert.ok(first.result.refusal === null || first.result.advice?.code !== 'text_not_found');
  assert.ok(second.result.refusal === null || second.result.advice?.code !== 'text_not_found');
  const changed = new Uint8Array(pdf.length + 10);
  changed.set(pdf);
  changed.set(new TextEncoder().encode('\n%changed\n'), pdf.length);
  const third = await counted(() =>
    proposeEdit(input(changed, { method: 'ocr', find: 'contract', match_index: 0 }, 'contarct')),
  );
  assert.is(third.page, 1, 'another hash: recognised again, never an earlier revision’s words');
});

test('a word the invisible layer places is recognised in a band around its line, not the whole page', async () => {
  keptWork.clear();
  const pdf = new Uint8Array(readFileSync(`${CORPUS}scan-ocr-rotate270.pdf`));
  const proposed = await counted(() =>
    proposeEdit(input(pdf, { method: 'text_layer', find: 'tempor', match_index: 0 }, 'temopr')),
  );
  assert.is(proposed.result.refusal, null, proposed.result.explanation);
  assert.is(proposed.result.tier, 5);
  assert.is(proposed.page, 0, 'no whole-page recognition');
  assert.is(proposed.region, 1, 'one band');
});

/** Words recognised on the whole page, then in a band around each, must agree within 2 px. */
async function bandAgrees(pdf: Uint8Array, label: string, dpi: number): Promise<number> {
  keptWork.clear();
  const ask = (box: [number, number, number, number] | null) =>
    ocrPage({
      pdf,
      password: '',
      page_index: 0,
      find: '',
      box_render: box,
      render_dpi: dpi,
      lang: 'eng',
      turn: 0,
    });
  const page = await ask(null);
  const words = page.words!;
  // Clearly read words of four letters or more, one a line, spread over the page.
  const lines = [...new Set(words.map((w) => w.line))];
  const chosen = lines
    .map((l) => words.find((w) => w.line === l && w.confidence >= 90 && /^[A-Za-z]{4,}$/.test(w.text)))
    .filter((w) => w !== undefined)
    .filter((_, i, all) => i % Math.max(1, Math.floor(all.length / 5)) === 0)
    .slice(0, 5);
  assert.ok(chosen.length >= 2, `${label}: words to check among ${words.length}`);
  for (const w of chosen) {
    const box = w.box_render as [number, number, number, number];
    const band = await ask(bandAround(box));
    const same = band.words!.find(
      (b) => b.text === w.text && b.box_render.every((v, i) => Math.abs(v - box[i]) <= 2),
    );
    assert.ok(
      same,
      `${label}: “${w.text}” at ${JSON.stringify(box)} on the page; the band read ${JSON.stringify(
        band.words!.filter((b) => Math.abs(b.box_render[1] - box[1]) < 20).map((b) => [b.text, b.box_render]),
      )}`,
    );
  }
  return chosen.length;
}

test('a band finds the same word in the same box (within 2 px) as the page’s recognition', async () => {
  const jpeg = scannedPage(LINES, { dpi: 200, colour: true, jpeg: 80 });
  assert.ok((await bandAgrees(jpeg, '200 dpi colour JPEG scan', 300)) >= 2);
  const ccitt = new Uint8Array(readFileSync(`${CORPUS}scan-ocr-rotate270.pdf`));
  assert.ok((await bandAgrees(ccitt, 'turned CCITT scan, 300 dpi', 300)) >= 2);
});

test.run();
