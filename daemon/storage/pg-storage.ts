// The PostgreSQL implementation of the daemon's storage (storage.ts): opens the pool, applies the
// migrations, and puts the pg-*.ts stores together. Blobs go to the database unless a bucket is named.
import { Database, redactUrl } from './pg-database.ts';
import { PgAuditLog } from './pg-audit-log.ts';
import { CachedBlobStore, PgBlobBackend, type BlobBackend } from './pg-blob-store.ts';
import { PgCertificateStore } from './pg-certificate-store.ts';
import { PgAuditedChanges, PgDocumentStore } from './pg-document-store.ts';
import { PgJobQueue } from './pg-job-queue.ts';
import { loadOrCreateSharedSecret, loadOrCreateSharedSigningKeys } from './pg-settings.ts';
import { PgTenantStore } from './pg-tenant-store.ts';
import { PgUsageStore } from './pg-usage-store.ts';
import type { Storage } from './storage-interfaces.ts';

export interface PostgresStorageOptions {
  url: string;
  /** s3://bucket/prefix, or null for blobs in the database. */
  blobs: string | null;
  /** This instance's local folders (in its own data dir). */
  cacheDir: string;
  tempDir: string;
}

function envMs(name: string): number | undefined {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export async function openPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const db = new Database(options.url);
  try {
    await db.migrate();
  } catch (error) {
    await db.close();
    throw new Error(
      `cannot use the database ${redactUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  let backend: BlobBackend;
  let sweeper: NodeJS.Timeout | null = null;
  if (options.blobs) {
    const { S3BlobBackend } = await import('./s3-blob-store.ts');
    backend = new S3BlobBackend(options.blobs);
  } else {
    const inDatabase = new PgBlobBackend(db);
    backend = inDatabase;
    // Files left by an apply that raced its document's deletion, every ten minutes.
    sweeper = setInterval(() => void inDatabase.sweepOrphans().catch(() => {}), 10 * 60 * 1000);
    sweeper.unref();
  }
  const jobs = new PgJobQueue(db, {
    leaseMs: envMs('DOCFIX_JOB_LEASE_MS'),
    pollMs: envMs('DOCFIX_JOB_POLL_MS'),
  });
  return {
    kind: 'postgres',
    tenants: new PgTenantStore(db),
    documents: new PgDocumentStore(db, options.cacheDir),
    blobs: new CachedBlobStore(backend, options.cacheDir, options.tempDir),
    audit: new PgAuditLog(db),
    changes: new PgAuditedChanges(db, backend.removeDocument),
    usage: new PgUsageStore(db),
    certificates: new PgCertificateStore(db),
    jobs,
    secret: await loadOrCreateSharedSecret(db),
    signing: () => loadOrCreateSharedSigningKeys(db),
    close: async () => {
      if (sweeper) clearInterval(sweeper);
      await jobs.stop();
      await db.close();
    },
  };
}
