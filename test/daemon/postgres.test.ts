// Several daemons serving one deployment on PostgreSQL (issue 14): a private cluster (initdb into a
// temporary folder, a free loopback port), the schema migrated by `docfix daemon migrate`, a key made
// by `docfix keys create --database`, and two daemon processes on the database, each on its own data
// dir. Real HTTP requests prove the guarantees hold across the two: one winner among concurrent
// applies, one gap-free audit chain, a job finished by the other daemon after kill -9 (and never
// applied twice), and the whole workflow alternating between them.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../daemon/storage/pg-database.ts';
import { PgBlobBackend } from '../../daemon/storage/pg-blob-store.ts';
import { PgDocumentStore } from '../../daemon/storage/pg-document-store.ts';
import { PgUsageStore } from '../../daemon/storage/pg-usage-store.ts';
import { parsePublicKeys } from '../../src/certificates/crypto.ts';
import { verifyCertificateOffline } from '../../src/certificates/verify-offline.ts';
import { CORPUS_DIR } from './harness.ts';
import { startPostgres, type PostgresServer } from './postgres-server.ts';
import { call, DAEMON_BIN, daemonEnv, startDaemon, uploadPdf, type RealDaemon } from './real-daemon.ts';

const run = promisify(execFile);
const DOCFIX_BIN = fileURLToPath(new URL('../../bin/docfix.js', import.meta.url));
const FILE = join(CORPUS_DIR, 'latex-minimal.pdf');
const WORD: [string, string] = ['nonumy', 'nonmuy'];
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// Jobs change hands quickly here (a lease of 1.5 s, looked for every 0.2 s).
const ENV = {
  DOCFIX_JOB_LEASE_MS: '1500',
  DOCFIX_JOB_POLL_MS: '200',
  DOCFIX_ENGINE_QUEUE: '32',
};

type Endpoint = { url: string; apiKey: string };

let pgs: PostgresServer;
let db: string;
let work: string;
let key: { api_key: string; key_id: string; tenant_id: string };
const daemons: RealDaemon[] = [];
let A: Endpoint;
let B: Endpoint;

async function docfix(args: string[], env: Record<string, string> = {}): Promise<any> {
  const { stdout } = await run(process.execPath, [DOCFIX_BIN, ...args], {
    env: daemonEnv(join(work, 'cli-config'), env),
  });
  return JSON.parse(stdout);
}

async function launch(
  name: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<RealDaemon> {
  const d = await startDaemon(
    join(work, `data-${name}`),
    join(work, `config-${name}`),
    { ...ENV, ...env },
    args,
  );
  daemons.push(d);
  return d;
}

test.before(async () => {
  // uvu reports a failed hook only as failed tests: say why, loudly.
  await setUp().catch((error) => {
    console.error('postgres.test.ts: setting up PostgreSQL and two daemons failed:', error);
    throw error;
  });
});

async function setUp(): Promise<void> {
  work = await mkdtemp(join(tmpdir(), 'docfix-pg-test-'));
  pgs = await startPostgres();
  db = await pgs.newDatabase('docfix');
  const migrated = await docfix(['daemon', 'migrate', '--database', db, '--json']);
  assert.equal(migrated, { applied: [1, 2, 3], schema_version: 3 });
  key = await docfix([
    'keys',
    'create',
    '--database',
    db,
    '--tenant',
    'acme',
    '--plan',
    'business',
    '--json',
  ]);
  // One daemon named by the flag, the other by the environment variable.
  const [a, b] = await Promise.all([
    launch('a', {}, ['--database', db]),
    launch('b', { DOCFIX_DATABASE_URL: db }),
  ]);
  A = { url: a.url, apiKey: key.api_key };
  B = { url: b.url, apiKey: key.api_key };
}

test.after(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  await pgs?.stop();
  await rm(work, { recursive: true, force: true });
});

async function newDocument(on: Endpoint): Promise<{ id: string; attestation: string }> {
  const up = await uploadPdf(on, new Uint8Array(readFileSync(FILE)), 'latex-minimal.pdf');
  assert.is(up.status, 201, JSON.stringify(up.body));
  const att = await call(on, 'POST', '/v1/attestations', { document_id: up.body.document_id });
  assert.is(att.status, 201, JSON.stringify(att.body));
  return { id: up.body.document_id, attestation: att.body.attestation_id };
}

