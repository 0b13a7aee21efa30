// Document routes through app.inject(): upload (passwords, plan limits, hostile files, audit), list,
// get, delete, tenant isolation, classify, search, preview.png, crop.png (limits, served regions,
// unpaid marking and budget), and the daemon answering others while a hostile upload is inspected.
// One real daemon process uploads and searches over a real socket.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { makeHostileFixtures } from '../../fixtures/make-hostile.ts';
import { INSPECTION_BUDGET_PIXELS } from '../../src/documents/limits.ts';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';

let h: Harness;

test.before(async () => {
  h = await makeHarness();
});

test.after(async () => {
  await h.close();
});

const png = (body: Buffer) => PNG.sync.read(body);

test('upload: 201 with every DocumentOut field, pages classified, audit entry', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'vicksburg-ocr.pdf'), {
    filename: '../../etc/Vicksburg report.pdf',
  });
  assert.is(r.status, 201);
  const d = r.body;
  assert.match(d.document_id, /^doc_/);
  assert.is(d.tenant_id, h.account.tenantId);
  assert.is(d.state, 'uploaded');
  assert.is(d.page_count, 6);
  assert.is(d.pages.length, 6);
  assert.ok(d.pages.every((p: { kind: string }) => p.kind === 'scanned_with_text_layer'));
  assert.is(d.head_revision_id, null);
  assert.is(d.filename_hint, 'Vicksburg report.pdf', 'basename only');
  assert.is(d.protected, false);
  assert.is(d.unlocked, false);
  assert.is(d.watermarked, false);
  const bytes = await readFile(join(CORPUS_DIR, 'vicksburg-ocr.pdf'));
  const { createHash } = await import('node:crypto');
  assert.is(d.original_sha256, createHash('sha256').update(bytes).digest('hex'));
  assert.ok(d.concerns.some((c: string) => c.includes('OCR text layer')));
  assert.ok(
    existsSync(
      join(
        h.app.docfix.documents.dir(h.account.tenantId, d.document_id),
        'blobs',
        `${d.original_sha256}.pdf`,
      ),
    ),
  );
  const audit = await h.json('GET', `/v1/audit?subject_id=${d.document_id}`);
  assert.is(audit.status, 200);
  assert.is(audit.body[0].action, 'document.upload');
  assert.is(audit.body[0].payload.original_sha256, d.original_sha256);
});

test('upload: filename hints are capped and cleaned', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'), {
    filename: `C:\\Users\\x\\${'a'.repeat(300)}.pdf`,
  });
  assert.is(r.status, 201);
  assert.is(r.body.filename_hint.length, 120);
  assert.not.ok(r.body.filename_hint.includes('\\'));
});

test('upload: passwords (required, incorrect, not_protected, accepted and kept sealed)', async () => {
  const file = join(CORPUS_DIR, 'libreoffice-password.pdf');
  assert.is((await h.upload(file)).body.detail.error, 'password_required');
  const wrong = await h.upload(file, { password: 'nope' });
  assert.is(wrong.status, 422);
  assert.is(wrong.body.detail.error, 'password_incorrect');
  const unprotected = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'), { password: 'x' });
  assert.is(unprotected.body.detail.error, 'not_protected');
  const ok = await h.upload(file, { password: 'openpassword' });
  assert.is(ok.status, 201);
  assert.is(ok.body.protected, true);
  assert.is(ok.body.unlocked, true);
  const record = await h.app.docfix.documents.get(h.account.tenantId, ok.body.document_id);
  assert.ok(record!.password_sealed);
  assert.not.ok(record!.password_sealed!.includes('openpassword'));
  const record_json = await readFile(
    join(h.app.docfix.documents.dir(h.account.tenantId, ok.body.document_id), 'record.json'),
    'utf8',
  );
  assert.not.ok(record_json.includes('openpassword'), 'the password is never stored in clear');
  // Later operations reopen it with the sealed password.
  const s = await h.json('GET', `/v1/documents/${ok.body.document_id}/search?q=lorem&ignore_case=true`);
  assert.is(s.status, 200);
  assert.ok(s.body.matches.length > 0);
});

