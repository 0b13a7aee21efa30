// End to end on real files: upload corpus PDFs through the daemon app, attest, propose and apply the
// corpus manifest's `kind: same` text-layer tasks with the real engine, download through the gate,
// and check the released files with poppler — a reader docfix did not write:
//   pdftotext: on that page the old word occurs once less and the new word once more;
//   pdftoppm:  before/after renders differ only inside the correction's declared box.
// Then undo everything (download → nothing_to_export) and redo (the same bytes come back).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ENGINE_TASKS } from '../../src/engine-tasks.ts';
import { parseManifest } from '../../src/corrections/save/manifest.ts';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';
import { corpusFiles } from '../../fixtures/corpus-manifest.ts';

const FILES = [
  'latex-minimal.pdf',
  'libreoffice-writer.pdf',
  'libreoffice-password.pdf',
  'pdfa-crazyones.pdf',
  'standard14-tcpdf.pdf',
  'reportlab-overlay.pdf',
];
const entries = FILES.map((name) => {
  const entry = corpusFiles().find((f) => f.file === name);
  if (!entry) throw new Error(`${name} is not in the corpus manifest`);
  return entry;
});

const RENDER_DPI = 300;
/** Poppler and MuPDF rasterise glyph edges differently; a changed pixel may sit this far outside. */
const RASTER_MARGIN_PX = 2;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let h: Harness;
let work: string;
let available = true;
let tools = true;
const summary: string[] = [];

