// Tier 5 in a language the bundled packages do not have: a Russian scan (fixtures/scans/
// make-russian-scan.ts, Liberation Serif at 300 dpi, JPEG) corrected with Debian's tesseract-ocr-rus
// data, checked by native tesseract reading the patched page in Russian; and the language taken
// from the catalog's /Lang when the request names none.
// Needs the Debian packages tesseract-ocr and tesseract-ocr-rus.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit, type EditTaskInput } from '../../../../src/corrections/engine.ts';
import type { ServedCrop } from '../../../../src/corrections/scan/tier5.ts';
import { closeRecognisers } from '../../../../src/ocr/recognizer.ts';
import { russianScan } from '../../../../fixtures/scans/make-russian-scan.ts';
import { compare, pdftoppm } from '../poppler.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-tier5-rus-'));

/** Debian's Russian data is there, or the test fails saying which package it needs. */
function needRussianData(): void {
  const root = '/usr/share/tesseract-ocr';
  const versions = existsSync(root) ? readdirSync(root) : [];
  if (!versions.some((v) => existsSync(join(root, v, 'tessdata', 'rus.traineddata'))))
    throw new Error(
      'this test needs the Debian package tesseract-ocr-rus (apt-get install -y tesseract-ocr-rus): no rus.traineddata under /usr/share/tesseract-ocr/*/tessdata',
    );
}

/** A person looked at the whole page magnified (a crop the daemon served at 600 dpi). */
const WHOLE_PAGE_SEEN: ServedCrop[] = [
  { page_index: 0, box_render: [0, 0, 4000, 4000], dpi: 600, at: new Date(Date.now() - 1000).toISOString() },
];

function input(pdf: Uint8Array, lang: string | null): EditTaskInput & { served_regions: ServedCrop[] } {
  return {
    pdf,
    password: '',
    request: {
      page_index: 0,
      target: { method: 'ocr', find: 'работе', match_index: 0, confirmed: true, lang },
      replacement: 'заботе',
      attestation_id: 'att_test',
    },
    manifest: {
      document_id: 'doc_rus',
      original_sha256: '0'.repeat(64),
      standing: [],
      engine_version: 'test',
      renderer: 'mupdf',
      dpi: 300,
    },
    served_regions: WHOLE_PAGE_SEEN,
  };
}

/** Native tesseract's Russian reading of the page poppler renders at 300 dpi. */
function nativeRussian(pdf: string): string {
  const out = join(work, `page-${Math.random().toString(36).slice(2)}`);
  execFileSync('pdftoppm', ['-r', '300', '-gray', '-singlefile', pdf, out]);
  return execFileSync('tesseract', [`${out}.pgm`, '-', '-l', 'rus'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

test.after(async () => {
  await closeRecognisers();
  rmSync(work, { recursive: true, force: true });
});

test('a word of a Russian scan corrected through tier 5 with lang "rus": native tesseract reads the new word', async () => {
  needRussianData();
  const scan = russianScan();
  const applied = await applyEdit(input(scan, 'rus'));
  assert.is(applied.proposal.refusal, null, applied.proposal.explanation);
  assert.is(applied.proposal.tier, 5);
  const m = applied.proposal.measurements as { recognised: { lang: string; text: string } };
  assert.equal([m.recognised.lang, m.recognised.text], ['rus', 'работе']);
  assert.ok(applied.verification.passed, applied.verification.failure_reason ?? '');
  const original = join(work, 'scan.pdf');
  const corrected = join(work, 'corrected.pdf');
  writeFileSync(original, scan);
  writeFileSync(corrected, applied.output);
  const before = nativeRussian(original);
  assert.match(before, /о работе отдела/, `the scan itself reads in Russian: ${before}`);
  const after = nativeRussian(corrected);
  const firstLine = after.trim().split('\n')[0];
  assert.match(firstLine, /о заботе отдела/, `native tesseract read “${firstLine}”`);
  assert.not.match(after, /работе/);
  // The rest of the page reads as before, and poppler sees nothing changed outside the patch.
  assert.equal(after.trim().split('\n').slice(1), before.trim().split('\n').slice(1));
  const box = applied.verification.declared_box;
  const s = 150 / 300;
  const { changed, outside } = compare(
    pdftoppm(original, 0, '', join(work, 'pa')),
    pdftoppm(corrected, 0, '', join(work, 'pb')),
    [
      Math.floor(box[0] * s) - 2,
      Math.floor(box[1] * s) - 2,
      Math.ceil(box[2] * s) + 2,
      Math.ceil(box[3] * s) + 2,
    ],
  );
  assert.ok(changed > 0);
  assert.is(outside, 0);
});

test('without a lang, a scan whose catalog says ru-RU is recognised in Russian', async () => {
  needRussianData();
  const proposal = await proposeEdit(input(russianScan(undefined, { catalogLang: 'ru-RU' }), null));
  assert.is(proposal.refusal, null, proposal.explanation);
  assert.is(proposal.tier, 5);
  const m = proposal.measurements as { recognised: { lang: string } };
  assert.is(m.recognised.lang, 'rus');
});

test.run();
