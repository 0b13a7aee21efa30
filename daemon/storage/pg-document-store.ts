// Document records and their audited changes in PostgreSQL. A change is one transaction:
//   SELECT … FOR UPDATE of the document's row (every instance's changes of one document queue
//   here), the route's change function on the record as locked (so "is the proposal's base still
//   the head?" is answered against the committed state: the loser of concurrent applies gets
//   stale_or_invalid_confirmation), the record written, its new revisions inserted (unique per
//   document and correction seq), and its audit entry appended (pg-audit-log.ts) — all committed
//   together or not at all. So there is nothing owed to recover after a crash, unlike the
//   filesystem's pending_audit items (audited-changes.ts).
// A change made for a job (job-context.ts) first checks, on the job's row, that this instance still
// holds the job's current attempt: an instance whose lease was taken over cannot commit.
import type pg from 'pg';
import { DocfixError } from '../../src/errors.ts';
import type { AuditEntryOut } from '../../src/schemas.ts';
import { currentJob, faultPause } from '../job-context.ts';
import type { OwedEvent } from './audited-changes.ts';
import { isSafeId } from './data-layout.ts';
import { appendAuditEntry } from './pg-audit-log.ts';
import type { Database } from './pg-database.ts';
import type { DocumentRecord } from './records.ts';
import type { ChangeStorage, DocumentStorage } from './storage-interfaces.ts';

/** Removes a document's files inside the removal's transaction; may return work for after commit. */
export type RemoveDocumentFiles = (
  c: pg.PoolClient,
  tenantId: string,
  documentId: string,
) => Promise<(() => Promise<void>) | null>;

/**
 * This instance lost its job to another (its lease ran out): its change is not made. The caller is
 * told to follow the job, which the other instance finishes (GET /v1/jobs/{id}).
 */
export class JobLeaseLost extends DocfixError {
  constructor(jobId: string) {
    super(
      'busy',
      `Job ${jobId} was taken over by another instance of the service, which finishes it; follow it at /v1/jobs/${jobId}.`,
      { retry_after: 1, job_id: jobId },
    );
  }
}

/** Inside a job: lock its row and check this attempt is still the job's current one. */
async function fenceJob(c: pg.PoolClient): Promise<void> {
  const job = currentJob();
  if (!job) return;
  await faultPause('commit');
  const rows = await c.query(
    "SELECT 1 FROM jobs WHERE job_id = $1 AND attempt = $2 AND status = 'running' FOR UPDATE",
    [job.job_id, job.attempt],
  );
  // A job row that is not there was not made durable (a filesystem-style job): nothing to fence.
  if (rows.rowCount === 0) {
    const exists = await c.query('SELECT 1 FROM jobs WHERE job_id = $1', [job.job_id]);
    if (exists.rowCount) throw new JobLeaseLost(job.job_id);
  }
}

async function lockRecord(
  c: pg.PoolClient,
  tenantId: string,
  documentId: string,
): Promise<DocumentRecord | null> {
  if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
  const rows = await c.query<{ record: DocumentRecord }>(
    'SELECT record FROM documents WHERE tenant_id = $1 AND document_id = $2 FOR UPDATE',
    [tenantId, documentId],
  );
  return rows.rows[0]?.record ?? null;
}

