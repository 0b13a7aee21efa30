// Revision files (and certificate PDFs) of a deployment on PostgreSQL: content-addressed by SHA-256
// per document, as in a document's folder on a filesystem, stored in the database (`blobs`, bytea,
// up to the plan's 30 MB) or in an S3-compatible bucket (s3-blob-store.ts). The engine opens files
// by path, so each instance materialises a blob it needs into a local cache folder of its data dir
// (written durably, named by its hash: a file there is always whole and never stale).
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { writeFileDurable } from './atomic-file.ts';
import type { Database } from './pg-database.ts';
import type { RemoveDocumentFiles } from './pg-document-store.ts';
import type { BlobStorage } from './storage.ts';

/** Where the bytes are kept: the database or a bucket. */
export interface BlobBackend {
  put(tenantId: string, documentId: string, sha256: string, ext: string, bytes: Uint8Array): Promise<void>;
  get(tenantId: string, documentId: string, sha256: string, ext: string): Promise<Uint8Array | null>;
  has(tenantId: string, documentId: string, sha256: string, ext: string): Promise<boolean>;
  removeDocument: RemoveDocumentFiles;
}

function checkSha(sha256: string): void {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
}

export class CachedBlobStore implements BlobStorage {
  private backend: BlobBackend;
  private cacheDir: string;
  private tempDir: string;

  constructor(backend: BlobBackend, cacheDir: string, tempDir: string) {
    this.backend = backend;
    this.cacheDir = cacheDir;
    this.tempDir = tempDir;
  }

  private cached(sha256: string, ext: string): string {
    checkSha(sha256);
    if (!/^[a-z0-9]{1,8}$/.test(ext)) throw new Error(`unsafe extension ${ext}`);
    return join(this.cacheDir, `${sha256}.${ext}`);
  }

  async tempPath(): Promise<string> {
    await mkdir(this.tempDir, { recursive: true });
    return join(this.tempDir, `upload-${process.pid}-${randomBytes(8).toString('hex')}`);
  }

  /** Stores a finished temp file; it then becomes this instance's cached copy. */
  async putFile(
    tenantId: string,
    documentId: string,
    tempFile: string,
    sha256?: string,
    ext = 'pdf',
  ): Promise<string> {
    const bytes = new Uint8Array(await readFile(tempFile));
    const hash = sha256 ?? createHash('sha256').update(bytes).digest('hex');
    await this.backend.put(tenantId, documentId, hash, ext, bytes);
    const target = this.cached(hash, ext);
    await mkdir(this.cacheDir, { recursive: true });
    const handle = await open(tempFile, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempFile, target).catch(async () => rm(tempFile, { force: true }));
    return hash;
  }

  async putBytes(tenantId: string, documentId: string, bytes: Uint8Array, ext = 'pdf'): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    await this.backend.put(tenantId, documentId, hash, ext, bytes);
    return hash;
  }

  async read(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<Uint8Array> {
    const local = this.cached(sha256, ext);
    try {
      return new Uint8Array(await readFile(local));
    } catch {
      // not cached here yet
    }
    const bytes = await this.backend.get(tenantId, documentId, sha256, ext);
    if (!bytes) throw Object.assign(new Error(`no blob ${sha256}.${ext}`), { code: 'ENOENT' });
    await writeFileDurable(local, bytes, 0o600);
    return bytes;
  }

  async has(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<boolean> {
    checkSha(sha256);
    return this.backend.has(tenantId, documentId, sha256, ext);
  }

  /** The cached copy's path, fetched first when this instance has none. */
  async localPath(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<string> {
    const local = this.cached(sha256, ext);
    try {
      await stat(local);
      return local;
    } catch {
      await this.read(tenantId, documentId, sha256, ext);
      return local;
    }
  }
}

/** Blobs as bytea rows, deleted in the same transaction as their document. */
export class PgBlobBackend implements BlobBackend {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async put(
    tenantId: string,
    documentId: string,
    sha256: string,
    ext: string,
    bytes: Uint8Array,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO blobs (tenant_id, document_id, sha256, ext, bytes) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING`,
      [tenantId, documentId, sha256, ext, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    );
  }

  async get(tenantId: string, documentId: string, sha256: string, ext: string): Promise<Uint8Array | null> {
    const rows = await this.db.query<{ bytes: Buffer }>(
      'SELECT bytes FROM blobs WHERE tenant_id = $1 AND document_id = $2 AND sha256 = $3 AND ext = $4',
      [tenantId, documentId, sha256, ext],
    );
    return rows[0] ? new Uint8Array(rows[0].bytes) : null;
  }

  async has(tenantId: string, documentId: string, sha256: string, ext: string): Promise<boolean> {
    const rows = await this.db.query(
      'SELECT 1 FROM blobs WHERE tenant_id = $1 AND document_id = $2 AND sha256 = $3 AND ext = $4',
      [tenantId, documentId, sha256, ext],
    );
    return rows.length > 0;
  }

  removeDocument = async (c: pg.PoolClient, tenantId: string, documentId: string) => {
    await c.query('DELETE FROM blobs WHERE tenant_id = $1 AND document_id = $2', [tenantId, documentId]);
    return null;
  };

  /**
   * Removes files of documents that do not exist, written more than `olderThanMs` ago: an apply
   * that wrote its revision while its document was being deleted. (An upload writes its file
   * before its record: the age keeps uploads under way safe.) Returns how many were removed.
   */
  async sweepOrphans(olderThanMs = 60 * 60 * 1000): Promise<number> {
    const rows = await this.db.query(
      `DELETE FROM blobs b
       WHERE b.created_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.tenant_id = b.tenant_id AND d.document_id = b.document_id)
       RETURNING 1`,
      [olderThanMs],
    );
    return rows.length;
  }
}
