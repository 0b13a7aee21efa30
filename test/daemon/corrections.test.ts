// The corrections workflow through the daemon app (inject), on a real PDF, with a stand-in engine
// whose answers the test controls (refusals, failures, failed verifications). The real engine is
// exercised end to end by corrections-corpus.test.ts.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  buildManifest,
  embedManifest,
  parseManifest,
  type ManifestInput,
} from '../../src/corrections/save/manifest.ts';
import { sealPassword } from '../../src/documents/password-seal.ts';
import { openPdf } from '../../src/pdf/mupdf-adapter.ts';
import type { EditRequest } from '../../src/schemas.ts';
import { build } from '../../daemon/app.ts';
import {
  TOKEN_TTL_MS,
  canonicalRequest,
  checkTokenHead,
  signConfirmToken,
} from '../../daemon/confirm-token.ts';
import type { EngineSlots } from '../../daemon/engine-slots.ts';
import type { Services } from '../../daemon/services.ts';
import type { DocumentRecord, TenantRecord } from '../../daemon/storage/records.ts';
import { correctionLimit } from '../../daemon/routes/corrections.ts';

const PDF = new Uint8Array(
  readFileSync(new URL('../../fixtures/corpus/pdf/libreoffice-writer.pdf', import.meta.url)),
);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------------------------------------
// A stand-in engine. `find` steers it: REFUSE → refusal, CRASH → edit_failed, FAILGUARD → a
// verification that did not pass, OUTSIDE → pixels changed outside the box; anything else works.

interface TaskInput {
  pdf: Uint8Array;
  password: string;
  request: EditRequest;
  manifest: ManifestInput;
}
const engineCalls: string[] = [];
let engineDelayMs = 0;
/** When set, the fake engine says it has started and waits until the test lets it answer. */
let engineGate: { started: () => void; release: Promise<void> } | null = null;

function fakePropose(input: TaskInput) {
  const find = input.request.target.method === 'visual' ? '' : input.request.target.find;
  const refused = find === 'REFUSE';
  return {
    page_index: input.request.page_index ?? 0,
    tier: refused ? 0 : 1,
    tier_name: refused ? 'none' : 'glyph_reuse',
    visibility_cost: 'none',
    explanation: refused ? 'No tier can draw this.' : `Replace ${find} in its own font.`,
    refusal: refused ? 'glyphs_missing' : null,
    advice: refused
      ? {
          code: 'glyphs_missing',
          what: 'The font lacks a glyph.',
          why: 'Subset font.',
          do: ['Try another word.'],
          worth_reporting: false,
        }
      : null,
    rejected: refused
      ? [{ tier: 1, tier_name: 'glyph_reuse', code: 'glyphs_missing', reason: 'no glyph' }]
      : [],
    fingerprint: sha(new TextEncoder().encode(`${sha(input.pdf)}|${canonicalRequest(input.request)}`)),
  };
}

function fakeApply(input: TaskInput) {
  const proposal = fakePropose(input);
  const find = input.request.target.method === 'visual' ? '' : input.request.target.find;
  if (find === 'CRASH') throw Object.assign(new Error('engine failed'), { docfix: 'edit_failed' });
  if (proposal.refusal)
    throw { docfix: 'edit_refused', advice: proposal.advice, rejected: proposal.rejected };
  const { doc } = openPdf(input.pdf, input.password);
  const box = [100, 200, 300, 260];
  const current = {
    page: input.request.page_index ?? 0,
    box_render: box,
    box_dpi: 300,
    text_before: find,
    text_after: input.request.replacement ?? null,
    tier: 1,
    tier_name: 'glyph_reuse',
    visibility_cost: 'none',
    created_at: new Date().toISOString(),
  };
  let output: Uint8Array;
  try {
    embedManifest(doc, buildManifest(input.manifest, current));
    output = new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  } finally {
    doc.destroy();
  }
  const outside = find === 'OUTSIDE' ? 5 : 0;
  const passed = find !== 'FAILGUARD' && outside === 0;
  return {
    proposal,
    output,
    verification: {
      output_sha256: sha(output),
      dpi: 300,
      passed,
      failure_reason: passed
        ? null
        : find === 'OUTSIDE'
          ? 'pixels changed outside the box'
          : 'text_layer guard failed',
      pages: [
        {
          page_index: 0,
          identical: false,
          proven_by: 'render',
          changed_pixels: 120,
          changed_fraction: 0.0001,
          outside_pixels: outside,
          max_delta: 255,
          bbox: box,
          declared_box: box,
        },
      ],
      guards: [{ name: 'text_layer', passed: find !== 'FAILGUARD', detail: 'checked' }],
      stream_changes: {},
      declared_box: box,
      changed_box: box,
      text_before: find,
      text_after: input.request.replacement ?? null,
    },
  };
}

