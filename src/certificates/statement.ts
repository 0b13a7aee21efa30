// The certificate statement (docs/certificates.md): what docfix certifies about a corrected document,
// versioned `docfix.certificate/1`, written as canonical JSON (RFC 8785) and signed with Ed25519 over
// exactly those bytes. And the seal: a second signature over the certificate file's own bytes, kept
// as the file's last line, so a single changed byte anywhere in the file is found without the service.
import { canonicalBytes, canonicalize } from '../canonical-json.ts';
import { ALGORITHM, fromBase64Url, keyIdOf, sha256Hex, sign, toBase64Url, verify } from './crypto.ts';

export const STATEMENT_VERSION = 'docfix.certificate/1';
export const SEAL_VERSION = 'docfix.certificate-seal/1';
export const STATEMENT_FILENAME = 'statement.json';
export const SIGNATURE_FILENAME = 'statement.sig';

/** What the statement says about the scope of the check; printed in the certificate too. */
export const SCOPE =
  'Pixel comparison of the rendered pages only. Every correction listed changed pixels only inside the ' +
  'region it declared and passed every guard. This does not say that the corrected text is true or that ' +
  'anyone was entitled to change it. This certificate is not a notarisation, not a legal attestation and ' +
  'not an invoice.';

export interface StatementCorrection {
  seq: number;
  /** Zero-based page index. */
  page_index: number;
  /** [x0, y0, x1, y1] in render pixels at box_dpi, origin top-left; null when not recorded. */
  box_render: number[] | null;
  box_dpi: number;
  text_before: string | null;
  text_after: string | null;
  tier: number;
  tier_name: string;
  visibility_cost: string;
  changed_pixels: number;
  outside_pixels: number;
  verification_id: string;
  /**
   * The original was damaged and this correction saved it repaired: each object the repair changed
   * and why (docs/engine.md, "Repair in the open"). Absent otherwise, and from earlier certificates.
   */
  repaired_objects?: { num: number; changed: string[]; reason: string }[];
}

export interface CertificateStatement {
  version: typeof STATEMENT_VERSION;
  certificate_id: string;
  issued_at: string;
  issuer: string;
  document_id: string;
  original_sha256: string;
  corrected_sha256: string;
  corrections: StatementCorrection[];
  verification: {
    verification_id: string;
    revision_id: string;
    renderer: string;
    dpi: number;
    passed: boolean;
    pages_compared: number;
  };
  audit: { head_hash: string; entries: number };
  algorithm: typeof ALGORITHM;
  key_id: string;
  /**
   * The signing public key (raw 32 bytes, base64url), so a person holding only its fingerprint can
   * check the certificate (`docfix cert verify --key-fingerprint`). Absent from certificates issued
   * before it was added. Never trusted by itself: it names the key, the person's fingerprint trusts it.
   */
  public_key?: string;
  scope: string;
}

export type StatementInput = Omit<CertificateStatement, 'version' | 'algorithm' | 'scope' | 'issuer'>;

export function buildStatement(input: StatementInput): CertificateStatement {
  const statement: CertificateStatement = {
    version: STATEMENT_VERSION,
    certificate_id: input.certificate_id,
    issued_at: input.issued_at,
    issuer: 'docfix',
    document_id: input.document_id,
    original_sha256: input.original_sha256,
    corrected_sha256: input.corrected_sha256,
    corrections: input.corrections.map((c) => ({
      seq: c.seq,
      page_index: c.page_index,
      box_render: c.box_render ? [...c.box_render] : null,
      box_dpi: c.box_dpi,
      text_before: c.text_before,
      text_after: c.text_after,
      tier: c.tier,
      tier_name: c.tier_name,
      visibility_cost: c.visibility_cost,
      changed_pixels: c.changed_pixels,
      outside_pixels: c.outside_pixels,
      verification_id: c.verification_id,
      ...(c.repaired_objects
        ? {
            repaired_objects: c.repaired_objects.map((o) => ({
              num: o.num,
              changed: [...o.changed],
              reason: o.reason,
            })),
          }
        : {}),
    })),
    verification: { ...input.verification },
    audit: { ...input.audit },
    algorithm: ALGORITHM,
    key_id: input.key_id,
    ...(input.public_key !== undefined ? { public_key: input.public_key } : {}),
    scope: SCOPE,
  };
  const problems = statementProblems(statement);
  if (problems.length)
    throw new TypeError(`certificate statement is not well formed: ${problems.join('; ')}`);
  return statement;
}

