// The certificate file, end to end without a daemon: render, seal, read back, verify offline, and the
// ways someone might try to cheat it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { extractCertificateParts } from '../../../src/certificates/extract.ts';
import { sealFile, readSealLine, verifySeal } from '../../../src/certificates/statement.ts';
import { readKeyClaim, verifyCertificateOffline } from '../../../src/certificates/verify-offline.ts';
import { keyFingerprint, parseFingerprint, toBase64Url } from '../../../src/certificates/crypto.ts';
import { buildStatement, statementProblems } from '../../../src/certificates/statement.ts';
import { statementInput } from './make-certificate.ts';
import { certificateTasks } from '../../../src/certificates/tasks.ts';
import { CORRECTED, ORIGINAL, makeCertificate, makeKey, sha, type TestKey } from './make-certificate.ts';

const key = makeKey();
const cert = makeCertificate(key, {}, 'Rechnung 2026-114 (Müller GmbH)');

function pdfText(bytes: Uint8Array): string {
  const doc = mupdf.Document.openDocument(bytes, 'application/pdf');
  try {
    let text = '';
    for (let i = 0; i < doc.countPages(); i++) {
      const page = doc.loadPage(i);
      const stext = page.toStructuredText('preserve-whitespace');
      text += stext.asText();
      stext.destroy();
      page.destroy();
    }
    return text;
  } finally {
    doc.destroy();
  }
}

function failed(result: ReturnType<typeof verifyCertificateOffline>): string[] {
  return result.checks.filter((c) => !c.passed).map((c) => c.name);
}

test('a certificate as issued verifies offline and says what is certified', () => {
  const result = verifyCertificateOffline(cert.file, [key]);
  assert.ok(result.valid, result.reason);
  assert.equal(failed(result), []);
  assert.is(result.certificate_id, 'cert_testtesttesttest');
  assert.is(result.key_id, key.key_id);
  assert.is(result.certificate_sha256, sha(cert.file));
  assert.is(result.certificate_sha256, cert.certificate_sha256);
  assert.is(result.statement?.corrected_sha256, sha(CORRECTED));
  assert.is(result.statement?.corrections[0].text_after, 'Total: 1.243,00 €');
  assert.equal(
    result.checks.map((c) => c.name),
    [
      'seal_present',
      'key_trusted',
      'seal',
      'statement_attached',
      'statement_form',
      'statement_signature',
      'ids_agree',
      'verification_passed',
    ],
  );
});

test('the PDF embeds the exact signed statement bytes and the raw signature', () => {
  const parts = extractCertificateParts(cert.file);
  assert.is(parts.problem, null);
  assert.equal([...(parts.statement_bytes ?? [])], [...cert.statement_bytes]);
  assert.equal([...(parts.signature ?? [])], [...cert.signature]);
  assert.equal(parts.seal, { certificate_id: 'cert_testtesttesttest', key_id: key.key_id, seal: cert.seal });
});

test('the PDF is readable: title, name, hashes, the correction, key id, instructions, disclaimer', () => {
  const text = pdfText(cert.file);
  for (const needle of [
    'docfix verification certificate',
    'Rechnung 2026-114 (Müller GmbH)',
    'What was checked',
    sha(ORIGINAL),
    sha(CORRECTED),
    '“Total: 1.234,00 €”',
    '“Total: 1.243,00 €”',
    '812 changed, 0 outside the declared region',
    '1 glyph_reuse, visibility cost none',
    'ver_one',
    'mupdf 1.28.1 at 300 dpi',
    'ab'.repeat(32),
    key.key_id,
    'docfix cert verify',
    'not a notarisation',
    'not a legal attestation',
    'not an invoice',
  ]) {
    assert.ok(text.includes(needle), `missing from the certificate text: ${needle}`);
  }
  const doc = mupdf.Document.openDocument(cert.file, 'application/pdf');
  const bounds = doc.loadPage(0).getBounds();
  doc.destroy();
  assert.equal(bounds.map(Math.round), [0, 0, 595, 842]);
});

test('a long certificate breaks onto more pages and stays readable', () => {
  const many = makeCertificate(key, {
    corrections: Array.from({ length: 12 }, (_, i) => ({
      ...makeCertificate(key).statement.corrections[0],
      seq: i + 1,
      page_index: i,
      text_before: `word ${i} `.repeat(30),
    })),
  });
  const doc = mupdf.Document.openDocument(many.file, 'application/pdf');
  const pages = doc.countPages();
  doc.destroy();
  assert.ok(pages >= 3, `pages: ${pages}`);
  assert.ok(verifyCertificateOffline(many.file, [key]).valid);
  assert.ok(pdfText(many.file).includes(`page ${pages} of ${pages}`));
});

