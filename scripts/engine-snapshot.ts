// Records what the correction engine answers, with no HTTP, so a change meant to keep behaviour can
// show byte for byte that it did (issue 34: the engine moved into stage folders). One JSON line per
// task, in a fixed order: the canonical JSON (src/canonical-json.ts) of each proposal and each
// apply's verification, the SHA-256 of the output PDF and of the preview PNGs, or the error's code,
// message and extra. Compare two runs with `cmp` or `diff`.
//
// Usage: node scripts/engine-snapshot.ts OUT.jsonl [ID_REGEX] [SCANS_DIR]
//   (ID_REGEX keeps only the tasks whose id matches, to repeat a few; ids start with the set's name.
//   SCANS_DIR: scans made before by `node fixtures/scans/make-scans.ts SCANS_DIR`, read instead of
//   made: tesseract writes its text-layer PDFs with a fresh date and /ID, so two runs compared on
//   the scanned pages must read the same scan files.)
//
// Task sets, in this order:
//   corpus:  every task of fixtures/corpus/manifest.json. text_layer tasks: propose, then apply (the
//            apply of a kept proposal). ocr tasks: propose unconfirmed, then confirmed after a crop
//            of the whole page was served: propose, apply.
//   derived: the tasks test/src/corrections/derived-tasks.ts derives from the corpus pages: apply
//            first (the apply that does the whole work itself), then propose.
//   scans:   fixtures/scans/make-scans.ts's scanned pages: the page recognised (src/ocr), each task's
//            word matched over its box as test/src/corrections/scan/scan-corpus.test.ts does, then
//            propose and apply.
//
// What is truly per run, and how it is normalised (nothing else is; ids are not made by the engine,
// the daemon adds proposal and verification ids):
//   - the clock: applying embeds the manifest's `created_at` and the embedded file's ModDate, both
//     from `new Date()`; this script fixes the clock (below), and served crops carry a fixed time
//     before it;
//   - the trailer's /ID: MuPDF writes a fresh second identifier at every save, as a hex string or a
//     literal one (whose length then varies with its escapes), so the output's hash and length
//     (output_sha256, output_bytes, and the verification's output_sha256 and bytes_after) are taken
//     with the second element of every /ID written as 32 zero digits in hex;
//   - the AES initialisation vectors: MuPDF encrypts each new string and stream of an encrypted
//     document with a random IV, so an encrypted output (a trailer with /Encrypt) is recorded by its
//     length and by the hash of qpdf's decrypted copy (`--decrypt --static-id`), not by its bytes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalize } from '../src/canonical-json.ts';
import { applyEdit, proposeEdit, type EditTaskInput } from '../src/corrections/engine.ts';
import { DocfixError } from '../src/errors.ts';
import type { ServedCrop } from '../src/corrections/scan/tier5.ts';
import { findWordMatches, ocrPage } from '../src/ocr/page-ocr.ts';
import { closeRecognisers } from '../src/ocr/recognizer.ts';
import { makeScans, type ScanEntry } from '../fixtures/scans/make-scans.ts';
import { deriveTasks } from '../test/src/corrections/derived-tasks.ts';
import { corpusBytes, corpusFiles } from '../fixtures/corpus-manifest.ts';

/** The fixed clock: `new Date()` and `Date.now()` answer this instant; dates given explicitly are kept. */
const FIXED_NOW = Date.parse('2026-06-01T00:00:00.000Z');
const SERVED_AT = '2026-05-31T23:59:00.000Z';
const RealDate = Date;
class FixedClock extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(FIXED_NOW);
    else super(...(args as [string | number | Date]));
  }
  static override now(): number {
    return FIXED_NOW;
  }
}
globalThis.Date = FixedClock as DateConstructor;

/** A folder for qpdf's files, made at start. */
let scratch = '';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

const manifestInput = (documentId: string) => ({
  document_id: documentId,
  original_sha256: '0'.repeat(64),
  standing: [],
  engine_version: 'snapshot',
  renderer: 'mupdf',
  dpi: 300,
});

/** A proposal with its preview PNGs (base64) replaced by their SHA-256, to keep the line short. */
function proposalRecord(proposal: unknown): unknown {
  const p = proposal as { preview?: { before_png: string; after_png: string } | null };
  if (!p.preview) return proposal;
  const { before_png, after_png, ...rest } = p.preview;
  return {
    ...p,
    preview: {
      ...rest,
      before_png_sha256: sha256(Buffer.from(before_png, 'base64')),
      after_png_sha256: sha256(Buffer.from(after_png, 'base64')),
    },
  };
}