/** A proposal and the apply body that confirms it. */
async function propose(on: Endpoint, doc: { id: string; attestation: string }, forward: boolean) {
  const [find, replacement] = forward ? WORD : [WORD[1], WORD[0]];
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find, match_index: 0 },
    replacement,
    attestation_id: doc.attestation,
  };
  const p = await call(on, 'POST', `/v1/documents/${doc.id}/edits:propose`, request);
  assert.is(p.status, 200, JSON.stringify(p.body));
  assert.not.ok(p.body.refusal, JSON.stringify(p.body.advice));
  return { request, apply: { proposal_id: p.body.proposal_id, confirm_token: p.body.confirm_token } };
}

async function auditLines(on: Endpoint): Promise<any[]> {
  const response = await fetch(`${on.url}/v1/audit/export`, {
    headers: { authorization: `Bearer ${on.apiKey}` },
  });
  assert.is(response.status, 200);
  const lines = (await response.text()).trim().split('\n');
  return lines.slice(0, -1).map((l) => JSON.parse(l));
}

test('administration against the database: keys and tenants, seen by both daemons at once', async () => {
  assert.is(typeof key.api_key, 'string');
  assert.equal(Object.keys(key).sort(), ['api_key', 'key_id', 'tenant_id']);
  const listed = await docfix(['keys', 'list', '--json'], { DOCFIX_DATABASE_URL: db });
  assert.ok(listed.some((k: any) => k.key_id === key.key_id && !('secret_sha256' in k)));
  const second = await docfix(['keys', 'create', '--tenant', 'beta', '--plan', 'personal', '--json'], {
    DOCFIX_DATABASE_URL: db,
  });
  for (const on of [A, B])
    assert.is((await call({ ...on, apiKey: second.api_key }, 'GET', '/v1/usage')).status, 200);
  const tenant = await docfix(['tenants', 'set', 'beta', '--suspended', 'true', '--database', db, '--json']);
  assert.is(tenant.suspended, true);
  assert.is(tenant.plan, 'personal');
  for (const on of [A, B]) {
    const r = await call({ ...on, apiKey: second.api_key }, 'POST', '/v1/attestations', {
      document_id: 'doc_x',
    });
    assert.is(r.status, 403);
    assert.is(r.body.error, 'account_suspended');
  }
  await docfix(['keys', 'revoke', second.key_id, '--database', db, '--json']);
  for (const on of [A, B])
    assert.is((await call({ ...on, apiKey: second.api_key }, 'GET', '/v1/usage')).status, 401);
});

test('the acceptance workflow, alternating between the two daemons', async () => {
  const original = new Uint8Array(readFileSync(FILE));
  const doc = await newDocument(A); // upload and attest
  const base = `/v1/documents/${doc.id}`;
  assert.is((await call(B, 'GET', base)).body.document_id, doc.id);
  const { request, apply } = await propose(A, doc, true);
  const applied = await call(B, 'POST', `${base}/edits`, { request, apply });
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  assert.ok(applied.body.passed);
  const verification = await call(A, 'GET', `${base}/verification`);
  assert.is(verification.body.verification_id, applied.body.verification_id);
  const exported = await call(B, 'POST', `${base}/export`);
  assert.is(exported.status, 200, JSON.stringify(exported.body));
  assert.is(exported.body.output_sha256, applied.body.output_sha256);
  const issued = await call(A, 'POST', `${base}/certificate`, { name: 'two daemons' });
  assert.is(issued.status, 201, JSON.stringify(issued.body));

  // The corrected bytes from one, the certificate from the other: they belong together.
  const download = await fetch(`${B.url}${base}/export/download`, {
    headers: { authorization: `Bearer ${B.apiKey}` },
  });
  const corrected = new Uint8Array(await download.arrayBuffer());
  assert.is(sha(corrected), issued.body.corrected_sha256);
  const pdf = await fetch(`${B.url}/v1/certificates/${issued.body.certificate_id}/pdf`, {
    headers: { authorization: `Bearer ${B.apiKey}` },
  });
  assert.is(pdf.status, 200);
  const file = new Uint8Array(await pdf.arrayBuffer());
  // Both daemons publish the same signing key (kept in the database).
  const keyA = await (await fetch(`${A.url}/.well-known/docfix-certificate-key`)).text();
  const keyB = await (await fetch(`${B.url}/.well-known/docfix-certificate-key`)).text();
  assert.is(keyA, keyB);
  const offline = verifyCertificateOffline(file, parsePublicKeys(keyB), { document: corrected });
  assert.ok(offline.valid, offline.reason);
  assert.not.ok(verifyCertificateOffline(file, parsePublicKeys(keyA), { document: original }).valid);
  assert.is((await call(B, 'GET', `/v1/certificates/${issued.body.certificate_id}`)).body.status, 'valid');

  // Undo on one, redo on the other; delete removes it for both.
  assert.is((await call(B, 'POST', `${base}/undo`)).status, 200);
  assert.is((await call(A, 'POST', `${base}/redo`)).status, 200);
  assert.is((await call(A, 'DELETE', base)).status, 204);
  assert.is((await call(B, 'GET', base)).status, 404);
  const gone = await call(B, 'GET', `/v1/certificates/${issued.body.certificate_id}/pdf`);
  assert.is(gone.status, 410);
});