test('one flipped byte anywhere in the file is refused offline (the seal)', () => {
  for (const at of [100, Math.floor(cert.file.length / 2), cert.file.length - 200]) {
    const flipped = cert.file.slice();
    flipped[at] ^= 0x01;
    const result = verifyCertificateOffline(flipped, [key]);
    assert.not.ok(result.valid, `byte ${at}`);
    assert.ok(failed(result).includes('seal'), `byte ${at}: ${failed(result).join(',')}`);
  }
  // a flip inside the seal line itself
  const flipped = cert.file.slice();
  flipped[cert.file.length - 5] ^= 0x01;
  assert.not.ok(verifyCertificateOffline(flipped, [key]).valid);
  // bytes added after the seal line
  const longer = new Uint8Array([...cert.file, 0x0a]);
  const result = verifyCertificateOffline(longer, [key]);
  assert.not.ok(result.valid);
  assert.ok(failed(result).includes('seal_present'));
});

/** Replaces statement.json inside the certificate PDF (as a forger would), keeping the signature. */
function withStatement(body: Uint8Array, statement: Uint8Array): Uint8Array {
  const doc = new mupdf.PDFDocument(body);
  try {
    doc.insertEmbeddedFile(
      'statement.json',
      doc.addEmbeddedFile('statement.json', 'application/json', statement, new Date(0), new Date(0)),
    );
    return new Uint8Array(doc.saveToBuffer('compress,garbage').asUint8Array());
  } finally {
    doc.destroy();
  }
}

test('one changed character of the statement inside the PDF: the signature fails offline', () => {
  const text = new TextDecoder().decode(cert.statement_bytes);
  assert.ok(text.includes('1.243,00'));
  const forged = new TextEncoder().encode(text.replace('1.243,00', '1.943,00'));
  assert.is(forged.length, cert.statement_bytes.length);
  const body = withStatement(readSealLine(cert.file)!.body, forged);

  // Re-sealed with the genuine key (as if the seal were bypassed): the statement signature still fails.
  const resealed = sealFile(body, cert.statement.certificate_id, key.key_id, key.secret_key).bytes;
  const result = verifyCertificateOffline(resealed, [key]);
  assert.not.ok(result.valid);
  assert.equal(failed(result), ['statement_signature']);
  assert.match(result.reason, /statement signature does not verify/);

  // With the original seal line kept, the seal fails as well.
  const line = cert.file.subarray(readSealLine(cert.file)!.body.length);
  const kept = new Uint8Array([...body, ...line]);
  const result2 = verifyCertificateOffline(kept, [key]);
  assert.not.ok(result2.valid);
  assert.ok(failed(result2).includes('seal') && failed(result2).includes('statement_signature'));
});

test('a certificate signed by an unknown key is refused, even when well made', () => {
  const stranger: TestKey = makeKey();
  const forged = makeCertificate(stranger);
  const result = verifyCertificateOffline(forged.file, [key]);
  assert.not.ok(result.valid);
  assert.ok(failed(result).includes('key_trusted'));
  assert.ok(failed(result).includes('statement_signature'));
  assert.match(result.reason, new RegExp(`unknown key ${stranger.key_id}`));
  // A forger who writes the genuine key id into the statement still cannot sign for it.
  const claiming = makeCertificate({ ...stranger, key_id: key.key_id });
  const result2 = verifyCertificateOffline(claiming.file, [key]);
  assert.not.ok(result2.valid);
  assert.ok(failed(result2).includes('seal') && failed(result2).includes('statement_signature'));
});

test('rotation: a certificate of a retired key verifies when that key is still trusted', () => {
  const next = makeKey();
  assert.ok(verifyCertificateOffline(cert.file, [next, key]).valid);
  assert.not.ok(verifyCertificateOffline(cert.file, [next]).valid);
});

test('--document: the corrected file matches; the original or anything else does not', () => {
  const ok = verifyCertificateOffline(cert.file, [key], { document: CORRECTED });
  assert.ok(ok.valid);
  assert.equal(ok.document, { sha256: sha(CORRECTED), matches: true, is_original: false });
  const original = verifyCertificateOffline(cert.file, [key], { document: ORIGINAL });
  assert.not.ok(original.valid);
  assert.equal(original.document, { sha256: sha(ORIGINAL), matches: false, is_original: true });
  assert.match(original.reason, /the original/);
  const other = verifyCertificateOffline(cert.file, [key], { document: new Uint8Array([1, 2, 3]) });
  assert.not.ok(other.valid);
  assert.equal(failed(other), ['document']);
});

