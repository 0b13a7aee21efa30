// Proof that survives a full disk (issue 31): the data dir on a small tmpfs, filled to the last
// page; every write either answers 507 insufficient_storage and changes nothing, or succeeds with a
// whole, durable audit entry; reads keep answering; no temp file is left; after space is freed and
// the app is built again on the same data dir, the chain verifies and the record lists. A second
// tmpfs mounted over the documents folder lets a record be written while the audit log cannot grow:
// the change is put back. A torn tail written by hand is kept aside and repaired at start-up.
// Mounting needs root; without it these tests are skipped, saying so.
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from '../../daemon/app.ts';
import { AuditLog } from '../../daemon/storage/audit-log.ts';
import { DataLayout } from '../../daemon/storage/data-layout.ts';
import { recoverDataDir } from '../../daemon/storage/recovery.ts';
import { verifyAuditChain, type StoredAuditEntry } from '../../src/audit-chain.ts';
import { CORPUS_DIR, multipart, sharedEngine } from './harness.ts';

const FILE = 'libreoffice-writer.pdf';
const WORD: [string, string] = ['nonumy', 'nonmuy'];

let work = '';
const mounts: string[] = [];

function mountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    mounts.push(dir);
    return true;
  } catch {
    return false;
  }
}

const canMount = await (async () => {
  if (process.getuid?.() !== 0) return false;
  const probe = await mkdtemp(join(tmpdir(), 'docfix-mount-probe-'));
  const ok = mountTmpfs(probe, '64k');
  if (ok) execFileSync('umount', [mounts.pop() as string]);
  await rm(probe, { recursive: true, force: true });
  return ok;
})();
if (!canMount)
  console.log('durability: skipped — mounting a tmpfs needs root (mount -t tmpfs); not available here');

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'docfix-durable-'));
});

test.after(async () => {
  for (const dir of mounts.reverse()) {
    try {
      execFileSync('umount', [dir]);
    } catch {
      // already gone
    }
  }
  await rm(work, { recursive: true, force: true });
});

interface App {
  app: FastifyInstance;
  headers: Record<string, string>;
  tenantId: string;
}

async function buildApp(dataDir: string, apiKey?: string): Promise<App & { apiKey: string }> {
  const app = await build({
    config: { dataDir, rateLimit: { perMinute: 1_000_000, burst: 1_000_000 } },
    engine: sharedEngine(),
  });
  if (apiKey) {
    const keyId = apiKey.slice(0, apiKey.indexOf('.'));
    const key = (await app.docfix.tenants.listKeys()).find((k) => k.key_id === keyId);
    return { app, apiKey, headers: { authorization: `Bearer ${apiKey}` }, tenantId: key!.tenant_id };
  }
  const tenant = await app.docfix.tenants.setTenant('durable', { plan: 'business' });
  const key = await app.docfix.tenants.createKey(tenant.tenant_id);
  return {
    app,
    apiKey: key.api_key,
    headers: { authorization: `Bearer ${key.api_key}` },
    tenantId: tenant.tenant_id,
  };
}

async function call(a: App, method: 'GET' | 'POST', url: string, body?: unknown) {
  const response = await a.app.inject({
    method,
    url,
    headers: { ...a.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  let parsed: any = null;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    parsed = null;
  }
  return { status: response.statusCode, body: parsed, raw: response.rawPayload };
}

async function upload(a: App, pdf: Uint8Array) {
  const { payload, headers } = multipart({ file: { filename: FILE, content: pdf } });
  const response = await a.app.inject({
    method: 'POST',
    url: '/v1/documents',
    payload,
    headers: { ...a.headers, ...headers },
  });
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

/** Attests, proposes and applies one correction of `find` → `replacement`. */
async function correct(a: App, documentId: string, words: [string, string]) {
  const att = await call(a, 'POST', '/v1/attestations', { document_id: documentId });
  if (att.status !== 201) return att;
  return proposeAndApply(a, documentId, att.body.attestation_id, words);
}

async function proposeAndApply(
  a: App,
  documentId: string,
  attestationId: string,
  [find, replacement]: [string, string],
) {
  const request = {
    target: { method: 'text_layer', find, match_index: 0 },
    replacement,
    page_index: 0,
    attestation_id: attestationId,
  };
  const p = await call(a, 'POST', `/v1/documents/${documentId}/edits:propose`, request);
  if (p.status !== 200) return p;
  return call(a, 'POST', `/v1/documents/${documentId}/edits`, {
    request,
    apply: { proposal_id: p.body.proposal_id, confirm_token: p.body.confirm_token },
  });
}

/** Fills the filesystem of `dir` to its last page; returns the filler files (to free space). */
async function fillDisk(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const size of [1024 * 1024, 4096, 512, 1]) {
    for (;;) {
      const file = join(dir, `filler-${files.length}`);
      files.push(file);
      const handle = await open(file, 'w');
      try {
        await handle.writeFile(Buffer.alloc(size, 0x61));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        break;
      } finally {
        await handle.close();
      }
    }
  }
  return files;
}

/** Every line of the log whole (ended, parsed) and the chain intact; returns the entries. */
async function wholeLog(dataDir: string, tenantId: string): Promise<StoredAuditEntry[]> {
  const text = await readFile(join(dataDir, 'tenants', tenantId, 'audit.log'), 'utf8');
  assert.ok(text.endsWith('\n'), 'the log ends with a whole line');
  const entries = text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as StoredAuditEntry);
  const chain = verifyAuditChain(entries);
  assert.ok(chain.intact, JSON.stringify(chain));
  return entries;
}

/** `.tmp-…` and upload temp files anywhere under `dir`. */
async function tempFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && (/^\.tmp-/.test(entry.name) || /^upload-/.test(entry.name)))
      found.push(join(entry.parentPath, entry.name));
  }
  return found;
}