test('20 rounds of 8 concurrent applies on one head over both daemons: one 200 each, the rest 409', async () => {
  const doc = await newDocument(B);
  const base = `/v1/documents/${doc.id}`;
  let head: string | null = null;
  for (let round = 0; round < 20; round++) {
    const body = await propose(round % 2 ? B : A, doc, round % 2 === 0);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(i % 2 ? B : A, 'POST', `${base}/edits`, body)),
    );
    const won = answers.filter((a) => a.status === 200);
    const lost = answers.filter((a) => a.status === 409);
    assert.is(won.length, 1, `round ${round}: ${answers.map((a) => a.status).join(' ')}`);
    assert.is(lost.length, 7, `round ${round}: ${JSON.stringify(answers.map((a) => a.body?.detail?.error))}`);
    for (const a of lost) assert.is(a.body.detail.error, 'stale_or_invalid_confirmation');
    const now = (await call(round % 2 ? A : B, 'GET', base)).body.head_revision_id;
    assert.is(now, won[0].body.revision_id);
    assert.is.not(now, head);
    head = now;
  }
  const corrections = await call(A, 'GET', `${base}/corrections`);
  assert.is(corrections.body.length, 20);
  assert.equal(
    corrections.body.map((c: any) => c.seq),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  const revisions = await pgs.query<{ n: string }>(
    'SELECT count(*) AS n FROM revisions WHERE document_id = $1',
    [doc.id],
    db,
  );
  assert.is(Number(revisions[0].n), 21);
});

test('concurrent audited requests on both daemons: the chain verifies and has no gap', async () => {
  const docs = [await newDocument(A), await newDocument(B)];
  const requests = Array.from({ length: 40 }, (_, i) => {
    const on = i % 2 ? B : A;
    const doc = docs[i % 3 === 0 ? 0 : 1];
    return i % 5 === 4
      ? call(on, 'POST', `/v1/documents/${doc.id}/undo`) // 409: nothing to undo, no entry
      : call(on, 'POST', '/v1/attestations', { document_id: doc.id });
  });
  const answers = await Promise.all(requests);
  assert.is(answers.filter((a) => a.status === 201).length, 32);
  for (const on of [A, B]) {
    const chain = await call(on, 'GET', '/v1/audit/verify-chain');
    assert.ok(chain.body.intact, JSON.stringify(chain.body));
  }
  const entries = await auditLines(B);
  assert.equal(
    entries.map((e) => e.seq),
    Array.from({ length: entries.length }, (_, i) => i + 1),
  );
});

