// Route handlers of the corrections workflow (docs/corrections.md): attestations, propose, apply
// (confirmation token, daily limit, durable revision then records then audit), verification,
// corrections, undo/redo, the manifest, and export/download through the one gate
// (daemon/export-gate.ts). The engine work itself runs in engine slots (src/corrections/tasks.ts).
import { createHash } from 'node:crypto';
import { canonicalize } from '../../src/canonical-json.ts';
import {
  engineIdentity,
  readManifest,
  type ManifestCorrection,
  type ManifestInput,
} from '../../src/corrections/save/manifest.ts';
import type { EditTaskInput, EngineProposal } from '../../src/corrections/tasks.ts';
import type { EngineTaskOutput } from '../../src/engine-tasks.ts';
import { DocfixError } from '../../src/errors.ts';
import { dailyCorrectionLimit, NO_LOCAL_LIMITS, planLimits, type LocalPlanLimits } from '../../src/plans.ts';
import type {
  ApplyBody,
  AttestationOut,
  CorrectionOut,
  EditRequest,
  RefusalAdvice,
  TierRejection,
  UndoOut,
  VerificationOut,
} from '../../src/schemas.ts';
import { checkTokenEngine, checkTokenHead, signConfirmToken, type TokenBinding } from '../confirm-token.ts';
import { checkDownloadPaid, passGate, standingCorrections } from '../export-gate.ts';
import type { Caller, Handlers, Services } from '../services.ts';
import {
  currentRevision,
  deletedMeanwhile,
  documentNotFound,
  documentPassword,
  loadDocument,
} from '../document-access.ts';
import type { OwedEvent } from '../storage/audited-changes.ts';
import { nextUtcDay } from '../storage/usage-store.ts';
import { randomId } from '../storage/ids.ts';
import type {
  CorrectionRecord,
  DocumentRecord,
  RevisionRecord,
  ServedRegion,
  TenantRecord,
} from '../storage/records.ts';

/** Working resolution of verification renders and of declared boxes. */
export const WORKING_DPI = 300;

// ---------------------------------------------------------------------------------------------
// Attestation statements. A version, once published, never changes its text.

export const DEFAULT_STATEMENT_VERSION = '2026-08-v1';
export const STATEMENTS: Record<string, string> = {
  '2026-08-v1':
    'I am the author of this document or I am authorised by its author or owner to correct it. ' +
    'The corrections I make with this service are true to the facts as I know them and are not made ' +
    'to mislead anyone about what the document originally said or who issued it. I understand that ' +
    'the service verifies only that the changes are confined to the regions shown, not that the new ' +
    'text is true, and that every correction is recorded.',
};

// ---------------------------------------------------------------------------------------------
// The engine's side of the contract (src/corrections/tasks.ts).

/** What the engine's propose and apply tasks are given. */
export interface CorrectionTaskInput extends EditTaskInput {
  /** Regions of the head revision served as magnified pixels (crop.png), for OCR `confirmed`. */
  served_regions: ServedRegion[];
}

type EngineApplyResult = EngineTaskOutput<'applyEdit'>;