const { DocfixError } = await import('../../src/errors.ts');
const fakeEngine = {
  size: 2,
  load: 0,
  async run(name: string, input: TaskInput) {
    engineCalls.push(name);
    if (engineGate) {
      engineGate.started();
      await engineGate.release;
    }
    if (engineDelayMs) await new Promise((r) => setTimeout(r, engineDelayMs));
    try {
      if (name === 'proposeEdit') return fakePropose(input);
      if (name === 'applyEdit') return fakeApply(input);
    } catch (error) {
      const e = error as { docfix?: string; advice?: unknown; rejected?: unknown };
      if (e.docfix === 'edit_refused') {
        throw new DocfixError('edit_refused', 'The engine will not make this correction.', {
          advice: e.advice,
          rejected: e.rejected,
        });
      }
      throw new DocfixError('edit_failed', 'The correction could not be completed; nothing changed.');
    }
    throw new Error(`unknown task ${name}`);
  },
  async close() {},
} as unknown as EngineSlots;

// ---------------------------------------------------------------------------------------------
// Setup: an app on a temporary data dir, a Business tenant, a document made as the upload makes it.

let dir: string;
let app: FastifyInstance;
let services: Services;
let tenantId: string;
let apiKey: string;
let otherKey: string;

async function inject(method: 'GET' | 'POST', url: string, body?: unknown, key = apiKey) {
  const res = await app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = String(res.headers['content-type'] ?? '');
  return {
    status: res.statusCode,
    headers: res.headers,
    raw: res.rawPayload,
    json: type.includes('json') ? (res.json() as Record<string, any>) : null,
  };
}

const errorOf = (r: { json: Record<string, any> | null }) => r.json?.detail?.error ?? r.json?.error;

async function makeDocument(tenant = tenantId, pdf = PDF, password = ''): Promise<string> {
  const documentId = `doc_${Math.random().toString(36).slice(2, 12)}`;
  const blobSha = await services.blobs.putBytes(tenant, documentId, pdf);
  const now = new Date().toISOString();
  const record: DocumentRecord = {
    document: {
      document_id: documentId,
      tenant_id: tenant,
      state: 'uploaded',
      page_count: 1,
      original_sha256: blobSha,
      head_revision_id: null,
      filename_hint: 'letter ü.pdf',
      created_at: now,
    },
    password_sealed: password ? sealPassword(services.secret, password) : null,
    original_revision_id: `rev_orig_${documentId}`,
    revisions: [
      {
        revision_id: `rev_orig_${documentId}`,
        parent_revision_id: null,
        blob_sha256: blobSha,
        correction_seq: null,
        created_at: now,
      },
    ],
    corrections: [],
    verifications: {},
    verification_by_revision: {},
    attestations: [],
    certificates: [],
    served_regions: [],
    inspection: { day: '', pixels: 0 },
  };
  await services.documents.create(tenant, record);
  return documentId;
}

async function attest(documentId: string): Promise<string> {
  const r = await inject('POST', '/v1/attestations', { document_id: documentId });
  assert.is(r.status, 201);
  return r.json!.attestation_id as string;
}

const edit = (attestationId: string, find = 'nonumy', replacement = 'nonmuy'): EditRequest => ({
  target: { method: 'text_layer', find },
  replacement,
  attestation_id: attestationId,
});

async function propose(documentId: string, request: EditRequest) {
  return inject('POST', `/v1/documents/${documentId}/edits:propose`, request);
}

async function proposeAs(documentId: string, request: EditRequest, key: string) {
  return inject('POST', `/v1/documents/${documentId}/edits:propose`, request, key);
}

async function correct(documentId: string, request: EditRequest) {
  const p = await propose(documentId, request);
  assert.is(p.status, 200, JSON.stringify(p.json));
  return inject('POST', `/v1/documents/${documentId}/edits`, {
    request,
    apply: { proposal_id: p.json!.proposal_id, confirm_token: p.json!.confirm_token },
  });
}