/** Everything wrong with the shape of a parsed statement (empty when it is a `docfix.certificate/1`). */
export function statementProblems(data: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(data)) return ['not a JSON object'];
  const s = data as Record<string, unknown>;
  const str = (key: string, value: unknown = s[key]) => {
    if (typeof value !== 'string') problems.push(`${key} must be a string`);
  };
  const int = (key: string, value: unknown = s[key]) => {
    if (!Number.isSafeInteger(value)) problems.push(`${key} must be an integer`);
  };
  const hash = (key: string) => {
    if (typeof s[key] !== 'string' || !/^[0-9a-f]{64}$/.test(s[key] as string))
      problems.push(`${key} must be a SHA-256`);
  };
  if (s.version !== STATEMENT_VERSION) problems.push(`version must be ${STATEMENT_VERSION}`);
  if (s.algorithm !== ALGORITHM) problems.push(`algorithm must be ${ALGORITHM}`);
  for (const key of ['certificate_id', 'issued_at', 'issuer', 'document_id', 'key_id', 'scope']) str(key);
  hash('original_sha256');
  hash('corrected_sha256');
  if (s.public_key !== undefined) {
    const key = typeof s.public_key === 'string' ? fromBase64Url(s.public_key) : null;
    if (!key || key.length !== 32) problems.push('public_key must be 32 bytes in base64url');
    else if (keyIdOf(key) !== s.key_id) problems.push('public_key is not the key key_id names');
  }
  if (!Array.isArray(s.corrections)) problems.push('corrections must be an array');
  else {
    s.corrections.forEach((c: unknown, i) => {
      if (!isObject(c)) return problems.push(`corrections[${i}] must be an object`);
      const r = c as Record<string, unknown>;
      for (const k of ['seq', 'page_index', 'box_dpi', 'tier', 'changed_pixels', 'outside_pixels'])
        int(`corrections[${i}].${k}`, r[k]);
      for (const k of ['tier_name', 'visibility_cost', 'verification_id'])
        str(`corrections[${i}].${k}`, r[k]);
      for (const k of ['text_before', 'text_after']) if (r[k] !== null) str(`corrections[${i}].${k}`, r[k]);
      if (
        r.repaired_objects !== undefined &&
        !(
          Array.isArray(r.repaired_objects) &&
          r.repaired_objects.every(
            (o: unknown) =>
              isObject(o) &&
              Number.isSafeInteger((o as Record<string, unknown>).num) &&
              Array.isArray((o as Record<string, unknown>).changed) &&
              typeof (o as Record<string, unknown>).reason === 'string',
          )
        )
      )
        problems.push(`corrections[${i}].repaired_objects must be objects {num, changed, reason}`);
      if (
        r.box_render !== null &&
        !(Array.isArray(r.box_render) && r.box_render.every(Number.isSafeInteger))
      ) {
        problems.push(`corrections[${i}].box_render must be integers or null`);
      }
    });
  }
  if (!isObject(s.verification)) problems.push('verification must be an object');
  else {
    const v = s.verification as Record<string, unknown>;
    for (const k of ['verification_id', 'revision_id', 'renderer']) str(`verification.${k}`, v[k]);
    for (const k of ['dpi', 'pages_compared']) int(`verification.${k}`, v[k]);
    if (typeof v.passed !== 'boolean') problems.push('verification.passed must be a boolean');
  }
  if (!isObject(s.audit)) problems.push('audit must be an object');
  else {
    const a = s.audit as Record<string, unknown>;
    str('audit.head_hash', a.head_hash);
    int('audit.entries', a.entries);
  }
  return problems;
}

export interface SignedStatement {
  /** The canonical JSON bytes, exactly what is signed and embedded as statement.json. */
  bytes: Uint8Array;
  /** Raw 64-byte Ed25519 signature, embedded as statement.sig. */
  signature: Uint8Array;
}

export function signStatement(statement: CertificateStatement, secretKey: Uint8Array): SignedStatement {
  const bytes = canonicalBytes(statement);
  return { bytes, signature: sign(bytes, secretKey) };
}

export function verifyStatementSignature(
  bytes: Uint8Array,
  signature: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  return verify(signature, bytes, publicKey);
}

/** The statement of a stored record must still be its canonical form and carry its signature. */
export function statementMatches(statement: unknown, signatureB64: string, publicKey: Uint8Array): boolean {
  const signature = fromBase64Url(signatureB64);
  if (!signature) return false;
  let bytes: Uint8Array;
  try {
    bytes = canonicalBytes(statement);
  } catch {
    return false;
  }
  return verify(signature, bytes, publicKey);
}

