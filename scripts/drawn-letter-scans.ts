// Measures tier 5's drawn letters (issue 32 item 1) on scans made here from pages the project's own
// scan fixtures do not use: each page is scanned by fixtures/scans/make-scans.ts (skew, noise, blur,
// JPEG or G4), its "hard" tasks (one letter replaced by a letter the page never shows) are proposed
// and applied as a client would, and native tesseract reads the patched line (--psm 7 on the line's
// band): a task is split when the new word is read as two words, contradicted when the new word is
// not read at all. Prints one row per task and the totals.
//
// Usage: node scripts/drawn-letter-scans.ts OUT_DIR [spec-name …]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  CORPUS_PDF_DIR,
  confirmedScanEdit,
  makeScan,
  matchOverTask,
  type ScanSpec,
} from '../fixtures/scans/make-scans.ts';
import { applyEdit, proposeEdit } from '../src/corrections/engine.ts';
import { findWordMatches, matchForm, ocrPage } from '../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../src/ocr/recognizer.ts';

const debian = (p: string) => relative(CORPUS_PDF_DIR, p);
const spec = (s: Partial<ScanSpec> & Pick<ScanSpec, 'name' | 'source' | 'page'>): ScanSpec => ({
  dpi: 300,
  colour: false,
  encoding: 'jpeg',
  quality: 80,
  skew: 0.4,
  seed: 41,
  textLayer: false,
  ...s,
});
const SPECS: ScanSpec[] = [
  spec({
    name: 'tasn1-p5-300-jpeg',
    source: debian('/usr/share/doc/libtasn1-doc/libtasn1.pdf'),
    page: 5,
    seed: 51,
  }),
  spec({
    name: 'tasn1-p9-200-jpeg',
    source: debian('/usr/share/doc/libtasn1-doc/libtasn1.pdf'),
    page: 9,
    dpi: 200,
    seed: 52,
    quality: 75,
  }),
  spec({
    name: 'mime-p3-300-g4',
    source: debian('/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf'),
    page: 3,
    encoding: 'g4',
    seed: 53,
  }),
  spec({
    name: 'mime-p6-200-jpeg',
    source: debian('/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf'),
    page: 6,
    dpi: 200,
    seed: 54,
  }),
  spec({ name: 'multicol-300-jpeg', source: 'latex-multicolumn.pdf', page: 1, seed: 55, skew: 0.7 }),
  spec({
    name: 'tracemonkey-p2-200-jpeg',
    source: 'tracemonkey-two-column.pdf',
    page: 2,
    dpi: 200,
    seed: 56,
  }),
  spec({ name: 'latex4-p3-300-g4', source: 'latex-4-pages.pdf', page: 3, encoding: 'g4', seed: 57 }),
];

const out = process.argv[2];
const only = process.argv.slice(3);

/** Native tesseract's words on the band of the line around `box` (300 dpi render pixels). */
function nativeLine(pdf: string, box: number[], tag: string): string[] {
  const h = box[3] - box[1];
  const y = Math.max(0, box[1] - Math.round(0.3 * h));
  const base = join(out, `line-${tag}`);
  execFileSync('pdftoppm', [
    ...['-r', '300', '-gray', '-f', '1', '-l', '1', '-singlefile'],
    ...[
      '-x',
      String(Math.max(0, box[0] - 6 * h)),
      '-y',
      String(y),
      '-W',
      String(box[2] - box[0] + 12 * h),
      '-H',
      String(Math.round(1.6 * h)),
    ],
    pdf,
    base,
  ]);
  return execFileSync('tesseract', [`${base}.pgm`, '-', '--psm', '7'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .split(/\s+/)
    .map(matchForm)
    .filter(Boolean);
}

const totals = { tasks: 0, verified: 0, split: 0, contradicted: 0, refused: new Map<string, number>() };
for (const s of SPECS.filter((x) => !only.length || only.includes(x.name))) {
  const scan = makeScan(s, out);
  const pdfPath = join(out, scan.file);
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
    if (!task.hard) continue;
    totals.tasks++;
    const matches =
      findWordMatches(recognised.words as Parameters<typeof findWordMatches>[0], task.word) ?? [];
    const match = matchOverTask(matches, scan, task);
    const row = `${s.name} ${task.word} → ${task.hard}`;
    if (!match) {
      console.log(`${row}: not recognised`);
      continue;
    }
    const input = confirmedScanEdit(pdf, task.word, match, task.hard);
    const proposal = await proposeEdit(input);
    if (proposal.refusal) {
      const code = proposal.advice?.code ?? '?';
      totals.refused.set(code, (totals.refused.get(code) ?? 0) + 1);
      console.log(
        `${row}: refused ${code}${process.env.WHY ? ` ${JSON.stringify(proposal.refusal).slice(0, 600)}` : ''}`,
      );
      continue;
    }
    const applied = await applyEdit(input);
    if (!applied.verification.passed) {
      console.log(`${row}: unverified ${applied.verification.failure_reason}`);
      continue;
    }
    totals.verified++;
    const file = join(out, `${s.name}-${task.word}.pdf`);
    writeFileSync(file, applied.output);
    const read = nativeLine(file, applied.verification.declared_box, `${s.name}-${task.word}`);
    const sp = (proposal.measurements as Record<string, Record<string, unknown>> | undefined)?.spacing;
    const gaps = sp
      ? ` gaps ${JSON.stringify(sp.new_letter_gaps_px)} drawn at ${JSON.stringify(sp.drawn_facing_px)} spaces ${JSON.stringify([sp.space_before_px, sp.space_after_px])}`
      : '';
    const word = matchForm(task.hard);
    let verdict = 'native reads it';
    if (!read.includes(word)) {
      const joined = read.some((w, i) => i + 1 < read.length && w + read[i + 1] === word);
      verdict = joined ? 'SPLIT' : 'CONTRADICTED';
      if (joined) totals.split++;
      else totals.contradicted++;
    }
    const guards = (applied.verification as { guards?: { name: string; detail: string }[] }).guards ?? [];
    const readBack = guards.find((g) => g.name === 'recognition_reads_replacement')?.detail ?? '';
    const why = process.env.WHY ? ` [${readBack.replace(/.*; (“[^”]*” at [\d.]+)/, '$1')}]` : '';
    console.log(
      `${row}: verified (${proposal.visibility_cost}) ${verdict}: “${read.join(' ')}”${gaps}${why}`,
    );
  }
}
console.log(
  `drawn-letter tasks ${totals.tasks}, verified ${totals.verified}, split ${totals.split}, contradicted ${totals.contradicted}; refused ${JSON.stringify(Object.fromEntries(totals.refused))}`,
);
await closeRecognisers();
