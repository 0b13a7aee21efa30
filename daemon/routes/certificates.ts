// Route handlers of the certificates area (docs/certificates.md): the published signing key, issuing a
// certificate for a document as it now stands, listing and downloading certificates, the public checks
// (by id, by exact file bytes), and the audit export of Business accounts (docs/audit-export.md).
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { verifyAuditChain } from '../../src/audit-chain.ts';
import { canonicalize } from '../../src/canonical-json.ts';
import { toBase64Url } from '../../src/certificates/crypto.ts';
import {
  buildStatement,
  readSealLine,
  sealCertificate,
  sealFile,
  signStatement,
  statementMatches,
  verifyCertificateSeal,
  type CertificateStatement,
  type StatementCorrection,
} from '../../src/certificates/statement.ts';
import { engineIdentity } from '../../src/corrections/save/manifest.ts';
import { DocfixError } from '../../src/errors.ts';
import { hasCapability } from '../../src/plans.ts';
import type { AuditChainOut, CertificateCheckOut, VerificationOut } from '../../src/schemas.ts';
import { certificateOut, type CertificateRecord } from '../certificate-store.ts';
import { deletedMeanwhile, documentNotFound } from '../document-access.ts';
import { passGate, standingCorrections } from '../export-gate.ts';
import type { Caller, Handlers, Services } from '../services.ts';
import { publishedKeyDocument, type SigningKeys } from '../signing-keys.ts';
import { parseAuditLines } from '../storage/audit-log.ts';
import { randomId } from '../storage/ids.ts';
import type { CorrectionRecord, DocumentRecord } from '../storage/records.ts';

/** Certificate files are small; anything bigger sent to the public verify route is only hashed. */
const MAX_INSPECT_BYTES = 5 * 1024 * 1024;
/** The public verify route reads at most this much of an upload. */
const MAX_VERIFY_UPLOAD = 32 * 1024 * 1024;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

// The key index is a small file read on each use, so a rotation made by an admin command takes
// effect at once.
function signingKeys(services: Services): Promise<SigningKeys> {
  return services.signing();
}

function certificateStore(services: Services): Services['certificates'] {
  return services.certificates;
}

/** Is the stored record still what was signed? Answers the check's verdict without the file. */
function checkRecord(record: CertificateRecord, keys: SigningKeys): { valid: boolean; reason: string } {
  const publicKey = keys.publicKey(record.key_id);
  if (!publicKey)
    return {
      valid: false,
      reason: `the certificate names key ${record.key_id}, which this service never published`,
    };
  if (!statementMatches(record.statement, record.signature, publicKey)) {
    return { valid: false, reason: 'the stored statement no longer matches its signature' };
  }
  const s = record.statement;
  const agrees =
    s.certificate_id === record.certificate_id &&
    s.key_id === record.key_id &&
    s.issued_at === record.issued_at &&
    s.document_id === record.document_id &&
    s.original_sha256 === record.original_sha256 &&
    s.corrected_sha256 === record.corrected_sha256 &&
    s.corrections.length === record.corrections;
  if (!agrees) return { valid: false, reason: 'the stored record does not agree with its signed statement' };
  if (
    !verifyCertificateSeal(
      record.seal,
      record.certificate_id,
      record.certificate_sha256,
      record.key_id,
      publicKey,
    )
  ) {
    return { valid: false, reason: 'the stored seal does not match the certificate file hash' };
  }
  return { valid: true, reason: 'the signature and seal verify with the published key' };
}

function checkOut(
  record: CertificateRecord,
  verdict: { valid: boolean; reason: string },
): CertificateCheckOut {
  return {
    status: verdict.valid ? 'valid' : 'invalid',
    valid: verdict.valid,
    reason: verdict.reason,
    algorithm: 'Ed25519',
    certificate_id: record.certificate_id,
    issued_at: record.issued_at,
    original_sha256: record.original_sha256,
    corrected_sha256: record.corrected_sha256,
    certificate_sha256: record.certificate_sha256,
    corrections: record.corrections,
    key_id: record.key_id,
    statement: verdict.valid ? (record.statement as unknown as Record<string, unknown>) : null,
    signature: verdict.valid ? record.signature : null,
    seal: verdict.valid ? record.seal : null,
  };
}