async function setTenantFile(id: string, change: (t: Record<string, any>) => void) {
  const file = join(dir, 'tenants', id, 'tenant.json');
  const t = JSON.parse(readFileSync(file, 'utf8'));
  change(t);
  writeFileSync(file, JSON.stringify(t));
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docfix-corrections-'));
  app = await build({
    config: { dataDir: dir, rateLimit: { perMinute: 100_000, burst: 100_000 } },
    engine: fakeEngine,
  });
  services = app.docfix;
  const tenant = await services.tenants.setTenant('acme', { plan: 'business' });
  tenantId = tenant.tenant_id;
  apiKey = (await services.tenants.createKey(tenantId)).api_key;
  const other = await services.tenants.setTenant('other', { plan: 'business' });
  otherKey = (await services.tenants.createKey(other.tenant_id)).api_key;
});

test.after(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

test('attestations: recorded with the statement text, audited; unknown document or version refused', async () => {
  const documentId = await makeDocument();
  const r = await inject('POST', '/v1/attestations', { document_id: documentId });
  assert.is(r.status, 201);
  assert.is(r.json!.statement_version, '2026-08-v1');
  assert.match(r.json!.statement_text, /authorised/);
  assert.match(r.json!.attestation_id, /^att_/);
  const record = await services.documents.get(tenantId, documentId);
  assert.is(record!.attestations.length, 1);
  const audit = await services.audit.list(tenantId, { subjectId: documentId, limit: 10 });
  assert.is(audit[0].action, 'attestation.create');
  assert.is((audit[0].payload as Record<string, unknown>).statement_text, r.json!.statement_text);

  const missing = await inject('POST', '/v1/attestations', { document_id: 'doc_nope' });
  assert.is(missing.status, 404);
  assert.is(errorOf(missing), 'not_found');
  const foreign = await inject('POST', '/v1/attestations', { document_id: documentId }, otherKey);
  assert.is(foreign.status, 404);
  const version = await inject('POST', '/v1/attestations', {
    document_id: documentId,
    statement_version: '1999-01',
  });
  assert.is(version.status, 422);
  assert.is(errorOf(version), 'invalid_request');
  assert.is(version.json!.problems[0].field, 'body.statement_version');
});

test('propose: needs an attestation of this document, a page in range; changes nothing', async () => {
  const documentId = await makeDocument();
  const otherDoc = await makeDocument();
  const foreignAttestation = await attest(otherDoc);
  const none = await propose(documentId, edit('att_missing'));
  assert.is(none.status, 409);
  assert.is(errorOf(none), 'attestation_required');
  const wrongDoc = await propose(documentId, edit(foreignAttestation));
  assert.is(errorOf(wrongDoc), 'attestation_required');

  const attestationId = await attest(documentId);
  const page = await propose(documentId, { ...edit(attestationId), page_index: 1 });
  assert.is(page.status, 422);
  assert.is(errorOf(page), 'page_out_of_range');

  const before = await services.documents.get(tenantId, documentId);
  const p = await propose(documentId, edit(attestationId));
  assert.is(p.status, 200);
  assert.match(p.json!.proposal_id, /^prop_/);
  assert.match(p.json!.confirm_token, /^v1\./);
  assert.is(p.json!.document_id, documentId);
  assert.is(p.json!.tier, 1);
  assert.not.ok('fingerprint' in p.json!, 'the engine fingerprint stays inside the token');
  const after = await services.documents.get(tenantId, documentId);
  assert.equal(after, before, 'propose stores nothing');

  const foreign = await proposeAs(documentId, edit(attestationId), otherKey);
  assert.is(foreign.status, 404);
});

test('apply: writes revision, correction, verification, audit and usage; answers the verification', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const usedBefore = await services.usage.correctionsToday(tenantId);
  const r = await correct(documentId, edit(attestationId));
  assert.is(r.status, 200, JSON.stringify(r.json));
  const v = r.json!;
  assert.match(v.verification_id, /^ver_/);
  assert.match(v.revision_id, /^rev_/);
  assert.ok(v.passed);
  assert.not.ok('declared_box' in v, 'engine-only fields stay in the records');
  assert.not.ok('text_before' in v);

  const record = (await services.documents.get(tenantId, documentId))!;
  assert.is(record.document.head_revision_id, v.revision_id);
  assert.is(record.document.state, 'corrected');
  const revision = record.revisions.find((x) => x.revision_id === v.revision_id)!;
  assert.is(revision.parent_revision_id, record.original_revision_id);
  assert.is(revision.blob_sha256, v.output_sha256);
  const stored = await services.blobs.read(tenantId, documentId, revision.blob_sha256);
  assert.is(sha(stored), v.output_sha256, 'the blob is the verified bytes');
  const c = record.corrections[0];
  assert.is(c.status, 'standing');
  assert.is(c.seq, 1);
  assert.equal(c.box_render, [100, 200, 300, 260]);
  assert.is(c.text_before, 'nonumy');
  assert.is(c.text_after, 'nonmuy');
  assert.is(c.attestation_id, attestationId);
  assert.is(record.verification_by_revision[v.revision_id], v.verification_id);
  assert.is(record.verifications[v.verification_id].output_sha256, v.output_sha256);
  const audit = await services.audit.list(tenantId, { subjectId: documentId, limit: 5 });
  assert.is(audit[0].action, 'correction.apply');
  assert.is((audit[0].payload as Record<string, unknown>).seq, 1);
  assert.is((audit[0].payload as Record<string, unknown>).output_sha256, v.output_sha256);
  assert.is(await services.usage.correctionsToday(tenantId), usedBefore + 1);

  const got = await inject('GET', `/v1/documents/${documentId}/verification`);
  assert.is(got.status, 200);
  assert.equal(got.json, v);
  const list = await inject('GET', `/v1/documents/${documentId}/corrections`);
  assert.is(list.json!.length, 1);
  assert.is(list.json![0].seq, 1);
  assert.not.ok('revision_id' in list.json![0]);
});

