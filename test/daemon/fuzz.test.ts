// Fuzzing through a real daemon: seeded mutations of shared-corpus PDFs (truncations, byte flips,
// a deleted endobj/endstream, a broken xref or startxref, a huge /Length) are uploaded, and every
// route a user reaches after an upload is called on each accepted one: classify, search, preview,
// crop, OCR of a small region, preflight, propose, apply, verification, export, undo. Every answer
// must be a documented status with a code of src/errors.ts that carries that status, no 5xx other
// than 503 busy, and the daemon must still answer /healthz at the end.
//
// DOCFIX_FUZZ_COUNT=300 node test/run.ts fuzz   runs a bigger batch by hand (default 40, < 90 s);
// DOCFIX_FUZZ_SEED moves the seeds. A failure names the seed, file and mutation that reproduce it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERRORS, isErrorCode } from '../../src/errors.ts';
import { CORPUS_DIR } from './harness.ts';
import { corpusFiles } from '../../fixtures/corpus-manifest.ts';
import { MUTATION_KINDS, mutate, seededRandom } from './fuzz-mutate.ts';
import { call, startDaemon, uploadPdf, type RealDaemon } from './real-daemon.ts';

const COUNT = Number(process.env.DOCFIX_FUZZ_COUNT ?? 40);
const FIRST_SEED = Number(process.env.DOCFIX_FUZZ_SEED ?? 1);

// Small files with a text-layer task: each mutant reaches propose and apply in well under a second.
const FILES = corpusFiles().filter(
  (f) => f.bytes < 200_000 && f.tasks.some((t) => t.method === 'text_layer' && t.kind === 'same'),
);

/** Success statuses of the routes called here. */
const SUCCESS = new Set([200, 201, 204]);

let daemon: RealDaemon;
let work: string;
const tally = new Map<string, number>();
const problems: string[] = [];

function count(key: string): void {
  tally.set(key, (tally.get(key) ?? 0) + 1);
}

/** Records one answer; anything undocumented or a 5xx other than busy is a problem. */
function check(where: string, route: string, answer: { status: number; body: any }): void {
  const code: unknown = answer.body?.error ?? answer.body?.detail?.error;
  count(`${route} ${answer.status}${typeof code === 'string' ? ` ${code}` : ''}`);
  if (SUCCESS.has(answer.status)) return;
  if (answer.status >= 500 && !(answer.status === 503 && code === 'busy')) {
    problems.push(
      `${where}: ${route} answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
    );
    return;
  }
  if (!isErrorCode(code)) {
    problems.push(`${where}: ${route} answered ${answer.status} without a documented code`);
    return;
  }
  if (ERRORS[code].status !== answer.status) {
    problems.push(
      `${where}: ${route} answered ${answer.status} with ${code} (documented ${ERRORS[code].status})`,
    );
  }
}

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'docfix-fuzz-'));
  daemon = await startDaemon(join(work, 'data'), join(work, 'config'));
});

test.after(async () => {
  await daemon?.stop();
  await rm(work, { recursive: true, force: true });
  const lines = [...tally.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
  console.log(`\nfuzz: ${COUNT} mutants from seed ${FIRST_SEED}\n${lines.join('\n')}`);
});

test(`${COUNT} damaged real PDFs: documented answers only, no 5xx but busy, the daemon still serving`, async () => {
  assert.ok(FILES.length >= 10, 'the shared corpus has small files with text-layer tasks');
  const originals = new Map<string, Uint8Array>();
  for (let seed = FIRST_SEED; seed < FIRST_SEED + COUNT; seed++) {
    const random = seededRandom(seed);
    const file = FILES[Math.floor(random() * FILES.length)];
    const kind = MUTATION_KINDS[Math.floor(random() * MUTATION_KINDS.length)];
    if (!originals.has(file.file))
      originals.set(file.file, new Uint8Array(await readFile(join(CORPUS_DIR, file.file))));
    const mutant = mutate(originals.get(file.file)!, kind, random);
    const where = `seed ${seed} (${file.file}, ${mutant.kind}: ${mutant.note})`;
    count(`mutation ${mutant.kind}`);

    const up = await uploadPdf(daemon, mutant.bytes, file.file, file.password);
    check(where, 'upload', up);
    if (up.status !== 201) continue;
    const id = up.body.document_id as string;
    const doc = `/v1/documents/${id}`;
    const task = file.tasks.find((t) => t.method === 'text_layer' && t.kind === 'same')!;
    const page = Math.min(task.page, Math.max(0, (up.body.page_count as number) - 1));

    check(where, 'classify', await call(daemon, 'POST', `${doc}/classify`));
    check(where, 'search', await call(daemon, 'GET', `${doc}/search?q=${encodeURIComponent(task.find)}`));
    check(where, 'preview', await call(daemon, 'GET', `${doc}/pages/${page}/preview.png?thumb=true`));
    check(where, 'crop', await call(daemon, 'GET', `${doc}/pages/${page}/crop.png?x=0&y=0&w=200&h=80`));
    if (seed % 5 === 0) {
      // OCR costs most: a small region, on one mutant in five.
      const ocr = await call(daemon, 'POST', `${doc}/pages/${page}/ocr`, { box_render: [0, 0, 300, 120] });
      check(where, 'ocr', ocr);
    }
    check(where, 'preflight', await call(daemon, 'POST', `${doc}/pages/${page}/preflight`, {}));

    const att = await call(daemon, 'POST', '/v1/attestations', { document_id: id });
    check(where, 'attestation', att);
    if (att.status !== 201) continue;
    const request = {
      target: { method: 'text_layer', find: task.find, match_index: task.match_index },
      replacement: task.replace,
      page_index: page,
      attestation_id: att.body.attestation_id,
    };
    const proposal = await call(daemon, 'POST', `${doc}/edits:propose`, request);
    check(where, 'propose', proposal);
    if (proposal.status === 200 && proposal.body.tier === -1) {
      count(`propose refused ${proposal.body.advice?.code}`);
      assert.ok(proposal.body.advice?.code, `${where}: a refusal carries advice with a code`);
      if (/Cannot read properties|is not a function|undefined \(reading/.test(JSON.stringify(proposal.body)))
        problems.push(`${where}: raw exception text in a refusal: ${proposal.body.refusal}`);
    }
    if (proposal.status !== 200) continue;
    const apply = await call(daemon, 'POST', `${doc}/edits`, {
      request,
      apply: { proposal_id: proposal.body.proposal_id, confirm_token: proposal.body.confirm_token },
    });
    check(where, 'apply', apply);
    if (proposal.body.tier === -1) {
      assert.is(apply.status, 422, `${where}: a refused proposal is refused at apply`);
      assert.is(apply.body?.detail?.error, 'edit_refused', where);
      assert.is(apply.body?.detail?.advice?.code, proposal.body.advice.code, `${where}: the same advice`);
    }
    check(where, 'verification', await call(daemon, 'GET', `${doc}/verification`));
    check(where, 'export', await call(daemon, 'POST', `${doc}/export`));
    if (apply.status === 200) check(where, 'undo', await call(daemon, 'POST', `${doc}/undo`));
    check(where, 'delete', await call(daemon, 'DELETE', doc));
  }
  assert.equal(problems, [], problems.join('\n'));
  const health = await fetch(`${daemon.url}/healthz`);
  assert.is(health.status, 200, 'the daemon still serves');
  assert.is(daemon.child.exitCode, null, 'the daemon is still running');
  const chain = await call(daemon, 'GET', '/v1/audit/verify-chain');
  assert.is(chain.status, 200);
  assert.is(chain.body.intact, true, 'the audit chain recomputes');
});

test.run();