function assertInsufficient(res: { status: number; body: any }, what: string): void {
  assert.is(res.status, 507, `${what}: ${JSON.stringify(res.body)}`);
  assert.is(res.body.error, 'insufficient_storage', what);
  assert.type(res.body.message, 'string');
}

test('a full disk: each write answers 507 or keeps a whole entry; reads answer; restart verifies', async () => {
  if (!canMount) return;
  const dataDir = join(work, 'full');
  await mkdir(dataDir);
  assert.ok(mountTmpfs(dataDir, '24m'));
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, FILE)));
  const a = await buildApp(dataDir);
  const up = await upload(a, pdf);
  assert.is(up.status, 201, JSON.stringify(up.body));
  const documentId = up.body.document_id;
  const applied = await correct(a, documentId, WORD);
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  const doc = `/v1/documents/${documentId}`;
  const before = (await wholeLog(dataDir, a.tenantId)).length;

  const filler = await fillDisk(dataDir);
  // Writes on a full disk.
  assertInsufficient(await upload(a, pdf), 'upload');
  assert.equal(await tempFiles(dataDir), [], 'a failed upload leaves no temp file');
  const undo = await call(a, 'POST', `${doc}/undo`);
  assertInsufficient(undo, 'undo');
  assertInsufficient(await correct(a, documentId, [WORD[1], WORD[0]]), 'attest and apply');
  // Exports and downloads append to the log's last page until it is full: each is acknowledged
  // with its whole entry, or refused with nothing appended.
  let acknowledged = 0;
  let refused = 0;
  for (let i = 0; i < 40 && refused < 4; i++) {
    const res = await call(a, i % 2 ? 'GET' : 'POST', i % 2 ? `${doc}/export/download` : `${doc}/export`);
    if (res.status === 200) acknowledged++;
    else {
      assertInsufficient(res, 'export or download');
      refused++;
    }
    const entries = await wholeLog(dataDir, a.tenantId);
    assert.is(entries.length, before + acknowledged, 'one whole entry per acknowledged answer');
  }
  assert.ok(refused > 0, 'the log filled up');
  assert.equal(await tempFiles(dataDir), []);

  // Reads keep answering.
  assert.is((await call(a, 'GET', doc)).status, 200);
  const preview = await call(a, 'GET', `${doc}/pages/0/preview.png`);
  assert.is(preview.status, 200);
  assert.equal([...preview.raw.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  const crop = await call(a, 'GET', `${doc}/pages/0/crop.png?x=0&y=0&w=300&h=200`);
  assert.is(crop.status, 200, JSON.stringify(crop.body));
  assert.equal([...crop.raw.subarray(1, 4)], [0x50, 0x4e, 0x47]);
  const search = await call(a, 'GET', `${doc}/search?q=${WORD[1]}`);
  assert.is(search.status, 200, JSON.stringify(search.body));
  assert.is((await call(a, 'GET', '/v1/audit')).status, 200);
  assert.is((await call(a, 'GET', '/v1/audit/verify-chain')).body.intact, true);
  await a.app.close();

  // Space freed, the app built again on the same data dir.
  for (const file of filler) await rm(file, { force: true });
  await recoverDataDir(dataDir);
  const again = await buildApp(dataDir, a.apiKey);
  const chain = await call(again, 'GET', '/v1/audit/verify-chain');
  assert.is(chain.status, 200);
  assert.is(chain.body.intact, true, JSON.stringify(chain.body));
  assert.is(chain.body.entries, before + acknowledged);
  const list = await call(again, 'GET', '/v1/audit');
  assert.is(list.status, 200);
  assert.is(list.body.length, before + acknowledged);
  // The document is as the last acknowledged change left it: the correction stands.
  assert.is((await call(again, 'GET', doc)).body.head_revision_id, applied.body.revision_id);
  // And a change works again.
  assert.is((await call(again, 'POST', `${doc}/undo`)).status, 200);
  await wholeLog(dataDir, again.tenantId);
  await again.app.close();
});

