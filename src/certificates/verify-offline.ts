// Checks a certificate file with no service and no network: given the file's bytes and the public
// key(s) trusted (pinned, or handed over by the person), it reads the seal line and the attached
// statement and signature, verifies both, and says what is certified. With the corrected document's
// bytes it also checks that they are the file certified. Every check is run and reported, so a person
// sees all that is wrong, not only the first thing.
import { isCanonical } from '../canonical-json.ts';
import {
  ALGORITHM,
  fromBase64Url,
  keyFingerprint,
  keyIdOf,
  sha256Hex,
  type PublicKeyInfo,
} from './crypto.ts';
import { extractCertificateParts } from './extract.ts';
import {
  readSealLine,
  statementProblems,
  verifySeal,
  verifyStatementSignature,
  SIGNATURE_FILENAME,
  STATEMENT_FILENAME,
  type CertificateStatement,
} from './statement.ts';

export interface OfflineCheck {
  name:
    | 'seal_present'
    | 'key_trusted'
    | 'seal'
    | 'statement_attached'
    | 'statement_signature'
    | 'statement_form'
    | 'ids_agree'
    | 'verification_passed'
    | 'document';
  passed: boolean;
  detail: string;
}

export interface OfflineVerification {
  /** True only when every check passed. */
  valid: boolean;
  /** The first failed check's detail, or a one-line summary of what is certified. */
  reason: string;
  checks: OfflineCheck[];
  algorithm: typeof ALGORITHM;
  certificate_id: string | null;
  key_id: string | null;
  /** SHA-256 of the file checked (what the service calls certificate_sha256). */
  certificate_sha256: string;
  /** The signed statement; present when it parsed, even if a check failed (never trust it then). */
  statement: CertificateStatement | null;
  /** Present when corrected-document bytes were given. */
  document: { sha256: string; matches: boolean; is_original: boolean } | null;
}

export interface OfflineOptions {
  /** Bytes of a corrected PDF to compare with the certified corrected_sha256. */
  document?: Uint8Array;
  /** How to name the trusted keys in a failed check (default: their key ids). */
  trustedNames?: string;
}

/**
 * What a certificate file says about the key that signed it, before anything is checked: the key id
 * of its seal line (else of its statement) and, when the statement carries it, the public key and
 * its fingerprint. Nothing here is trusted; it tells a person which key to look for.
 */
export interface KeyClaim {
  key_id: string | null;
  /** The public key the statement carries, when it is the key key_id names. */
  public_key: Uint8Array | null;
  /** SHA-256 of that public key (64 hex digits); null when the file carries no key. */
  fingerprint: string | null;
}

