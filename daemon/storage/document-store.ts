// Per-document records (lowdb over a durable JSON adapter): one small file per document, so the cost
// of a write follows that document, never the tenant's history. Updates of one document are
// serialised; a record is written only after the blobs it points to are durable (callers' order).
import { randomBytes } from 'node:crypto';
import { link, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Low } from 'lowdb';
import type { Adapter } from 'lowdb';
import { fsyncDir, KeyedLock, tempPathBeside, writeFileDurable } from './atomic-file.ts';
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
   * `afterWrite`, when given, runs still under the lock once the record is durable (the audit entry
   * the change owes); if it throws, the previous record is put back and the error goes on. The
   * previous record is kept by a second name (a hard link) until then, so putting it back is one
   * rename: it needs no free space. Returns the record as written; null when there is no document.
   */
  async update(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => void | Promise<void>,
    afterWrite?: (record: DocumentRecord) => Promise<void>,
  ): Promise<DocumentRecord | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    return this.lock.run(`${tenantId}/${documentId}`, async () => {
      const db = this.db(tenantId, documentId);
      await db.read();
      if (!db.data) return null;
      await change(db.data);
      if (!afterWrite) {
        await db.write();
        return db.data;
      }
      const file = this.layout.documentRecordFile(tenantId, documentId);
      await this.undoable(
        file,
        () => db.write(),
        () => afterWrite(db.data as DocumentRecord),
      );
      return db.data;
    });
  }

  /** `write`, then `settle`; when `settle` fails, the file as it was before `write` is put back. */
  private async undoable(
    file: string,
    write: () => Promise<void>,
    settle: () => Promise<void>,
  ): Promise<void> {
    const previous = tempPathBeside(file);
    await link(file, previous);
    try {
      await write();
    } catch (error) {
      await rm(previous, { force: true });
      throw error;
    }
    try {
      await settle();
    } catch (error) {
      await restoreFile(previous, file);
      throw error;
    }
    await rm(previous, { force: true });
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
   * invisible to every lookup). `afterRetire` runs under the lock (the audit entry); if it throws,
   * the folder and its record are put back as they were. Returns the retired folder, for the caller
   * to remove; start-up removes any left (daemon/storage/recovery.ts). Null when there is none.
   */
  async retire(
    tenantId: string,
    documentId: string,
    change: (record: DocumentRecord) => void,
    afterRetire: () => Promise<void> = async () => {},
  ): Promise<string | null> {
    if (!isSafeId(documentId) || !isSafeId(tenantId)) return null;
    return this.lock.run(`${tenantId}/${documentId}`, async () => {
      const db = this.db(tenantId, documentId);
      await db.read();
      if (!db.data) return null;
      change(db.data);
      const parent = this.layout.documentsDir(tenantId);
      const home = this.dir(tenantId, documentId);
      const retired = join(parent, `${RETIRED_PREFIX}${documentId}-${randomBytes(4).toString('hex')}`);
      const file = this.layout.documentRecordFile(tenantId, documentId);
      await this.undoable(
        file,
        async () => {
          await db.write();
          await rename(home, retired);
          await fsyncDir(parent);
        },
        async () => {
          try {
            await afterRetire();
          } catch (error) {
            // Back home first: the record put back afterwards is the one in its own folder.
            await rename(retired, home);
            await fsyncDir(parent);
            throw error;
          }
        },
      );
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

/** Puts a kept file back in place (one rename: no space needed), durably. */
async function restoreFile(kept: string, file: string): Promise<void> {
  await rename(kept, file);
  await fsyncDir(dirname(file));
}
