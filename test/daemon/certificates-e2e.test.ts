// Certificates on a real correction: upload a corpus PDF, attest, propose and apply with the real
// engine, issue a certificate, and check it the three ways (offline, by id, by file bytes) against the
// corrected file the export gate releases.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePublicKeys } from '../../src/certificates/crypto.ts';
import { verifyCertificateOffline } from '../../src/certificates/verify-offline.ts';
import { CORPUS_DIR, makeHarness, multipart, type Harness } from './harness.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let h: Harness;

test.before(async () => {
  h = await makeHarness({ plan: 'business' });
});
test.after(async () => {
  await h.close();
});

test('upload → attest → apply → certificate → verified offline, by id and by file', async () => {
  const original = new Uint8Array(readFileSync(join(CORPUS_DIR, 'latex-minimal.pdf')));
  const up = await h.upload(original, { filename: 'latex-minimal.pdf' });
  assert.is(up.status, 201, JSON.stringify(up.body));
  const documentId = up.body.document_id as string;
  const base = `/v1/documents/${documentId}`;

  // Nothing corrected yet: nothing to certify.
  const early = await h.json('POST', `${base}/certificate`);
  assert.is(early.status, 409);
  assert.is(early.body.detail.error, 'nothing_to_certify');

  const att = await h.json('POST', '/v1/attestations', { document_id: documentId });
  assert.is(att.status, 201);
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find: 'nonumy', match_index: 0 },
    replacement: 'nonmuy',
    attestation_id: att.body.attestation_id,
  };
  const proposal = await h.json('POST', `${base}/edits:propose`, request);
  assert.is(proposal.status, 200, JSON.stringify(proposal.body));
  assert.not.ok(proposal.body.refusal, JSON.stringify(proposal.body.advice));
  const applied = await h.json('POST', `${base}/edits`, {
    request,
    apply: { proposal_id: proposal.body.proposal_id, confirm_token: proposal.body.confirm_token },
  });
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  assert.ok(applied.body.passed);

  const issued = await h.json('POST', `${base}/certificate`, { name: 'latex minimal' });
  assert.is(issued.status, 201, JSON.stringify(issued.body));
  const cert = issued.body;
  assert.is(cert.original_sha256, sha(original));
  assert.is(cert.corrected_sha256, applied.body.output_sha256);
  assert.is(cert.corrections, 1);

  const download = await h.inject({ method: 'GET', url: `${base}/export/download` });
  assert.is(download.statusCode, 200);
  const corrected = new Uint8Array(download.rawPayload);
  assert.is(sha(corrected), cert.corrected_sha256);

  const pdf = await h.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}/pdf` });
  assert.is(pdf.statusCode, 200);
  const file = new Uint8Array(pdf.rawPayload);
  assert.is(sha(file), cert.certificate_sha256);

  const keys = parsePublicKeys(
    (await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' })).body,
  );
  const offline = verifyCertificateOffline(file, keys, { document: corrected });
  assert.ok(offline.valid, offline.reason);
  const c = offline.statement!.corrections[0];
  assert.is(c.page_index, 0);
  assert.is(c.text_before, 'nonumy');
  assert.is(c.text_after, 'nonmuy');
  assert.is(c.outside_pixels, 0);
  assert.ok(c.changed_pixels > 0, `changed pixels: ${c.changed_pixels}`);
  assert.is(c.verification_id, applied.body.verification_id);
  assert.is(offline.statement!.verification.verification_id, applied.body.verification_id);
  assert.not.ok(verifyCertificateOffline(file, keys, { document: original }).valid);

  const byId = JSON.parse(
    (await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body,
  );
  assert.is(byId.status, 'valid');
  const { payload, headers } = multipart({ file: { filename: 'c.pdf', content: file } });
  const byFile = JSON.parse(
    (await h.app.inject({ method: 'POST', url: '/v1/certificates/verify', payload, headers })).body,
  );
  assert.is(byFile.status, 'valid');

  // Undo: the document as it now stands has nothing to release, so nothing to certify.
  assert.is((await h.json('POST', `${base}/undo`)).status, 200);
  const after = await h.json('POST', `${base}/certificate`);
  assert.is(after.status, 409);
  assert.is(after.body.detail.error, 'nothing_to_export');
  // The certificate already issued still stands.
  assert.is(
    JSON.parse((await h.app.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}` })).body)
      .status,
    'valid',
  );

  // Deleting the document deletes the certificate file (through the real route).
  const del = await h.inject({ method: 'DELETE', url: base });
  assert.is(del.statusCode, 204);
  const gone = await h.inject({ method: 'GET', url: `/v1/certificates/${cert.certificate_id}/pdf` });
  assert.is(gone.statusCode, 410);
  assert.is(JSON.parse(gone.body).detail.error, 'certificate_file_deleted');
});

test.run();