test('upload: plan limits — file_too_large names both sizes, too_many_pages names the limit', async () => {
  const free = await h.newAccount('free-limits', 'free');
  const big = new Uint8Array(6 * 1024 * 1024).fill(0x20);
  big.set(Buffer.from('%PDF-1.7\n'));
  const r = await h.upload(big, { as: free });
  assert.is(r.status, 413);
  assert.is(r.body.detail.error, 'file_too_large');
  assert.match(r.body.detail.message, /6\.0 MB.*5\.0 MB/);
  const pages = await h.upload(join(CORPUS_DIR, 'geotopo-linearized-type1c.pdf'), { as: free });
  assert.is(pages.status, 422);
  assert.is(pages.body.detail.error, 'too_many_pages');
  assert.match(pages.body.detail.message, /117 pages.*at most 50/);
  // Business takes the same file.
  assert.is((await h.upload(join(CORPUS_DIR, 'geotopo-linearized-type1c.pdf'))).status, 201);
});

test('upload: hostile files get their documented error over HTTP; nothing is kept', async () => {
  const fixtures = await makeHostileFixtures();
  const before = (await h.json('GET', '/v1/documents?limit=200')).body.length;
  for (const f of fixtures) {
    const r = await h.upload(f.path);
    if (f.expect === 'ok') assert.is(r.status, 201, f.name);
    else assert.is(r.body.detail?.error, f.expect, `${f.name}: ${JSON.stringify(r.body)}`);
  }
  const accepted = fixtures.filter((f) => f.expect === 'ok').length;
  assert.is((await h.json('GET', '/v1/documents?limit=200')).body.length, before + accepted);
  const tmp = join(h.dataDir, 'tmp');
  if (existsSync(tmp)) {
    const { readdir } = await import('node:fs/promises');
    assert.equal(await readdir(tmp), [], 'no temp upload left behind');
  }
});

test('upload: a multipart body without a file is invalid_request', async () => {
  const { multipart } = await import('./harness.ts');
  const { payload, headers } = multipart({ password: 'x' });
  const r = await h.inject({ method: 'POST', url: '/v1/documents', payload, headers });
  assert.is(r.statusCode, 422);
  assert.is(JSON.parse(r.body).error, 'invalid_request');
});

test('while a hostile upload is inspected, /healthz and other requests still answer', async () => {
  const bomb = (await makeHostileFixtures()).find((f) => f.name === 'decompression-bomb.pdf')!;
  const order: string[] = [];
  const upload = h.upload(bomb.path).then((r) => {
    order.push('upload');
    return r;
  });
  await new Promise((r) => setTimeout(r, 30));
  const health = await h.inject({ method: 'GET', url: '/healthz' });
  order.push('health');
  const list = await h.json('GET', '/v1/documents?limit=1');
  order.push('list');
  assert.is(health.statusCode, 200);
  assert.is(list.status, 200);
  const r = await upload;
  assert.is(r.body.detail.error, 'unreadable_pdf');
  assert.equal(order, ['health', 'list', 'upload']);
});

test('list: newest first, limit, at most 200; get; other tenants see not_found everywhere', async () => {
  const a = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'));
  await new Promise((r) => setTimeout(r, 5));
  const b = await h.upload(join(CORPUS_DIR, 'annotated.pdf'));
  const list = await h.json('GET', '/v1/documents?limit=2');
  assert.equal(
    list.body.map((d: { document_id: string }) => d.document_id),
    [b.body.document_id, a.body.document_id],
  );
  assert.is((await h.json('GET', '/v1/documents?limit=201')).status, 422);
  const got = await h.json('GET', `/v1/documents/${a.body.document_id}`);
  assert.equal(got.body, a.body);

  const other = await h.newAccount('other');
  const id = a.body.document_id;
  for (const [method, url] of [
    ['GET', `/v1/documents/${id}`],
    ['DELETE', `/v1/documents/${id}`],
    ['POST', `/v1/documents/${id}/classify`],
    ['GET', `/v1/documents/${id}/search?q=a`],
    ['GET', `/v1/documents/${id}/pages/0/preview.png`],
    ['GET', `/v1/documents/${id}/pages/0/crop.png?x=0&y=0&w=10&h=10`],
  ] as const) {
    const r = await h.json(method, url, undefined, other);
    assert.is(r.status, 404, `${method} ${url}`);
    assert.is(r.body.detail.error, 'not_found');
  }
  assert.equal((await h.json('GET', '/v1/documents', undefined, other)).body, []);
  assert.is((await h.json('GET', `/v1/documents/doc_doesnotexist`)).status, 404);
});

