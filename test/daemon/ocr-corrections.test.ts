// Issue 11's acceptance check on OCR, through the HTTP API: a scanned page showing one word three
// times gives three matches, each competing and needing confirmation; `confirmed` without a served
// magnified crop is refused (the engine checks, not the client); once the crop is served the
// correction applies, verifies, and the check is on record (correction, audit entry, manifest).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeRecognisers } from '../../src/ocr/recognizer.ts';
import { readManifest } from '../../src/corrections/save/manifest.ts';
import { makeHarness, type Harness } from './harness.ts';
import { scannedPage } from '../src/corrections/scan-fixtures.ts';

/** An image-only page (300 dpi grey scan, JPEG) of a letter naming “Invoice” three times. */
const scannedLetter = () =>
  scannedPage(
    [
      'Invoice number 2041 for the spring term',
      'Please pay this Invoice within thirty days',
      'A copy of the Invoice goes to the office',
    ],
    { jpeg: 85 },
  );

let h: Harness;
let documentId = '';
let attestationId = '';

test.before(async () => {
  h = await makeHarness();
  const up = await h.upload(scannedLetter(), { filename: 'letter-scan.pdf' });
  assert.is(up.status, 201, JSON.stringify(up.body));
  documentId = up.body.document_id;
  const att = await h.json('POST', '/v1/attestations', { document_id: documentId });
  attestationId = att.body.attestation_id;
});

test.after(async () => {
  await h.close();
  await closeRecognisers();
});

const request = (confirmed: boolean, matchIndex = 1) => ({
  page_index: 0,
  target: { method: 'ocr', find: 'Invoice', match_index: matchIndex, confirmed },
  replacement: 'Invocie',
  attestation_id: attestationId,
});

test('three occurrences: three matches, each competing and needing confirmation', async () => {
  const res = await h.json('POST', `/v1/documents/${documentId}/pages/0/ocr`, { find: 'Invoice' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.word_source, 'recognised');
  assert.is(res.body.matches.length, 3, JSON.stringify(res.body.matches));
  for (const m of res.body.matches) {
    assert.ok(m.competing >= 1, `competing ${m.competing}`);
    assert.is(m.needs_confirmation, true);
  }
});

test('confirmed without a served magnified crop is refused, with the crop to ask for', async () => {
  const unconfirmed = await h.json('POST', `/v1/documents/${documentId}/edits:propose`, request(false));
  assert.is(unconfirmed.status, 200);
  assert.is(unconfirmed.body.advice.code, 'confirmation_needed');
  const probe = await h.json('POST', `/v1/documents/${documentId}/edits:propose`, request(true));
  assert.is(probe.body.advice.code, 'crop_not_served');
  assert.match(probe.body.advice.do.join(' '), /crop\.png\?x=/);
  // A crop at the recognition's own resolution is not a magnified look.
  const m = /x=(\d+)&y=(\d+)&w=(\d+)&h=(\d+)/.exec(probe.body.advice.do.join(' '))!;
  const flat = await h.inject({
    method: 'GET',
    url: `/v1/documents/${documentId}/pages/0/crop.png?x=${m[1]}&y=${m[2]}&w=${m[3]}&h=${m[4]}&dpi=300`,
  });
  assert.is(flat.statusCode, 200);
  const still = await h.json('POST', `/v1/documents/${documentId}/edits:propose`, request(true));
  assert.is(still.body.advice.code, 'crop_not_served');
});

test('after the magnified crop is served, the correction applies, verifies and is on record', async () => {
  const probe = await h.json('POST', `/v1/documents/${documentId}/edits:propose`, request(true));
  const m = /x=(\d+)&y=(\d+)&w=(\d+)&h=(\d+)&dpi=(\d+)/.exec(probe.body.advice.do.join(' '))!;
  const crop = await h.inject({
    method: 'GET',
    url: `/v1/documents/${documentId}/pages/0/crop.png?x=${m[1]}&y=${m[2]}&w=${m[3]}&h=${m[4]}&dpi=${m[5]}`,
  });
  assert.is(crop.statusCode, 200);
  const proposal = await h.json('POST', `/v1/documents/${documentId}/edits:propose`, request(true));
  assert.is(proposal.body.refusal, null, JSON.stringify(proposal.body.advice));
  assert.is(proposal.body.tier, 5);
  assert.is(proposal.body.measurements.confirmation.checked_by, 'engine');
  assert.ok(proposal.body.measurements.confirmation.crop);
  const applied = await h.json('POST', `/v1/documents/${documentId}/edits`, {
    request: request(true),
    apply: { proposal_id: proposal.body.proposal_id, confirm_token: proposal.body.confirm_token },
  });
  assert.is(applied.status, 200, JSON.stringify(applied.body));
  assert.is(applied.body.passed, true, applied.body.failure_reason);
  const guards = applied.body.guards.map((g: { name: string }) => g.name);
  assert.ok(guards.includes('recognition_reads_replacement'));
  const audit = await h.json('GET', `/v1/audit?subject_id=${documentId}&limit=50`);
  const entry = (audit.body as { action: string; payload: { confirmation?: { checked_by: string } } }[]).find(
    (e) => e.action === 'correction.apply',
  );
  assert.is(entry?.payload.confirmation?.checked_by, 'engine', 'the audit entry records the check');
  const record = await h.app.docfix.documents.get(h.account.tenantId, documentId);
  const correction = record!.corrections.at(-1)!;
  assert.is((correction.confirmation as { checked_by: string }).checked_by, 'engine');
  const rev = record!.revisions.at(-1)!;
  const bytes = await h.app.docfix.blobs.read(h.account.tenantId, documentId, rev.blob_sha256);
  const manifest = JSON.parse(new TextDecoder().decode(readManifest(bytes, '')!));
  assert.is(manifest.corrections.at(-1).confirmation.checked_by, 'engine');
});

test.run();
