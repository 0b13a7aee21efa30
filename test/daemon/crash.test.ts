// kill -9 at random moments: a real daemon process corrects two documents at once (attest, propose,
// apply, undo, redo) and is killed with SIGKILL after a random delay, twelve times, restarted each
// time. Afterwards, for every document, replaying its audit entries must give exactly the record on
// disk (every correction with its status, the head, every attestation): zero changes without their
// entry, zero entries without their change. Every acknowledged answer is in the record and the log,
// the chain recomputes, and no temp file is left.
import { readdir, readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyAuditChain, type StoredAuditEntry } from '../../src/audit-chain.ts';
import { seededRandom } from './fuzz-mutate.ts';
import { CORPUS_DIR } from './harness.ts';
import { call, startDaemon, uploadPdf, type RealDaemon } from './real-daemon.ts';

const ROUNDS = Number(process.env.DOCFIX_CRASH_ROUNDS ?? 12);
const FILE = 'libreoffice-writer.pdf';
const WORD: [string, string] = ['nonumy', 'nonmuy'];

interface Acked {
  action: 'apply' | 'undo' | 'redo' | 'attest';
  document_id: string;
  id: string;
}

let work: string;
let daemon: RealDaemon | null = null;

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'docfix-crash-'));
});

test.after(async () => {
  await daemon?.stop();
  await rm(work, { recursive: true, force: true });
});

/** Attest, propose and apply (either way round), undo and redo at random until the daemon dies. */
async function worker(
  d: RealDaemon,
  documentId: string,
  random: () => number,
  acked: Acked[],
): Promise<void> {
  const doc = `/v1/documents/${documentId}`;
  try {
    for (;;) {
      const roll = random();
      if (roll < 0.5) {
        const att = await call(d, 'POST', '/v1/attestations', { document_id: documentId });
        if (att.status !== 201) continue;
        acked.push({ action: 'attest', document_id: documentId, id: att.body.attestation_id });
        for (const [find, replacement] of [WORD, [WORD[1], WORD[0]]]) {
          const request = {
            target: { method: 'text_layer', find, match_index: 0 },
            replacement,
            page_index: 0,
            attestation_id: att.body.attestation_id,
          };
          const p = await call(d, 'POST', `${doc}/edits:propose`, request);
          if (p.status !== 200 || p.body.tier === -1) continue;
          const a = await call(d, 'POST', `${doc}/edits`, {
            request,
            apply: { proposal_id: p.body.proposal_id, confirm_token: p.body.confirm_token },
          });
          if (a.status === 200)
            acked.push({ action: 'apply', document_id: documentId, id: a.body.revision_id });
          break;
        }
      } else {
        const action = roll < 0.75 ? 'undo' : 'redo';
        const r = await call(d, 'POST', `${doc}/${action}`);
        if (r.status === 200)
          acked.push({ action, document_id: documentId, id: r.body.undone.revision_id ?? '' });
      }
    }
  } catch {
    // the daemon was killed under this request
  }
}

/**
 * Milliseconds one proposal of the test's word takes (a proposal changes nothing on the document;
 * its attestation is a change with its entry, like the workers' own).
 */
async function timeOneProposal(d: RealDaemon, documentId: string): Promise<number> {
  const att = await call(d, 'POST', '/v1/attestations', { document_id: documentId });
  assert.is(att.status, 201, JSON.stringify(att.body));
  const started = performance.now();
  const p = await call(d, 'POST', `/v1/documents/${documentId}/edits:propose`, {
    target: { method: 'text_layer', find: WORD[0], match_index: 0 },
    replacement: WORD[1],
    page_index: 0,
    attestation_id: att.body.attestation_id,
  });
  assert.is(p.status, 200, JSON.stringify(p.body));
  return performance.now() - started;
}

interface ModelCorrection {
  seq: number;
  revision_id: string;
  status: string;
}