function unknownOut(reason: string): CertificateCheckOut {
  return {
    status: 'unknown',
    valid: false,
    reason,
    algorithm: 'Ed25519',
    certificate_id: null,
    issued_at: null,
    original_sha256: null,
    corrected_sha256: null,
    certificate_sha256: null,
    corrections: null,
    key_id: null,
    statement: null,
    signature: null,
    seal: null,
  };
}

/** The gate, with its answers put in the certificate route's words. */
async function gateForCertificate(services: Services, tenantId: string, record: DocumentRecord) {
  try {
    return await passGate(services, tenantId, record);
  } catch (error) {
    if (!(error instanceof DocfixError)) throw error;
    if (error.code === 'verification_hash_mismatch') {
      throw new DocfixError(
        'not_verified',
        `The latest version is not the file that was verified: ${error.message}`,
        error.extra,
      );
    }
    if (error.code === 'diff_outside_expected_region') {
      throw new DocfixError(
        'correction_not_verified',
        `${error.message} No certificate can be issued while it stands.`,
        error.extra,
      );
    }
    if (error.code === 'verification_failed') {
      const head = standingCorrections(record).at(-1);
      if (head && typeof error.extra.seq === 'number' && error.extra.seq !== head.seq) {
        throw new DocfixError(
          'correction_not_verified',
          `${error.message} No certificate can be issued while it stands.`,
          error.extra,
        );
      }
    }
    throw error;
  }
}

function statementCorrection(record: DocumentRecord, c: CorrectionRecord): StatementCorrection {
  const v: VerificationOut | undefined = record.verifications[c.verification_id];
  const page = v?.pages.find((p) => p.page_index === c.page_index);
  const changed = page?.changed_pixels ?? v?.pages.reduce((sum, p) => sum + p.changed_pixels, 0) ?? 0;
  const outside = v ? v.pages.reduce((sum, p) => sum + p.outside_pixels, 0) : (c.outside_pixels ?? 0);
  return {
    seq: c.seq,
    page_index: c.page_index,
    box_render: c.box_render ?? null,
    box_dpi: c.box_dpi ?? 300,
    text_before: c.text_before ?? null,
    text_after: c.text_after ?? null,
    tier: c.tier,
    tier_name: c.tier_name,
    visibility_cost: c.visibility_cost ?? 'none',
    changed_pixels: changed,
    outside_pixels: outside,
    verification_id: c.verification_id,
    ...(c.repaired_objects ? { repaired_objects: c.repaired_objects } : {}),
  };
}

function keyUrl(req: FastifyRequest): string | undefined {
  const host = req.headers.host;
  if (typeof host !== 'string' || !/^[A-Za-z0-9.:[\]-]{1,200}$/.test(host)) return undefined;
  return `${req.protocol}://${host}/.well-known/docfix-certificate-key`;
}

async function readUpload(req: FastifyRequest): Promise<Uint8Array> {
  let part: MultipartFile | undefined;
  try {
    part = await req.file({ limits: { fileSize: MAX_VERIFY_UPLOAD } });
  } catch {
    part = undefined;
  }
  if (!part || part.fieldname !== 'file') {
    throw new DocfixError('invalid_request', 'Send the certificate file as the multipart field `file`.', {
      problems: [{ field: 'file', problem: 'is required' }],
    });
  }
  let bytes: Uint8Array | null = null;
  try {
    bytes = new Uint8Array(await part.toBuffer());
  } catch {
    bytes = null; // over the size limit (or the upload broke off)
  }
  if (!bytes || part.file.truncated) {
    throw new DocfixError('invalid_request', 'The file is far larger than any certificate.', {
      problems: [{ field: 'file', problem: `is over ${MAX_VERIFY_UPLOAD} bytes` }],
    });
  }
  return bytes;
}