test('delete: 204, the folder and its files are gone, the audit keeps that it existed', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'));
  const id = r.body.document_id;
  const dir = h.app.docfix.documents.dir(h.account.tenantId, id);
  assert.ok(existsSync(dir));
  const del = await h.inject({ method: 'DELETE', url: `/v1/documents/${id}` });
  assert.is(del.statusCode, 204);
  assert.is(del.body, '');
  assert.not.ok(existsSync(dir));
  assert.is((await h.json('GET', `/v1/documents/${id}`)).status, 404);
  assert.is((await h.json('DELETE', `/v1/documents/${id}`)).status, 404);
  const audit = await h.json('GET', `/v1/audit?subject_id=${id}`);
  assert.equal(
    audit.body.map((e: { action: string }) => e.action),
    ['document.delete', 'document.upload'],
  );
  assert.is(audit.body[0].payload.original_sha256, r.body.original_sha256);
});

test('classify: every page with its measurements', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'scan-ocr-mixed-pages.pdf'));
  const c = await h.json('POST', `/v1/documents/${r.body.document_id}/classify`);
  assert.is(c.status, 200);
  assert.is(c.body.length, 7);
  assert.equal(
    c.body.map((p: { kind: string }) => p.kind),
    ['scanned_with_text_layer', 'text', ...Array(5).fill('scanned_with_text_layer')],
  );
  assert.ok(c.body[0].image_coverage > 0.9);
  assert.is(c.body[1].natural_dpi, 300);
});

test('search: matches with boxes, pages needing recognition, q bounded', async () => {
  const text = await h.upload(join(CORPUS_DIR, 'latex-multicolumn.pdf'));
  const exact = await h.json('GET', `/v1/documents/${text.body.document_id}/search?q=official`);
  assert.equal(exact.body.matches, [], 'exact and case-sensitive by default: the page has "Official"');
  const s = await h.json('GET', `/v1/documents/${text.body.document_id}/search?q=official&ignore_case=true`);
  assert.is(s.status, 200);
  assert.is(s.body.query, 'official');
  assert.ok(
    s.body.matches.some(
      (m: { text: string; page_index: number }) => m.text === 'Official' && m.page_index === 2,
    ),
  );
  assert.equal(s.body.pages_searched, [0, 1, 2]);
  assert.is(s.body.truncated, false);
  const scan = await h.upload(join(CORPUS_DIR, 'scan-russian-form.pdf'));
  const s2 = await h.json('GET', `/v1/documents/${scan.body.document_id}/search?q=form`);
  assert.equal(s2.body.pages_needing_recognition, [0, 1]);
  assert.equal(s2.body.pages_searched, []);
  const long = await h.json('GET', `/v1/documents/${text.body.document_id}/search?q=${'x'.repeat(201)}`);
  assert.is(long.status, 422);
});

