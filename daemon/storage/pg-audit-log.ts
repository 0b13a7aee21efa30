// Each tenant's audit chain in PostgreSQL. An entry is appended inside the transaction of the change
// it records (pg-document-store.ts), under a transaction-scoped advisory lock keyed on the tenant:
// the head is read and the next entry inserted while no other instance can append for that tenant,
// and (tenant, seq) is the primary key, so a chain can neither fork nor skip a number. The stored
// line is the exact JSON the filesystem's log would hold, so exports and verification are the same.
import type pg from 'pg';
import {
  GENESIS_HASH,
  hashAuditEntry,
  verifyAuditChain,
  type AuditEntryDraft,
  type StoredAuditEntry,
} from '../../src/audit-chain.ts';
import type { AuditChainOut, AuditEntryOut } from '../../src/schemas.ts';
import { currentJob } from '../job-context.ts';
import { parseAuditLines, type AuditEvent } from './audit-log.ts';
import type { Database } from './pg-database.ts';
import type { AuditStorage } from './storage-interfaces.ts';

/** First key of the audit advisory locks (the second is the tenant id's hash). */
const AUDIT_LOCK_CLASS = 7_341_002;

/** Appends one entry for `tenantId` inside the caller's transaction. */
export async function appendAuditEntry(
  c: pg.PoolClient,
  tenantId: string,
  event: AuditEvent,
): Promise<AuditEntryOut> {
  await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [AUDIT_LOCK_CLASS, tenantId]);
  const head = (
    await c.query<{ seq: string; entry_hash: string }>(
      'SELECT seq, entry_hash FROM audit_entries WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1',
      [tenantId],
    )
  ).rows[0];
  const draft: AuditEntryDraft = {
    seq: head ? Number(head.seq) + 1 : 1,
    ts: new Date().toISOString(),
    actor_user_id: event.actor_user_id ?? null,
    actor_kind: event.actor_kind ?? 'api_key',
    action: event.action,
    subject_type: event.subject_type,
    subject_id: event.subject_id,
    payload: event.payload ?? {},
    prev_hash: head ? head.entry_hash : GENESIS_HASH,
  };
  const entry: StoredAuditEntry = { ...draft, entry_hash: hashAuditEntry(draft) };
  await c.query(
    `INSERT INTO audit_entries (tenant_id, seq, entry_hash, subject_id, job_id, line)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      tenantId,
      entry.seq,
      entry.entry_hash,
      entry.subject_id,
      currentJob()?.job_id ?? null,
      JSON.stringify(entry),
    ],
  );
  return toOut(entry);
}

export class PgAuditLog implements AuditStorage {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** An entry that records no change of a record (export, download): its own transaction. */
  async append(tenantId: string, event: AuditEvent): Promise<AuditEntryOut> {
    return this.db.tx((c) => appendAuditEntry(c, tenantId, event));
  }

  async readLines(tenantId: string): Promise<string[]> {
    const rows = await this.db.query<{ line: string }>(
      'SELECT line FROM audit_entries WHERE tenant_id = $1 ORDER BY seq',
      [tenantId],
    );
    return rows.map((r) => r.line);
  }

  async readAll(tenantId: string): Promise<StoredAuditEntry[]> {
    return parseAuditLines(await this.readLines(tenantId));
  }

  /** Newest first, optionally only entries about one subject. */
  async list(
    tenantId: string,
    options: { subjectId?: string | null; limit: number },
  ): Promise<AuditEntryOut[]> {
    const rows = options.subjectId
      ? await this.db.query<{ line: string }>(
          'SELECT line FROM audit_entries WHERE tenant_id = $1 AND subject_id = $2 ORDER BY seq DESC LIMIT $3',
          [tenantId, options.subjectId, options.limit],
        )
      : await this.db.query<{ line: string }>(
          'SELECT line FROM audit_entries WHERE tenant_id = $1 ORDER BY seq DESC LIMIT $2',
          [tenantId, options.limit],
        );
    return parseAuditLines(rows.map((r) => r.line)).map(toOut);
  }

  async verifyChain(tenantId: string): Promise<AuditChainOut> {
    return verifyAuditChain(await this.readAll(tenantId));
  }
}

function toOut(entry: StoredAuditEntry): AuditEntryOut {
  const { seq, ts, actor_user_id, actor_kind, action, subject_type, subject_id, payload, entry_hash } = entry;
  return { seq, ts, actor_user_id, actor_kind, action, subject_type, subject_id, payload, entry_hash };
}