test('apply: any change since the proposal is stale_or_invalid_confirmation', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const request = edit(attestationId);
  const p = (await propose(documentId, request)).json!;
  const apply = { proposal_id: p.proposal_id, confirm_token: p.confirm_token };
  const url = `/v1/documents/${documentId}/edits`;

  const changedRequest = await inject('POST', url, { request: { ...request, replacement: 'other' }, apply });
  assert.is(changedRequest.status, 409);
  assert.is(errorOf(changedRequest), 'stale_or_invalid_confirmation');
  const changedId = await inject('POST', url, { request, apply: { ...apply, proposal_id: 'prop_other' } });
  assert.is(errorOf(changedId), 'stale_or_invalid_confirmation');
  const garbage = await inject('POST', url, {
    request,
    apply: { ...apply, confirm_token: 'v1.abc.def.ghi' },
  });
  assert.is(errorOf(garbage), 'stale_or_invalid_confirmation');
  const flipped = apply.confirm_token.slice(0, -1) + (apply.confirm_token.endsWith('A') ? 'B' : 'A');
  const tampered = await inject('POST', url, { request, apply: { ...apply, confirm_token: flipped } });
  assert.is(errorOf(tampered), 'stale_or_invalid_confirmation');
  const otherDoc = await makeDocument();
  const otherAtt = await attest(otherDoc);
  const crossDoc = await inject('POST', `/v1/documents/${otherDoc}/edits`, {
    request: { ...request, attestation_id: otherAtt },
    apply,
  });
  assert.is(errorOf(crossDoc), 'stale_or_invalid_confirmation');
  // Defaults spelled out are the same request.
  const explicit = {
    ...request,
    page_index: 0,
    font_attempt: 0,
    target: { ...request.target, match_index: 0 },
  };
  const ok = await inject('POST', url, { request: explicit, apply });
  assert.is(ok.status, 200, JSON.stringify(ok.json));
  // The same token again: the head moved.
  const again = await inject('POST', url, { request, apply });
  assert.is(again.status, 409);
  assert.is(errorOf(again), 'stale_or_invalid_confirmation');
  const record = (await services.documents.get(tenantId, documentId))!;
  assert.is(record.corrections.length, 1);
});

test('confirm tokens: bound to tenant and expire', () => {
  const secret = Buffer.alloc(32, 7);
  const binding = {
    tenant_id: 't1',
    document_id: 'd1',
    head_revision_id: 'r1',
    request: edit('a1'),
    proposal_id: 'p1',
  };
  const now = Date.now();
  const token = signConfirmToken(secret, binding, { fingerprint: 'f', tier: 1 }, now);
  assert.ok(checkTokenHead(secret, token, binding, now).ok);
  assert.not.ok(checkTokenHead(secret, token, { ...binding, tenant_id: 't2' }, now).ok);
  assert.not.ok(checkTokenHead(Buffer.alloc(32, 8), token, binding, now).ok);
  const late = checkTokenHead(secret, token, binding, now + TOKEN_TTL_MS + 1);
  assert.not.ok(late.ok);
  assert.match((late as { reason: string }).reason, /expired/);
});

