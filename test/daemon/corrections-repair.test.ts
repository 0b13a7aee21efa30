// A damaged upload corrected through the daemon (issue 33 item 2): the first correction saves the
// file repaired, in the open; its record keeps the repaired objects, so the manifest of every later
// revision still lists them, and `docfix verify` proves the head against the damaged original.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fopLike } from '../../fixtures/make-damaged.ts';
import { parsePublicKeys } from '../../src/certificates/crypto.ts';
import { verifyCertificateOffline } from '../../src/certificates/verify-offline.ts';
import { parseManifest } from '../../src/corrections/save/manifest.ts';
import { rederiveProof } from '../../src/verify/rederive.ts';
import { makeHarness, type Harness } from './harness.ts';

let h: Harness;
test.before(async () => {
  h = await makeHarness();
});
test.after(async () => {
  await h.close();
});

test('a damaged upload: corrected repaired at cost low; later manifests keep the repair; verify proves the head', async () => {
  const original = fopLike('libreoffice-writer.pdf', 5, 40);
  const up = await h.upload(original, { filename: 'fop-like.pdf' });
  assert.is(up.status, 201, JSON.stringify(up.body));
  const base = `/v1/documents/${up.body.document_id as string}`;
  const att = await h.json('POST', '/v1/attestations', { document_id: up.body.document_id });
  assert.is(att.status, 201);
  const correct = async (find: string, replacement: string) => {
    const request = {
      page_index: 0,
      target: { method: 'text_layer', find, match_index: 0 },
      replacement,
      attestation_id: att.body.attestation_id,
    };
    const proposal = await h.json('POST', `${base}/edits:propose`, request);
    assert.is(proposal.status, 200, JSON.stringify(proposal.body));
    const applied = await h.json('POST', `${base}/edits`, {
      request,
      apply: { proposal_id: proposal.body.proposal_id, confirm_token: proposal.body.confirm_token },
    });
    assert.is(applied.status, 200, JSON.stringify(applied.body));
    assert.ok(applied.body.passed);
    return proposal.body;
  };
  const first = await correct('nonumy', 'nonmuy');
  assert.is(first.visibility_cost, 'low');
  assert.ok((first.warnings as string[]).some((w) => w.includes('saved repaired')));
  // The second correction is made on the repaired revision: an ordinary incremental update.
  const second = await correct('dolore', 'dolroe');
  assert.is(second.visibility_cost, 'none');

  const manifestBytes = await h.inject({ method: 'GET', url: `${base}/manifest` });
  assert.is(manifestBytes.statusCode, 200);
  const manifest = parseManifest(new Uint8Array(manifestBytes.rawPayload));
  assert.is(manifest.corrections.length, 2);
  assert.equal(
    manifest.corrections[0].repaired_objects?.map((o) => o.num),
    [2, 5],
  );
  assert.is(manifest.corrections[1].repaired_objects, undefined);

  const download = await h.inject({ method: 'GET', url: `${base}/export/download` });
  assert.is(download.statusCode, 200);
  const proof = await rederiveProof(original, new Uint8Array(download.rawPayload));
  assert.ok(proof.passed, proof.failures.join(' | '));
  assert.ok(proof.checks.find((c) => c.name === 'repair')?.passed);

  // The certificate records the repair with the correction that made it.
  const issued = await h.json('POST', `${base}/certificate`, { name: 'fop-like' });
  assert.is(issued.status, 201, JSON.stringify(issued.body));
  const pdf = await h.inject({ method: 'GET', url: `/v1/certificates/${issued.body.certificate_id}/pdf` });
  assert.is(pdf.statusCode, 200);
  const keys = parsePublicKeys(
    (await h.app.inject({ method: 'GET', url: '/.well-known/docfix-certificate-key' })).body,
  );
  const offline = verifyCertificateOffline(new Uint8Array(pdf.rawPayload), keys, {
    document: new Uint8Array(download.rawPayload),
  });
  assert.ok(offline.valid, offline.reason);
  const [made, later] = offline.statement!.corrections;
  assert.equal(
    made.repaired_objects?.map((o) => o.num),
    [2, 5],
  );
  assert.is(later.repaired_objects, undefined);
});

test.run();