/** The certificate id a file claims to be, from its seal line or its attached statement. */
async function claimedCertificateId(services: Services, file: Uint8Array): Promise<string | null> {
  const line = readSealLine(file);
  if (line) return line.certificate_id;
  if (file.length > MAX_INSPECT_BYTES) return null;
  try {
    const parts = await services.engine.run(
      'certificates.inspect',
      { bytes: file.slice() },
      { timeoutMs: 10_000 },
    );
    if (!parts.statement_bytes) return null;
    const statement = JSON.parse(new TextDecoder().decode(parts.statement_bytes)) as {
      certificate_id?: unknown;
    };
    return typeof statement.certificate_id === 'string' ? statement.certificate_id : null;
  } catch (error) {
    if (error instanceof DocfixError && error.code === 'busy') throw error;
    return null;
  }
}

/** What a certificate quotes, once the document's corrections and the audit record are checked. */
interface Certifiable {
  record: DocumentRecord;
  release: Awaited<ReturnType<typeof gateForCertificate>>;
  chain: AuditChainOut & { head_hash: string };
}

/**
 * The checks before a certificate: the Business plan, a document with corrections that all stand
 * verified and pass the export gate, and an audit record that recomputes intact.
 */
async function certifiable(services: Services, caller: Caller, documentId: string): Promise<Certifiable> {
  const tenantId = caller.tenant.tenant_id;
  if (!hasCapability(caller.tenant.plan, 'certificates')) {
    throw new DocfixError('business_plan_required', 'Certificates belong to the Business plan.', {
      hint: 'See `docfix plans`.',
    });
  }
  const record = await services.documents.get(tenantId, documentId);
  if (!record) throw new DocfixError('not_found', 'No such document on this account.');
  if (record.corrections.length === 0) {
    throw new DocfixError(
      'nothing_to_certify',
      'No correction was made on this document, so there is nothing to certify.',
    );
  }
  const release = await gateForCertificate(services, tenantId, record);
  const standing = release.standing;
  if (standing.length === 0)
    throw new DocfixError('nothing_to_certify', 'No correction stands on this document.');
  for (const c of standing) {
    const v = record.verifications[c.verification_id];
    if (!c.verified || (v && !v.passed)) {
      throw new DocfixError(
        'correction_not_verified',
        `Correction ${c.seq} did not verify, so no certificate can be issued while it stands.`,
        {
          seq: c.seq,
        },
      );
    }
  }
  const chain = await services.audit.verifyChain(tenantId);
  if (!chain.intact || !chain.head_hash) {
    throw new DocfixError(
      'record_does_not_verify',
      `The audit record does not recompute intact (${chain.reason ?? 'no entries'}), so no certificate can quote it.`,
      { first_broken_seq: chain.first_broken_seq },
    );
  }
  return { record, release, chain: { ...chain, head_hash: chain.head_hash } };
}

/** The statement a certificate signs: the document, its standing corrections, their proof, the record. */
function certificateStatement(
  record: DocumentRecord,
  release: Certifiable['release'],
  chain: Certifiable['chain'],
  keys: SigningKeys,
  certificateId: string,
  issuedAt: string,
) {
  const verification = release.verification;
  const renderer =
    typeof (verification as { renderer?: unknown }).renderer === 'string'
      ? String((verification as { renderer?: unknown }).renderer)
      : engineIdentity().renderer;
  return buildStatement({
    certificate_id: certificateId,
    issued_at: issuedAt,
    document_id: record.document.document_id,
    original_sha256: record.document.original_sha256,
    corrected_sha256: sha256(release.bytes),
    corrections: release.standing.map((c) => statementCorrection(record, c)),
    verification: {
      verification_id: verification.verification_id,
      revision_id: verification.revision_id,
      renderer,
      dpi: verification.dpi,
      passed: verification.passed,
      pages_compared: verification.pages.length,
    },
    audit: { head_hash: chain.head_hash, entries: chain.entries },
    key_id: keys.current.key_id,
    // The key itself travels in the statement, so a fingerprint alone can check it offline.
    public_key: toBase64Url(keys.current.public_key),
  });
}