test('accounts stay apart across daemons; a signing key rotated in the database counts on both', async () => {
  const other = await docfix(['keys', 'create', '--database', db, '--tenant', 'gamma', '--json']);
  const doc = await newDocument(A);
  const proposal = applyFollowingJob(A, `/v1/documents/${doc.id}/edits:propose`, {
    page_index: 0,
    target: { method: 'text_layer', find: WORD[0], match_index: 0 },
    replacement: WORD[1],
    attestation_id: doc.attestation,
  });
  const jobId = await proposal.job;
  await proposal.done;
  for (const on of [A, B]) {
    const as = { ...on, apiKey: other.api_key };
    assert.is((await call(as, 'GET', `/v1/documents/${doc.id}`)).status, 404);
    assert.is((await call(as, 'GET', `/v1/jobs/${jobId}`)).status, 404);
    assert.is((await call(on, 'GET', `/v1/jobs/${jobId}`)).body.status, 'succeeded');
    assert.is((await call(as, 'GET', '/v1/audit/verify-chain')).body.entries, 0);
  }

  const before = JSON.parse(await (await fetch(`${A.url}/.well-known/docfix-certificate-key`)).text());
  // The daemon's own command (docfix forwards only daemon, keys and tenants).
  const { stdout } = await run(
    process.execPath,
    [DAEMON_BIN, 'signing-key', 'rotate', '--database', db, '--json'],
    {
      env: daemonEnv(join(work, 'cli-config')),
    },
  );
  const rotated = JSON.parse(stdout);
  assert.is.not(rotated.key_id, before.key_id);
  for (const on of [A, B]) {
    const published = JSON.parse(await (await fetch(`${on.url}/.well-known/docfix-certificate-key`)).text());
    assert.is(published.key_id, rotated.key_id);
    assert.ok(published.previous.some((k: any) => k.key_id === before.key_id));
  }
});

test('the database refuses a second revision of one correction seq, whatever a process believes', async () => {
  const doc = await newDocument(A);
  const first = await propose(A, doc, true);
  assert.is((await call(A, 'POST', `/v1/documents/${doc.id}/edits`, first)).status, 200);
  const pool = new Database(db, { max: 2 });
  try {
    const store = new PgDocumentStore(pool, join(work, 'cache'));
    // A writer that skipped the head check: a second child of the original with correction seq 1.
    const forked = store.update(key.tenant_id, doc.id, (record) => {
      record.revisions.push({
        revision_id: 'rev_forked',
        parent_revision_id: record.original_revision_id,
        blob_sha256: record.revisions[0].blob_sha256,
        correction_seq: 1,
        created_at: new Date().toISOString(),
      });
    });
    const error = await forked.then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    assert.is(error?.code, 'stale_or_invalid_confirmation');
    const record = await store.get(key.tenant_id, doc.id);
    assert.not.ok(
      record?.revisions.some((r) => r.revision_id === 'rev_forked'),
      'nothing was written',
    );
  } finally {
    await pool.close();
  }
});

test('files of a deleted document written by a racing apply are swept once old; live ones stay', async () => {
  const doc = await newDocument(A);
  const pool = new Database(db, { max: 2 });
  try {
    const blobs = new PgBlobBackend(pool);
    const sha = 'b'.repeat(64);
    await blobs.put(key.tenant_id, 'doc_gone', sha, 'pdf', new Uint8Array([1, 2, 3]));
    assert.is(await blobs.sweepOrphans(), 0, 'too young: an upload could still be on its way');
    assert.is(await blobs.sweepOrphans(0), 1);
    assert.not.ok(await blobs.has(key.tenant_id, 'doc_gone', sha, 'pdf'));
    const record = (await call(B, 'GET', `/v1/documents/${doc.id}`)).body;
    assert.ok(
      await blobs.has(key.tenant_id, doc.id, record.original_sha256, 'pdf'),
      'a live document keeps its files',
    );
  } finally {
    await pool.close();
  }
});