function errorRecord(error: unknown): unknown {
  if (error instanceof DocfixError) return { error: error.code, message: error.message, extra: error.extra };
  return { error: 'thrown', message: (error as Error).message };
}

async function propose(input: EditTaskInput): Promise<unknown> {
  try {
    return { proposal: proposalRecord(await proposeEdit(input)) };
  } catch (error) {
    return errorRecord(error);
  }
}

/** The output's bytes with the second element of every trailer /ID as 32 zero digits (MuPDF makes it per save). */
function withoutFreshId(output: Uint8Array): Buffer {
  const text = Buffer.from(output).toString('latin1');
  const str = String.raw`(?:<[0-9A-Fa-f]*>|\((?:\\[\s\S]|[^\\)])*\))`;
  const fixed = text.replace(
    new RegExp(String.raw`(\/ID\s*\[\s*${str}\s*)${str}`, 'g'),
    (_m, head: string) => `${head}<${'0'.repeat(32)}>`,
  );
  return Buffer.from(fixed, 'latin1');
}

/** An encrypted output's content, decrypted by qpdf with a fixed /ID (its AES IVs are per run). */
function decryptedHash(output: Uint8Array, password: string, work: string): string {
  const from = join(work, 'encrypted.pdf');
  const to = join(work, 'decrypted.pdf');
  writeFileSync(from, output);
  try {
    execFileSync('qpdf', [`--password=${password}`, '--decrypt', '--static-id', from, to], {
      stdio: 'ignore',
    });
  } catch (error) {
    // qpdf exits 3 when it succeeded with warnings.
    if ((error as { status?: number }).status !== 3) throw error;
  }
  return sha256(readFileSync(to));
}

function outputRecord(output: Uint8Array, password: string): Record<string, unknown> {
  const encrypted = /\/Encrypt\s/.test(Buffer.from(output.subarray(-4096)).toString('latin1'));
  const normal = withoutFreshId(output);
  if (encrypted)
    return {
      output_bytes: normal.length,
      output_decrypted_sha256: decryptedHash(output, password, scratch),
    };
  return { output_bytes: normal.length, output_sha256: sha256(normal) };
}

async function apply(input: EditTaskInput): Promise<unknown> {
  try {
    const { proposal, output, verification } = await applyEdit(input);
    const out = outputRecord(output, input.password);
    const changes = verification.stream_changes as Record<string, unknown>;
    return {
      proposal: proposalRecord(proposal),
      ...out,
      verification: {
        ...verification,
        output_sha256: out.output_sha256 ?? 'encrypted',
        // Moved by what the /ID's literal form added or took (it varies per save).
        stream_changes: {
          ...changes,
          bytes_after: Number(changes.bytes_after) + Number(out.output_bytes) - output.byteLength,
        },
      },
    };
  } catch (error) {
    return errorRecord(error);
  }
}

interface Task {
  id: string;
  run: () => Promise<Record<string, unknown>>;
}

function textInput(
  pdf: Uint8Array,
  password: string,
  t: { page: number; find: string; replace: string; match_index: number },
  documentId: string,
): EditTaskInput {
  return {
    pdf,
    password,
    request: {
      page_index: t.page,
      target: { method: 'text_layer', find: t.find, match_index: t.match_index },
      replacement: t.replace,
      attestation_id: 'att_snapshot',
    },
    manifest: manifestInput(documentId),
  };
}

/** A person looked at the whole page magnified: a crop served at 600 dpi before the clock's now. */
const WHOLE_PAGE_SEEN = (page: number): ServedCrop[] => [
  { page_index: page, box_render: [0, 0, 20000, 20000], dpi: 600, at: SERVED_AT },
];

function corpusTasks(): Task[] {
  const tasks: Task[] = [];
  for (const entry of corpusFiles()) {
    const password = entry.password ?? '';
    for (const [n, t] of entry.tasks.entries()) {
      const id = `corpus ${entry.file} #${n} ${t.method} ${t.kind} p${t.page} ${t.find}→${t.replace}`;
      const pdf = () => corpusBytes(entry.file);
      if (t.method === 'text_layer') {
        tasks.push({
          id,
          run: async () => {
            const input = textInput(pdf(), password, t, 'doc_corpus');
            return { propose: await propose(input), apply: await apply(input) };
          },
        });
        continue;
      }
      tasks.push({
        id,
        run: async () => {
          const base = textInput(pdf(), password, t, 'doc_corpus');
          const target = { method: 'ocr' as const, find: t.find, match_index: t.match_index };
          const unconfirmed = await propose({ ...base, request: { ...base.request, target } });
          const confirmed: EditTaskInput = {
            ...base,
            request: { ...base.request, target: { ...target, confirmed: true } },
            served_regions: WHOLE_PAGE_SEEN(t.page),
          };
          return {
            propose_unconfirmed: unconfirmed,
            propose: await propose(confirmed),
            apply: await apply(confirmed),
          };
        },
      });
    }
  }
  return tasks;
}

