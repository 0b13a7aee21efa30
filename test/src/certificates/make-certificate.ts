// Builds a real, signed and sealed certificate file for the certificate tests (no daemon).
import { generateKeyPair, keyIdOf, type PublicKeyInfo } from '../../../src/certificates/crypto.ts';
import { renderCertificatePdf } from '../../../src/certificates/render.ts';
import {
  buildStatement,
  sealFile,
  signStatement,
  type CertificateStatement,
  type StatementInput,
} from '../../../src/certificates/statement.ts';

export interface TestKey extends PublicKeyInfo {
  secret_key: Uint8Array;
}

export function makeKey(): TestKey {
  const { secretKey, publicKey } = generateKeyPair();
  return { key_id: keyIdOf(publicKey), public_key: publicKey, secret_key: secretKey };
}

export const ORIGINAL = new TextEncoder().encode('%PDF-1.7 original bytes');
export const CORRECTED = new TextEncoder().encode('%PDF-1.7 corrected bytes');

export function statementInput(key: TestKey, overrides: Partial<StatementInput> = {}): StatementInput {
  return {
    certificate_id: 'cert_testtesttesttest',
    issued_at: '2026-11-22T06:00:00.000Z',
    document_id: 'doc_testdoc',
    original_sha256: sha(ORIGINAL),
    corrected_sha256: sha(CORRECTED),
    corrections: [
      {
        seq: 1,
        page_index: 0,
        box_render: [100, 200, 640, 260],
        box_dpi: 300,
        text_before: 'Total: 1.234,00 €',
        text_after: 'Total: 1.243,00 €',
        tier: 1,
        tier_name: 'glyph_reuse',
        visibility_cost: 'none',
        changed_pixels: 812,
        outside_pixels: 0,
        verification_id: 'ver_one',
      },
    ],
    verification: {
      verification_id: 'ver_one',
      revision_id: 'rev_one',
      renderer: 'mupdf 1.28.1',
      dpi: 300,
      passed: true,
      pages_compared: 1,
    },
    audit: { head_hash: 'ab'.repeat(32), entries: 5 },
    key_id: key.key_id,
    ...overrides,
  };
}

export interface MadeCertificate {
  statement: CertificateStatement;
  statement_bytes: Uint8Array;
  signature: Uint8Array;
  body: Uint8Array;
  file: Uint8Array;
  seal: string;
  certificate_sha256: string;
}

export function makeCertificate(
  key: TestKey,
  overrides: Partial<StatementInput> = {},
  name = '',
): MadeCertificate {
  const statement = buildStatement(statementInput(key, overrides));
  const signed = signStatement(statement, key.secret_key);
  const body = renderCertificatePdf({
    statement,
    statement_bytes: signed.bytes,
    signature: signed.signature,
    name,
  });
  const sealed = sealFile(body, statement.certificate_id, key.key_id, key.secret_key);
  return {
    statement,
    statement_bytes: signed.bytes,
    signature: signed.signature,
    body,
    file: sealed.bytes,
    seal: sealed.seal,
    certificate_sha256: sealed.certificate_sha256,
  };
}

import { createHash } from 'node:crypto';
export function sha(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
