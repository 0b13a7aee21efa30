// Daemon bench: a real daemon process with 2 engine slots. (1) Throughput of engine-bound requests
// (page previews) for 1 client and for N clients on N slots — the ratio says how close to linear it
// scales. (2) Resident memory (peak, from /proc) while a 300-page, ~28 MB document is uploaded,
// classified, searched (twice: the second through the revision's text index), previewed, cropped and
// corrected (propose + apply on page 150): the target is under 1 GB. The daemon runs with the
// allocator settings it is meant to be launched with (DAEMON_MALLOC_ENV; DOCFIX_BENCH_PLAIN_MALLOC=1
// runs it without them).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_MALLOC_ENV } from '../src/engine-memory.ts';
import { mupdf } from '../src/pdf/mupdf-adapter.ts';

/** The daemon under test; DOCFIX_BENCH_DAEMON_BIN points at another checkout's to compare builds. */
const BIN =
  process.env.DOCFIX_BENCH_DAEMON_BIN ?? fileURLToPath(new URL('../bin/docfix-daemon.js', import.meta.url));
const CORPUS = fileURLToPath(new URL('../fixtures/corpus/pdf/', import.meta.url));
const GENERATED = fileURLToPath(new URL('../fixtures/generated/', import.meta.url));

/** 300 pages, each with a line of text and a 200×160 noise image (incompressible): about 28 MB. */
export function makeHeavyPdf(pages = 300): string {
  const path = join(GENERATED, `heavy-${pages}.pdf`);
  if (existsSync(path) && statSync(path).size > 0) return path;
  mkdirSync(GENERATED, { recursive: true });
  const doc = new mupdf.PDFDocument();
  const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
  let seed = 12345;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
  for (let i = 0; i < pages; i++) {
    const noise = new Uint8Array(200 * 160 * 3);
    for (let k = 0; k < noise.length; k++) noise[k] = random();
    const image = doc.addStream(noise, {
      Type: doc.newName('XObject'),
      Subtype: doc.newName('Image'),
      Width: 200,
      Height: 160,
      ColorSpace: doc.newName('DeviceRGB'),
      BitsPerComponent: 8,
    });
    const resources = doc.addObject({ Font: { F1: font }, XObject: { Im0: image } });
    const contents = `BT /F1 14 Tf 72 740 Td (Page ${i + 1} of the heavy bench document: invoice total 1200) Tj ET q 400 0 0 320 100 300 cm /Im0 Do Q`;
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, contents));
  }
  const bytes = doc.saveToBuffer('compress').asUint8Array();
  const { writeFileSync, renameSync } = fs;
  writeFileSync(`${path}.tmp`, bytes);
  renameSync(`${path}.tmp`, path);
  doc.destroy();
  return path;
}

export interface Daemon {
  child: ChildProcess;
  url: string;
  key: string;
  dir: string;
  /** Lines the daemon wrote to stderr and its logged errors (read so the pipes never fill; the last 200 kept). */
  log: string[];
}

export async function startDaemon(slots: number): Promise<Daemon> {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-bench-'));
  const env = {
    ...process.env,
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_ENGINE_SLOTS: String(slots),
    DOCFIX_RATE_PER_MINUTE: '1000000',
    DOCFIX_RATE_BURST: '1000000',
    // The allocator settings the daemon is meant to be launched with (src/engine-memory.ts).
    ...(process.env.DOCFIX_BENCH_PLAIN_MALLOC ? {} : DAEMON_MALLOC_ENV),
  };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', join(dir, 'data')], {
    env,
  });
  const log: string[] = [];
  let partial = '';
  child.stderr!.on('data', (c: Buffer) => {
    const lines = (partial + c.toString()).split('\n');
    partial = lines.pop() ?? '';
    log.push(...lines);
    if (log.length > 200) log.splice(0, log.length - 200);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      // The daemon's error log (pino JSON lines, level 50) comes on stdout after the first line.
      if (out.includes('listening on')) {
        log.push(
          ...c
            .toString()
            .split('\n')
            .filter((l) => l.includes('"level":50')),
        );
        if (log.length > 200) log.splice(0, log.length - 200);
        return;
      }
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error('daemon exited')));
  });
  const key = JSON.parse(readFileSync(join(dir, 'config', 'config.json'), 'utf8')).local.api_key as string;
  return { child, url, key, dir, log };
}

