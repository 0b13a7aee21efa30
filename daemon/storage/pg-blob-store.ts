// Revision files (and certificate PDFs) of a deployment on PostgreSQL: content-addressed by SHA-256
// per document, as in a document's folder on a filesystem, stored in the database (`blobs`, bytea,
// up to the plan's 30 MB) or in an S3-compatible bucket (s3-blob-store.ts). The engine opens files
// by path, so each instance materialises a blob it needs into a local cache folder of its data dir
// (written durably, named by its hash: a file there is always whole and never stale). The cache is
// kept under a size (DOCFIX_BLOB_CACHE_MB, default 2048): past it, the files used least recently —
// and not in the last ten minutes, so none is removed under a request using it — are removed.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { writeFileDurable } from './atomic-file.ts';
import type { Database } from './pg-database.ts';
import type { RemoveDocumentFiles } from './pg-document-store.ts';
import type { BlobStorage } from './storage-interfaces.ts';

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

/** Files used in the last ten minutes are never removed from the cache. */
const CACHE_KEEP_MS = 10 * 60 * 1000;

export class CachedBlobStore implements BlobStorage {
  private backend: BlobBackend;
  private cacheDir: string;
  private tempDir: string;
  private cacheBytes: number;
  private lastPrune = 0;

  constructor(
    backend: BlobBackend,
    cacheDir: string,
    tempDir: string,
    cacheBytes = (Number(process.env.DOCFIX_BLOB_CACHE_MB) || 2048) * 1024 * 1024,
  ) {
    this.backend = backend;
    this.cacheDir = cacheDir;
    this.tempDir = tempDir;
    this.cacheBytes = cacheBytes;
  }

  /** Marks a cached file used now (its mtime), which keeps it from pruning. */
  private async touch(path: string): Promise<void> {
    const now = new Date();
    await utimes(path, now, now).catch(() => {});
  }

  /** At most once a minute: the least recently used files go while the cache is over its size. */
  async pruneCache(now = Date.now()): Promise<number> {
    if (now - this.lastPrune < 60_000) return 0;
    this.lastPrune = now;
    let names: string[];
    try {
      names = await readdir(this.cacheDir);
    } catch {
      return 0;
    }
    const files: { path: string; size: number; used: number }[] = [];
    for (const name of names) {
      if (!/^[0-9a-f]{64}\.[a-z0-9]+$/.test(name)) continue;
      const path = join(this.cacheDir, name);
      const info = await stat(path).catch(() => null);
      if (info) files.push({ path, size: info.size, used: info.mtimeMs });
    }
    let total = files.reduce((sum, f) => sum + f.size, 0);
    let removed = 0;
    files.sort((a, b) => a.used - b.used);
    for (const f of files) {
      if (total <= this.cacheBytes) break;
      if (now - f.used < CACHE_KEEP_MS) break;
      await rm(f.path, { force: true });
      total -= f.size;
      removed++;
    }
    return removed;
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
    void this.pruneCache().catch(() => {});
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
      const bytes = new Uint8Array(await readFile(local));
      await this.touch(local);
      return bytes;
    } catch {
      // not cached here yet
    }
    const bytes = await this.backend.get(tenantId, documentId, sha256, ext);
    if (!bytes) throw Object.assign(new Error(`no blob ${sha256}.${ext}`), { code: 'ENOENT' });
    await writeFileDurable(local, bytes, 0o600);
    void this.pruneCache().catch(() => {});
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
      await this.touch(local);
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