test('a record written while its entry cannot be: the change is put back, 507', async () => {
  if (!canMount) return;
  const dataDir = await mkdtemp(join(work, 'split-'));
  const a = await buildApp(dataDir);
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, FILE)));
  const up = await upload(a, pdf);
  assert.is(up.status, 201, JSON.stringify(up.body));
  const documentId = up.body.document_id;
  const applied = await correct(a, documentId, WORD);
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  const documentDir = join(dataDir, 'tenants', a.tenantId, 'documents', documentId);
  const recordFile = join(documentDir, 'record.json');
  const att = await call(a, 'POST', '/v1/attestations', { document_id: documentId });
  assert.is(att.status, 201);
  const entries = (await wholeLog(dataDir, a.tenantId)).length;

  // The audit log alone on a small filesystem, filled: records can be written, entries cannot.
  const small = join(work, 'small');
  await mkdir(small);
  assert.ok(mountTmpfs(small, '1m'));
  const log = join(dataDir, 'tenants', a.tenantId, 'audit.log');
  await writeFile(join(small, 'audit.log'), await readFile(log));
  execFileSync('mount', ['--bind', join(small, 'audit.log'), log]);
  mounts.push(log);
  await fillDisk(small);

  // Certificates until one does not fit: the refused one is withdrawn, not publicly checkable.
  const certificates = async () =>
    (await readdir(join(dataDir, 'certificates')).catch(() => [])).filter((f) => f.endsWith('.json'));
  let issued = 0;
  for (let i = 0; i < 12; i++) {
    const res = await call(a, 'POST', `/v1/documents/${documentId}/certificate`, {});
    if (res.status === 201) {
      issued++;
      continue;
    }
    assertInsufficient(res, 'certificate');
    break;
  }
  assert.is((await certificates()).length, issued, 'only issued certificates are on record');
  const logged0 = (await wholeLog(dataDir, a.tenantId)).length;
  assert.is(logged0, entries + issued);
  const blobs = await readdir(join(documentDir, 'blobs'));

  // Undo and redo (the smallest entries) until the last page of the log has no room for one: that
  // change's record was written, its entry refused, and the record put back.
  const doc = `/v1/documents/${documentId}`;
  let record = await readFile(recordFile, 'utf8');
  let logged = logged0;
  let refused = false;
  for (let i = 0; i < 40 && !refused; i++) {
    const res = await call(a, 'POST', `${doc}/${i % 2 ? 'redo' : 'undo'}`);
    if (res.status === 200) {
      logged++;
      record = await readFile(recordFile, 'utf8');
      continue;
    }
    assertInsufficient(res, 'undo or redo');
    refused = true;
  }
  assert.ok(refused, 'the log filled up');
  // Larger entries than an undo's do not fit either. A correction's new revision file was written
  // before its record: it goes with the change.
  const head = (await call(a, 'GET', doc)).body.head_revision_id;
  const second = await proposeAndApply(
    a,
    documentId,
    att.body.attestation_id,
    head ? [WORD[1], WORD[0]] : WORD,
  );
  assertInsufficient(second, 'apply');
  assertInsufficient(await call(a, 'POST', '/v1/attestations', { document_id: documentId }), 'attest');
  const deleted = await a.app.inject({ method: 'DELETE', url: doc, headers: a.headers });
  assert.is(deleted.statusCode, 507, deleted.body);
  assertInsufficient(await upload(a, pdf), 'upload');

  assert.is(await readFile(recordFile, 'utf8'), record, 'the record is as it was, byte for byte');
  assert.equal(await readdir(join(documentDir, 'blobs')), blobs, 'no revision left over');
  assert.equal(await readdir(join(dataDir, 'tenants', a.tenantId, 'documents')), [documentId]);
  assert.is((await wholeLog(dataDir, a.tenantId)).length, logged);
  assert.equal(await tempFiles(dataDir), []);
  assert.is((await call(a, 'GET', doc)).status, 200);
  await a.app.close();
});

