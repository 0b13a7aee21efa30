// Load bench: a real daemon on loopback, 16 clients for 60 s (bounded in time and in requests per
// client), two tenants, each client on its own small corpus document (1–4 pages) going round search,
// preview, crop, the document's record, usage, the audit list, propose, apply and undo (a step
// answered busy is tried again after a short wait). Reports latency (p50/p99, overall and per kind),
// the light requests' p99 and busy answers (everything but propose, apply and a client's first
// search, preview and crop, which build the revision's text index and render: docs/daemon.md,
// "Lanes"), every status seen
// with its error codes, the 5xx other than 503 busy (expected: none), and the daemon's peak resident
// memory (VmHWM of its process: main thread and engine workers together).
// DOCFIX_BENCH_LOAD_SECONDS / DOCFIX_BENCH_LOAD_CLIENTS shorten a run while working on it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sameGlyphReplacement } from '../src/preflight/page-preflight.ts';
import { peakRssMb, startDaemon, stopDaemon, upload, type Daemon } from './daemon.ts';

const CLI = fileURLToPath(new URL('../bin/docfix.js', import.meta.url));
const CORPUS = fileURLToPath(new URL('../fixtures/corpus/pdf/', import.meta.url));

/** Small corpus files and a word each that corrects at tier 1 (manifest tasks of kind `same`). */
const FILES: { file: string; page: number; find: string }[] = [
  { file: 'libreoffice-writer.pdf', page: 0, find: 'nonumy' },
  { file: 'latex-4-pages.pdf', page: 0, find: 'should' },
  { file: 'google-docs.pdf', page: 0, find: 'Simple' },
  { file: 'latex-multicolumn.pdf', page: 0, find: 'Nullam' },
  { file: 'pdfa-crazyones.pdf', page: 0, find: 'rebels' },
  { file: 'latex-minimal.pdf', page: 0, find: 'dolore' },
];
/** Requests per client at most, whatever the time left. */
const MAX_REQUESTS_PER_CLIENT = 5000;
const KINDS = [
  'search',
  'preview',
  'crop',
  'document',
  'usage',
  'audit',
  'propose',
  'apply',
  'undo',
] as const;
type Kind = (typeof KINDS)[number];
/** Kinds that need an engine slot; every other request is light (a client's first search excepted). */
const ENGINE_KINDS: ReadonlySet<Kind> = new Set<Kind>(['propose', 'apply']);
/** Kinds whose first answer on a revision is work of a slot (the text index, the first render). */
const FIRST_OF_REVISION: ReadonlySet<Kind> = new Set<Kind>(['search', 'preview', 'crop']);

interface Sample {
  kind: Kind;
  ms: number;
  status: number;
  code: string | null;
  /** Answered by the light lane (caches, stored records, the render slot). */
  light: boolean;
}

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
}

function createKey(d: Daemon, tenant: string): string {
  const out = execFileSync(
    process.execPath,
    [
      CLI,
      'keys',
      'create',
      '--data-dir',
      join(d.dir, 'data'),
      '--tenant',
      tenant,
      '--plan',
      'business',
      '--json',
    ],
    { env: { ...process.env, DOCFIX_CONFIG_DIR: join(d.dir, 'config') }, encoding: 'utf8' },
  );
  return (JSON.parse(out) as { api_key: string }).api_key;
}