function derivedTasks(): Task[] {
  const tasks: Task[] = [];
  for (const entry of corpusFiles()) {
    for (const t of deriveTasks(entry)) {
      tasks.push({
        id: `derived ${t.file} ${t.kind} p${t.page} ${t.find}→${t.replace}`,
        run: async () => {
          const pdf = corpusBytes(t.file);
          const input = textInput(pdf, t.password, { ...t, match_index: 0 }, 'doc_derived');
          return { apply: await apply(input), propose: await propose(input) };
        },
      });
    }
  }
  return tasks;
}

const overlap = (a: number[], b: number[]) =>
  Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0])) *
  Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));

function scanTasks(work: string, madeIn: string | undefined): Task[] {
  const tasks: Task[] = [];
  const scans = madeIn
    ? (JSON.parse(readFileSync(join(madeIn, 'tasks.json'), 'utf8')) as { scans: ScanEntry[] }).scans
    : makeScans(work);
  for (const scan of scans) {
    const pdfPath = join(madeIn ?? work, scan.file);
    const pdf = () => new Uint8Array(readFileSync(pdfPath));
    let recognised: Awaited<ReturnType<typeof ocrPage>> | null = null;
    const recognise = async () => {
      recognised ??= await ocrPage({
        pdf: pdf(),
        password: '',
        page_index: 0,
        find: '',
        box_render: null,
        render_dpi: 300,
        lang: null,
        turn: 0,
      });
      return recognised;
    };
    tasks.push({
      id: `scan ${scan.name} recognised`,
      run: async () => ({
        scan_sha256: sha256(pdf()),
        tasks: scan.tasks,
        recognised_sha256: sha256(canonicalize(await recognise())),
      }),
    });
    for (const task of scan.tasks) {
      tasks.push({
        id: `scan ${scan.name} ${task.word}→${task.same}`,
        run: async () => {
          const words = (await recognise()).words as Parameters<typeof findWordMatches>[0];
          const want = task.box_px.map((v) => v * (300 / scan.dpi));
          const matches = findWordMatches(words, task.word) ?? [];
          const match = matches.find((m) => overlap(m.box_render, want) > 0.2 * overlap(want, want));
          if (!match) return { matches };
          const input: EditTaskInput = {
            pdf: pdf(),
            password: '',
            request: {
              page_index: 0,
              target: { method: 'ocr', find: task.word, match_index: match.index, confirmed: true },
              replacement: task.same,
              attestation_id: 'att_snapshot',
            },
            manifest: manifestInput('doc_scan'),
            served_regions: [
              {
                page_index: 0,
                box_render: [
                  match.box_render[0] - 40,
                  match.box_render[1] - 40,
                  match.box_render[2] + 40,
                  match.box_render[3] + 40,
                ],
                dpi: 600,
                at: SERVED_AT,
              },
            ],
          };
          return { match, propose: await propose(input), apply: await apply(input) };
        },
      });
    }
  }
  return tasks;
}

async function main(): Promise<void> {
  const [out, only, scansDir] = process.argv.slice(2);
  if (!out) throw new Error('usage: node scripts/engine-snapshot.ts OUT.jsonl [ID_REGEX]');
  const keep = only ? new RegExp(only) : null;
  const work = mkdtempSync(join(tmpdir(), 'docfix-snapshot-'));
  scratch = work;
  writeFileSync(out, '');
  try {
    // A regex that starts with a set's name (`^scan …`) builds only that set (making scans is slow).
    const set = only?.match(/^\^?(corpus|derived|scan)\b/)?.[1];
    const tasks = [
      ...(!set || set === 'corpus' ? corpusTasks() : []),
      ...(!set || set === 'derived' ? derivedTasks() : []),
      ...(!set || set === 'scan' ? scanTasks(work, scansDir) : []),
    ].filter((t) => !keep || keep.test(t.id));
    for (const [n, task] of tasks.entries()) {
      const record = { id: task.id, ...(await task.run()) };
      appendFileSync(out, `${canonicalize(record)}\n`);
      console.error(`${n + 1}/${tasks.length} ${task.id}`);
    }
  } finally {
    await closeRecognisers();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