test(`kill -9 during applies, undos and redos (${ROUNDS} rounds): every change has its entry and back`, async () => {
  const dataDir = join(work, 'data');
  const configDir = join(work, 'config');
  const random = seededRandom(Number(process.env.DOCFIX_CRASH_SEED ?? 7));
  daemon = await startDaemon(dataDir, configDir);
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, FILE)));
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const up = await uploadPdf(daemon, pdf, FILE);
    assert.is(up.status, 201, JSON.stringify(up.body));
    ids.push(up.body.document_id);
  }
  // The kill windows scale with how long one proposal takes on this machine now, so that a slow
  // or busy machine still sees changes made between the kills (a fixed 0.3–2.8 s saw none there).
  const proposeMs = await timeOneProposal(daemon, ids[0]);
  const window = Math.max(2500, 4 * proposeMs);
  const acked: Acked[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round widens the window between a change and its entry (fault injection), so
    // kills land inside it and start-up recovery is exercised, not only hoped for.
    const pauseMs = String(Math.max(1000, proposeMs));
    const pause: Record<string, string> = round % 2 === 1 ? { DOCFIX_FAULT_AUDIT_PAUSE_MS: pauseMs } : {};
    daemon ??= await startDaemon(dataDir, configDir, pause);
    const d = daemon;
    const loops = ids.map((id) => worker(d, id, random, acked));
    await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * window)));
    await d.kill9();
    await Promise.all(loops);
    daemon = null;
  }
  daemon = await startDaemon(dataDir, configDir);

  // The chain, as the service computes it and as stored.
  const chain = await call(daemon, 'GET', '/v1/audit/verify-chain');
  assert.is(chain.body.intact, true, JSON.stringify(chain.body));
  const [tenantId] = await readdir(join(dataDir, 'tenants'));
  const tenantDir = join(dataDir, 'tenants', tenantId);
  const lines = (await readFile(join(tenantDir, 'audit.log'), 'utf8')).split('\n').filter(Boolean);
  const entries = lines.map((l) => JSON.parse(l) as StoredAuditEntry);
  assert.is(verifyAuditChain(entries).intact, true);
  const recoveredLines = entries.filter(
    (e) => (e.payload as Record<string, unknown>).recovered === true,
  ).length;
  const opIds = entries.map((e) => (e.payload as Record<string, unknown>).op_id).filter(Boolean);
  assert.is(new Set(opIds).size, opIds.length, 'no entry appended twice');

  let applies = 0;
  for (const id of ids) {
    const record = JSON.parse(await readFile(join(tenantDir, 'documents', id, 'record.json'), 'utf8'));
    // Replay the document's entries into what its record must say.
    const model: ModelCorrection[] = [];
    const attestations: string[] = [];
    let uploads = 0;
    for (const e of entries.filter((x) => x.subject_id === id)) {
      const p = e.payload as Record<string, any>;
      if (e.action === 'document.upload') uploads++;
      else if (e.action === 'attestation.create') attestations.push(p.attestation_id);
      else if (e.action === 'correction.apply') {
        for (const c of model) if (c.status === 'undone') c.status = 'discarded';
        model.push({ seq: p.seq, revision_id: p.revision_id, status: 'standing' });
      } else if (e.action === 'correction.undo' || e.action === 'correction.redo') {
        const c = model.find((m) => m.seq === p.seq);
        assert.ok(c, `${e.action} of seq ${p.seq} follows its apply`);
        c.status = e.action === 'correction.undo' ? 'undone' : 'standing';
      }
    }
    assert.is(uploads, 1);
    const stored = (record.corrections as ModelCorrection[]).map(({ seq, revision_id, status }) => ({
      seq,
      revision_id,
      status,
    }));
    assert.equal(stored, model, `document ${id}: corrections on disk = corrections the audit log says`);
    assert.equal(
      record.attestations.map((a: { attestation_id: string }) => a.attestation_id),
      attestations,
      `document ${id}: attestations on disk = attestations in the log`,
    );
    const standing = model.filter((c) => c.status === 'standing');
    assert.is(record.document.head_revision_id, standing.at(-1)?.revision_id ?? null, 'head as replayed');
    assert.equal(record.pending_audit ?? [], [], 'nothing owed after start-up');
    // Every revision a correction points at exists.
    for (const c of model) assert.ok(record.revisions.some((r: any) => r.revision_id === c.revision_id));
    applies += model.length;

    // Nothing acknowledged is lost.
    for (const a of acked.filter((x) => x.document_id === id)) {
      if (a.action === 'apply')
        assert.ok(
          model.some((c) => c.revision_id === a.id),
          `acked apply ${a.id}`,
        );
      if (a.action === 'attest') assert.ok(attestations.includes(a.id), `acked attestation ${a.id}`);
    }
    for (const action of ['undo', 'redo'] as const) {
      const acknowledged = acked.filter((x) => x.document_id === id && x.action === action).length;
      const logged = entries.filter((e) => e.subject_id === id && e.action === `correction.${action}`).length;
      assert.ok(logged >= acknowledged, `${action}: ${logged} logged ≥ ${acknowledged} acknowledged`);
    }
  }
  const leftovers = (await readdir(join(dataDir, 'tmp')).catch(() => [])).length;
  assert.is(leftovers, 0, 'no temp upload left');
  console.log(
    `\ncrash: ${ROUNDS} kill -9 rounds, ${acked.length} acknowledged operations, ${applies} corrections, ` +
      `${entries.length} audit entries, ${recoveredLines} recovered at start-up`,
  );
  assert.ok(applies > 0, 'corrections were made between the kills');
  assert.ok(
    recoveredLines > 0,
    'some kills landed between a change and its entry, and start-up recovered it',
  );
});

test.run();