test('apply: two racing applies on one document — exactly one wins', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const a = edit(attestationId, 'nonumy', 'nonmuy');
  const b = edit(attestationId, 'dolore', 'dolroe');
  const pa = (await propose(documentId, a)).json!;
  const pb = (await propose(documentId, b)).json!;
  engineDelayMs = 30;
  try {
    const results = await Promise.all([
      inject('POST', `/v1/documents/${documentId}/edits`, {
        request: a,
        apply: { proposal_id: pa.proposal_id, confirm_token: pa.confirm_token },
      }),
      inject('POST', `/v1/documents/${documentId}/edits`, {
        request: b,
        apply: { proposal_id: pb.proposal_id, confirm_token: pb.confirm_token },
      }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses, [200, 409]);
    assert.is(errorOf(results.find((r) => r.status === 409)!), 'stale_or_invalid_confirmation');
  } finally {
    engineDelayMs = 0;
  }
  const record = (await services.documents.get(tenantId, documentId))!;
  assert.is(record.corrections.length, 1);
  assert.is(record.revisions.length, 2);
});

test('apply: a document deleted while the engine works leaves no file behind', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const request = edit(attestationId);
  const p = (await propose(documentId, request)).json!;
  // The deletion lands while the engine works, however slow the machine: the engine waits for it.
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  engineGate = { started, release: new Promise<void>((resolve) => (release = resolve)) };
  try {
    const pending = inject('POST', `/v1/documents/${documentId}/edits`, {
      request,
      apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
    });
    await running;
    assert.ok(await services.documents.remove(tenantId, documentId));
    release();
    const r = await pending;
    assert.is(r.status, 404);
    assert.is(errorOf(r), 'not_found');
  } finally {
    engineGate = null;
  }
  assert.not.ok(existsSync(services.documents.dir(tenantId, documentId)), 'the document folder is gone');
});

test('apply: a document deleted as its new revision is written answers 404 and leaves no file behind', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const request = edit(attestationId);
  const p = (await propose(documentId, request)).json!;
  // The deletion lands between the blob folder made and the blob moved into it: the move finds no
  // folder (ENOENT), as it did under load when the delete came just after the engine's answer.
  const putBytes = services.blobs.putBytes;
  services.blobs.putBytes = async () => {
    await services.documents.remove(tenantId, documentId);
    throw Object.assign(new Error('ENOENT: no such file or directory, rename'), { code: 'ENOENT' });
  };
  try {
    const r = await inject('POST', `/v1/documents/${documentId}/edits`, {
      request,
      apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
    });
    assert.is(r.status, 404);
    assert.is(errorOf(r), 'not_found');
  } finally {
    services.blobs.putBytes = putBytes;
  }
  assert.not.ok(existsSync(services.documents.dir(tenantId, documentId)), 'the document folder is gone');
});

test('apply: refusal is 422 edit_refused with advice; engine failure is 500 edit_failed; nothing changes', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const p = await propose(documentId, edit(attestationId, 'REFUSE'));
  assert.is(p.status, 200);
  assert.is(p.json!.refusal, 'glyphs_missing');
  assert.is(p.json!.advice.code, 'glyphs_missing');
  const before = await services.documents.get(tenantId, documentId);
  const refused = await inject('POST', `/v1/documents/${documentId}/edits`, {
    request: edit(attestationId, 'REFUSE'),
    apply: { proposal_id: p.json!.proposal_id, confirm_token: p.json!.confirm_token },
  });
  assert.is(refused.status, 422);
  assert.is(errorOf(refused), 'edit_refused');
  assert.equal(refused.json!.detail.advice.do, ['Try another word.']);
  const failed = await correct(documentId, edit(attestationId, 'CRASH'));
  assert.is(failed.status, 500);
  assert.is(errorOf(failed), 'edit_failed');
  assert.equal(await services.documents.get(tenantId, documentId), before);
});

