// PostgreSQL bench (issue 14): a private cluster with PostgreSQL's default durability (fsync on),
// daemon processes with 2 engine slots each.
//   (1) Throughput on one database: one daemon vs two (clients spread over them), for storage-bound
//       requests (an attestation: an audited change, row lock + audit append in one transaction)
//       and for engine-bound corrections (propose + apply of one word on a one-page PDF, each client
//       on its own document). Everything shares this machine's cores, the database included: the
//       ratio says what a second daemon adds here, not what a second machine would.
//   (2) Latency of one daemon, requests one at a time, on PostgreSQL vs on the filesystem.
// Medians of repeated runs; nothing here is asserted.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startPostgres } from '../test/daemon/postgres-server.ts';
import { daemonEnv, startDaemon, type RealDaemon } from '../test/daemon/real-daemon.ts';

const run = promisify(execFile);
const DAEMON_BIN = fileURLToPath(new URL('../bin/docfix-daemon.js', import.meta.url));
const PDF = fileURLToPath(new URL('../fixtures/corpus/pdf/latex-minimal.pdf', import.meta.url));
const WORD: [string, string] = ['nonumy', 'nonmuy'];
const CLIENTS = 4;

interface Endpoint {
  url: string;
  key: string;
}

async function send(
  on: Endpoint,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, string>> {
  const res = await fetch(`${on.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${on.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json as Record<string, string>;
}

async function newDocument(on: Endpoint): Promise<{ id: string; attestation: string }> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(PDF)], { type: 'application/pdf' }), 'bench.pdf');
  const res = await fetch(`${on.url}/v1/documents`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${on.key}` },
  });
  const up = (await res.json()) as { document_id: string };
  if (res.status !== 201) throw new Error(`upload: ${JSON.stringify(up)}`);
  const att = await send(on, 'POST', '/v1/attestations', { document_id: up.document_id });
  return { id: up.document_id, attestation: att.attestation_id };
}

/** One correction (propose + apply), alternating the word back and forth. */
async function correct(on: Endpoint, doc: { id: string; attestation: string }, n: number): Promise<void> {
  const [find, replacement] = n % 2 === 0 ? WORD : [WORD[1], WORD[0]];
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find, match_index: 0 },
    replacement,
    attestation_id: doc.attestation,
  };
  const p = await send(on, 'POST', `/v1/documents/${doc.id}/edits:propose`, request);
  await send(on, 'POST', `/v1/documents/${doc.id}/edits`, {
    request,
    apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Operations a second over `seconds`, CLIENTS clients spread over the endpoints. */
async function throughput<S>(
  endpoints: Endpoint[],
  seconds: number,
  setup: (on: Endpoint) => Promise<S>,
  op: (on: Endpoint, state: S, n: number) => Promise<void>,
): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const on = endpoints[c % endpoints.length];
      return { on, state: await setup(on) };
    }),
  );
  let done = 0;
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    clients.map(async ({ on, state }) => {
      for (let n = 0; performance.now() < end; n++) {
        await op(on, state, n);
        done++;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}

/** Median latency (ms) of `op`, one at a time. */
async function latency(times: number, op: (n: number) => Promise<void>): Promise<number> {
  const ms: number[] = [];
  for (let n = 0; n < times; n++) {
    const t0 = performance.now();
    await op(n);
    ms.push(performance.now() - t0);
  }
  return median(ms);
}

async function measureLatency(on: Endpoint): Promise<Record<string, number>> {
  const doc = await newDocument(on);
  await correct(on, doc, 0); // warm the engine slot and the caches
  await correct(on, doc, 1);
  return {
    get_document_ms: round(
      await latency(40, async () => void (await send(on, 'GET', `/v1/documents/${doc.id}`))),
    ),
    attestation_ms: round(
      await latency(
        40,
        async () => void (await send(on, 'POST', '/v1/attestations', { document_id: doc.id })),
      ),
    ),
    correction_ms: round(await latency(12, (n) => correct(on, doc, n))),
  };
}

export default async function benchPostgres(): Promise<Record<string, unknown>> {
  const work = await mkdtemp(join(tmpdir(), 'docfix-bench-pg-'));
  const pgs = await startPostgres({ durable: true });
  const daemons: RealDaemon[] = [];
  const env = { DOCFIX_ENGINE_SLOTS: '2', DOCFIX_ENGINE_QUEUE: '32' };
  const launch = async (name: string, args: string[]) => {
    const d = await startDaemon(join(work, `data-${name}`), join(work, `config-${name}`), env, args);
    daemons.push(d);
    return d;
  };
  try {
    const db = await pgs.newDatabase('bench');
    const { stdout } = await run(
      process.execPath,
      [DAEMON_BIN, 'keys', 'create', '--database', db, '--tenant', 'bench', '--plan', 'business', '--json'],
      { env: daemonEnv(join(work, 'admin-config')) },
    );
    const key = (JSON.parse(stdout) as { api_key: string }).api_key;
    const a = await launch('pg-a', ['--database', db]);
    const b = await launch('pg-b', ['--database', db]);
    const fs = await launch('fs', []);
    const A = { url: a.url, key };
    const B = { url: b.url, key };
    const F = { url: fs.url, key: fs.apiKey };

    const attest = (on: Endpoint, state: { id: string }) =>
      send(on, 'POST', '/v1/attestations', { document_id: state.id }).then(() => undefined);
    const storage1 = median([
      await throughput([A], 4, newDocument, attest),
      await throughput([A], 4, newDocument, attest),
      await throughput([A], 4, newDocument, attest),
    ]);
    const storage2 = median([
      await throughput([A, B], 4, newDocument, attest),
      await throughput([A, B], 4, newDocument, attest),
      await throughput([A, B], 4, newDocument, attest),
    ]);
    const engine1 = median([
      await throughput([A], 8, newDocument, correct),
      await throughput([A], 8, newDocument, correct),
    ]);
    const engine2 = median([
      await throughput([A, B], 8, newDocument, correct),
      await throughput([A, B], 8, newDocument, correct),
    ]);
    // Latency with the other daemons idle.
    const pgLatency = await measureLatency(A);
    const fsLatency = await measureLatency(F);
    return {
      machine_cores: (await import('node:os')).availableParallelism(),
      clients: CLIENTS,
      engine_slots_per_daemon: 2,
      postgres: 'fsync on (defaults); cluster on this machine',
      attestations_per_s_1_daemon: round(storage1),
      attestations_per_s_2_daemons: round(storage2),
      attestations_2_over_1: round(storage2 / storage1, 2),
      corrections_per_s_1_daemon: round(engine1, 2),
      corrections_per_s_2_daemons: round(engine2, 2),
      corrections_2_over_1: round(engine2 / engine1, 2),
      latency_postgres: pgLatency,
      latency_filesystem: fsLatency,
      latency_postgres_over_filesystem: Object.fromEntries(
        Object.keys(pgLatency).map((k) => [k, round(pgLatency[k] / fsLatency[k], 2)]),
      ),
    };
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
    await pgs.stop();
    await rm(work, { recursive: true, force: true });
  }
}