test('a torn tail is kept aside at start-up and the chain repaired from the records', async () => {
  const dataDir = await mkdtemp(join(work, 'torn-'));
  const a = await buildApp(dataDir);
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, FILE)));
  const up = await upload(a, pdf);
  assert.is(up.status, 201);
  const documentId = up.body.document_id;
  const att = await call(a, 'POST', '/v1/attestations', { document_id: documentId });
  assert.is(att.status, 201);
  const export1 = await call(a, 'GET', '/v1/audit');
  assert.is(export1.body.length, 2);
  await a.app.close();

  const log = join(dataDir, 'tenants', a.tenantId, 'audit.log');
  const text = await readFile(log, 'utf8');
  const lines = text.slice(0, -1).split('\n');
  // The last entry (the attestation, still owed by its record) torn in the middle, and after it
  // a whole entry appended onto the torn line, as an older daemon did on a full disk.
  const last = lines[1];
  const torn = last.slice(0, Math.floor(last.length / 2));
  await writeFile(log, `${lines[0]}\n${torn}`);
  const logged: string[] = [];
  const report = await recoverDataDir(dataDir, (line) => logged.push(line));
  assert.is(report.audit_quarantine_files.length, 1);
  const quarantine = report.audit_quarantine_files[0];
  assert.is(await readFile(quarantine, 'utf8'), torn, 'the torn bytes are kept aside');
  assert.ok(
    logged.some((line) => line.includes(quarantine)),
    'the log names the quarantine file',
  );
  const entries = await wholeLog(dataDir, a.tenantId);
  assert.is(entries.length, 2);
  assert.is(entries[1].action, 'attestation.create');
  const payload = entries[1].payload as Record<string, unknown>;
  assert.is(payload.recovered, true);
  assert.is(payload.attestation_id, att.body.attestation_id);

  // An older daemon's pattern: a torn line with a whole entry appended onto it, then more.
  const whole = (await readFile(log, 'utf8')).slice(0, -1).split('\n');
  const salvaged = { ...entries[1] };
  await writeFile(log, `${whole[0]}\n${whole[1].slice(0, 40)}${whole[1]}\n`);
  const second = await recoverDataDir(dataDir);
  assert.is(second.audit_quarantine_files.length, 1);
  const repaired = await wholeLog(dataDir, a.tenantId);
  assert.is(repaired.length, 2);
  assert.equal((repaired[1].payload as Record<string, unknown>).recovered_from, {
    seq: salvaged.seq,
    ts: salvaged.ts,
    entry_hash: salvaged.entry_hash,
  });
  const again = await buildApp(dataDir, a.apiKey);
  const list = await call(again, 'GET', '/v1/audit');
  assert.is(list.status, 200);
  assert.is(list.body.length, 2);
  assert.is((await call(again, 'GET', '/v1/audit/verify-chain')).body.intact, true);
  await again.app.close();
});

test('an append cuts a torn remainder past its head, and re-reads a log changed under it', async () => {
  const dataDir = await mkdtemp(join(work, 'head-'));
  const audit = new AuditLog(new DataLayout(dataDir));
  const event = { action: 'document.export', subject_type: 'document', subject_id: 'doc_x' };
  await audit.append('tnt_x', event);
  const log = join(dataDir, 'tenants', 'tnt_x', 'audit.log');
  // What a failed append whose cut also failed would leave: bytes with no newline.
  await appendFile(log, '{"seq":2,"ts":"20');
  await audit.append('tnt_x', event);
  assert.is((await wholeLog(dataDir, 'tnt_x')).length, 2);
  // A whole line written by someone else is never cut: the append fails and the head is read again.
  const lines = (await readFile(log, 'utf8')).split('\n');
  await appendFile(log, `${lines[1]}\n`);
  try {
    await audit.append('tnt_x', event);
    assert.unreachable('the append went on over a log changed under it');
  } catch (error) {
    assert.match(String(error), /changed outside this process/);
  }
  assert.is((await readFile(log, 'utf8')).split('\n').filter(Boolean).length, 3);
  const next = await audit.append('tnt_x', event);
  assert.is(next.seq, 3, 'the next append follows the line it found');
});

test.run();