async function insertRevisions(
  c: pg.PoolClient,
  tenantId: string,
  record: DocumentRecord,
  known: ReadonlySet<string>,
): Promise<void> {
  const documentId = record.document.document_id;
  for (const r of record.revisions) {
    if (known.has(r.revision_id)) continue;
    try {
      await c.query(
        `INSERT INTO revisions (tenant_id, document_id, revision_id, parent_revision_id, correction_seq, blob_sha256)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [tenantId, documentId, r.revision_id, r.parent_revision_id, r.correction_seq, r.blob_sha256],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505') {
        throw new DocfixError(
          'stale_or_invalid_confirmation',
          'The document changed while this correction was being made (another correction won). Propose again.',
        );
      }
      throw error;
    }
  }
}

export class PgDocumentStore implements DocumentStorage {
  private db: Database;
  private cacheDir: string;

  constructor(db: Database, cacheDir: string) {
    this.db = db;
    this.cacheDir = cacheDir;
  }

  /** No folder holds a document here; the local cache of its files is shared by content. */
  dir(_tenantId: string, documentId: string): string {
    return `${this.cacheDir}/.no-folder-${isSafeId(documentId) ? documentId : 'x'}`;
  }

  async get(tenantId: string, documentId: string): Promise<DocumentRecord | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    const rows = await this.db.query<{ record: DocumentRecord }>(
      'SELECT record FROM documents WHERE tenant_id = $1 AND document_id = $2',
      [tenantId, documentId],
    );
    return rows[0]?.record ?? null;
  }

  /** A record written as is (tests; the service creates documents through PgAuditedChanges). */
  async create(tenantId: string, record: DocumentRecord): Promise<void> {
    await this.db.tx(async (c) => {
      await c.query(
        `INSERT INTO documents (tenant_id, document_id, created_at, record) VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, document_id) DO UPDATE SET record = excluded.record`,
        [tenantId, record.document.document_id, record.document.created_at, JSON.stringify(record)],
      );
      await c.query('DELETE FROM revisions WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        record.document.document_id,
      ]);
      await insertRevisions(c, tenantId, record, new Set());
    });
  }

  /** Deletes the record and its revisions without an audit entry (tests; the service uses PgAuditedChanges). */
  async remove(tenantId: string, documentId: string): Promise<boolean> {
    return this.db.tx(async (c) => {
      const gone = await c.query('DELETE FROM documents WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
      ]);
      await c.query('DELETE FROM revisions WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
      ]);
      return (gone.rowCount ?? 0) > 0;
    });
  }

  /** A change that owes no audit entry (served regions, inspection budget), under the row lock. */
  async update(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => void | Promise<void>,
  ): Promise<DocumentRecord | null> {
    return this.db.tx(async (c) => {
      const record = await lockRecord(c, tenantId, documentId);
      if (!record) return null;
      const known = new Set(record.revisions.map((r) => r.revision_id));
      await change(record);
      await c.query('UPDATE documents SET record = $3 WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
        JSON.stringify(record),
      ]);
      await insertRevisions(c, tenantId, record, known);
      return record;
    });
  }

  /** Newest first. */
  async list(tenantId: string, limit: number): Promise<DocumentRecord[]> {
    const rows = await this.db.query<{ record: DocumentRecord }>(
      'SELECT record FROM documents WHERE tenant_id = $1 ORDER BY created_at DESC, document_id LIMIT $2',
      [tenantId, limit],
    );
    return rows.map((r) => r.record);
  }
}

export class PgAuditedChanges implements ChangeStorage {
  private db: Database;
  private removeFiles: RemoveDocumentFiles;

  constructor(db: Database, removeFiles: RemoveDocumentFiles) {
    this.db = db;
    this.removeFiles = removeFiles;
  }

  async create(tenantId: string, record: DocumentRecord, event: OwedEvent): Promise<AuditEntryOut> {
    return this.db.tx(async (c) => {
      await fenceJob(c);
      await c.query(
        'INSERT INTO documents (tenant_id, document_id, created_at, record) VALUES ($1, $2, $3, $4)',
        [tenantId, record.document.document_id, record.document.created_at, JSON.stringify(record)],
      );
      await insertRevisions(c, tenantId, record, new Set());
      return appendAuditEntry(c, tenantId, event);
    });
  }

  async update(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => OwedEvent | Promise<OwedEvent>,
  ): Promise<{ record: DocumentRecord; entry: AuditEntryOut } | null> {
    return this.db.tx(async (c) => {
      const record = await lockRecord(c, tenantId, documentId);
      if (!record) return null;
      const known = new Set(record.revisions.map((r) => r.revision_id));
      const event = await change(record);
      await fenceJob(c);
      await c.query('UPDATE documents SET record = $3 WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
        JSON.stringify(record),
      ]);
      await insertRevisions(c, tenantId, record, known);
      const entry = await appendAuditEntry(c, tenantId, event);
      return { record, entry };
    });
  }

  async remove(
    tenantId: string,
    documentId: string,
    event: (record: DocumentRecord) => OwedEvent,
  ): Promise<boolean> {
    let after: (() => Promise<void>) | null = null;
    const removed = await this.db.tx(async (c) => {
      const record = await lockRecord(c, tenantId, documentId);
      if (!record) return false;
      const owed = event(record);
      await fenceJob(c);
      await c.query('DELETE FROM documents WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
      ]);
      await c.query('DELETE FROM revisions WHERE tenant_id = $1 AND document_id = $2', [
        tenantId,
        documentId,
      ]);
      after = await this.removeFiles(c, tenantId, documentId);
      await appendAuditEntry(c, tenantId, owed);
      return true;
    });
    if (removed && after) await (after as () => Promise<void>)();
    return removed;
  }
}
