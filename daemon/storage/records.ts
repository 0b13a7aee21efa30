// Shapes of the small records the daemon keeps (lowdb JSON files). One record file per document
// (tenants/<tenant>/documents/<document>/record.json): each area of the service owns its section.
import type {
  AttestationOut,
  CertificateOut,
  CorrectionOut,
  DocumentOut,
  VerificationOut,
} from '../../src/schemas.ts';

export type { PlanId } from '../../src/plans.ts';
import type { PlanId } from '../../src/plans.ts';

export interface TenantRecord {
  tenant_id: string;
  name: string;
  plan: PlanId;
  suspended: boolean;
  created_at: string;
  /** Plans bought (for the one-/ten-document plans' 30 unlimited days). */
  bought_plans: { plan: PlanId; at: string }[];
}

export interface KeyRecord {
  key_id: string;
  tenant_id: string;
  /** SHA-256 (hex) of the key's secret part; the key itself is never stored. */
  secret_sha256: string;
  created_at: string;
  revoked_at: string | null;
  label: string;
}

export interface RevisionRecord {
  revision_id: string;
  /** null for the original upload. */
  parent_revision_id: string | null;
  /** File name of the immutable blob in the document's blob folder (SHA-256 of its bytes). */
  blob_sha256: string;
  /** The correction that made this revision (null for the original). */
  correction_seq: number | null;
  created_at: string;
}

/** A correction as stored: the API's CorrectionOut plus what the engine needs to replay or explain it. */
export interface CorrectionRecord extends CorrectionOut {
  revision_id: string;
  parent_revision_id: string;
  verification_id: string;
  tier: number;
  tier_name: string;
  /** 'standing' in the head chain; 'undone' stepped back (redo can restore); 'discarded' left behind. */
  status: 'standing' | 'undone' | 'discarded';
  attestation_id: string;
  /** A scanned word's match that needed a person: the engine's check of the crop served (tier 5). */
  confirmation?: Record<string, unknown>;
  /** The original was damaged and saved repaired with this correction: what the repair changed. */
  repaired_objects?: { num: number; changed: string[]; reason: string }[];
}

/** A region of a page served as pixels (crop.png/preview), for the OCR confirmation check. */
export interface ServedRegion {
  revision_id: string;
  page_index: number;
  box_render: [number, number, number, number];
  /** Box in 300-dpi render pixels; dpi of the pixels served. */
  dpi: number;
  at: string;
}

export interface DocumentRecord {
  document: DocumentOut;
  /** Password sealed with the daemon secret (AES-256-GCM), to reopen protected documents. */
  password_sealed: string | null;
  original_revision_id: string;
  revisions: RevisionRecord[];
  corrections: CorrectionRecord[];
  /** Verifications by verification_id; the revision's latest one is named in verification_by_revision. */
  verifications: Record<string, VerificationOut>;
  verification_by_revision: Record<string, string>;
  attestations: AttestationOut[];
  certificates: CertificateOut[];
  served_regions: ServedRegion[];
  /** Native pixels inside corrections served today (Free plan inspection budget). */
  inspection: { day: string; pixels: number };
  /**
   * Audit entries owed by changes of this record, written in the same atomic write as the change
   * (daemon/storage/audited-changes.ts); start-up appends any the audit log lacks.
   */
  pending_audit?: PendingAudit[];
}

/** An audit entry a change owes until it is in the audit log (matched by `op_id`). */
export interface PendingAudit {
  op_id: string;
  at: string;
  /** 'present': owed when the record exists; 'deleted': owed when the document was deleted. */
  when: 'present' | 'deleted';
  event: {
    action: string;
    subject_type: string;
    subject_id: string;
    payload: Record<string, unknown>;
  };
}