test('daily limit: Free tenants stop after 10 corrections a UTC day with a hint; Business never', async () => {
  const free = await services.tenants.setTenant('free-co', { plan: 'free' });
  const freeKey = (await services.tenants.createKey(free.tenant_id)).api_key;
  const documentId = await makeDocument(free.tenant_id);
  const r = await inject('POST', '/v1/attestations', { document_id: documentId }, freeKey);
  const attestationId = r.json!.attestation_id;
  for (let i = 0; i < 10; i++) await services.usage.countCorrection(free.tenant_id);
  const request = edit(attestationId);
  const p = (await inject('POST', `/v1/documents/${documentId}/edits:propose`, request, freeKey)).json!;
  const apply = { proposal_id: p.proposal_id, confirm_token: p.confirm_token };
  const limited = await inject('POST', `/v1/documents/${documentId}/edits`, { request, apply }, freeKey);
  assert.is(limited.status, 429);
  assert.is(errorOf(limited), 'daily_limit_reached');
  assert.type(limited.json!.detail.hint, 'string');
  // A one-document purchase lifts it for 30 days.
  await setTenantFile(free.tenant_id, (t) => {
    t.bought_plans = [{ plan: 'one_document', at: new Date().toISOString() }];
  });
  const lifted = await inject('POST', `/v1/documents/${documentId}/edits`, { request, apply }, freeKey);
  assert.is(lifted.status, 200, JSON.stringify(lifted.json));
  // Business: far past 10 and still fine.
  for (let i = 0; i < 12; i++) await services.usage.countCorrection(tenantId);
  const biz = await makeDocument();
  assert.is((await correct(biz, edit(await attest(biz)))).status, 200);
});

test('daily limit by plan: Free 10, one-time plans unlimited for 30 days after purchase, then 10', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const tenant = (
    plan: TenantRecord['plan'],
    bought: { plan: TenantRecord['plan']; at: string }[] = [],
  ): TenantRecord => ({
    tenant_id: 't',
    name: 't',
    plan,
    suspended: false,
    created_at: now.toISOString(),
    bought_plans: bought,
  });
  assert.is(correctionLimit(tenant('free'), now), 10);
  assert.is(correctionLimit(tenant('business'), now), null);
  assert.is(correctionLimit(tenant('personal'), now), null);
  assert.is(
    correctionLimit(tenant('one_document', [{ plan: 'one_document', at: '2026-11-01T00:00:00Z' }]), now),
    null,
  );
  assert.is(
    correctionLimit(tenant('one_document', [{ plan: 'one_document', at: '2026-09-01T00:00:00Z' }]), now),
    10,
  );
  assert.is(
    correctionLimit(tenant('free', [{ plan: 'ten_documents', at: '2026-11-20T00:00:00Z' }]), now),
    null,
  );
  assert.is(
    correctionLimit(tenant('free', [{ plan: 'personal', at: '2026-11-20T00:00:00Z' }]), now),
    10,
    'a lapsed subscription',
  );
});

test('daily limit: two applies racing for the last free correction — one passes', async () => {
  const free = await services.tenants.setTenant('free-race', { plan: 'free' });
  const key = (await services.tenants.createKey(free.tenant_id)).api_key;
  for (let i = 0; i < 9; i++) await services.usage.countCorrection(free.tenant_id);
  const bodies = [];
  for (let i = 0; i < 2; i++) {
    const documentId = await makeDocument(free.tenant_id);
    const att = (await inject('POST', '/v1/attestations', { document_id: documentId }, key)).json!
      .attestation_id;
    const request = edit(att);
    const p = (await inject('POST', `/v1/documents/${documentId}/edits:propose`, request, key)).json!;
    bodies.push({
      documentId,
      body: { request, apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token } },
    });
  }
  engineDelayMs = 40;
  try {
    const results = await Promise.all(
      bodies.map((b) => inject('POST', `/v1/documents/${b.documentId}/edits`, b.body, key)),
    );
    assert.equal(results.map((r) => r.status).sort(), [200, 429]);
  } finally {
    engineDelayMs = 0;
  }
  assert.is(await services.usage.correctionsToday(free.tenant_id), 10);
});