/** The statement signed, rendered as a PDF (in an engine slot), sealed and stored as a blob. */
async function signedCertificate(
  services: Services,
  caller: Caller,
  statement: CertificateStatement,
  keys: SigningKeys,
  shown: { name: string; key_url: string | undefined },
): Promise<CertificateRecord> {
  const tenantId = caller.tenant.tenant_id;
  const certificateId = statement.certificate_id;
  const signed = signStatement(statement, keys.current.secret_key);
  const rendered = await services.engine.run('certificates.render', {
    statement,
    statement_bytes: signed.bytes,
    signature: signed.signature,
    name: shown.name,
    key_url: shown.key_url,
  });
  const sealed = sealFile(rendered.pdf, certificateId, keys.current.key_id, keys.current.secret_key);
  // A document deleted as its certificate is written loses its folder under the write (ENOENT).
  const stored = await services.blobs
    .putBytes(tenantId, statement.document_id, sealed.bytes)
    .catch(async (error: unknown) => {
      if (await deletedMeanwhile(services, tenantId, statement.document_id))
        throw documentNotFound(statement.document_id);
      throw error;
    });
  if (stored !== sealed.certificate_sha256) throw new Error('certificate blob hash mismatch');

  return {
    certificate_id: certificateId,
    tenant_id: tenantId,
    document_id: statement.document_id,
    issued_at: statement.issued_at,
    original_sha256: statement.original_sha256,
    corrected_sha256: statement.corrected_sha256,
    certificate_sha256: sealed.certificate_sha256,
    corrections: statement.corrections.length,
    key_id: keys.current.key_id,
    algorithm: 'Ed25519',
    statement,
    signature: toBase64Url(signed.signature),
    seal: sealCertificate(
      certificateId,
      sealed.certificate_sha256,
      keys.current.key_id,
      keys.current.secret_key,
    ),
    sealed_sha256: sealed.sealed_sha256,
  };
}

/**
 * The record lists the certificate and owes its audit entry in one write (audited-changes.ts).
 * When that cannot be done (a full disk: 507), the certificate is withdrawn: never issued.
 */
async function recordIssued(
  services: Services,
  caller: Caller,
  certificate: CertificateRecord,
  out: ReturnType<typeof certificateOut>,
  auditHeadHash: string,
): Promise<void> {
  const documentId = certificate.document_id;
  const issued = services.changes.update(caller.tenant.tenant_id, documentId, (r) => {
    r.certificates = [...(r.certificates ?? []), out];
    return {
      action: 'certificate.issue',
      subject_type: 'document',
      subject_id: documentId,
      payload: {
        certificate_id: certificate.certificate_id,
        certificate_sha256: certificate.certificate_sha256,
        corrected_sha256: certificate.corrected_sha256,
        corrections: certificate.corrections,
        key_id: certificate.key_id,
        audit_head_hash: auditHeadHash,
        api_key_id: caller.key.key_id,
      },
    };
  });
  const written = await issued.catch(async (error: unknown) => {
    await certificateStore(services).remove(certificate);
    throw error;
  });
  if (!written) {
    // Deleted while the certificate was made: it is withdrawn, and its blob goes with the folder.
    await certificateStore(services).remove(certificate);
    await deletedMeanwhile(services, caller.tenant.tenant_id, documentId);
    throw documentNotFound(documentId);
  }
}