test('search: word, pages, limit and count; a bad or out-of-range page selection is refused', async () => {
  const up = await h.upload(join(CORPUS_DIR, 'latex-multicolumn.pdf'));
  const url = (query: string) => `/v1/documents/${up.body.document_id}/search?${query}`;
  const anyCase = await h.json('GET', url('q=ut&ignore_case=true'));
  const words = await h.json('GET', url('q=ut&ignore_case=true&word=true'));
  assert.ok(words.body.matches.length > 0 && words.body.matches.length < anyCase.body.matches.length);
  for (const m of words.body.matches) {
    assert.match(m.text, /^ut$/i);
    assert.ok(Number.isInteger(m.match_index) && m.box.length === 4);
  }
  assert.is(words.body.total, words.body.matches.length);
  const page1 = await h.json('GET', url('q=ut&ignore_case=true&word=true&pages=1'));
  assert.equal(page1.body.pages_searched, [1]);
  assert.equal(
    page1.body.matches,
    words.body.matches.filter((m: { page_index: number }) => m.page_index === 1),
  );
  const limited = await h.json('GET', url('q=ut&ignore_case=true&word=true&limit=2&count=true'));
  assert.is(limited.body.matches.length, 2);
  assert.is(limited.body.truncated, true);
  assert.is(limited.body.total, words.body.total);
  assert.equal(limited.body.pages_matched, words.body.pages_matched);
  const backwards = await h.json('GET', url('q=ut&pages=2-1'));
  assert.is(backwards.status, 422);
  assert.is(backwards.body.error, 'invalid_request');
  assert.equal(backwards.body.problems, [{ field: 'pages', problem: 'the range "2-1" runs backwards' }]);
  const beyond = await h.json('GET', url('q=ut&pages=0,3'));
  assert.is(beyond.body.detail.error, 'page_out_of_range');
  const malformed = await h.json('GET', url('q=ut&pages=one'));
  assert.is(malformed.status, 422, 'not a selection: the schema refuses it');
});

test('preview.png: 72 dpi, thumb 150 px wide, page_out_of_range, unknown revision', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'));
  const id = r.body.document_id;
  const p = await h.inject({ method: 'GET', url: `/v1/documents/${id}/pages/0/preview.png` });
  assert.is(p.statusCode, 200);
  assert.is(p.headers['content-type'], 'image/png');
  assert.is(png(p.rawPayload).width, 596);
  const t = await h.inject({ method: 'GET', url: `/v1/documents/${id}/pages/0/preview.png?thumb=true` });
  assert.is(png(t.rawPayload).width, 150);
  const out = await h.json('GET', `/v1/documents/${id}/pages/1/preview.png`);
  assert.is(out.status, 422);
  assert.is(out.body.detail.error, 'page_out_of_range');
  const rev = await h.json('GET', `/v1/documents/${id}/pages/0/preview.png?revision=rev_nope`);
  assert.is(rev.status, 404);
});

test('crop.png: native pixels of the region, limits, every served region recorded', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'));
  const id = r.body.document_id;
  const c = await h.inject({
    method: 'GET',
    url: `/v1/documents/${id}/pages/0/crop.png?x=400&y=350&w=500&h=200&dpi=600`,
  });
  assert.is(c.statusCode, 200);
  const img = png(c.rawPayload);
  assert.is(img.width, 1000);
  assert.is(img.height, 400);
  assert.is(c.headers['x-docfix-marked'], 'false');
  const big = await h.json('GET', `/v1/documents/${id}/pages/0/crop.png?x=0&y=0&w=2100&h=2000`);
  assert.is(big.status, 422);
  assert.is(big.body.detail.error, 'crop_too_large');
  const range = await h.json('GET', `/v1/documents/${id}/pages/5/crop.png?x=0&y=0&w=10&h=10`);
  assert.is(range.body.detail.error, 'page_out_of_range');
  const bad = await h.json('GET', `/v1/documents/${id}/pages/0/crop.png?x=0&y=0&w=0&h=10`);
  assert.is(bad.status, 422);
  const record = await h.app.docfix.documents.get(h.account.tenantId, id);
  const served = record!.served_regions.find((s) => s.dpi === 600)!;
  assert.equal(served.box_render, [400, 350, 900, 550]);
  assert.is(served.revision_id, record!.original_revision_id);
  assert.is(served.page_index, 0);
});

test('crop.png on a scan defaults to its natural resolution', async () => {
  const r = await h.upload(join(CORPUS_DIR, 'vicksburg-ocr.pdf'));
  const c = await h.inject({
    method: 'GET',
    url: `/v1/documents/${r.body.document_id}/pages/0/crop.png?x=0&y=0&w=600&h=300`,
  });
  assert.is(c.headers['x-docfix-dpi'], '100');
  assert.is(png(c.rawPayload).width, 200);
});

