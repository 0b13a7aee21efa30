// Certificates through the daemon app (inject): the published key, issuing, listing, downloading,
// the public checks, the audit export, and the ways someone might try to cheat them. Documents are
// seeded as records (a corrected revision with its verification), so these tests do not depend on
// the correction engine; certificates-e2e.test.ts drives the real workflow.
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalize } from '../../src/canonical-json.ts';
import { parsePublicKeys } from '../../src/certificates/crypto.ts';
import { verifyCertificateOffline } from '../../src/certificates/verify-offline.ts';
import { hashAuditEntry } from '../../src/audit-chain.ts';
import { mupdf } from '../../src/pdf/mupdf-adapter.ts';
import { rotateSigningKey } from '../../daemon/signing-keys.ts';
import type { CorrectionRecord, DocumentRecord } from '../../daemon/storage/records.ts';
import { makeHarness, multipart, type Account, type Harness } from './harness.ts';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const enc = (s: string) => new TextEncoder().encode(s);

interface SeedCorrection {
  verified?: boolean;
  passed?: boolean;
  outside?: number;
  status?: CorrectionRecord['status'];
}

interface Seeded {
  documentId: string;
  original: Uint8Array;
  corrected: Uint8Array;
}

let counter = 0;

/** A document with `corrections` applied (each its own revision and verification), as the workflow stores it. */
async function seedDocument(h: Harness, as: Account, corrections: SeedCorrection[] = [{}]): Promise<Seeded> {
  const services = h.app.docfix;
  const tenantId = as.tenantId;
  counter += 1;
  const documentId = `doc_seed${counter}${Math.random().toString(36).slice(2, 8)}`;
  const original = enc(`%PDF-1.7 original ${documentId}`);
  const originalSha = await services.blobs.putBytes(tenantId, documentId, original);
  const now = new Date().toISOString();
  const record: DocumentRecord = {
    document: {
      document_id: documentId,
      tenant_id: tenantId,
      state: 'uploaded',
      page_count: 2,
      original_sha256: originalSha,
      head_revision_id: null,
      filename_hint: '',
      created_at: now,
    },
    password_sealed: null,
    original_revision_id: 'rev_original',
    revisions: [
      {
        revision_id: 'rev_original',
        parent_revision_id: null,
        blob_sha256: originalSha,
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
    inspection: { day: now.slice(0, 10), pixels: 0 },
  };
  await services.audit.append(tenantId, {
    action: 'document.upload',
    subject_type: 'document',
    subject_id: documentId,
  });
  let parent = 'rev_original';
  let corrected = original;
  corrections.forEach((c, i) => {
    const seq = i + 1;
    corrected = enc(`%PDF-1.7 corrected ${documentId} step ${seq}`);
    const revisionId = `rev_${seq}`;
    const verificationId = `ver_${documentId}_${seq}`;
    record.revisions.push({
      revision_id: revisionId,
      parent_revision_id: parent,
      blob_sha256: sha(corrected),
      correction_seq: seq,
      created_at: now,
    });
    record.verifications[verificationId] = {
      verification_id: verificationId,
      revision_id: revisionId,
      output_sha256: sha(corrected),
      dpi: 300,
      passed: c.passed ?? true,
      failure_reason: c.passed === false ? 'text_layer guard' : null,
      pages: [
        {
          page_index: i % 2,
          identical: false,
          proven_by: 'render',
          changed_pixels: 800 + seq,
          changed_fraction: 0.001,
          outside_pixels: c.outside ?? 0,
          max_delta: 255,
          bbox: [100, 200, 640, 260],
          declared_box: [90, 190, 650, 270],
        },
      ],
      guards: [{ name: 'text_layer', passed: c.passed ?? true, detail: 'new text reads back' }],
      stream_changes: {},
    };
    record.verification_by_revision[revisionId] = verificationId;
    record.corrections.push({
      seq,
      page_index: i % 2,
      box_render: [90, 190, 650, 270],
      box_dpi: 300,
      changed_render: [100, 200, 640, 260],
      changed_dpi: 300,
      text_before: `Total: 1.23${seq},00 €`,
      text_after: `Total: 1.32${seq},00 €`,
      visibility_cost: 'none',
      verified: c.verified ?? true,
      failure_reason: null,
      outside_pixels: c.outside ?? 0,
      created_at: now,
      revision_id: revisionId,
      parent_revision_id: parent,
      verification_id: verificationId,
      tier: 1,
      tier_name: 'glyph_reuse',
      status: c.status ?? 'standing',
      attestation_id: 'att_seed',
    });
    parent = revisionId;
  });
  for (const c of record.corrections) {
    const bytes = enc(`%PDF-1.7 corrected ${documentId} step ${c.seq}`);
    await services.blobs.putBytes(tenantId, documentId, bytes);
    await services.audit.append(tenantId, {
      action: 'correction.apply',
      subject_type: 'document',
      subject_id: documentId,
      payload: { seq: c.seq },
    });
  }
  const standing = record.corrections.filter((c) => c.status === 'standing');
  record.document.head_revision_id = standing.length ? standing[standing.length - 1].revision_id : null;
  if (record.corrections.length) record.document.state = 'corrected';
  await services.documents.create(tenantId, record);
  const head = standing.length
    ? enc(`%PDF-1.7 corrected ${documentId} step ${standing[standing.length - 1].seq}`)
    : original;
  return { documentId, original, corrected: head };
}

async function publishedKeys(h: Harness) {
  const res = await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' });
  return parsePublicKeys(res.body);
}

async function issue(h: Harness, documentId: string, body?: unknown, as?: Account) {
  return h.json('POST', `/v1/documents/${documentId}/certificate`, body, as);
}

async function pdf(h: Harness, certificateId: string, as?: Account) {
  const res = await h.inject({ method: 'GET', url: `/v1/certificates/${certificateId}/pdf` }, as);
  return {
    status: res.statusCode,
    bytes: new Uint8Array(res.rawPayload),
    body: res.body,
    headers: res.headers,
  };
}

async function verifyFile(h: Harness, bytes: Uint8Array) {
  const { payload, headers } = multipart({ file: { filename: 'certificate.pdf', content: bytes } });
  const res = await h.app.inject({ method: 'POST', url: '/v1/certificates/verify', payload, headers });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

function pdfText(bytes: Uint8Array): string {
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  let text = '';
  for (let i = 0; i < doc.countPages(); i++)
    text += doc.loadPage(i).toStructuredText('preserve-whitespace').asText();
  doc.destroy();
  return text;
}

let h: Harness;

test.before(async () => {
  h = await makeHarness({ plan: 'business' });
});

test.after(async () => {
  await h.close();
});

test('the signing key is made at first start and published (raw, PEM, key id); private key 0600', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' });
  assert.is(res.statusCode, 200);
  const body = JSON.parse(res.body);
  assert.is(body.algorithm, 'Ed25519');
  const raw = Buffer.from(body.public_key, 'base64url');
  assert.is(raw.length, 32);
  assert.is(body.key_id, sha(raw).slice(0, 16));
  const der = createPublicKey(body.public_key_pem).export({ format: 'der', type: 'spki' });
  assert.equal([...der.subarray(12)], [...raw]);
  assert.equal(body.previous, []);
  const files = await readdir(join(h.dataDir, 'signing'));
  assert.ok(files.includes('keys.json'));
  assert.ok(files.includes(`${body.key_id}.key`));
  assert.is((await stat(join(h.dataDir, 'signing', `${body.key_id}.key`))).mode & 0o777, 0o600);
  const again = JSON.parse(
    (await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' })).body,
  );
  assert.is(again.key_id, body.key_id);
});

test('issue: 201, the PDF is the certified bytes, verifies offline, audit entry written, name only in the PDF', async () => {
  const doc = await seedDocument(h, h.account, [{}, {}]);
  const name = 'Rechnung 2026-114 (Müller GmbH)';
  const res = await issue(h, doc.documentId, { name });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const cert = res.body;
  assert.match(cert.certificate_id, /^cert_[a-z2-7]+$/);
  assert.is(cert.document_id, doc.documentId);
  assert.is(cert.original_sha256, sha(doc.original));
  assert.is(cert.corrected_sha256, sha(doc.corrected));
  assert.is(cert.corrections, 2);
  assert.is(cert.pdf_available, true);

  const file = await pdf(h, cert.certificate_id);
  assert.is(file.status, 200);
  assert.is(file.headers['content-type'], 'application/pdf');
  assert.is(sha(file.bytes), cert.certificate_sha256);

  const keys = await publishedKeys(h);
  assert.is(cert.key_id, keys[0].key_id);
  const offline = verifyCertificateOffline(file.bytes, keys, { document: doc.corrected });
  assert.ok(offline.valid, offline.reason);
  assert.is(offline.statement?.certificate_id, cert.certificate_id);
  assert.equal(
    offline.statement?.corrections.map((c) => [
      c.seq,
      c.page_index,
      c.text_before,
      c.text_after,
      c.changed_pixels,
      c.outside_pixels,
      c.tier,
    ]),
    [
      [1, 0, 'Total: 1.231,00 €', 'Total: 1.321,00 €', 801, 0, 1],
      [2, 1, 'Total: 1.232,00 €', 'Total: 1.322,00 €', 802, 0, 1],
    ],
  );
  assert.is(offline.statement?.verification.dpi, 300);
  assert.match(offline.statement?.verification.renderer ?? '', /^mupdf /);

  // The statement quotes the audit chain head as it was before this certificate.
  const entries = await h.app.docfix.audit.readAll(h.account.tenantId);
  const issued = entries[entries.length - 1];
  assert.is(issued.action, 'certificate.issue');
  assert.is((issued.payload as { certificate_id?: string }).certificate_id, cert.certificate_id);
  assert.is(offline.statement?.audit.head_hash, entries[entries.length - 2].entry_hash);
  assert.is(offline.statement?.audit.entries, entries.length - 1);

  // The name is printed in the PDF and kept nowhere else.
  assert.ok(pdfText(file.bytes).includes(name));
  const record = await readFile(join(h.dataDir, 'certificates', `${cert.certificate_id}.json`), 'utf8');
  assert.not.ok(record.includes('Müller'));
  assert.not.ok(JSON.stringify(entries).includes('Müller'));
  assert.not.ok(
    JSON.stringify(await h.app.docfix.documents.get(h.account.tenantId, doc.documentId)).includes('Müller'),
  );
});

test('name longer than 200 characters is refused (invalid_request)', async () => {
  const doc = await seedDocument(h, h.account);
  const res = await issue(h, doc.documentId, { name: 'x'.repeat(201) });
  assert.is(res.status, 422);
});

test('list: newest first; check by id: valid with statement, signature and seal that verify', async () => {
  const doc = await seedDocument(h, h.account);
  const first = (await issue(h, doc.documentId)).body;
  const second = (await issue(h, doc.documentId)).body;
  const list = await h.json('GET', `/v1/documents/${doc.documentId}/certificates`);
  assert.is(list.status, 200);
  assert.equal(
    list.body.map((c: { certificate_id: string }) => c.certificate_id),
    [second, first]
      .sort(
        (a, b) => b.issued_at.localeCompare(a.issued_at) || b.certificate_id.localeCompare(a.certificate_id),
      )
      .map((c) => c.certificate_id),
  );
  assert.ok(list.body.every((c: { pdf_available: boolean }) => c.pdf_available));

  const check = await h.app.inject({ method: 'GET', url: `/v1/certificates/${first.certificate_id}` }); // no key
  assert.is(check.statusCode, 200);
  const out = JSON.parse(check.body);
  assert.is(out.status, 'valid');
  assert.is(out.valid, true);
  assert.is(out.certificate_sha256, first.certificate_sha256);
  assert.is(out.corrections, 1);
  const pem = JSON.parse(
    (await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' })).body,
  ).public_key_pem;
  const key = createPublicKey(pem);
  assert.ok(
    nodeVerify(null, Buffer.from(canonicalize(out.statement)), key, Buffer.from(out.signature, 'base64url')),
  );
  const sealed = canonicalize({
    certificate_id: out.certificate_id,
    certificate_sha256: out.certificate_sha256,
    key_id: out.key_id,
  });
  assert.ok(nodeVerify(null, Buffer.from(sealed), key, Buffer.from(out.seal, 'base64url')));

  const missing = await h.app.inject({ method: 'GET', url: '/v1/certificates/cert_doesnotexist' });
  assert.is(missing.statusCode, 404);
  assert.is(JSON.parse(missing.body).detail.error, 'not_found');
});

test('an edited stored certificate record answers invalid', async () => {
  const doc = await seedDocument(h, h.account);
  const cert = (await issue(h, doc.documentId)).body;
  const path = join(h.dataDir, 'certificates', `${cert.certificate_id}.json`);
  const original = await readFile(path, 'utf8');
  const record = JSON.parse(original);
  record.statement.corrections[0].text_after = 'Total: 9.999,00 €';
  await writeFile(path, JSON.stringify(record));
  let out = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(out.status, 'invalid');
  assert.is(out.valid, false);
  assert.is(out.statement, null);
  assert.match(out.reason, /no longer matches its signature/);

  // Changing an outer field (not the statement) is caught too.
  const outer = JSON.parse(original);
  outer.corrected_sha256 = 'f'.repeat(64);
  await writeFile(path, JSON.stringify(outer));
  out = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(out.status, 'invalid');

  // A record broken beyond parsing, or with a field of the wrong type, is invalid too (never a 500).
  for (const damaged of [
    original.slice(0, 40),
    JSON.stringify({ ...JSON.parse(original), corrections: 'many' }),
  ]) {
    await writeFile(path, damaged);
    const res = await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` });
    assert.is(res.statusCode, 200);
    assert.is(JSON.parse(res.body).status, 'invalid');
  }
  const sealed = JSON.parse(original);
  sealed.seal = sealed.seal.replace(/^./, (ch: string) => (ch === 'A' ? 'B' : 'A'));
  await writeFile(path, JSON.stringify(sealed));
  out = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(out.status, 'invalid');
  assert.match(out.reason, /seal/);

  await writeFile(path, original);
  out = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(out.status, 'valid');
});

test('verify by file: exact bytes valid; one flipped byte altered (and refused offline); other files unknown', async () => {
  const doc = await seedDocument(h, h.account);
  const cert = (await issue(h, doc.documentId)).body;
  const file = (await pdf(h, cert.certificate_id)).bytes;

  const exact = await verifyFile(h, file);
  assert.is(exact.status, 200);
  assert.is(exact.body.status, 'valid');
  assert.is(exact.body.certificate_id, cert.certificate_id);
  assert.is(exact.body.certificate_sha256, cert.certificate_sha256);

  const flipped = file.slice();
  flipped[Math.floor(flipped.length / 2)] ^= 0x01;
  const altered = await verifyFile(h, flipped);
  assert.is(altered.body.status, 'altered');
  assert.is(altered.body.valid, false);
  assert.is(altered.body.certificate_id, cert.certificate_id);
  assert.is(altered.body.statement, null);
  assert.is(altered.body.signature, null);
  const offline = verifyCertificateOffline(flipped, await publishedKeys(h));
  assert.not.ok(offline.valid);
  assert.ok(offline.checks.some((c) => c.name === 'seal' && !c.passed));

  // The seal line cut off: the statement inside still names the certificate.
  const body = file.subarray(0, Buffer.from(file).toString('latin1').lastIndexOf('%docfix-seal/1 '));
  assert.is(Buffer.from(body.subarray(body.length - 6)).toString('latin1'), '%%EOF\n');
  assert.is((await verifyFile(h, body)).body.status, 'altered');

  const unknown = await verifyFile(h, doc.corrected);
  assert.is(unknown.body.status, 'unknown');
  assert.is(unknown.body.valid, false);
  assert.is((await verifyFile(h, enc('hello'))).body.status, 'unknown');

  const none = await h.app.inject({
    method: 'POST',
    url: '/v1/certificates/verify',
    ...multipart({ other: 'x' }),
  });
  assert.is(none.statusCode, 422);
});

test('Business only: other plans answer business_plan_required (issue and audit export)', async () => {
  for (const plan of ['free', 'personal'] as const) {
    const other = await h.newAccount(`plan-${plan}`, plan);
    const doc = await seedDocument(h, other);
    const res = await issue(h, doc.documentId, undefined, other);
    assert.is(res.status, 402);
    assert.is(res.body.detail.error, 'business_plan_required');
    const exp = await h.inject({ method: 'GET', url: '/v1/audit/export' }, other);
    assert.is(exp.statusCode, 402);
    assert.is(JSON.parse(exp.body).detail.error, 'business_plan_required');
  }
});

test('refusals: not_found, nothing_to_certify, nothing_to_export, not_verified, verification_failed, correction_not_verified', async () => {
  const code = async (documentId: string) => {
    const res = await issue(h, documentId);
    return `${res.status} ${res.body?.detail?.error}`;
  };
  assert.is(await code('doc_nosuch'), '404 not_found');
  assert.is(await code((await seedDocument(h, h.account, [])).documentId), '409 nothing_to_certify');
  assert.is(
    await code((await seedDocument(h, h.account, [{ status: 'undone' }])).documentId),
    '409 nothing_to_export',
  );
  assert.is(
    await code((await seedDocument(h, h.account, [{ passed: false, verified: false }])).documentId),
    '409 verification_failed',
  );
  assert.is(
    await code((await seedDocument(h, h.account, [{ passed: false, verified: false }, {}])).documentId),
    '409 correction_not_verified',
  );
  assert.is(
    await code((await seedDocument(h, h.account, [{ outside: 3 }])).documentId),
    '409 correction_not_verified',
  );

  // The head revision has no verification.
  const unverified = await seedDocument(h, h.account);
  await h.app.docfix.documents.update(h.account.tenantId, unverified.documentId, (r) => {
    r.verification_by_revision = {};
  });
  assert.is(await code(unverified.documentId), '409 not_verified');
  // The stored corrected file is not the verified one.
  const swapped = await seedDocument(h, h.account);
  await h.app.docfix.documents.update(h.account.tenantId, swapped.documentId, (r) => {
    r.revisions[r.revisions.length - 1].blob_sha256 = r.document.original_sha256;
  });
  assert.is(await code(swapped.documentId), '409 not_verified');
});

test('another tenant: its certificate pdf is not_found for us; the public check by id still works', async () => {
  const other = await h.newAccount('other-tenant', 'business');
  const doc = await seedDocument(h, other);
  const cert = (await issue(h, doc.documentId, undefined, other)).body;
  const mine = await pdf(h, cert.certificate_id); // as h.account
  assert.is(mine.status, 404);
  assert.is(JSON.parse(mine.body).detail.error, 'not_found');
  assert.is((await h.json('GET', `/v1/documents/${doc.documentId}/certificates`)).status, 404);
  assert.is((await issue(h, doc.documentId)).status, 404);
  assert.is((await pdf(h, cert.certificate_id, other)).status, 200);
  const check = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(check.status, 'valid');
});

test('document deleted: certificate file gone (410 certificate_file_deleted), still checks by id', async () => {
  const doc = await seedDocument(h, h.account);
  const cert = (await issue(h, doc.documentId)).body;
  const file = (await pdf(h, cert.certificate_id)).bytes;
  assert.ok(await h.app.docfix.documents.remove(h.account.tenantId, doc.documentId));
  const gone = await pdf(h, cert.certificate_id);
  assert.is(gone.status, 410);
  assert.is(JSON.parse(gone.body).detail.error, 'certificate_file_deleted');
  const check = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(check.status, 'valid');
  assert.is((await verifyFile(h, file)).body.status, 'valid');
});

test('document deleted while its certificate is made: 404 not_found, no certificate and no folder left', async () => {
  const services = h.app.docfix;
  const tenantId = h.account.tenantId;
  const putBytes = services.blobs.putBytes;
  // The deletion lands (a) as the certificate's blob is moved into the folder, which is gone (ENOENT),
  // or (b) just after the blob is written, before the record lists it.
  for (const when of ['during', 'after'] as const) {
    const doc = await seedDocument(h, h.account);
    services.blobs.putBytes = async (...args: Parameters<typeof putBytes>) => {
      if (when === 'during') {
        await services.documents.remove(tenantId, doc.documentId);
        throw Object.assign(new Error('ENOENT: no such file or directory, rename'), { code: 'ENOENT' });
      }
      const stored = await putBytes.apply(services.blobs, args);
      await services.documents.remove(tenantId, doc.documentId);
      return stored;
    };
    try {
      const res = await issue(h, doc.documentId);
      assert.is(res.status, 404, `${when}: ${JSON.stringify(res.body)}`);
      assert.is(res.body?.detail?.error, 'not_found');
    } finally {
      services.blobs.putBytes = putBytes;
    }
    assert.not.ok(
      existsSync(services.documents.dir(tenantId, doc.documentId)),
      `${when}: the folder is gone`,
    );
  }
});

test('a tampered audit entry: verify-chain names it and certificates answer record_does_not_verify', async () => {
  const h2 = await makeHarness({ plan: 'business' });
  try {
    const doc = await seedDocument(h2, h2.account, [{}, {}]);
    assert.is((await issue(h2, doc.documentId)).status, 201);
    const path = join(h2.dataDir, 'tenants', h2.account.tenantId, 'audit.log');
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    const entry = JSON.parse(lines[1]);
    entry.payload = { seq: 7 };
    lines[1] = JSON.stringify(entry);
    await writeFile(path, `${lines.join('\n')}\n`);

    const chain = await h2.json('GET', '/v1/audit/verify-chain');
    assert.is(chain.status, 200);
    assert.is(chain.body.intact, false);
    assert.is(chain.body.first_broken_seq, 2);
    assert.match(chain.body.reason, /entry 2 was changed/);
    const verdict = await h2.app.docfix.audit.verifyChain(h2.account.tenantId);
    assert.is(verdict.first_broken_seq, 2);

    const res = await issue(h2, doc.documentId);
    assert.is(res.status, 409);
    assert.is(res.body.detail.error, 'record_does_not_verify');
    assert.is(res.body.detail.first_broken_seq, 2);

    const exported = await h2.inject({ method: 'GET', url: '/v1/audit/export' });
    const last = JSON.parse(exported.body.trimEnd().split('\n').at(-1) as string);
    assert.is(last.verdict.intact, false);
    assert.is(last.verdict.first_broken_seq, 2);
  } finally {
    await h2.close();
  }
});

test('audit export: every entry as stored, recomputable, then the chain verdict', async () => {
  const res = await h.inject({ method: 'GET', url: '/v1/audit/export' });
  assert.is(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /application\/x-ndjson/);
  const lines = res.body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const verdict = lines.pop();
  const stored = await h.app.docfix.audit.readAll(h.account.tenantId);
  assert.is(lines.length, stored.length);
  assert.equal(lines, stored);
  for (const entry of lines) {
    const { entry_hash, ...draft } = entry;
    assert.is(hashAuditEntry(draft), entry_hash);
  }
  assert.is(verdict.format, 'docfix.audit-export/1');
  assert.is(verdict.entries, stored.length);
  assert.equal(verdict.verdict, {
    intact: true,
    entries: stored.length,
    head_hash: stored.at(-1)?.entry_hash,
    first_broken_seq: null,
    reason: null,
  });
});

test('rotation: new key signs, old key stays published, old certificates still verify', async () => {
  const doc = await seedDocument(h, h.account);
  const before = (await issue(h, doc.documentId)).body;
  const oldKeyId = before.key_id;
  const rotated = await rotateSigningKey(h.dataDir);
  assert.is.not(rotated.current.key_id, oldKeyId);
  const published = JSON.parse(
    (await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' })).body,
  );
  assert.is(published.key_id, rotated.current.key_id);
  assert.equal(
    published.previous.map((k: { key_id: string }) => k.key_id),
    [oldKeyId],
  );
  assert.match(published.previous[0].retired_at, /^\d{4}-/);
  const files = await readdir(join(h.dataDir, 'signing'));
  assert.not.ok(files.includes(`${oldKeyId}.key`), 'the retired private key is deleted');

  assert.is(
    JSON.parse((await h.app.inject({ method: 'GET', url: `/v1/certificates/${before.certificate_id}` })).body)
      .status,
    'valid',
  );
  const oldFile = (await pdf(h, before.certificate_id)).bytes;
  assert.ok(verifyCertificateOffline(oldFile, await publishedKeys(h)).valid);
  const after = (await issue(h, doc.documentId)).body;
  assert.is(after.key_id, rotated.current.key_id);
  assert.ok(
    verifyCertificateOffline((await pdf(h, after.certificate_id)).bytes, await publishedKeys(h)).valid,
  );
});

test.run();