test('undo/redo: steps the head, deletes nothing, a new correction discards the redo chain', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const url = (p: string) => `/v1/documents/${documentId}/${p}`;
  assert.is(errorOf(await inject('POST', url('undo'))), 'nothing_to_undo');
  assert.is(errorOf(await inject('POST', url('redo'))), 'nothing_to_redo');
  const v1 = (await correct(documentId, edit(attestationId, 'nonumy', 'nonmuy'))).json!;
  const v2 = (await correct(documentId, edit(attestationId, 'dolore', 'dolroe'))).json!;

  const u1 = await inject('POST', url('undo'));
  assert.is(u1.status, 200);
  assert.is(u1.json!.undone.seq, 2);
  assert.is(u1.json!.document.head_revision_id, v1.revision_id);
  assert.equal(
    u1.json!.corrections.map((c: { seq: number }) => c.seq),
    [1],
  );
  const u2 = await inject('POST', url('undo'));
  assert.is(u2.json!.undone.seq, 1);
  assert.is(u2.json!.document.head_revision_id, null);
  assert.equal(u2.json!.corrections, []);
  assert.is(errorOf(await inject('POST', url('undo'))), 'nothing_to_undo');
  assert.is(errorOf(await inject('GET', url('verification'))), 'no_revision');

  const r1 = await inject('POST', url('redo'));
  assert.is(r1.json!.undone.seq, 1);
  assert.is(r1.json!.document.head_revision_id, v1.revision_id);
  const r2 = await inject('POST', url('redo'));
  assert.is(r2.json!.document.head_revision_id, v2.revision_id);
  assert.is(errorOf(await inject('POST', url('redo'))), 'nothing_to_redo');
  assert.equal((await inject('GET', url('verification'))).json, v2);

  // Undo one, correct anew: the undone one is discarded (kept), redo has nothing.
  await inject('POST', url('undo'));
  const v3 = (await correct(documentId, edit(attestationId, 'sed', 'sde'))).json!;
  assert.is(errorOf(await inject('POST', url('redo'))), 'nothing_to_redo');
  const record = (await services.documents.get(tenantId, documentId))!;
  assert.equal(
    record.corrections.map((c) => [c.seq, c.status]),
    [
      [1, 'standing'],
      [2, 'discarded'],
      [3, 'standing'],
    ],
  );
  assert.is(record.revisions.length, 4, 'no revision deleted');
  const v3rev = record.revisions.find((r) => r.revision_id === v3.revision_id)!;
  assert.is(v3rev.parent_revision_id, v1.revision_id);
  const list = (await inject('GET', url('corrections'))).json!;
  assert.equal(
    list.map((c: { seq: number }) => c.seq),
    [1, 3],
  );
  const actions = (await services.audit.list(tenantId, { subjectId: documentId, limit: 50 })).map(
    (e) => e.action,
  );
  assert.ok(actions.includes('correction.undo') && actions.includes('correction.redo'));
});

test('manifest: the head revision’s embedded manifest byte for byte', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const url = `/v1/documents/${documentId}/manifest`;
  assert.is(errorOf(await inject('GET', url)), 'no_revision');
  await correct(documentId, edit(attestationId, 'nonumy', 'nonmuy'));
  const v2 = (await correct(documentId, edit(attestationId, 'dolore', 'dolroe'))).json!;
  const r = await inject('GET', url);
  assert.is(r.status, 200);
  assert.match(String(r.headers['content-type']), /application\/json/);
  const stored = await services.blobs.read(tenantId, documentId, v2.output_sha256);
  const { readManifest } = await import('../../src/corrections/save/manifest.ts');
  assert.equal(Buffer.from(r.raw), Buffer.from(readManifest(stored, '')!));
  const m = parseManifest(r.raw);
  assert.is(m.document_id, documentId);
  assert.equal(
    m.corrections.map((c) => c.text_before),
    ['nonumy', 'dolore'],
  );
  // After an undo it is the parent revision's manifest.
  await inject('POST', `/v1/documents/${documentId}/undo`);
  const after = parseManifest((await inject('GET', url)).raw);
  assert.is(after.corrections.length, 1);
});

test('protected documents: the sealed password reaches the engine and the manifest reader', async () => {
  const locked = new Uint8Array(
    readFileSync(new URL('../../fixtures/corpus/pdf/libreoffice-password.pdf', import.meta.url)),
  );
  const documentId = await makeDocument(tenantId, locked, 'openpassword');
  const attestationId = await attest(documentId);
  const r = await correct(documentId, edit(attestationId));
  assert.is(r.status, 200, JSON.stringify(r.json));
  const m = await inject('GET', `/v1/documents/${documentId}/manifest`);
  assert.is(m.status, 200);
  assert.is(parseManifest(m.raw).corrections[0].text_before, 'nonumy');
});