async function call(
  d: Daemon,
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> | null; code: string | null }> {
  const res = await fetch(`${d.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = res.headers.get('content-type') ?? '';
  let json: Record<string, unknown> | null = null;
  if (type.includes('json')) json = (await res.json()) as Record<string, unknown>;
  else await res.arrayBuffer();
  const code =
    res.status < 400
      ? null
      : json && typeof json.error === 'string'
        ? json.error
        : json && typeof (json.detail as { error?: unknown } | undefined)?.error === 'string'
          ? (json.detail as { error: string }).error
          : json && typeof json.code === 'string'
            ? json.code
            : `(${type || 'no body'}${json ? ` ${Object.keys(json).join(',')}` : ''})`;
  return { status: res.status, json, code };
}

async function client(d: Daemon, key: string, c: number, deadline: number, samples: Sample[]): Promise<void> {
  const spec = FILES[c % FILES.length];
  let documentId = '';
  for (let tries = 0; !documentId; tries++) {
    try {
      documentId = await upload(d, join(CORPUS, spec.file), key);
    } catch (error) {
      if (tries > 100 || !/busy/.test(String(error))) throw error; // busy: every slot taken, retry
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
  const att = await call(d, key, 'POST', '/v1/attestations', { document_id: documentId });
  const request = {
    page_index: spec.page,
    target: { method: 'text_layer', find: spec.find },
    replacement: sameGlyphReplacement(spec.find),
    attestation_id: att.json?.attestation_id,
  };
  const doc = `/v1/documents/${documentId}`;
  let proposal: Record<string, unknown> | null = null;
  /** Kinds this client has had answered once: the first search, preview and crop of its revision. */
  const answered = new Set<Kind>();
  for (let i = 0; i < MAX_REQUESTS_PER_CLIENT && Date.now() < deadline; i++) {
    const kind = KINDS[i % KINDS.length];
    const t = performance.now();
    let r: Awaited<ReturnType<typeof call>>;
    switch (kind) {
      case 'search':
        r = await call(d, key, 'GET', `${doc}/search?q=${encodeURIComponent(spec.find)}`);
        break;
      case 'preview':
        r = await call(d, key, 'GET', `${doc}/pages/${spec.page}/preview.png`);
        break;
      case 'crop':
        r = await call(d, key, 'GET', `${doc}/pages/${spec.page}/crop.png?x=200&y=200&w=800&h=600&dpi=300`);
        break;
      case 'document':
        r = await call(d, key, 'GET', doc);
        break;
      case 'usage':
        r = await call(d, key, 'GET', '/v1/usage');
        break;
      case 'audit':
        r = await call(d, key, 'GET', `/v1/audit?subject_id=${documentId}&limit=20`);
        break;
      case 'propose':
        r = await call(d, key, 'POST', `${doc}/edits:propose`, request);
        proposal = r.status === 200 ? r.json : null;
        break;
      case 'apply':
        if (!proposal) continue; // the proposal was not answered (busy): nothing to apply
        r = await call(d, key, 'POST', `${doc}/edits`, {
          request,
          apply: { proposal_id: proposal.proposal_id, confirm_token: proposal.confirm_token },
        });
        break;
      case 'undo':
        r = await call(d, key, 'POST', `${doc}/undo`);
        break;
    }
    // The first search of the uploaded revision reads every page (its text index), the first preview
    // and crop render: work of a slot. Once answered, they are light (the read cache).
    const light = !ENGINE_KINDS.has(kind) && (!FIRST_OF_REVISION.has(kind) || answered.has(kind));
    if (r.status === 200) answered.add(kind);
    samples.push({ kind, ms: performance.now() - t, status: r.status, code: r.code, light });
    // Busy or rate-limited: wait a little (jittered) and try the same step again, as a client would.
    if (r.status === 503 || r.status === 429) {
      await new Promise((ok) => setTimeout(ok, 100 + Math.floor(Math.random() * 200)));
      i--;
    }
  }
}

/** The daemon's logged errors (pino level 50) by message, with their counts: what a 5xx was. */
function errorMessages(log: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of log) {
    try {
      const msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? '');
      counts[msg] = (counts[msg] ?? 0) + 1;
    } catch {
      // a line cut in two by the pipe: not counted
    }
  }
  return counts;
}

export async function benchLoad(): Promise<Record<string, unknown>> {
  const clients = Number(process.env.DOCFIX_BENCH_LOAD_CLIENTS ?? 16);
  const seconds = Number(process.env.DOCFIX_BENCH_LOAD_SECONDS ?? 60);
  const slots = 2;
  const d = await startDaemon(slots);
  const pid = d.child.pid!;
  let recycled = 0;
  d.child.stderr!.on('data', (c: Buffer) => {
    recycled += c.toString().split('engine worker recycled').length - 1;
  });
  let rssSamples = 0;
  let rssMax = 0;
  const timeline: number[] = [];
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      rssMax = Math.max(rssMax, rss);
      if (rssSamples % 8 === 0) timeline.push(Math.round(rss));
      rssSamples++;
    } catch {
      // the daemon is gone: its exit shows in the statuses
    }
  }, 250);
  try {
    const keys = [createKey(d, 'load-alpha'), createKey(d, 'load-beta')];
    const samples: Sample[] = [];
    const t0 = performance.now();
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, (_, c) => client(d, keys[c % 2], c, deadline, samples)),
    );
    const elapsed = (performance.now() - t0) / 1000;
    const statuses: Record<string, number> = {};
    const codes: Record<string, number> = {};
    for (const s of samples) {
      statuses[s.status] = (statuses[s.status] ?? 0) + 1;
      if (s.code) codes[`${s.status} ${s.code}`] = (codes[`${s.status} ${s.code}`] ?? 0) + 1;
    }
    const byKind = Object.fromEntries(
      KINDS.map((k) => {
        const ms = samples.filter((s) => s.kind === k).map((s) => s.ms);
        return [k, { requests: ms.length, p50_ms: percentile(ms, 50), p99_ms: percentile(ms, 99) }];
      }),
    );
    const all = samples.map((s) => s.ms);
    const light = samples.filter((s) => s.light);
    const answered = samples.filter((s) => s.status !== 503).map((s) => s.ms);
    return {
      clients,
      seconds,
      tenants: 2,
      engine_slots: slots,
      files: FILES.map((f) => f.file),
      requests: samples.length,
      requests_per_s: Math.round((samples.length / elapsed) * 10) / 10,
      p50_ms: percentile(all, 50),
      p99_ms: percentile(all, 99),
      /** The same without the busy answers (the requests that did their work). */
      p50_ms_not_busy: percentile(answered, 50),
      p99_ms_not_busy: percentile(answered, 99),
      /** Light requests (record, usage, audit; preview, crop, search after the first): p99 and busy answers. */
      light_requests: light.length,
      light_p50_ms: percentile(
        light.map((s) => s.ms),
        50,
      ),
      light_p99_ms: percentile(
        light.map((s) => s.ms),
        99,
      ),
      light_busy: light.filter((s) => s.status === 503).length,
      by_kind: byKind,
      statuses,
      error_codes: codes,
      server_errors_other_than_busy: samples.filter((s) => s.status >= 500 && s.status !== 503).length,
      daemon_peak_rss_mb: Math.round(peakRssMb(pid)),
      daemon_rss_max_sampled_mb: Math.round(rssMax),
      rss_samples: rssSamples,
      /** Daemon RSS every 2 s through the run (MiB). */
      rss_timeline_mb: timeline,
      workers_recycled: recycled,
      daemon_log_tail: d.log
        .filter((l) => !l.includes('engine worker recycled') && !l.includes('"level":50'))
        .slice(-5),
      server_error_messages: errorMessages(d.log),
    };
  } finally {
    clearInterval(sampler);
    await stopDaemon(d);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchLoad(), null, 2));
}
