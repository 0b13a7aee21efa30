// One daemon per data directory, and what a start-up recovers: real daemon processes on private
// folders and free ports. A second daemon on the same directory (also named by another path) exits
// non-zero naming the first; the lock is free again once the first is killed with SIGKILL; a start
// removes temp uploads and `.tmp-*` files of dead processes, cuts a torn last audit line and appends
// the audit entry a change owes; `docfix daemon serve` killed with SIGKILL takes its daemon with it.
import { spawn, spawnSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DAEMON_MALLOC_ENV } from '../../src/daemon-environment.ts';
import { CORPUS_DIR } from './harness.ts';
import { call, DAEMON_BIN, daemonEnv, startDaemon, uploadPdf } from './real-daemon.ts';

const DOCFIX = fileURLToPath(new URL('../../bin/docfix.js', import.meta.url));
let work: string;

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'docfix-lock-'));
});
test.after(async () => {
  await rm(work, { recursive: true, force: true });
});

test('a second daemon on the same data directory refuses, naming the first; kill -9 frees the lock', async () => {
  const dataDir = join(work, 'one');
  const configDir = join(work, 'one-config');
  const first = await startDaemon(dataDir, configDir);
  try {
    for (const path of [dataDir, join(dataDir, '..', 'one')]) {
      const second = spawnSync(process.execPath, [DAEMON_BIN, 'serve', '--port', '0', '--data-dir', path], {
        env: daemonEnv(configDir),
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.is.not(second.status, 0, 'the second daemon exits non-zero');
      assert.match(second.stderr, /in use by another docfix daemon/);
      assert.match(second.stderr, new RegExp(`pid ${first.child.pid}\\b`));
      assert.ok(second.stderr.includes(first.url), `names the first one's address: ${second.stderr}`);
      assert.not.match(second.stdout, /listening/);
    }
    assert.is((await fetch(`${first.url}/healthz`)).status, 200, 'the first one still serves');
  } finally {
    await first.kill9();
  }
  const again = await startDaemon(dataDir, configDir);
  assert.is((await fetch(`${again.url}/healthz`)).status, 200, 'a daemon starts once the first is gone');
  await again.stop();
});

test('start-up removes leftovers, cuts a torn audit line and appends the entry a change owes', async () => {
  const dataDir = join(work, 'two');
  const configDir = join(work, 'two-config');
  let d = await startDaemon(dataDir, configDir);
  const pdf = new Uint8Array(await readFile(join(CORPUS_DIR, 'latex-minimal.pdf')));
  const up = await uploadPdf(d, pdf, 'latex-minimal.pdf');
  assert.is(up.status, 201);
  const id = up.body.document_id as string;
  const gone = await uploadPdf(d, pdf, 'latex-minimal.pdf');
  await d.kill9();

  const [tenantId] = await readdir(join(dataDir, 'tenants'));
  const tenantDir = join(dataDir, 'tenants', tenantId);
  const docDir = join(tenantDir, 'documents', id);
  // A change on disk whose entry never reached the log (as if killed between the two writes).
  const record = JSON.parse(await readFile(join(docDir, 'record.json'), 'utf8'));
  const attestation = {
    attestation_id: 'att_owed',
    statement_version: '2026-08-v1',
    statement_text: 'x',
    created_at: new Date().toISOString(),
  };
  record.attestations.push(attestation);
  record.pending_audit = [
    {
      op_id: 'op_owed',
      at: '2026-01-01T00:00:00.000Z',
      when: 'present',
      event: {
        action: 'attestation.create',
        subject_type: 'document',
        subject_id: id,
        payload: { attestation_id: 'att_owed', op_id: 'op_owed' },
      },
    },
    // A delete that never happened (the folder was not retired): owes nothing.
    {
      op_id: 'op_not_done',
      at: new Date().toISOString(),
      when: 'deleted',
      event: {
        action: 'document.delete',
        subject_type: 'document',
        subject_id: id,
        payload: { op_id: 'op_not_done' },
      },
    },
  ];
  await writeFile(join(docDir, 'record.json'), JSON.stringify(record));
  // A delete retired but not logged: owes its entry, and its folder goes.
  const goneDir = join(tenantDir, 'documents', gone.body.document_id);
  const goneRecord = JSON.parse(await readFile(join(goneDir, 'record.json'), 'utf8'));
  goneRecord.pending_audit = [
    {
      op_id: 'op_deleted',
      // Later than op_owed: recovery appends owed entries in the order the changes were made.
      at: '2026-01-01T00:00:01.000Z',
      when: 'deleted',
      event: {
        action: 'document.delete',
        subject_type: 'document',
        subject_id: gone.body.document_id,
        payload: { op_id: 'op_deleted' },
      },
    },
  ];
  await writeFile(join(goneDir, 'record.json'), JSON.stringify(goneRecord));
  const retired = join(tenantDir, 'documents', `.deleted-${gone.body.document_id}-abcd`);
  await import('node:fs/promises').then((fs) => fs.rename(goneDir, retired));
  // A torn last line, and leftovers of killed requests (pid 999999999 does not exist).
  const auditFile = join(tenantDir, 'audit.log');
  const before = (await readFile(auditFile, 'utf8')).split('\n').filter(Boolean).length;
  await appendFile(auditFile, '{"seq": 99, "torn');
  await mkdir(join(dataDir, 'tmp'), { recursive: true });
  await writeFile(join(dataDir, 'tmp', 'upload-999999999-0011223344556677'), 'half an upload');
  await writeFile(join(docDir, '.tmp-999999999-aabbccddeeff'), '{"half": ');
  await writeFile(join(dataDir, 'keys', '.tmp-999999999-001122334455'), '{');
  const live = join(dataDir, 'keys', `.tmp-${process.pid}-0a0b0c0d0e0f`);
  await writeFile(live, '{'); // a live process's write in progress (an admin command): kept

  d = await startDaemon(dataDir, configDir);
  try {
    assert.equal(await readdir(join(dataDir, 'tmp')), [], 'temp uploads removed');
    assert.not.ok(
      (await readdir(docDir)).some((n) => n.startsWith('.tmp-')),
      '.tmp file removed',
    );
    const keys = await readdir(join(dataDir, 'keys'));
    assert.ok(keys.includes(`.tmp-${process.pid}-0a0b0c0d0e0f`), 'a live process keeps its temp file');
    assert.not.ok(keys.includes('.tmp-999999999-001122334455'));
    assert.not.ok(
      (await readdir(join(tenantDir, 'documents'))).some((n) => n.startsWith('.deleted-')),
      'the deleted document folder is removed',
    );
    const lines = (await readFile(auditFile, 'utf8')).split('\n').filter(Boolean);
    const entries = lines.map((l) => JSON.parse(l));
    assert.is(
      entries.length,
      before + 2,
      'the torn line is gone; the owed attestation and delete are appended',
    );
    assert.equal(
      entries.slice(-2).map((e) => [e.action, e.payload.op_id, e.payload.recovered]),
      [
        ['attestation.create', 'op_owed', true],
        ['document.delete', 'op_deleted', true],
      ],
    );
    const chain = await call(d, 'GET', '/v1/audit/verify-chain');
    assert.is(chain.body.intact, true, JSON.stringify(chain.body));
    const after = JSON.parse(await readFile(join(docDir, 'record.json'), 'utf8'));
    assert.equal(after.pending_audit, [], 'the record owes nothing any more');
    assert.is((await call(d, 'GET', `/v1/documents/${id}`)).status, 200, 'the document was not deleted');
    assert.is((await call(d, 'GET', `/v1/documents/${gone.body.document_id}`)).status, 404);
  } finally {
    await rm(live, { force: true });
    await d.stop();
  }
});

test('docfix daemon serve killed with SIGKILL takes its daemon with it; exit codes name the signal', async () => {
  const dataDir = join(work, 'three');
  const env = daemonEnv(join(work, 'three-config'));
  const runServe = () => {
    const cli = spawn(process.execPath, [DOCFIX, 'daemon', 'serve', '--port', '0', '--data-dir', dataDir], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => cli.on('exit', (code) => resolve(code)));
    const ready = new Promise<void>((resolve, reject) => {
      let out = '';
      cli.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/listening on/.test(out)) resolve();
      });
      void exited.then(() => reject(new Error('docfix daemon serve exited early')));
    });
    return { cli, exited, ready };
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const waitGone = async (pid: number) => {
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    return !alive(pid);
  };

  let run = runServe();
  await run.ready;
  let daemonPid = Number(await readFile(join(dataDir, 'daemon.pid'), 'utf8'));
  assert.is.not(daemonPid, run.cli.pid, 'the daemon is the CLI’s child');
  // The daemon process starts with the allocator settings that bound its memory (Linux: its environ).
  const environ = (await readFile(`/proc/${daemonPid}/environ`, 'latin1')).split('\0');
  for (const [key, value] of Object.entries(DAEMON_MALLOC_ENV))
    assert.ok(environ.includes(`${key}=${value}`), `${key}=${value} in the daemon's environment`);
  run.cli.kill('SIGKILL');
  assert.ok(await waitGone(daemonPid), 'the daemon stops when the CLI is killed with SIGKILL');

  run = runServe();
  await run.ready;
  daemonPid = Number(await readFile(join(dataDir, 'daemon.pid'), 'utf8'));
  process.kill(daemonPid, 'SIGKILL');
  assert.is(await run.exited, 137, 'a daemon killed by SIGKILL: the CLI exits 128 + 9');
});

test.run();