test('export gate: nothing_to_export, verification_failed, diff_outside_expected_region, hash mismatch', async () => {
  const documentId = await makeDocument();
  const attestationId = await attest(documentId);
  const exp = () => inject('POST', `/v1/documents/${documentId}/export`);
  const dl = () => inject('GET', `/v1/documents/${documentId}/export/download`);
  assert.is(errorOf(await exp()), 'nothing_to_export');
  assert.is(errorOf(await dl()), 'nothing_to_export');

  const failing = await correct(documentId, edit(attestationId, 'FAILGUARD', 'x'));
  assert.is(failing.status, 200);
  assert.is(failing.json!.passed, false);
  const f = await exp();
  assert.is(f.status, 409);
  assert.is(errorOf(f), 'verification_failed');
  assert.match(f.json!.detail.message, /Correction 1/);
  assert.is(errorOf(await dl()), 'verification_failed');
  await inject('POST', `/v1/documents/${documentId}/undo`);
  assert.is(errorOf(await exp()), 'nothing_to_export');

  const outside = await correct(documentId, edit(attestationId, 'OUTSIDE', 'x'));
  assert.is(outside.status, 200);
  const o = await exp();
  assert.is(errorOf(o), 'diff_outside_expected_region');
  assert.match(o.json!.detail.message, /Correction 2 changed 5 pixels outside/);
  await inject('POST', `/v1/documents/${documentId}/undo`);

  const good = (await correct(documentId, edit(attestationId))).json!;
  const ok = await exp();
  assert.is(ok.status, 200);
  assert.equal(ok.json, {
    revision_id: good.revision_id,
    output_sha256: good.output_sha256,
    verification_id: good.verification_id,
    marking_applied: null,
    bytes_available: true,
  });
  const d = await dl();
  assert.is(d.status, 200);
  assert.is(d.headers['content-type'], 'application/pdf');
  assert.match(
    String(d.headers['content-disposition']),
    /attachment; filename="letter _-corrected\.pdf"; filename\*=UTF-8''letter%20%C3%BC-corrected\.pdf/,
  );
  assert.is(sha(d.raw), good.output_sha256);
  const actions = (await services.audit.list(tenantId, { subjectId: documentId, limit: 50 })).map(
    (e) => e.action,
  );
  assert.ok(actions.includes('document.export') && actions.includes('document.download'));

  // The verified bytes changed on disk: the gate re-hashes and refuses.
  const file = join(dir, 'tenants', tenantId, 'documents', documentId, 'blobs', `${good.output_sha256}.pdf`);
  const bytes = readFileSync(file);
  writeFileSync(file, Buffer.concat([bytes, Buffer.from('\n% tampered\n')]));
  try {
    assert.is(errorOf(await exp()), 'verification_hash_mismatch');
    assert.is(errorOf(await dl()), 'verification_hash_mismatch');
  } finally {
    writeFileSync(file, bytes);
  }
  // A head without its verification is not_verified.
  await services.documents.update(tenantId, documentId, (r) => {
    delete r.verification_by_revision[good.revision_id];
  });
  assert.is(errorOf(await exp()), 'not_verified');
  assert.is(errorOf(await inject('GET', `/v1/documents/${documentId}/verification`)), 'not_verified');
});

test('download: Free plan needs a purchase (402); a one-document plan covers one document', async () => {
  const free = await services.tenants.setTenant('free-dl', { plan: 'free' });
  const key = (await services.tenants.createKey(free.tenant_id)).api_key;
  const docs: string[] = [];
  for (let i = 0; i < 2; i++) {
    const documentId = await makeDocument(free.tenant_id);
    const att = (await inject('POST', '/v1/attestations', { document_id: documentId }, key)).json!
      .attestation_id;
    const request = edit(att);
    const p = (await inject('POST', `/v1/documents/${documentId}/edits:propose`, request, key)).json!;
    const r = await inject(
      'POST',
      `/v1/documents/${documentId}/edits`,
      { request, apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token } },
      key,
    );
    assert.is(r.status, 200);
    docs.push(documentId);
  }
  const dl = (id: string) => inject('GET', `/v1/documents/${id}/export/download`, undefined, key);
  const unpaid = await dl(docs[0]);
  assert.is(unpaid.status, 402);
  assert.is(errorOf(unpaid), 'payment_required');
  assert.is(
    (await inject('POST', `/v1/documents/${docs[0]}/export`, undefined, key)).status,
    200,
    'export needs no payment',
  );
  await setTenantFile(free.tenant_id, (t) => {
    t.bought_plans = [{ plan: 'one_document', at: new Date().toISOString() }];
  });
  assert.is((await dl(docs[0])).status, 200);
  assert.is((await dl(docs[0])).status, 200, 'the same document again');
  assert.is(errorOf(await dl(docs[1])), 'payment_required');
});

test.run();