test('anything that is not a certificate is refused without throwing', () => {
  for (const bytes of [
    new Uint8Array(0),
    new TextEncoder().encode('hello'),
    ORIGINAL,
    cert.file.subarray(0, 500),
  ]) {
    const result = verifyCertificateOffline(bytes, [key]);
    assert.not.ok(result.valid);
    assert.ok(failed(result).includes('seal_present'));
    assert.ok(failed(result).includes('statement_attached'));
  }
});

test('seal line: verifies for its body only', () => {
  const line = readSealLine(cert.file)!;
  assert.ok(verifySeal(line, key.public_key));
  assert.not.ok(verifySeal({ ...line, certificate_id: 'cert_other' }, key.public_key));
  assert.not.ok(verifySeal(line, makeKey().public_key));
});

test('a certificate carrying its public key: it verifies, and names the key and its fingerprint', () => {
  const carrying = makeCertificate(key, { public_key: toBase64Url(key.public_key) });
  assert.is(carrying.statement.public_key, toBase64Url(key.public_key));
  assert.ok(verifyCertificateOffline(carrying.file, [key]).valid);
  const claim = readKeyClaim(carrying.file);
  assert.is(claim.key_id, key.key_id);
  assert.equal(claim.public_key, key.public_key);
  assert.is(claim.fingerprint, sha(key.public_key));
  assert.is(claim.fingerprint?.slice(0, 16), key.key_id, 'the key id is the fingerprint cut short');
  assert.match(
    pdfText(carrying.file).replace(/\s+/g, ' '),
    new RegExp(`Key fingerprint ${claim.fingerprint}`),
  );
  // A certificate issued before keys were carried names its key id only.
  assert.equal(readKeyClaim(cert.file), { key_id: key.key_id, public_key: null, fingerprint: null });
  assert.not.match(pdfText(cert.file), /Key fingerprint/);
  // Not a certificate at all: nothing is claimed.
  assert.equal(readKeyClaim(ORIGINAL), { key_id: null, public_key: null, fingerprint: null });
});

test('a carried key must be the one key_id names; the claim of a file that lies about it is empty', () => {
  const stranger = makeKey();
  const lying = { ...statementInput(key), public_key: toBase64Url(stranger.public_key) };
  assert.throws(() => buildStatement(lying), /public_key is not the key key_id names/);
  assert.equal(statementProblems({ ...buildStatement(statementInput(key)), public_key: 'short' }), [
    'public_key must be 32 bytes in base64url',
  ]);
  // A forger's own key, carried honestly, gives the forger's fingerprint: never the genuine one.
  const forged = makeCertificate(stranger, { public_key: toBase64Url(stranger.public_key) });
  assert.is(readKeyClaim(forged.file).fingerprint, keyFingerprint(stranger.public_key));
  assert.is.not(readKeyClaim(forged.file).fingerprint, keyFingerprint(key.public_key));
});

test('fingerprints are read as people type them', () => {
  const fp = keyFingerprint(key.public_key);
  assert.is(parseFingerprint(fp.toUpperCase()), fp);
  assert.is(parseFingerprint(fp.match(/../g)!.join(':')), fp);
  assert.is(parseFingerprint(` ${fp.slice(0, 32)} ${fp.slice(32)} `), fp);
  assert.is(parseFingerprint(fp.slice(1)), null);
  assert.is(parseFingerprint(key.key_id), null, 'a key id alone is too short to trust a key by');
  assert.is(parseFingerprint(`${fp.slice(1)}g`), null);
});

test('engine tasks render and inspect with plain data', () => {
  const out = certificateTasks['certificates.render']({
    statement: cert.statement,
    statement_bytes: cert.statement_bytes,
    signature: cert.signature,
    name: 'x',
  });
  assert.ok(out.pdf instanceof Uint8Array);
  assert.is(new TextDecoder().decode(out.pdf.subarray(0, 5)), '%PDF-');
  const parts = certificateTasks['certificates.inspect']({ bytes: cert.file });
  assert.is(parts.seal?.certificate_id, 'cert_testtesttesttest');
});

test.run();