/** Runs a correction task in an engine slot; any failure of the engine itself is edit_failed. */
async function runEngine<N extends 'proposeEdit' | 'applyEdit'>(
  services: Services,
  name: N,
  input: CorrectionTaskInput,
  blobSha256: string,
): Promise<EngineTaskOutput<N>> {
  // The revision corrected and the request: a proposal and its apply meet in one engine slot, where
  // the proposal's verified bytes are kept for the apply (src/corrections/engine.ts).
  const affinity = createHash('sha256').update(blobSha256).update(canonicalize(input.request)).digest('hex');
  try {
    return await services.engine.run(name, input, { timeoutCode: 'edit_failed', affinity });
  } catch (error) {
    // A worker that died answers internal_error; for a correction that is an engine failure.
    if (error instanceof DocfixError && error.code !== 'internal_error') throw error;
    throw new DocfixError(
      'edit_failed',
      'The engine failed while correcting this document; nothing changed.',
      {},
      { cause: error },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

function servedOn(record: DocumentRecord, revision: RevisionRecord): ServedRegion[] {
  return (record.served_regions ?? []).filter((r) => r.revision_id === revision.revision_id);
}

function requireAttestation(record: DocumentRecord, attestationId: string): AttestationOut {
  const found = record.attestations.find((a) => a.attestation_id === attestationId);
  if (!found) {
    throw new DocfixError(
      'attestation_required',
      `Attestation ${attestationId} is not one made for this document; create one with POST /v1/attestations (docfix attest).`,
    );
  }
  return found;
}

function requirePage(record: DocumentRecord, request: EditRequest): number {
  const page = request.page_index ?? 0;
  if (page >= record.document.page_count) {
    throw new DocfixError(
      'page_out_of_range',
      `Page ${page} is beyond the last page (${record.document.page_count - 1}); page indexes start at 0.`,
    );
  }
  return page;
}

/** Fills the request's defaults so the engine, the token and the records see the same request. */
function withDefaults(request: EditRequest): EditRequest {
  return { ...request, page_index: request.page_index ?? 0, font_attempt: request.font_attempt ?? 0 };
}

function toManifestCorrection(c: CorrectionRecord): ManifestCorrection {
  return {
    page: c.page_index,
    box_render: c.box_render ?? null,
    box_dpi: c.box_dpi ?? WORKING_DPI,
    text_before: c.text_before ?? null,
    text_after: c.text_after ?? null,
    tier: c.tier,
    tier_name: c.tier_name,
    visibility_cost: c.visibility_cost ?? 'none',
    created_at: c.created_at,
    // Every later revision's manifest keeps the repair made with this correction (docfix verify checks it).
    ...(c.repaired_objects ? { repaired_objects: c.repaired_objects } : {}),
  };
}

function manifestInput(record: DocumentRecord): ManifestInput {
  return {
    document_id: record.document.document_id,
    original_sha256: record.document.original_sha256,
    standing: standingCorrections(record).map(toManifestCorrection),
    ...engineIdentity(),
    dpi: WORKING_DPI,
  };
}

/** The API's view of a stored correction (no revision ids: undo always steps back from the head). */
export function correctionOut(c: CorrectionRecord): CorrectionOut {
  return {
    seq: c.seq,
    page_index: c.page_index,
    box_render: c.box_render ?? null,
    box_dpi: c.box_dpi ?? WORKING_DPI,
    changed_render: c.changed_render ?? null,
    changed_dpi: c.changed_dpi ?? WORKING_DPI,
    text_before: c.text_before ?? null,
    text_after: c.text_after ?? null,
    visibility_cost: c.visibility_cost ?? 'none',
    verified: c.verified,
    failure_reason: c.failure_reason ?? null,
    outside_pixels: c.outside_pixels ?? 0,
    created_at: c.created_at,
  };
}

/** Daily correction limit of the tenant (null: unlimited); a one-time purchase lifts it for its days. */
export function correctionLimit(
  tenant: TenantRecord,
  now = new Date(),
  local: LocalPlanLimits = NO_LOCAL_LIMITS,
): number | null {
  const bought = tenant.bought_plans ?? [];
  const own = bought.filter((b) => b.plan === tenant.plan).map((b) => b.at);
  if (dailyCorrectionLimit(tenant.plan, own, now, local) === null) return null;
  // A one-time plan bought earlier still lifts the limit for its days, whatever the plan now is.
  for (const b of bought) {
    if (planLimits(b.plan).unlimited_corrections_days && dailyCorrectionLimit(b.plan, [b.at], now) === null)
      return null;
  }
  return planLimits(tenant.plan, local).corrections_per_day ?? null;
}

/**
 * Checks the daily limit and holds a place for this correction (in the usage store: this process's
 * count on a data directory, the database's on PostgreSQL) until it is committed (counted) or
 * released, so racing applies — on any instance — cannot pass the limit together.
 */
async function reserveCorrection(
  services: Services,
  tenant: TenantRecord,
): Promise<{ commit(): Promise<void>; release(): Promise<void> }> {
  const limit = correctionLimit(tenant, new Date(), services.config.localPlan);
  const hold = await services.usage.reserve(tenant.tenant_id, limit);
  if (!hold.granted) {
    throw new DocfixError(
      'daily_limit_reached',
      `This account made its ${limit} corrections for today (UTC); the count starts again on ${nextUtcDay()}.`,
      {
        hint:
          tenant.plan === 'local'
            ? "The local plan's daily limit is set by the daemon's configuration (DOCFIX_LOCAL_CORRECTIONS_PER_DAY); without it there is none."
            : 'A one-time plan lifts the limit for 30 days after purchase; Personal and Business plans have no daily limit. See `docfix plans`.',
        limit,
        used: hold.used,
        resets_on: nextUtcDay(),
      },
    );
  }
  return hold;
}

function stale(reason: string): DocfixError {
  return new DocfixError('stale_or_invalid_confirmation', reason);
}

function refusal(proposal: EngineProposal): DocfixError {
  const advice: RefusalAdvice | null = proposal.advice ?? null;
  const rejected: TierRejection[] = proposal.rejected ?? [];
  return new DocfixError(
    'edit_refused',
    proposal.refusal ?? advice?.what ?? 'The engine will not make this correction.',
    {
      advice,
      rejected,
    },
  );
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function contentDisposition(filenameHint: string): string {
  const base = (filenameHint || 'document.pdf').replace(/[/\\]/g, '_');
  const stem = base.replace(/\.pdf$/i, '');
  const name = `${stem}-corrected.pdf`;
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

// ---------------------------------------------------------------------------------------------
// Applying a correction: checked, run by the engine, stored (the new revision durable first, then
// the records and their audit entry in one write).

/** An apply checked against its document and its token's head, before the engine runs it. */
interface CheckedApply {
  tenantId: string;
  documentId: string;
  record: DocumentRecord;
  request: EditRequest;
  attestation: AttestationOut;
  head: RevisionRecord;
  binding: TokenBinding;
  apply: ApplyBody['apply'];
}

/** What the engine answered an apply, its output's bytes checked against its verification. */
interface EngineApplied {
  proposal: EngineApplyResult['proposal'];
  verification: EngineApplyResult['verification'];
  output: Uint8Array;
  outputSha: string;
}

/** The request, attestation, page and token checked against the document's head. */
async function checkApply(
  services: Services,
  caller: Caller,
  documentId: string,
  body: ApplyBody,
): Promise<CheckedApply> {
  const tenantId = caller.tenant.tenant_id;
  const record = await loadDocument(services, caller, documentId);
  const request = withDefaults(body.request);
  const attestation = requireAttestation(record, request.attestation_id);
  requirePage(record, request);
  const head = currentRevision(record);
  const binding: TokenBinding = {
    tenant_id: tenantId,
    document_id: documentId,
    head_revision_id: head.revision_id,
    request,
    proposal_id: body.apply.proposal_id,
  };
  const headCheck = checkTokenHead(services.secret, body.apply.confirm_token, binding);
  if (!headCheck.ok) throw stale(headCheck.reason);
  return { tenantId, documentId, record, request, attestation, head, binding, apply: body.apply };
}

/** With a place held under the daily limit: the engine's apply, the new revision, the records. */
async function applyReserved(
  services: Services,
  caller: Caller,
  apply: CheckedApply,
): Promise<VerificationOut> {
  const { tenantId, documentId } = apply;
  const applied = await runApply(services, apply);

  // 1. The new revision, durable before any record points to it. A document deleted as it is
  // written loses its folder under the write (ENOENT): that is a document not found, not a failure.
  let blobSha: string;
  try {
    blobSha = await services.blobs.putBytes(tenantId, documentId, applied.output);
  } catch (error) {
    if (await deletedMeanwhile(services, tenantId, documentId)) throw documentNotFound(documentId);
    throw error;
  }

  // 2. Under the document's lock, the head must still be the one corrected.
  const now = new Date().toISOString();
  const revisionId = randomId('rev');
  const verificationId = randomId('ver');
  const { declared_box, changed_box, text_before, text_after, ...verificationFields } = applied.verification;
  const verification: VerificationOut = {
    ...verificationFields,
    verification_id: verificationId,
    revision_id: revisionId,
  };
  const made: MadeCorrection = {
    revisionId,
    verificationId,
    blobSha,
    now,
    verification,
    declaredBox: declared_box,
    changedBox: changed_box,
    textBefore: text_before,
    textAfter: text_after,
  };
  let correction: CorrectionRecord | null = null;
  // 3. The records and the audit entry they owe, in one write (storage/audited-changes.ts).
  const written = await services.changes.update(tenantId, documentId, (current) => {
    correction = recordCorrection(current, apply, applied, made);
    return applyEvent(caller, apply, applied, made, correction);
  });
  if (!written || !correction) {
    await deletedMeanwhile(services, tenantId, documentId);
    throw documentNotFound(documentId);
  }
  return verification;
}

/** The engine's apply of the checked request, its tier and fingerprint checked against the token. */
async function runApply(services: Services, apply: CheckedApply): Promise<EngineApplied> {
  const { record, head, request } = apply;
  const pdf = await services.blobs.read(apply.tenantId, apply.documentId, head.blob_sha256);
  const password = documentPassword(record, services);
  let result: EngineApplyResult;
  try {
    result = await runEngine(
      services,
      'applyEdit',
      {
        pdf,
        password,
        request,
        manifest: manifestInput(record),
        served_regions: servedOn(record, head),
      },
      head.blob_sha256,
    );
  } catch (error) {
    if (error instanceof DocfixError && error.code === 'edit_refused') {
      // Same head, same request: the proposal confirmed was a refusal too. Keep its advice.
      const advice = error.extra.advice ?? null;
      throw new DocfixError('edit_refused', error.message, { ...error.extra, advice });
    }
    throw error;
  }
  const { proposal, verification } = result;
  if (proposal.refusal) throw refusal(proposal);
  const engineCheck = checkTokenEngine(services.secret, apply.apply.confirm_token, apply.binding, {
    fingerprint: proposal.fingerprint,
    tier: proposal.tier,
  });
  if (!engineCheck.ok) throw stale(engineCheck.reason);

  const output =
    result.output instanceof Uint8Array ? result.output : new Uint8Array(result.output as ArrayLike<number>);
  const outputSha = sha256(output);
  if (verification.output_sha256 !== outputSha) {
    throw new DocfixError('edit_failed', 'The engine verified other bytes than it wrote; nothing changed.');
  }
  return { proposal, verification, output, outputSha };
}

/** The ids, time and verification of the correction being stored, and what the engine measured. */
interface MadeCorrection {
  revisionId: string;
  verificationId: string;
  blobSha: string;
  now: string;
  verification: VerificationOut;
  declaredBox: EngineApplied['verification']['declared_box'];
  changedBox: EngineApplied['verification']['changed_box'];
  textBefore: EngineApplied['verification']['text_before'];
  textAfter: EngineApplied['verification']['text_after'];
}

/**
 * Inside the document's write: the head checked once more, then the new revision, the correction,
 * its verification and the document's head recorded. Answers the correction recorded.
 */
function recordCorrection(
  current: DocumentRecord,
  apply: CheckedApply,
  applied: EngineApplied,
  made: MadeCorrection,
): CorrectionRecord {
  const { head, attestation, request } = apply;
  const { proposal } = applied;
  const { verification, revisionId, verificationId, now } = made;
  const currentHead = current.document.head_revision_id ?? current.original_revision_id;
  if (currentHead !== head.revision_id) {
    throw stale(
      'The document changed while this correction was being made (another correction won). Propose again.',
    );
  }
  if (!current.attestations.some((a) => a.attestation_id === attestation.attestation_id)) {
    throw new DocfixError('attestation_required', 'The attestation of this correction is gone.');
  }
  // A new correction after undo leaves the undone ones behind (kept, marked discarded).
  for (const c of current.corrections) if (c.status === 'undone') c.status = 'discarded';
  const seq = current.corrections.reduce((max, c) => Math.max(max, c.seq), 0) + 1;
  current.revisions.push({
    revision_id: revisionId,
    parent_revision_id: head.revision_id,
    blob_sha256: made.blobSha,
    correction_seq: seq,
    created_at: now,
  });
  const outside = verification.pages.reduce((sum, p) => sum + (p.outside_pixels ?? 0), 0);
  const confirmation = confirmationChecked(proposal);
  // A damaged original saved repaired: the repair goes on record, and into later manifests.
  const repaired = (
    verification.stream_changes as { repair?: { objects?: CorrectionRecord['repaired_objects'] } }
  ).repair?.objects;
  const correction: CorrectionRecord = {
    seq,
    page_index: request.page_index ?? 0,
    box_render: made.declaredBox ?? null,
    box_dpi: verification.dpi ?? WORKING_DPI,
    changed_render: made.changedBox ?? null,
    changed_dpi: verification.dpi ?? WORKING_DPI,
    text_before: made.textBefore ?? null,
    text_after: made.textAfter ?? request.replacement ?? null,
    visibility_cost: proposal.visibility_cost ?? 'none',
    verified: verification.passed,
    failure_reason: verification.failure_reason ?? null,
    outside_pixels: outside,
    created_at: now,
    revision_id: revisionId,
    parent_revision_id: head.revision_id,
    verification_id: verificationId,
    tier: proposal.tier,
    tier_name: proposal.tier_name,
    status: 'standing',
    attestation_id: attestation.attestation_id,
    ...(confirmation ? { confirmation } : {}),
    ...(repaired ? { repaired_objects: repaired } : {}),
  };
  current.corrections.push(correction);
  current.verifications[verificationId] = verification;
  current.verification_by_revision[revisionId] = verificationId;
  current.document.head_revision_id = revisionId;
  current.document.state = 'corrected';
  return correction;
}

/** A scanned word's match a person had to confirm: what the engine checked goes on record. */
function confirmationChecked(proposal: EngineApplied['proposal']): Record<string, unknown> | null {
  const checked = (proposal.measurements as { confirmation?: { needed?: boolean } } | undefined)
    ?.confirmation;
  return checked?.needed ? (checked as Record<string, unknown>) : null;
}

/** The audit event the stored correction owes. */
function applyEvent(
  caller: Caller,
  apply: CheckedApply,
  applied: EngineApplied,
  made: MadeCorrection,
  correction: CorrectionRecord,
): OwedEvent {
  const confirmation = confirmationChecked(applied.proposal);
  return {
    action: 'correction.apply',
    subject_type: 'document',
    subject_id: apply.documentId,
    payload: {
      seq: correction.seq,
      page_index: correction.page_index,
      revision_id: made.revisionId,
      parent_revision_id: apply.head.revision_id,
      verification_id: made.verificationId,
      output_sha256: applied.outputSha,
      passed: made.verification.passed,
      tier: correction.tier,
      tier_name: correction.tier_name,
      text_before: correction.text_before,
      text_after: correction.text_after,
      box_render: correction.box_render,
      attestation_id: apply.attestation.attestation_id,
      proposal_id: apply.apply.proposal_id,
      key_id: caller.key.key_id,
      ...(confirmation ? { confirmation } : {}),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Handlers.

/** The audit event of an undo or a redo, owed by the record's change. */
function stepEvent(
  caller: Caller,
  documentId: string,
  action: 'correction.undo' | 'correction.redo',
  stepped: CorrectionRecord,
  extra: Record<string, unknown>,
): OwedEvent {
  return {
    action,
    subject_type: 'document',
    subject_id: documentId,
    payload: { seq: stepped.seq, revision_id: stepped.revision_id, ...extra, key_id: caller.key.key_id },
  };
}

/** After an undo or a redo: the answer (the correction stepped over, and those standing). */
function stepAnswer(
  documentId: string,
  written: DocumentRecord | null,
  stepped: CorrectionRecord | null,
): UndoOut {
  if (!written || !stepped) throw new DocfixError('not_found', `No document ${documentId} on this account.`);
  return {
    document: written.document,
    undone: correctionOut(stepped),
    corrections: standingCorrections(written).map(correctionOut),
  };
}

export const correctionHandlers: Handlers = {
  async createAttestation({ body, caller, services }) {
    const version = body.statement_version ?? DEFAULT_STATEMENT_VERSION;
    const text = STATEMENTS[version];
    if (text === undefined) {
      throw new DocfixError('invalid_request', `No attestation statement has version ${version}.`, {
        problems: [
          {
            field: 'body.statement_version',
            problem: `is not a published statement version (known: ${Object.keys(STATEMENTS).join(', ')})`,
          },
        ],
      });
    }
    const tenantId = caller.tenant.tenant_id;
    const attestation: AttestationOut = {
      attestation_id: randomId('att'),
      statement_version: version,
      statement_text: text,
      created_at: new Date().toISOString(),
    };
    const written = await services.changes.update(tenantId, body.document_id, (record) => {
      if (record.document.tenant_id !== tenantId)
        throw new DocfixError('not_found', `No document ${body.document_id} on this account.`);
      record.attestations.push(attestation);
      return {
        action: 'attestation.create',
        subject_type: 'document',
        subject_id: body.document_id,
        payload: {
          attestation_id: attestation.attestation_id,
          statement_version: version,
          statement_text: text,
          statement_sha256: sha256(new TextEncoder().encode(text)),
          key_id: caller.key.key_id,
        },
      };
    });
    if (!written) throw new DocfixError('not_found', `No document ${body.document_id} on this account.`);
    return attestation;
  },

  async proposeEdit({ params, body, caller, services }) {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const request = withDefaults(body);
    requireAttestation(record, request.attestation_id);
    requirePage(record, request);
    const head = currentRevision(record);
    const pdf = await services.blobs.read(tenantId, record.document.document_id, head.blob_sha256);
    const password = documentPassword(record, services);
    const proposal = await runEngine(
      services,
      'proposeEdit',
      {
        pdf,
        password,
        request,
        manifest: manifestInput(record),
        served_regions: servedOn(record, head),
      },
      head.blob_sha256,
    );
    const proposalId = randomId('prop');
    const binding: TokenBinding = {
      tenant_id: tenantId,
      document_id: record.document.document_id,
      head_revision_id: head.revision_id,
      request,
      proposal_id: proposalId,
    };
    const token = signConfirmToken(services.secret, binding, {
      fingerprint: proposal.fingerprint,
      tier: proposal.tier,
    });
    const { fingerprint: _fingerprint, ...rest } = proposal;
    return {
      ...rest,
      proposal_id: proposalId,
      confirm_token: token,
      document_id: record.document.document_id,
      page_index: proposal.page_index ?? request.page_index ?? 0,
    };
  },

  async applyEdit({ params, body, caller, services }) {
    const apply = await checkApply(services, caller, params.document_id, body);
    const hold = await reserveCorrection(services, caller.tenant);
    try {
      const verification = await applyReserved(services, caller, apply);
      // 4. The usage count (the place held becomes a counted correction).
      await hold.commit();
      return verification;
    } finally {
      await hold.release();
    }
  },

  async getVerification({ params, caller, services }) {
    const record = await loadDocument(services, caller, params.document_id);
    const headId = record.document.head_revision_id;
    if (!headId) throw new DocfixError('no_revision', 'The document has no corrected version yet.');
    const id = record.verification_by_revision[headId];
    const verification = id ? record.verifications[id] : undefined;
    if (!verification)
      throw new DocfixError('not_verified', 'The latest version of the document has not been verified.');
    return verification;
  },

  async listCorrections({ params, caller, services }) {
    const record = await loadDocument(services, caller, params.document_id);
    return standingCorrections(record).map(correctionOut);
  },

  async undo({ params, caller, services }) {
    const tenantId = caller.tenant.tenant_id;
    let undone: CorrectionRecord | null = null;
    const written = await services.changes.update(tenantId, params.document_id, (record) => {
      const standing = standingCorrections(record);
      const last = standing[standing.length - 1];
      if (!last) throw new DocfixError('nothing_to_undo', 'No correction stands on this document.');
      last.status = 'undone';
      record.document.head_revision_id =
        last.parent_revision_id === record.original_revision_id ? null : last.parent_revision_id;
      record.document.state = record.document.head_revision_id ? 'corrected' : 'uploaded';
      undone = last;
      return stepEvent(caller, params.document_id, 'correction.undo', last, {
        head_revision_id: record.document.head_revision_id,
      });
    });
    return stepAnswer(params.document_id, written?.record ?? null, undone);
  },

  async redo({ params, caller, services }) {
    const tenantId = caller.tenant.tenant_id;
    let redone: CorrectionRecord | null = null;
    const written = await services.changes.update(tenantId, params.document_id, (record) => {
      const headId = record.document.head_revision_id ?? record.original_revision_id;
      const next = record.corrections
        .filter((c) => c.status === 'undone' && c.parent_revision_id === headId)
        .sort((a, b) => b.seq - a.seq)[0];
      if (!next)
        throw new DocfixError(
          'nothing_to_redo',
          'No correction has been undone since the last one was made.',
        );
      next.status = 'standing';
      record.document.head_revision_id = next.revision_id;
      record.document.state = 'corrected';
      redone = next;
      return stepEvent(caller, params.document_id, 'correction.redo', next, {});
    });
    return stepAnswer(params.document_id, written?.record ?? null, redone);
  },

  async getManifest({ params, caller, services, reply }) {
    const record = await loadDocument(services, caller, params.document_id);
    const headId = record.document.head_revision_id;
    if (!headId) throw new DocfixError('no_revision', 'The document has no corrected version yet.');
    const revision = currentRevision(record);
    const pdf = await services.blobs.read(caller.tenant.tenant_id, params.document_id, revision.blob_sha256);
    const bytes = readManifest(pdf, documentPassword(record, services));
    if (!bytes) throw new DocfixError('no_manifest', 'The corrected version carries no provenance manifest.');
    reply.type('application/json');
    return Buffer.from(bytes) as unknown as Record<string, unknown>;
  },

  async exportDocument({ params, caller, services }) {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const release = await passGate(services, tenantId, record);
    await services.audit.append(tenantId, {
      action: 'document.export',
      subject_type: 'document',
      subject_id: params.document_id,
      payload: {
        revision_id: release.revision.revision_id,
        output_sha256: release.verification.output_sha256,
        verification_id: release.verification.verification_id,
        corrections: release.standing.map((c) => c.seq),
        key_id: caller.key.key_id,
      },
    });
    return {
      revision_id: release.revision.revision_id,
      output_sha256: release.verification.output_sha256,
      verification_id: release.verification.verification_id,
      marking_applied: null,
      bytes_available: true,
    };
  },

  async downloadDocument({ params, caller, services, reply }) {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const release = await passGate(services, tenantId, record);
    const paid = await checkDownloadPaid(services, caller.tenant, params.document_id);
    await services.audit.append(tenantId, {
      action: 'document.download',
      subject_type: 'document',
      subject_id: params.document_id,
      payload: {
        revision_id: release.revision.revision_id,
        output_sha256: release.verification.output_sha256,
        verification_id: release.verification.verification_id,
        bytes: release.bytes.byteLength,
        paid_by: paid.paid_by,
        key_id: caller.key.key_id,
      },
    });
    reply.header('Content-Disposition', contentDisposition(record.document.filename_hint));
    reply.header('X-Docfix-Sha256', release.verification.output_sha256);
    return release.bytes;
  },
};
