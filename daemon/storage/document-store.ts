// Per-document records (lowdb over a durable JSON adapter): one small file per document, so the cost
// of a write follows that document, never the tenant's history. Updates of one document are
// serialised; a record is written only after the blobs it points to are durable (callers' order).
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import type { Adapter } from 'lowdb';
import { fsyncDir, KeyedLock, writeFileDurable } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';
import { isSafeId } from './data-layout.ts';
import type { DocumentRecord } from './records.ts';

/** lowdb adapter writing through writeFileDurable (temp → fsync → rename). */
export class DurableJsonFile<T> implements Adapter<T> {
  private path: string;

  constructor(path: string) {
    this.path = path;
  }

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async write(data: T): Promise<void> {
    await writeFileDurable(this.path, JSON.stringify(data));
  }
}

/** Name prefix of a deleted document's folder until it is removed. */
export const RETIRED_PREFIX = '.deleted-';

export class DocumentStore {
  private layout: DataLayout;
  private lock = new KeyedLock();

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  dir(tenantId: string, documentId: string): string {
    return this.layout.documentDir(tenantId, documentId);
  }

  private db(tenantId: string, documentId: string): Low<DocumentRecord | null> {
    return new Low<DocumentRecord | null>(
      new DurableJsonFile<DocumentRecord | null>(this.layout.documentRecordFile(tenantId, documentId)),
      null,
    );
  }

  async create(tenantId: string, record: DocumentRecord): Promise<void> {
    const id = record.document.document_id;
    await this.lock.run(`${tenantId}/${id}`, async () => {
      const db = this.db(tenantId, id);
      db.data = record;
      await db.write();
    });
  }

  /** The record, or null when there is no such document on this tenant (ids of others included). */
  async get(tenantId: string, documentId: string): Promise<DocumentRecord | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    const db = this.db(tenantId, documentId);
    await db.read();
    return db.data;
  }

  /**
   * Read-modify-write under the document's lock. `change` may throw to abort (nothing is written).
   * Returns the record as written; null when the document does not exist.
   */
  async update(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => void | Promise<void>,
  ): Promise<DocumentRecord | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    return this.lock.run(`${tenantId}/${documentId}`, async () => {
      const db = this.db(tenantId, documentId);
      await db.read();
      if (!db.data) return null;
      await change(db.data);
      await db.write();
      return db.data;
    });
  }

  /** Newest first. */
  async list(tenantId: string, limit: number): Promise<DocumentRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.layout.documentsDir(tenantId));
    } catch {
      return [];
    }
    const records: DocumentRecord[] = [];
    for (const name of names) {
      if (!isSafeId(name)) continue;
      const record = await this.get(tenantId, name);
      if (record) records.push(record);
    }
    records.sort((a, b) => b.document.created_at.localeCompare(a.document.created_at));
    return records.slice(0, limit);
  }

  /**
   * Deletes a document in one atomic step: `change` may mark the record (the audit entry it owes),
   * the record is written, then the folder is renamed out of the documents folder (`.deleted-…`,
   * invisible to every lookup). Returns that folder, for the caller to remove after its audit entry;
   * start-up removes any left (daemon/storage/recovery.ts). Null when there is no such document.
   */
  async retire(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => void,
  ): Promise<string | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    return this.lock.run(`${tenantId}/${documentId}`, async () => {
      const db = this.db(tenantId, documentId);
      await db.read();
      if (!db.data) return null;
      change(db.data);
      await db.write();
      const parent = this.layout.documentsDir(tenantId);
      const retired = join(parent, `${RETIRED_PREFIX}${documentId}-${randomBytes(4).toString('hex')}`);
      await rename(this.dir(tenantId, documentId), retired);
      await fsyncDir(parent);
      return retired;
    });
  }

  /** Deletes the document's folder: its record, every revision and every file made from it. */
  async remove(tenantId: string, documentId: string): Promise<boolean> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return false;
    return this.lock.run(`${tenantId}/${documentId}`, async () => {
      const db = this.db(tenantId, documentId);
      await db.read();
      if (!db.data) return false;
      await rm(this.dir(tenantId, documentId), { recursive: true, force: true });
      return true;
    });
  }
}