test('the daily limit is counted in the database: racing holds through two pools never pass it', async () => {
  const pools = [new Database(db, { max: 8 }), new Database(db, { max: 8 })];
  try {
    const stores = pools.map((p) => new PgUsageStore(p));
    const holds = await Promise.all(
      Array.from({ length: 24 }, (_, i) => stores[i % 2].reserve('tnt_limit', 10)),
    );
    const granted = holds.filter((h) => h.granted);
    assert.is(granted.length, 10);
    // Half the applies fail (their places come back), half are counted.
    await Promise.all(granted.map((h, i) => (h.granted ? (i % 2 ? h.release() : h.commit()) : null)));
    assert.is(await stores[1].correctionsToday('tnt_limit'), 5);
    const again = await Promise.all(
      Array.from({ length: 8 }, (_, i) => stores[i % 2].reserve('tnt_limit', 10)),
    );
    assert.is(again.filter((h) => h.granted).length, 5);
    const refused = again.find((h) => !h.granted);
    assert.is(refused && !refused.granted ? refused.used : -1, 5);
    // A hold whose instance died (never committed nor released) ends by itself.
    await pgs.query("UPDATE usage_holds SET held_until = now() - interval '1 second'", [], db);
    const after = await Promise.all(
      Array.from({ length: 8 }, (_, i) => stores[i % 2].reserve('tnt_limit', 10)),
    );
    assert.is(after.filter((h) => h.granted).length, 5);
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
});

/** POST through node:http to read the job id from the 103 Early Hints answer. */
function applyFollowingJob(
  on: Endpoint,
  path: string,
  body: unknown,
): { job: Promise<string>; done: Promise<{ status: number; body: any } | null> } {
  let resolveJob: (id: string) => void = () => {};
  let rejectJob: (e: Error) => void = () => {};
  const job = new Promise<string>((resolve, reject) => {
    resolveJob = resolve;
    rejectJob = reject;
  });
  const done = new Promise<{ status: number; body: any } | null>((resolve) => {
    const url = new URL(path, on.url);
    const req = httpRequest(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${on.apiKey}`, 'content-type': 'application/json' },
    });
    req.on('information', (info) => {
      const id = info.headers['x-docfix-job'];
      if (typeof id === 'string') resolveJob(id);
    });
    req.on('response', (res) => {
      const id = res.headers['x-docfix-job'];
      if (typeof id === 'string') resolveJob(id);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', (error) => {
      rejectJob(error);
      resolve(null); // the daemon was killed under the request
    });
    req.end(JSON.stringify(body));
  });
  return { job, done };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const point of ['commit', 'end'] as const) {
  test(`kill -9 of a daemon during an apply job (${point === 'commit' ? 'before' : 'after'} its change commits): the other finishes it, once`, async () => {
    const victim = await launch(`victim-${point}`, { DOCFIX_FAULT_JOB_PAUSE: `${point}:60000` }, [
      '--database',
      db,
    ]);
    const V = { url: victim.url, apiKey: key.api_key };
    const doc = await newDocument(A);
    const base = `/v1/documents/${doc.id}`;
    // Something acknowledged before the crash.
    const first = await propose(B, doc, true);
    assert.is((await call(B, 'POST', `${base}/edits`, first)).status, 200);
    const before = (await call(A, 'GET', `${base}/corrections`)).body.length;
    const entriesBefore = (await auditLines(A)).length;

    const body = await propose(A, doc, false);
    const pending = applyFollowingJob(V, `${base}/edits`, body);
    const jobId = await pending.job;
    if (point === 'commit') {
      // The victim holds the document's row inside its transaction, paused before committing.
      await until('the victim to reach its commit', async () => {
        const rows = await pgs.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'SELECT record FROM documents%FOR UPDATE'",
          [],
          db,
        );
        return Number(rows[0].n) > 0;
      });
    } else {
      // The change is committed with an entry naming the job; the job's end is not recorded yet.
      await until('the victim to commit', async () => {
        const rows = await pgs.query('SELECT 1 FROM audit_entries WHERE job_id = $1', [jobId], db);
        return rows.length > 0;
      });
    }
    await victim.kill9();
    await pending.done;

    const job = await until('the job to finish elsewhere', async () => {
      const j = await call(B, 'GET', `/v1/jobs/${jobId}`);
      return j.body?.status && j.body.status !== 'running' ? j.body : null;
    });
    assert.is(job.status, 'succeeded', JSON.stringify(job));
    assert.is(job.result.http_status, 200);
    const corrections = (await call(A, 'GET', `${base}/corrections`)).body;
    assert.is(corrections.length, before + 1, 'applied exactly once');
    const head = (await call(B, 'GET', base)).body.head_revision_id;
    assert.is(job.result.revision_id, head);
    const entries = await auditLines(A);
    const applies = entries.filter(
      (e) => e.action === 'correction.apply' && e.payload.proposal_id === body.apply.proposal_id,
    );
    assert.is(applies.length, 1, 'one audit entry for the apply');
    assert.ok(entries.length >= entriesBefore + 1);
    assert.ok((await call(B, 'GET', '/v1/audit/verify-chain')).body.intact);
    const owner = await pgs.query<{ attempt: number }>(
      'SELECT attempt FROM jobs WHERE job_id = $1',
      [jobId],
      db,
    );
    assert.is(owner[0].attempt, 2, 'claimed once more after the crash');
  });
}

test('a daemon stalled past its lease cannot commit its job: the other finishes it, the stalled one answers 503 busy', async () => {
  const victim = await launch('stalled', { DOCFIX_FAULT_JOB_PAUSE: 'commit:2000' }, ['--database', db]);
  const V = { url: victim.url, apiKey: key.api_key };
  const doc = await newDocument(A);
  const base = `/v1/documents/${doc.id}`;
  const before = (await call(A, 'GET', `${base}/corrections`)).body.length;
  const body = await propose(A, doc, true);
  const pending = applyFollowingJob(V, `${base}/edits`, body);
  const jobId = await pending.job;
  await until('the stalled daemon to reach its commit', async () => {
    const rows = await pgs.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'idle in transaction' AND query LIKE 'SELECT record FROM documents%FOR UPDATE'",
      [],
      db,
    );
    return Number(rows[0].n) > 0;
  });
  // Stopped, it renews no lease: another daemon takes the job over (and waits for the row).
  process.kill(victim.child.pid!, 'SIGSTOP');
  try {
    await until('the job to be taken over', async () => {
      const rows = await pgs.query<{ attempt: number }>(
        'SELECT attempt FROM jobs WHERE job_id = $1',
        [jobId],
        db,
      );
      return rows[0]?.attempt === 2;
    });
  } finally {
    process.kill(victim.child.pid!, 'SIGCONT');
  }
  const answer = await pending.done;
  assert.is(answer?.status, 503, JSON.stringify(answer));
  assert.is(answer?.body.error, 'busy');
  const job = await until('the job to finish elsewhere', async () => {
    const j = await call(B, 'GET', `/v1/jobs/${jobId}`);
    return j.body?.status && j.body.status !== 'running' ? j.body : null;
  });
  assert.is(job.status, 'succeeded', JSON.stringify(job));
  assert.is((await call(A, 'GET', `${base}/corrections`)).body.length, before + 1, 'applied exactly once');
  const applies = (await auditLines(A)).filter(
    (e) => e.action === 'correction.apply' && e.payload.proposal_id === body.apply.proposal_id,
  );
  assert.is(applies.length, 1);
  await victim.stop();
});

test('kill -9 of a daemon at the end of a proposal job: the other runs it again and records its answer', async () => {
  const victim = await launch('victim-propose', { DOCFIX_FAULT_JOB_PAUSE: 'end:60000' }, ['--database', db]);
  const V = { url: victim.url, apiKey: key.api_key };
  const doc = await newDocument(A);
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find: WORD[0], match_index: 0 },
    replacement: WORD[1],
    attestation_id: doc.attestation,
  };
  const pending = applyFollowingJob(V, `/v1/documents/${doc.id}/edits:propose`, request);
  const jobId = await pending.job;
  // Killed during the engine's work or in the pause before the job's end is recorded: either way
  // nothing was answered, and the job is run again elsewhere.
  await new Promise((r) => setTimeout(r, 1000));
  await victim.kill9();
  await pending.done;
  const job = await until('the job to finish elsewhere', async () => {
    const j = await call(A, 'GET', `/v1/jobs/${jobId}`);
    return j.body?.status && j.body.status !== 'running' ? j.body : null;
  });
  assert.is(job.status, 'succeeded', JSON.stringify(job));
  assert.is(job.kind, 'proposeEdit');
  assert.match(job.result.proposal_id, /^prop_/);
  assert.is(job.result.document_id, doc.id);
});

test.run();