export const certificateHandlers: Handlers = {
  async certificateKey({ services }) {
    return publishedKeyDocument(await signingKeys(services));
  },

  async issueCertificate({ params, body, caller, services, req }) {
    const { record, release, chain } = await certifiable(services, caller, params.document_id);
    const keys = await signingKeys(services);
    const certificateId = randomId('cert');
    const issuedAt = new Date().toISOString();
    const statement = certificateStatement(record, release, chain, keys, certificateId, issuedAt);
    const certificate = await signedCertificate(services, caller, statement, keys, {
      name: (body as { name?: string } | undefined)?.name ?? '',
      key_url: keyUrl(req),
    });
    await certificateStore(services).put(certificate);
    const out = certificateOut(certificate, true);
    await recordIssued(services, caller, certificate, out, chain.head_hash);
    return out;
  },

  async listCertificates({ params, caller, services }) {
    const tenantId = caller.tenant.tenant_id;
    const record = await services.documents.get(tenantId, params.document_id);
    if (!record) throw new DocfixError('not_found', 'No such document on this account.');
    const out = [];
    for (const c of record.certificates ?? []) {
      out.push({
        ...c,
        pdf_available: await services.blobs.has(tenantId, c.document_id, c.certificate_sha256),
      });
    }
    return out.sort(
      (a, b) => b.issued_at.localeCompare(a.issued_at) || b.certificate_id.localeCompare(a.certificate_id),
    );
  },

  async certificatePdf({ params, caller, services, reply }) {
    const tenantId = caller.tenant.tenant_id;
    const certificate = await certificateStore(services).get(params.certificate_id);
    if (!certificate || certificate === 'damaged' || certificate.tenant_id !== tenantId) {
      throw new DocfixError('not_found', 'No such certificate on this account.');
    }
    const document = await services.documents.get(tenantId, certificate.document_id);
    if (
      !document ||
      !(await services.blobs.has(tenantId, certificate.document_id, certificate.certificate_sha256))
    ) {
      throw new DocfixError(
        'certificate_file_deleted',
        'The document of this certificate was deleted, and its certificate file with it; the certificate still checks by id.',
        { certificate_id: certificate.certificate_id },
      );
    }
    const bytes = await services.blobs.read(
      tenantId,
      certificate.document_id,
      certificate.certificate_sha256,
    );
    reply.header(
      'content-disposition',
      `attachment; filename="docfix-certificate-${certificate.certificate_id}.pdf"`,
    );
    return bytes;
  },

  async checkCertificate({ params, services }) {
    const certificate = await certificateStore(services).get(params.certificate_id);
    if (!certificate) throw new DocfixError('not_found', 'No such certificate.');
    if (certificate === 'damaged') {
      return {
        ...unknownOut('The stored certificate record is damaged, so it no longer matches its signature.'),
        status: 'invalid',
        certificate_id: params.certificate_id,
      };
    }
    return checkOut(certificate, checkRecord(certificate, await signingKeys(services)));
  },

  async verifyCertificateFile({ services, req }) {
    const file = await readUpload(req);
    const store = certificateStore(services);
    const hash = sha256(file);
    const exactId = await store.idBySha256(hash);
    const exact = exactId ? await store.get(exactId) : null;
    if (exact === 'damaged') {
      return {
        ...unknownOut(
          'The stored record of this certificate is damaged, so it no longer matches its signature.',
        ),
        status: 'invalid',
        certificate_id: exactId,
      };
    }
    if (exact && exact.certificate_sha256 === hash) {
      return checkOut(exact, checkRecord(exact, await signingKeys(services)));
    }
    const claimed = await claimedCertificateId(services, file);
    const found = claimed ? await store.get(claimed) : null;
    const named = found === 'damaged' ? null : found;
    if (named) {
      return {
        ...unknownOut(
          `This file names certificate ${named.certificate_id}, but its bytes are not those issued (SHA-256 ${hash}, issued ${named.certificate_sha256}).`,
        ),
        status: 'altered',
        certificate_id: named.certificate_id,
        issued_at: named.issued_at,
        certificate_sha256: named.certificate_sha256,
        key_id: named.key_id,
      };
    }
    return unknownOut('No certificate issued by this service has exactly these bytes.');
  },

  async exportAudit({ caller, services, reply }) {
    const tenantId = caller.tenant.tenant_id;
    if (!hasCapability(caller.tenant.plan, 'audit_export')) {
      throw new DocfixError('business_plan_required', 'The audit export belongs to the Business plan.', {
        hint: 'See `docfix plans`.',
      });
    }
    // The lines exactly as stored, and the verdict over exactly those lines.
    const lines = await services.audit.readLines(tenantId);
    const entries = parseAuditLines(lines);
    const verdict = verifyAuditChain(entries);
    lines.push(
      canonicalize({
        format: 'docfix.audit-export/1',
        tenant_id: tenantId,
        exported_at: new Date().toISOString(),
        entries: entries.length,
        verdict,
      }),
    );
    reply.header('content-disposition', `attachment; filename="docfix-audit-${tenantId}.ndjson"`);
    return new TextEncoder().encode(`${lines.join('\n')}\n`);
  },
};