export function readKeyClaim(file: Uint8Array): KeyClaim {
  const parts = extractCertificateParts(file);
  const line = parts.seal;
  const statement = parts.statement_bytes ? parseObject(parts.statement_bytes) : null;
  const statementKeyId = typeof statement?.key_id === 'string' ? statement.key_id : null;
  const keyId = line?.key_id ?? statementKeyId;
  const carried = typeof statement?.public_key === 'string' ? fromBase64Url(statement.public_key) : null;
  const publicKey = carried && carried.length === 32 && keyIdOf(carried) === keyId ? carried : null;
  return {
    key_id: keyId,
    public_key: publicKey,
    fingerprint: publicKey ? keyFingerprint(publicKey) : null,
  };
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const data: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function verifyCertificateOffline(
  file: Uint8Array,
  trusted: readonly PublicKeyInfo[],
  options: OfflineOptions = {},
): OfflineVerification {
  const checks: OfflineCheck[] = [];
  const keys: TrustedKeys = {
    byId: new Map(trusted.map((k) => [k.key_id, k.public_key])),
    names: options.trustedNames ?? (trusted.map((k) => k.key_id).join(', ') || 'none'),
  };
  const check: Check = (name, passed, detail) => {
    checks.push({ name, passed, detail });
  };
  const line = checkSeal(file, keys, check);
  const statement = checkStatement(file, line, keys, check);
  const document = options.document ? checkDocument(options.document, statement, check) : null;

  const failed = checks.find((c) => !c.passed);
  const valid = !failed;
  return {
    valid,
    reason: failed
      ? failed.detail
      : `certificate ${statement!.certificate_id}: ${statement!.corrections.length} correction(s) to ${statement!.corrected_sha256}, signed by key ${statement!.key_id}`,
    checks,
    algorithm: ALGORITHM,
    certificate_id: statement?.certificate_id ?? line?.certificate_id ?? null,
    key_id: statement?.key_id ?? line?.key_id ?? null,
    certificate_sha256: sha256Hex(file),
    statement,
    document,
  };
}

/** Records one check's outcome (every check is run and reported). */
type Check = (name: OfflineCheck['name'], passed: boolean, detail: string) => void;

/** The keys trusted, by id, and how a failed check names them. */
interface TrustedKeys {
  byId: Map<string, Uint8Array>;
  names: string;
}

type SealLine = NonNullable<ReturnType<typeof readSealLine>>;

/** The seal line: present, by a trusted key, and over every byte of the file. */
function checkSeal(file: Uint8Array, keys: TrustedKeys, check: Check): SealLine | null {
  const line = readSealLine(file);
  check(
    'seal_present',
    line !== null,
    line
      ? `sealed as certificate ${line.certificate_id} by key ${line.key_id}`
      : 'the file does not end with a docfix seal line: it was changed, cut short, or is not a docfix certificate',
  );
  if (!line) return null;
  const sealKey = keys.byId.get(line.key_id);
  check(
    'key_trusted',
    sealKey !== undefined,
    sealKey
      ? `key ${line.key_id} is trusted`
      : `signed by an unknown key ${line.key_id} (trusted: ${keys.names})`,
  );
  if (sealKey) {
    const sealed = verifySeal(line, sealKey);
    check(
      'seal',
      sealed,
      sealed
        ? 'every byte of the file is as issued'
        : 'the file is not the one that was sealed: its bytes were changed (altered)',
    );
  }
  return line;
}

/**
 * The attached statement and its signature: attached, a canonical docfix.certificate/1, signed by a
 * trusted key, naming what the seal names, recording a passed verification. Answers the statement
 * when it is well formed (even if another check failed).
 */
function checkStatement(
  file: Uint8Array,
  line: SealLine | null,
  keys: TrustedKeys,
  check: Check,
): CertificateStatement | null {
  const parts = extractCertificateParts(file);
  const attached = parts.statement_bytes !== null && parts.signature !== null;
  check(
    'statement_attached',
    attached,
    attached
      ? `${STATEMENT_FILENAME} and ${SIGNATURE_FILENAME} are attached`
      : (parts.problem ?? `the file does not carry both ${STATEMENT_FILENAME} and ${SIGNATURE_FILENAME}`),
  );
  if (!parts.statement_bytes || !parts.signature) return null;
  const statement = statementOfForm(parts.statement_bytes, check);

  const statementKeyId = statement?.key_id ?? line?.key_id ?? null;
  const statementKey = statementKeyId ? keys.byId.get(statementKeyId) : undefined;
  if (!statementKey) {
    check(
      'statement_signature',
      false,
      `the statement names key ${statementKeyId ?? '(none)'}, which is not trusted (trusted: ${keys.names})`,
    );
  } else {
    const ok = verifyStatementSignature(parts.statement_bytes, parts.signature, statementKey);
    check(
      'statement_signature',
      ok,
      ok
        ? `Ed25519 signature by key ${statementKeyId} verifies`
        : 'the statement signature does not verify: the statement or its signature was changed',
    );
  }
  if (statement && line) {
    const agree = statement.certificate_id === line.certificate_id && statement.key_id === line.key_id;
    check(
      'ids_agree',
      agree,
      agree
        ? 'statement and seal name the same certificate and key'
        : `the seal names ${line.certificate_id}/${line.key_id} but the statement ${statement.certificate_id}/${statement.key_id}`,
    );
  }
  if (statement) {
    const outside = statement.corrections.reduce((sum, c) => sum + c.outside_pixels, 0);
    const passed = statement.verification.passed && outside === 0 && statement.corrections.length > 0;
    check(
      'verification_passed',
      passed,
      passed
        ? 'verification passed with 0 pixels outside every declared region'
        : 'the statement does not record a passed verification',
    );
  }
  return statement;
}

/** The statement's bytes read as a docfix.certificate/1 in canonical JSON, or null. */
function statementOfForm(bytes: Uint8Array, check: Check): CertificateStatement | null {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const problems = parsed === null ? ['not JSON'] : statementProblems(parsed);
  if (problems.length === 0 && !isCanonical(text)) problems.push('not in canonical form (RFC 8785)');
  check(
    'statement_form',
    problems.length === 0,
    problems.length
      ? `the statement is not a docfix.certificate/1: ${problems.join('; ')}`
      : 'docfix.certificate/1, canonical JSON',
  );
  return problems.length === 0 ? (parsed as CertificateStatement) : null;
}

/** The corrected document given: is it the file certified (or the original, before the corrections)? */
function checkDocument(
  bytes: Uint8Array,
  statement: CertificateStatement | null,
  check: Check,
): NonNullable<OfflineVerification['document']> {
  const sha = sha256Hex(bytes);
  const matches = statement !== null && sha === statement.corrected_sha256;
  const isOriginal = statement !== null && sha === statement.original_sha256;
  check(
    'document',
    matches,
    matches
      ? `the document is the certified corrected file (SHA-256 ${sha})`
      : isOriginal
        ? 'the document is the original, before the corrections, not the corrected file certified'
        : `the document's SHA-256 ${sha} is not the certified ${statement?.corrected_sha256 ?? '(unknown)'}`,
  );
  return { sha256: sha, matches, is_original: isOriginal };
}
