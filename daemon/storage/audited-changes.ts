// Every change of a document and its audit entry, atomic in effect — even across kill -9.
//
// The record write is the commit point and carries the audit entry it owes: the change and a
// `pending_audit` item ({op_id, event}) are one atomic write of record.json (temp → fsync → rename).
// The entry is then appended to the audit log with the same `op_id` in its payload. A crash between
// the two leaves a record that says what it owes; start-up (recovery.ts) appends every owed entry
// the log lacks, marked `recovered: true`, and clears the items. So:
//   - no change without its entry: the change is never on disk without the item that owes it;
//   - no entry without its change: an entry is appended only after its change is durable;
//   - no entry twice: recovery appends only op ids the log does not hold.
// Chosen over a separate intent journal because it costs no extra fsync: the change's own write
// carries the intent. Deletion is the one change that removes its record, so it is made atomic by a
// rename (DocumentStore.retire): the retired folder's record owes the `document.delete` entry.
//
// The entry is appended while the document's lock is held, and when it cannot be appended whole and
// durably (a full disk: 507 `insufficient_storage`), the change is undone before the answer: the
// previous record is put back (DocumentStore keeps it by a second name, so that takes no space), a
// new document's folder is removed, a retired one comes back, and revision files written for the
// change go. So an acknowledged change always has its whole entry, and a refused one never happened.
//
// Items whose entry this process appended are pruned at the record's next audited change; recovery
// clears the rest. Undo, redo, apply, upload, delete, attestations and certificates go through here.
import type { AuditEntryOut } from '../../src/schemas.ts';
import type { AuditEvent, AuditLog } from './audit-log.ts';
import type { DocumentStore } from './document-store.ts';
import { randomId } from './ids.ts';
import type { DocumentRecord, PendingAudit } from './records.ts';
import { isStorageFull } from './storage-full.ts';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

export type OwedEvent = Omit<AuditEvent, 'payload'> & { payload: Record<string, unknown> };

/**
 * Fault injection for the kill -9 test (test/daemon/crash.test.ts): a pause between a change and
 * its entry, so that kills land in that window often. Unset (0) everywhere else.
 */
const PAUSE_BEFORE_ENTRY_MS = Number(process.env.DOCFIX_FAULT_AUDIT_PAUSE_MS ?? 0) || 0;

export class AuditedChanges {
  private documents: DocumentStore;
  private audit: AuditLog;
  /** Op ids whose entries this process appended, until pruned from their record. */
  private settled = new Set<string>();

  constructor(documents: DocumentStore, audit: AuditLog) {
    this.documents = documents;
    this.audit = audit;
  }

  private owe(record: DocumentRecord, event: OwedEvent, when: PendingAudit['when']): PendingAudit {
    const kept: PendingAudit[] = [];
    for (const item of record.pending_audit ?? []) {
      if (this.settled.delete(item.op_id)) continue;
      kept.push(item);
    }
    const opId = randomId('op');
    const item: PendingAudit = {
      op_id: opId,
      at: new Date().toISOString(),
      when,
      event: { ...event, payload: { ...event.payload, op_id: opId } },
    };
    kept.push(item);
    record.pending_audit = kept;
    return item;
  }

  private async settle(tenantId: string, item: PendingAudit): Promise<AuditEntryOut> {
    if (PAUSE_BEFORE_ENTRY_MS > 0) await new Promise((r) => setTimeout(r, PAUSE_BEFORE_ENTRY_MS));
    const entry = await this.audit.append(tenantId, item.event);
    this.settled.add(item.op_id);
    return entry;
  }

  /**
   * A new document: its record (owing `event`), then the entry. When either cannot be written, the
   * document's folder (its blobs included) is removed: the document was never there.
   */
  async create(tenantId: string, record: DocumentRecord, event: OwedEvent): Promise<AuditEntryOut> {
    const item = this.owe(record, event, 'present');
    try {
      await this.documents.create(tenantId, record);
      return await this.settle(tenantId, item);
    } catch (error) {
      await rm(this.documents.dir(tenantId, record.document.document_id), { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Read-modify-write of a document whose change is audited: `change` edits the record and returns
   * the audit event (or throws to abort: nothing is written, nothing appended). When the record or
   * its entry cannot be written, the record is as before and the revision files the change added
   * are removed. Null when there is no such document.
   */
  async update(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => OwedEvent | Promise<OwedEvent>,
  ): Promise<{ record: DocumentRecord; entry: AuditEntryOut } | null> {
    let item: PendingAudit | null = null;
    let entry: AuditEntryOut | null = null;
    let added: string[] = [];
    let record: DocumentRecord | null;
    try {
      record = await this.documents.update(
        tenantId,
        documentId,
        async (current) => {
          const before = new Set(current.revisions.map((r) => r.blob_sha256));
          const event = await change(current);
          added = current.revisions.map((r) => r.blob_sha256).filter((sha) => !before.has(sha));
          item = this.owe(current, event, 'present');
        },
        async () => {
          entry = await this.settle(tenantId, item as PendingAudit);
        },
      );
    } catch (error) {
      if (isStorageFull(error)) await this.removeBlobs(tenantId, documentId, added);
      throw error;
    }
    if (!record || !entry) return null;
    return { record, entry };
  }

  /** Deletes a document (one rename), then its entry, then its files. False when there is none. */
  async remove(
    tenantId: string,
    documentId: string,
    event: (record: DocumentRecord) => OwedEvent,
  ): Promise<boolean> {
    let item: PendingAudit | null = null;
    const retired = await this.documents.retire(
      tenantId,
      documentId,
      (record) => {
        item = this.owe(record, event(record), 'deleted');
      },
      async () => {
        await this.settle(tenantId, item as PendingAudit);
      },
    );
    if (!retired || !item) return false;
    this.settled.delete((item as PendingAudit).op_id);
    await rm(retired, { recursive: true, force: true });
    return true;
  }

  /** Revision files no record points to any more (a change undone for want of space). */
  private async removeBlobs(tenantId: string, documentId: string, shas: string[]): Promise<void> {
    const blobs = join(this.documents.dir(tenantId, documentId), 'blobs');
    for (const sha of shas) await rm(join(blobs, `${sha}.pdf`), { force: true });
  }
}