function hasTool(name: string): boolean {
  try {
    execFileSync(name, ['-v'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

function pageText(pdf: Uint8Array, page: number, password: string | null, tag: string): string {
  const file = join(work, `${tag}.pdf`);
  writeFileSync(file, pdf);
  const pw = password ? ['-upw', password] : [];
  return execFileSync(
    'pdftotext',
    [...pw, '-f', String(page + 1), '-l', String(page + 1), '-enc', 'UTF-8', file, '-'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
  );
}

function count(haystack: string, needle: string): number {
  const h2 = haystack.toLowerCase();
  const n = needle.toLowerCase();
  let found = 0;
  for (let i = h2.indexOf(n); i !== -1; i = h2.indexOf(n, i + 1)) found += 1;
  return found;
}

interface Raster {
  width: number;
  height: number;
  data: Buffer;
}

function render(pdf: Uint8Array, page: number, password: string | null, tag: string): Raster {
  const file = join(work, `${tag}.pdf`);
  writeFileSync(file, pdf);
  const pw = password ? ['-upw', password] : [];
  const out = join(work, tag);
  execFileSync(
    'pdftoppm',
    [
      ...pw,
      '-r',
      String(RENDER_DPI),
      '-f',
      String(page + 1),
      '-l',
      String(page + 1),
      '-singlefile',
      file,
      out,
    ],
    { stdio: 'ignore' },
  );
  return parsePpm(readFileSync(`${out}.ppm`));
}

function parsePpm(buf: Buffer): Raster {
  // P6\n<w> <h>\n<max>\n<data>
  let pos = 0;
  const tokens: string[] = [];
  while (tokens.length < 4) {
    while (/\s/.test(String.fromCharCode(buf[pos]))) pos++;
    if (buf[pos] === 0x23) {
      while (buf[pos] !== 0x0a) pos++;
      continue;
    }
    let t = '';
    while (!/\s/.test(String.fromCharCode(buf[pos]))) t += String.fromCharCode(buf[pos++]);
    tokens.push(t);
  }
  pos++;
  if (tokens[0] !== 'P6') throw new Error(`not a binary PPM: ${tokens[0]}`);
  return { width: Number(tokens[1]), height: Number(tokens[2]), data: buf.subarray(pos) };
}

/** Changed pixels outside `box` (render pixels at RENDER_DPI, widened by the margin), and their bbox. */
function diffOutside(
  a: Raster,
  b: Raster,
  box: number[],
): { changed: number; outside: number; bbox: number[] | null } {
  assert.is(a.width, b.width);
  assert.is(a.height, b.height);
  const [x0, y0, x1, y1] = [
    box[0] - RASTER_MARGIN_PX,
    box[1] - RASTER_MARGIN_PX,
    box[2] + RASTER_MARGIN_PX,
    box[3] + RASTER_MARGIN_PX,
  ];
  const stride = a.width * 3;
  let changed = 0;
  let outside = 0;
  let bbox: number[] | null = null;
  for (let y = 0; y < a.height; y++) {
    const row = y * stride;
    if (a.data.compare(b.data, row, row + stride, row, row + stride) === 0) continue;
    for (let x = 0; x < a.width; x++) {
      const i = row + x * 3;
      if (a.data[i] === b.data[i] && a.data[i + 1] === b.data[i + 1] && a.data[i + 2] === b.data[i + 2])
        continue;
      changed++;
      if (x < x0 || x >= x1 || y < y0 || y >= y1) {
        outside++;
        bbox = bbox
          ? [Math.min(bbox[0], x), Math.min(bbox[1], y), Math.max(bbox[2], x + 1), Math.max(bbox[3], y + 1)]
          : [x, y, x + 1, y + 1];
      }
    }
  }
  return { changed, outside, bbox };
}

test.before(async () => {
  work = mkdtempSync(join(tmpdir(), 'docfix-corpus-'));
  tools = hasTool('pdftotext') && hasTool('pdftoppm');
  available = 'applyEdit' in ENGINE_TASKS && 'proposeEdit' in ENGINE_TASKS;
  h = await makeHarness();
});

test.after(async () => {
  await h?.close();
  rmSync(work, { recursive: true, force: true });
  if (summary.length) console.log(`\n${summary.join('\n')}`);
});

for (const entry of entries) {
  test(`${entry.file}: corrections released through the gate read true in poppler`, async () => {
    assert.ok(available, 'the engine registers proposeEdit and applyEdit');
    assert.ok(tools, 'poppler-utils (pdftotext, pdftoppm) are installed: the independent check needs them');
    const original = new Uint8Array(readFileSync(join(CORPUS_DIR, entry.file)));
    const up = await h.upload(original, { filename: entry.file, password: entry.password ?? undefined });
    assert.is(up.status, 201, JSON.stringify(up.body));
    const documentId = up.body.document_id as string;
    const base = `/v1/documents/${documentId}`;
    const att = await h.json('POST', '/v1/attestations', { document_id: documentId });
    assert.is(att.status, 201);
    const attestationId = att.body.attestation_id as string;

    let before = original;
    const released: { bytes: Uint8Array; sha: string }[] = [];
    const same = entry.tasks.filter((t) => t.kind === 'same' && t.method === 'text_layer');
    assert.ok(same.length > 0);
    // One `hard` task too (a character the document never draws): made, or refused with advice.
    const hard = entry.tasks.filter((t) => t.kind === 'hard' && t.method === 'text_layer').slice(0, 1);
    // The hard task goes first, on the original word; when the engine makes it, it is undone again.
    const tasks = [...hard, ...same];
    for (const task of tasks) {
      const request = {
        page_index: task.page,
        target: { method: 'text_layer', find: task.find, match_index: task.match_index },
        replacement: task.replace,
        attestation_id: attestationId,
      };
      const proposal = await h.json('POST', `${base}/edits:propose`, request);
      assert.is(proposal.status, 200, JSON.stringify(proposal.body));
      const p = proposal.body;
      if (p.refusal) {
        // A refusal is a normal answer, and it must say why and what would help.
        assert.ok(p.advice, `${entry.file} "${task.find}": refusal without advice`);
        assert.ok(p.advice.what || p.advice.why, 'advice says what or why');
        assert.ok(Array.isArray(p.advice.do) && p.advice.do.length > 0, 'advice says what to do');
        const applied = await h.json('POST', `${base}/edits`, {
          request,
          apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
        });
        assert.is(applied.status, 422);
        assert.is(applied.body.detail.error, 'edit_refused');
        assert.ok(applied.body.detail.advice, 'edit_refused carries advice');
        summary.push(
          `${entry.file} p${task.page} "${task.find}"→"${task.replace}" (${task.kind}): refused with advice — ${p.advice.code}: ${p.advice.do[0]}`,
        );
        continue;
      }
      const applied = await h.json('POST', `${base}/edits`, {
        request,
        apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
      });
      assert.is(applied.status, 200, `${entry.file} "${task.find}": ${JSON.stringify(applied.body)}`);
      const v = applied.body;
      assert.ok(v.passed, `${entry.file} "${task.find}" verified: ${v.failure_reason}`);
      // The apply met its proposal in the same engine slot (affinity by revision and request) and
      // added the manifest to the proposal's verified bytes, proven by objects.
      assert.is(
        v.stream_changes.applied_on_verified_proposal,
        true,
        `${entry.file} "${task.find}": apply on the proposal`,
      );
      assert.ok(
        v.guards.some((g: { name: string; passed: boolean }) => g.name === 'manifest_only' && g.passed),
      );

      const download = await h.inject({ method: 'GET', url: `${base}/export/download` });
      assert.is(download.statusCode, 200, download.body);
      assert.is(download.headers['content-type'], 'application/pdf');
      assert.match(String(download.headers['content-disposition']), /attachment; filename="/);
      const after = new Uint8Array(download.rawPayload);
      assert.is(sha(after), v.output_sha256, 'the released bytes are the verified bytes');

      // The text layer: the old word once less, the new word once more, on that page.
      const textBefore = pageText(before, task.page, entry.password, 'tb');
      const textAfter = pageText(after, task.page, entry.password, 'ta');
      if (!task.replace.toLowerCase().includes(task.find.toLowerCase())) {
        assert.is(
          count(textAfter, task.find),
          count(textBefore, task.find) - 1,
          `"${task.find}" occurs once less`,
        );
      }
      assert.is(
        count(textAfter, task.replace),
        count(textBefore, task.replace) + 1,
        `"${task.replace}" occurs once more`,
      );

      // The pixels: poppler's renders differ only inside the declared box.
      const list = await h.json('GET', `${base}/corrections`);
      const correction = list.body[list.body.length - 1];
      const box = correction.box_render as number[];
      assert.ok(Array.isArray(box) && box.length === 4, 'the correction declares its box');
      const scale = RENDER_DPI / (correction.box_dpi ?? 300);
      const scaled = box.map((n: number) => Math.round(n * scale));
      const ra = render(before, task.page, entry.password, 'ra');
      const rb = render(after, task.page, entry.password, 'rb');
      const diff = diffOutside(ra, rb, scaled);
      assert.ok(diff.changed > 0, 'poppler sees the change');
      assert.is(
        diff.outside,
        0,
        `changed pixels outside the box ${JSON.stringify(scaled)}: bbox ${JSON.stringify(diff.bbox)}`,
      );
      summary.push(
        `${entry.file} p${task.page} "${task.find}"→"${task.replace}" (${task.kind}): verified, ${diff.changed} px changed in poppler, 0 outside the box; cost ${correction.visibility_cost}`,
      );
      if (task.kind === 'hard') {
        assert.is((await h.json('POST', `${base}/undo`)).status, 200);
        continue;
      }
      released.push({ bytes: after, sha: v.output_sha256 });
      before = after;
    }

    if (released.length > 0) {
      // The manifest of the head lists every correction standing.
      const manifest = await h.inject({ method: 'GET', url: `${base}/manifest` });
      assert.is(manifest.statusCode, 200);
      const m = parseManifest(new Uint8Array(manifest.rawPayload));
      assert.is(m.corrections.length, released.length);
      assert.is(m.original_sha256, sha(original));
    }

    // Undo everything: nothing is left to release. Redo: the same bytes come back.
    for (let i = 0; i < released.length; i++) assert.is((await h.json('POST', `${base}/undo`)).status, 200);
    const none = await h.json('GET', `${base}/export/download`);
    assert.is(none.status, 409);
    assert.is(none.body.detail.error, 'nothing_to_export');
    if (released.length > 0) {
      for (let i = 0; i < released.length; i++) assert.is((await h.json('POST', `${base}/redo`)).status, 200);
      const again = await h.inject({ method: 'GET', url: `${base}/export/download` });
      assert.is(again.statusCode, 200);
      assert.is(sha(new Uint8Array(again.rawPayload)), released[released.length - 1].sha);
    }
  });
}

test('a real daemon process: upload, correct, download over HTTP; a restart keeps the token valid', async () => {
  const BIN = new URL('../../bin/docfix-daemon.js', import.meta.url).pathname;
  const data = join(work, 'daemon-data');
  const env = { ...process.env, DOCFIX_CONFIG_DIR: join(work, 'daemon-config'), DOCFIX_DATA_DIR: data };
  const start = () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', data], { env });
    const ready = new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^docfix daemon listening on (http:\/\/\S+)$/m.exec(out);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`daemon exited with ${code}: ${out}`)));
      setTimeout(() => reject(new Error(`no ready line: ${out}`)), 20_000);
    });
    return { child, ready };
  };
  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  let daemon = start();
  try {
    let url = await daemon.ready;
    const created = execFileSync(
      process.execPath,
      [BIN, 'keys', 'create', '--data-dir', data, '--tenant', 'proc', '--json'],
      {
        env,
        encoding: 'utf8',
      },
    );
    const auth = { authorization: `Bearer ${(JSON.parse(created) as { api_key: string }).api_key}` };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const original = new Uint8Array(readFileSync(join(CORPUS_DIR, 'libreoffice-writer.pdf')));
    const form = new FormData();
    form.append('file', new Blob([original], { type: 'application/pdf' }), 'letter.pdf');
    const up = await fetch(`${url}/v1/documents`, { method: 'POST', headers: auth, body: form });
    assert.is(up.status, 201);
    const documentId = ((await up.json()) as { document_id: string }).document_id;
    const att = await call('POST', '/v1/attestations', { document_id: documentId });
    const request = {
      target: { method: 'text_layer', find: 'dolore' },
      replacement: 'dolroe',
      attestation_id: att.body.attestation_id,
    };
    const p = await call('POST', `/v1/documents/${documentId}/edits:propose`, request);
    assert.is(p.status, 200);
    assert.not.ok(p.body.refusal);

    // The token is stateless: a restarted daemon (same data dir, same secret) accepts it.
    await stop(daemon.child);
    daemon = start();
    url = await daemon.ready;
    const v = await call('POST', `/v1/documents/${documentId}/edits`, {
      request,
      apply: { proposal_id: p.body.proposal_id, confirm_token: p.body.confirm_token },
    });
    assert.is(v.status, 200, JSON.stringify(v.body));
    assert.ok(v.body.passed);
    const dl = await fetch(`${url}/v1/documents/${documentId}/export/download`, { headers: auth });
    assert.is(dl.status, 200);
    assert.is(
      dl.headers.get('content-disposition'),
      `attachment; filename="letter-corrected.pdf"; filename*=UTF-8''letter-corrected.pdf`,
    );
    assert.is(sha(new Uint8Array(await dl.arrayBuffer())), v.body.output_sha256);
  } finally {
    await stop(daemon.child);
  }
});

test('the audit record of all this recomputes intact', async () => {
  const chain = await h.json('GET', '/v1/audit/verify-chain');
  assert.is(chain.status, 200);
  assert.ok(chain.body.intact, JSON.stringify(chain.body));
  const audit = await h.json('GET', '/v1/audit?limit=500');
  const actions = new Set((audit.body as { action: string }[]).map((e) => e.action));
  for (const action of [
    'document.upload',
    'attestation.create',
    'correction.apply',
    'correction.undo',
    'correction.redo',
    'document.download',
  ]) {
    assert.ok(actions.has(action), `audit has ${action}`);
  }
});

test.run();