// ---- The seal line (inside the file) ---------------------------------------------------------------
//
// A certificate file is the certificate PDF (the "body") followed by one line:
//   %docfix-seal/1 <certificate_id> <key_id> <line seal>\n
// `line seal` is the base64url Ed25519 signature over the canonical JSON of
//   {"certificate_id", "key_id", "sealed_sha256": SHA-256 of the body, "type": "docfix.certificate-seal/1"}.
// The line is a PDF comment after %%EOF, which readers ignore. A file cannot carry a signature over
// its own complete bytes, so the line seals every byte before it and is itself fixed by its contents:
// offline, one changed byte anywhere is found. certificate_sha256 is the SHA-256 of the whole file
// (what `sha256sum` prints); the service's `seal` (below) signs that.

const SEAL_PREFIX = '%docfix-seal/1 ';
const SEAL_LINE = /^%docfix-seal\/1 ([A-Za-z0-9_-]{1,100}) ([0-9a-f]{16}) ([A-Za-z0-9_-]{86})\n$/;

export function sealPayload(certificateId: string, keyId: string, sealedSha256: string): Uint8Array {
  return canonicalBytes({
    type: SEAL_VERSION,
    certificate_id: certificateId,
    key_id: keyId,
    sealed_sha256: sealedSha256,
  });
}

export interface SealedFile {
  bytes: Uint8Array;
  seal: string;
  sealed_sha256: string;
  certificate_sha256: string;
}

export function sealFile(
  body: Uint8Array,
  certificateId: string,
  keyId: string,
  secretKey: Uint8Array,
): SealedFile {
  if (body[body.length - 1] !== 0x0a) body = concat(body, new Uint8Array([0x0a]));
  const sealedSha256 = sha256Hex(body);
  const seal = toBase64Url(sign(sealPayload(certificateId, keyId, sealedSha256), secretKey));
  const line = new TextEncoder().encode(`${SEAL_PREFIX}${certificateId} ${keyId} ${seal}\n`);
  const bytes = concat(body, line);
  return { bytes, seal, sealed_sha256: sealedSha256, certificate_sha256: sha256Hex(bytes) };
}

export interface SealLine {
  body: Uint8Array;
  certificate_id: string;
  key_id: string;
  seal: string;
}

/** Reads the seal line at the very end of a file; null when there is none in the expected form. */
export function readSealLine(file: Uint8Array): SealLine | null {
  const tailStart = Math.max(0, file.length - 400);
  const tail = Buffer.from(file.subarray(tailStart)).toString('latin1');
  const at = tail.lastIndexOf(`\n${SEAL_PREFIX}`);
  if (at < 0) return null;
  const match = SEAL_LINE.exec(tail.slice(at + 1));
  if (!match) return null;
  return {
    body: file.subarray(0, tailStart + at + 1),
    certificate_id: match[1],
    key_id: match[2],
    seal: match[3],
  };
}

/** The seal line's signature checks out for the body before it. */
export function verifySeal(line: SealLine, publicKey: Uint8Array): boolean {
  const signature = fromBase64Url(line.seal);
  if (!signature) return false;
  return verify(signature, sealPayload(line.certificate_id, line.key_id, sha256Hex(line.body)), publicKey);
}

// ---- The certificate seal (API field `seal`) -------------------------------------------------------
//
// The service also signs the small canonical object {certificate_id, certificate_sha256, key_id}, where
// certificate_sha256 is the SHA-256 of the whole certificate file as issued. GET /v1/certificates/{id}
// returns it, so anyone holding the file can check those exact bytes against the published key.

export function certificateSealBytes(
  certificateId: string,
  certificateSha256: string,
  keyId: string,
): Uint8Array {
  return canonicalBytes({
    certificate_id: certificateId,
    certificate_sha256: certificateSha256,
    key_id: keyId,
  });
}

export function sealCertificate(
  certificateId: string,
  certificateSha256: string,
  keyId: string,
  secretKey: Uint8Array,
): string {
  return toBase64Url(sign(certificateSealBytes(certificateId, certificateSha256, keyId), secretKey));
}

export function verifyCertificateSeal(
  seal: string,
  certificateId: string,
  certificateSha256: string,
  keyId: string,
  publicKey: Uint8Array,
): boolean {
  const signature = fromBase64Url(seal);
  if (!signature) return false;
  return verify(signature, certificateSealBytes(certificateId, certificateSha256, keyId), publicKey);
}

/** A certificate_id as it may appear inside a file (for `altered` detection without parsing). */
export function looksLikeCertificateId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(value);
}

export function statementText(statement: CertificateStatement): string {
  return canonicalize(statement);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