test('unpaid tenant: a corrected page is marked outside its corrections, with a daily budget', async () => {
  const free = await h.newAccount('free-inspect', 'free');
  const r = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'), { as: free });
  const id = r.body.document_id;
  // A corrected revision as the corrections engine records it (same bytes suffice for marking).
  const box: [number, number, number, number] = [500, 380, 700, 450];
  await h.app.docfix.documents.update(free.tenantId, id, (rec) => {
    const original = rec.revisions[0];
    rec.revisions.push({
      ...original,
      revision_id: 'rev_fixed',
      parent_revision_id: original.revision_id,
      correction_seq: 1,
    });
    rec.document.head_revision_id = 'rev_fixed';
    rec.corrections.push({
      seq: 1,
      page_index: 0,
      box_render: box,
      verified: true,
      created_at: new Date().toISOString(),
      revision_id: 'rev_fixed',
      parent_revision_id: original.revision_id,
      verification_id: 'ver_x',
      tier: 1,
      tier_name: 'glyph_reuse',
      status: 'standing',
      attestation_id: 'att_x',
    });
  });
  const url = `/v1/documents/${id}/pages/0/crop.png?x=400&y=350&w=800&h=200`;
  const marked = await h.inject({ method: 'GET', url }, free);
  assert.is(marked.statusCode, 200);
  assert.is(marked.headers['x-docfix-marked'], 'true');
  // The original revision carries no correction: served natively.
  const originalId = (await h.app.docfix.documents.get(free.tenantId, id))!.original_revision_id;
  const orig = await h.inject({ method: 'GET', url: `${url}&revision=${originalId}` }, free);
  assert.is(orig.headers['x-docfix-marked'], 'false');
  let rec = await h.app.docfix.documents.get(free.tenantId, id);
  assert.is(rec!.inspection.pixels, 200 * 70);
  // Business tenants are never marked.
  const biz = await h.upload(join(CORPUS_DIR, 'latex-minimal.pdf'));
  assert.is(
    (await h.inject({ method: 'GET', url: url.replace(id, biz.body.document_id) })).headers[
      'x-docfix-marked'
    ],
    'false',
  );
  // The budget: spent → 429 with Retry-After until the next UTC day.
  await h.app.docfix.documents.update(free.tenantId, id, (x) => {
    x.inspection.pixels = INSPECTION_BUDGET_PIXELS;
  });
  const spent = await h.json('GET', url, undefined, free);
  assert.is(spent.status, 429);
  assert.is(spent.body.detail.error, 'inspection_budget_spent');
  rec = await h.app.docfix.documents.get(free.tenantId, id);
  assert.is(rec!.inspection.pixels, INSPECTION_BUDGET_PIXELS);
});

test('a real daemon process: upload and search over a socket', async () => {
  const BIN = new URL('../../bin/docfix-daemon.js', import.meta.url).pathname;
  const dir = await mkdtemp(join(tmpdir(), 'docfix-docs-'));
  const env = { ...process.env, DOCFIX_CONFIG_DIR: join(dir, 'config'), DOCFIX_DATA_DIR: join(dir, 'data') };
  const child: ChildProcess = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--data-dir', join(dir, 'data')],
    { env },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^docfix daemon listening on (http:\/\/\S+)$/m.exec(out);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`daemon exited with ${code}`)));
      setTimeout(() => reject(new Error(`no ready line: ${out}`)), 20_000).unref();
    });
    const config = JSON.parse(await readFile(join(dir, 'config', 'config.json'), 'utf8'));
    const form = new FormData();
    form.set('file', new Blob([await readFile(join(CORPUS_DIR, 'crazyones-aes256.pdf'))]), 'crazyones.pdf');
    form.set('password', 'password');
    const auth = { authorization: `Bearer ${config.local.api_key}` };
    const up = await fetch(`${url}/v1/documents`, { method: 'POST', body: form, headers: auth });
    assert.is(up.status, 201);
    const doc = (await up.json()) as { document_id: string; protected: boolean };
    assert.is(doc.protected, true);
    const s = await fetch(`${url}/v1/documents/${doc.document_id}/search?q=crazy`, { headers: auth });
    const body = (await s.json()) as { matches: unknown[] };
    assert.ok(body.matches.length > 0);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
