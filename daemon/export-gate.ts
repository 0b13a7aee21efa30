// The export gate (spec Part 3, rule 3): export, download — and anything else that releases a
// corrected file — pass through `passGate`. It answers the exact bytes it checked, so the caller
// releases those bytes and no others:
//   nothing_to_export            no correction stands (head is the original)
//   not_verified                 the head revision has no verification
//   verification_hash_mismatch   the stored bytes no longer hash to what was verified
//   diff_outside_expected_region a standing correction changed pixels outside its declared box
//   verification_failed          a standing correction did not verify (a guard failed)
// The message of the last two names the correction to undo.
import { createHash } from 'node:crypto';
import { DocfixError } from '../src/errors.ts';
import { hasCapability, planLimits, type PlanId } from '../src/plans.ts';
import type { VerificationOut } from '../src/schemas.ts';
import type { Services } from './services.ts';
import type { CorrectionRecord, DocumentRecord, RevisionRecord, TenantRecord } from './storage/records.ts';

export interface Release {
  revision: RevisionRecord;
  verification: VerificationOut;
  /** The bytes that were hashed and found equal to the verified output. */
  bytes: Uint8Array;
  standing: CorrectionRecord[];
}

export function standingCorrections(record: DocumentRecord): CorrectionRecord[] {
  return record.corrections.filter((c) => c.status === 'standing').sort((a, b) => a.seq - b.seq);
}

function outsideOf(v: VerificationOut): number {
  return v.pages.reduce((sum, p) => sum + (p.outside_pixels ?? 0), 0);
}

function undoAdvice(standing: CorrectionRecord[], seq: number): string {
  const after = standing.filter((c) => c.seq >= seq).length;
  return after <= 1
    ? 'undo it (docfix undo)'
    : `undo back to before it (${after} undos: docfix undo, ${after} times)`;
}

/** The one gate. Throws the gate's error, or answers what may be released. */
export async function passGate(
  services: Services,
  tenantId: string,
  record: DocumentRecord,
): Promise<Release> {
  const standing = standingCorrections(record);
  const headId = record.document.head_revision_id;
  if (!headId || standing.length === 0) {
    throw new DocfixError(
      'nothing_to_export',
      'No correction stands on this document, so there is nothing to release.',
    );
  }
  const revision = record.revisions.find((r) => r.revision_id === headId);
  const verificationId = record.verification_by_revision[headId];
  const verification = verificationId ? record.verifications[verificationId] : undefined;
  if (!revision || !verification) {
    throw new DocfixError('not_verified', 'The latest version of the document has not been verified.');
  }
  let bytes: Uint8Array;
  try {
    bytes = await services.blobs.read(tenantId, record.document.document_id, revision.blob_sha256);
  } catch {
    throw new DocfixError(
      'verification_hash_mismatch',
      'The stored file of the latest version is missing, so it cannot be the file that was verified.',
    );
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== verification.output_sha256 || verification.revision_id !== headId) {
    throw new DocfixError(
      'verification_hash_mismatch',
      `The file changed after it was verified (verified ${verification.output_sha256.slice(0, 12)}…, now ${actual.slice(0, 12)}…).`,
    );
  }
  // Every standing correction must have verified, the head's verification included.
  const head = standing[standing.length - 1];
  for (const c of standing) {
    const v = c.revision_id === headId ? verification : record.verifications[c.verification_id];
    const outside = v ? outsideOf(v) : (c.outside_pixels ?? 0);
    if (outside > 0) {
      throw new DocfixError(
        'diff_outside_expected_region',
        `Correction ${c.seq} changed ${outside} pixel${outside === 1 ? '' : 's'} outside its declared region; ${undoAdvice(standing, c.seq)}.`,
        { seq: c.seq },
      );
    }
    const passed = v ? v.passed : c.verified;
    if (!passed) {
      const why = v?.failure_reason ?? c.failure_reason ?? 'a guard did not pass';
      throw new DocfixError(
        'verification_failed',
        `Correction ${c.seq} did not verify (${why}); ${undoAdvice(standing, c.seq)}.`,
        { seq: c.seq },
      );
    }
  }
  if (!verification.passed || head.revision_id !== headId) {
    throw new DocfixError(
      'verification_failed',
      `The latest version did not verify; ${undoAdvice(standing, head.seq)}.`,
      {
        seq: head.seq,
      },
    );
  }
  return { revision, verification, bytes, standing };
}

/**
 * Downloads only: does anything on the account pay for this document? Plans with the `downloads`
 * capability (Personal, Business, and a one-time plan as the current plan) always do. A Free tenant
 * that bought one-time plans has `documents` downloads per purchase: a document already downloaded
 * stays covered; a new one is covered while fewer documents than bought have been downloaded.
 */
export async function checkDownloadPaid(
  services: Services,
  tenant: TenantRecord,
  documentId: string,
): Promise<{ paid_by: PlanId }> {
  if (hasCapability(tenant.plan, 'downloads') && planLimits(tenant.plan).documents == null) {
    return { paid_by: tenant.plan };
  }
  const bought = (tenant.bought_plans ?? []).filter((b) => hasCapability(b.plan, 'downloads'));
  let covered = bought.reduce((n, b) => n + (planLimits(b.plan).documents ?? Number.POSITIVE_INFINITY), 0);
  if (hasCapability(tenant.plan, 'downloads') && !bought.some((b) => b.plan === tenant.plan)) {
    covered += planLimits(tenant.plan).documents ?? Number.POSITIVE_INFINITY;
  }
  if (covered > 0) {
    const entries = await services.audit.readAll(tenant.tenant_id);
    const downloaded = new Set(
      entries.filter((e) => e.action === 'document.download').map((e) => e.subject_id),
    );
    if (downloaded.has(documentId) || downloaded.size < covered) {
      const paidBy = bought[0]?.plan ?? tenant.plan;
      return { paid_by: paidBy };
    }
    throw new DocfixError(
      'payment_required',
      `The documents bought on this account (${covered}) have all been downloaded; buy another plan to download this one.`,
      { hint: 'See `docfix plans`.' },
    );
  }
  throw new DocfixError(
    'payment_required',
    'The Free plan corrects and verifies but does not download; a one-time or monthly plan pays for the download.',
    { hint: 'See `docfix plans`; export (the gate) works without paying.' },
  );
}
