// Tier 5 measured on scanned versions of real pages (fixtures/scans/make-scans.ts: real corpus
// pages rasterised at 200–300 dpi, skewed, noised, blurred, JPEG or CCITT G4, with and without
// tesseract's invisible layer). Each task's word is found through recognition as a client would (the
// match over the task's box), confirmed as a person would after a magnified crop, proposed and
// applied; every verified patch is checked by independent readers: poppler's pixels at 150 dpi
// (nothing outside the declared box) and native tesseract (reads the replacement, not the old word).
// Issue 11's target, held here: ≥ 80 % of same-character-set tasks verified at cost ≤ low, none
// false.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { confirmedScanEdit, makeScans, matchOverTask } from '../../../../fixtures/scans/make-scans.ts';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { findWordMatches, matchForm, ocrPage } from '../../../../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../../../../src/ocr/recognizer.ts';
import { compare, pdftoppm, pdftotext } from '../poppler.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-scans-'));

/**
 * Native tesseract's words in the region the fidelity harness reads: the declared box (300 dpi render
 * pixels) padded by 0.3 × its height above and below and 0.6 × height + 2 pt on the sides.
 */
function nativeWords(pdf: string, box: number[]): string[] {
  const h = box[3] - box[1];
  const side = Math.round(0.6 * h + (2 * 300) / 72);
  const x = Math.max(0, box[0] - side);
  const y = Math.max(0, box[1] - Math.round(0.3 * h));
  const out = join(work, 'read');
  execFileSync('pdftoppm', [
    ...['-r', '300', '-gray', '-f', '1', '-l', '1', '-singlefile'],
    ...[
      '-x',
      String(x),
      '-y',
      String(y),
      '-W',
      String(box[2] - box[0] + 2 * side),
      '-H',
      String(Math.round(1.6 * h)),
    ],
    pdf,
    out,
  ]);
  const text = execFileSync('tesseract', [`${out}.pgm`, '-', '--psm', '7'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return text.split(/\s+/).map(matchForm).filter(Boolean);
}

/** The patch's visibility figures against its line (issue 32 item 5), for the printed rows. */
function seen(measurements: Record<string, unknown> | undefined): string {
  const v = measurements?.visibility as Record<string, number | null> | undefined;
  if (!v) return '';
  const f = (x: number | null) => (x === null ? '–' : x.toFixed(2));
  return ` stroke ×${f(v.stroke_ratio)} density ×${f(v.ink_density_ratio)} gaps ×${f(v.letter_gap_ratio)} x-height ×${f(v.x_height_ratio)} paper noise ${f(v.paper_noise_inside)}/${f(v.paper_noise_around)}`;
}

test('scanned versions of real pages: same-letter corrections verified at cost ≤ low, none false', async () => {
  const scans = makeScans(work);
  const rows: string[] = [];
  let same = 0;
  let verifiedLow = 0;
  let falseVerified = 0;
  let inconclusive = 0;
  const refusals = new Map<string, number>();
  for (const scan of scans) {
    const pdfPath = join(work, scan.file);
    const pdf = new Uint8Array(readFileSync(pdfPath));
    const recognised = await ocrPage({
      pdf,
      password: '',
      page_index: 0,
      find: '',
      box_render: null,
      render_dpi: 300,
      lang: null,
      turn: 0,
    });
    for (const task of scan.tasks) {
      same++;
      // The recognised match over the task's box.
      const matches =
        findWordMatches(recognised.words as Parameters<typeof findWordMatches>[0], task.word) ?? [];
      const match = matchOverTask(matches, scan, task);
      if (!match) {
        refusals.set('not_recognised', (refusals.get('not_recognised') ?? 0) + 1);
        rows.push(`${scan.name} ${task.word}: not recognised at its place`);
        continue;
      }
      // A person looked at the magnified crop of the match and confirms it.
      const input = confirmedScanEdit(pdf, task.word, match, task.same);
      const proposal = await proposeEdit(input);
      if (proposal.refusal) {
        const code = proposal.advice?.code ?? '?';
        refusals.set(code, (refusals.get(code) ?? 0) + 1);
        rows.push(`${scan.name} ${task.word} → ${task.same}: refused ${code}`);
        continue;
      }
      const applied = await applyEdit(input);
      if (!applied.verification.passed) {
        rows.push(
          `${scan.name} ${task.word} → ${task.same}: unverified ${applied.verification.failure_reason}`,
        );
        continue;
      }
      const out = join(work, 'out.pdf');
      writeFileSync(out, applied.output);
      const box = applied.verification.declared_box;
      const a = pdftoppm(pdfPath, 0, '', join(work, 'a'));
      const b = pdftoppm(out, 0, '', join(work, 'b'));
      const k = 150 / 300;
      const { outside } = compare(a, b, [
        Math.floor(box[0] * k) - 2,
        Math.floor(box[1] * k) - 2,
        Math.ceil(box[2] * k) + 2,
        Math.ceil(box[3] * k) + 2,
      ]);
      // The harness's reading: false when native tesseract still reads the old word, or reads neither
      // though it read the old word in the same region of the original (else inconclusive, counted).
      const read = nativeWords(out, box);
      const problems: string[] = [];
      if (outside > 0) problems.push(`${outside} poppler pixels outside the box`);
      if (read.includes(matchForm(task.word))) problems.push('native tesseract still reads the old word');
      else if (!read.includes(matchForm(task.same))) {
        if (nativeWords(pdfPath, box).includes(matchForm(task.word)))
          problems.push(`native tesseract reads “${read.join(' ')}”`);
        else inconclusive++;
      }
      if (scan.text_layer) {
        const text = pdftotext(out, 0, '');
        if (!text.includes(task.same)) problems.push('the text layer does not say the new word');
      }
      if (problems.length) {
        falseVerified++;
        rows.push(`${scan.name} ${task.word} → ${task.same}: FALSE ${problems.join('; ')}`);
        continue;
      }
      if (['none', 'low'].includes(proposal.visibility_cost)) verifiedLow++;
      rows.push(
        `${scan.name} ${task.word} → ${task.same}: verified (${proposal.visibility_cost})${seen(proposal.measurements)}`,
      );
    }
  }
  const rate = same ? verifiedLow / same : 0;
  console.log(
    `scans: ${scans.length} files, ${same} same-letter tasks, ${verifiedLow} verified at ≤ low (${(rate * 100).toFixed(1)} %), ${falseVerified} false, ${inconclusive} read-backs inconclusive; refusals ${JSON.stringify(Object.fromEntries(refusals))}\n  ${rows.join('\n  ')}`,
  );
  assert.ok(same >= 20, `enough tasks (${same})`);
  assert.is(falseVerified, 0, rows.filter((r) => r.includes('FALSE')).join('\n'));
  // Issue 11's target: 80 % (the engine reaches 29 of 32, 90.6 %, at the time of writing).
  assert.ok(rate >= 0.8, `${(rate * 100).toFixed(1)} % verified at ≤ low`);
});

test.after(async () => {
  await closeRecognisers();
  rmSync(work, { recursive: true, force: true });
});

test.run();