export async function stopDaemon(d: Daemon): Promise<void> {
  const exited = new Promise((r) => d.child.on('exit', r));
  d.child.kill('SIGTERM');
  await exited;
  await rm(d.dir, { recursive: true, force: true });
}

export async function upload(d: Daemon, path: string, key = d.key): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(path)], { type: 'application/pdf' }), 'bench.pdf');
  const res = await fetch(`${d.url}/v1/documents`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await res.json()) as { document_id: string };
  if (res.status !== 201) throw new Error(`upload failed: ${JSON.stringify(body)}`);
  return body.document_id;
}

async function get(d: Daemon, path: string): Promise<number> {
  const res = await fetch(`${d.url}${path}`, { headers: { authorization: `Bearer ${d.key}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  return res.status;
}

async function post(
  d: Daemon,
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, string> }> {
  const res = await fetch(`${d.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, string> };
}

/** Peak resident memory of a process (VmHWM: every thread of it, workers included), in MiB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export async function benchDaemon(): Promise<Record<string, unknown>> {
  const slots = 2;
  const d = await startDaemon(slots);
  try {
    const doc = await upload(d, join(CORPUS, 'tracemonkey-two-column.pdf'));
    const requests = 24;
    const path = (i: number) => `/v1/documents/${doc}/pages/${i % 14}/crop.png?x=0&y=0&w=1200&h=1200&dpi=300`;
    await get(d, path(0)); // warm both slots
    await get(d, path(1));
    const run = async (clients: number) => {
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          for (let i = 0; i < requests; i++) await get(d, path(c * requests + i));
        }),
      );
      return (clients * requests) / ((performance.now() - t0) / 1000);
    };
    const one = [await run(1), await run(1), await run(1)].sort((a, b) => a - b)[1];
    const many = [await run(slots), await run(slots), await run(slots)].sort((a, b) => a - b)[1];

    const heavy = makeHeavyPdf(300);
    const t0 = performance.now();
    const heavyDoc = await upload(d, heavy);
    const uploadMs = performance.now() - t0;
    await fetch(`${d.url}/v1/documents/${heavyDoc}/classify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.key}` },
    });
    await get(d, `/v1/documents/${heavyDoc}/search?q=invoice%20total`);
    // A rare phrase: the revision's text index was built by the search above (either slot reads it).
    const t1 = performance.now();
    await get(d, `/v1/documents/${heavyDoc}/search?q=Page%20150%20of`);
    const rareSearchMs = performance.now() - t1;
    for (const p of [0, 150, 299]) {
      await get(d, `/v1/documents/${heavyDoc}/pages/${p}/preview.png`);
      await get(d, `/v1/documents/${heavyDoc}/pages/${p}/crop.png?x=0&y=0&w=900&h=900&dpi=600`);
    }
    // A correction on page 150 of the heavy document: propose, then apply.
    const att = await post(d, '/v1/attestations', { document_id: heavyDoc });
    const request = {
      page_index: 150,
      target: { method: 'text_layer', find: 'invoice' },
      replacement: 'invocie',
      attestation_id: att.json.attestation_id,
    };
    const t2 = performance.now();
    const proposal = await post(d, `/v1/documents/${heavyDoc}/edits:propose`, request);
    const proposeMs = performance.now() - t2;
    const t3 = performance.now();
    const applied = await post(d, `/v1/documents/${heavyDoc}/edits`, {
      request,
      apply: { proposal_id: proposal.json.proposal_id, confirm_token: proposal.json.confirm_token },
    });
    const applyMs = performance.now() - t3;
    return {
      engine_slots: slots,
      crop_requests_per_s_1_client: Math.round(one * 10) / 10,
      crop_requests_per_s_n_clients: Math.round(many * 10) / 10,
      scaling_n_over_1: Math.round((many / one) * 100) / 100,
      heavy_document_mb: Math.round((statSync(heavy).size / 1048576) * 10) / 10,
      heavy_upload_ms: Math.round(uploadMs),
      heavy_rare_search_after_first_ms: Math.round(rareSearchMs),
      heavy_propose_ms: Math.round(proposeMs),
      heavy_apply_ms: Math.round(applyMs),
      heavy_apply_status: applied.status,
      daemon_env: process.env.DOCFIX_BENCH_PLAIN_MALLOC ? {} : DAEMON_MALLOC_ENV,
      daemon_peak_rss_mb: Math.round(peakRssMb(d.child.pid!)),
    };
  } finally {
    await stopDaemon(d);
  }
}
