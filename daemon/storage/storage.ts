// The daemon's storage, one interface with two implementations chosen at start-up:
//   - the filesystem (the default: one daemon per data directory, the local CLI's daemon), the
//     stores beside this file;
//   - PostgreSQL (`--database postgres://…` / DOCFIX_DATABASE_URL: several daemons serving one
//     deployment), the pg-*.ts stores, with revision files in the database or an S3 bucket
//     (`--blobs s3://…`).
// Routes see only these interfaces (daemon/services.ts). The guarantees that matter across
// instances — one winner among concurrent applies, one audit chain per tenant, the daily limit —
// are kept by the filesystem store with in-process locks and by PostgreSQL with its own locks and
// keys (see the pg-*.ts files).
import { join } from 'node:path';
import type { DaemonConfig } from '../config.ts';
import { CertificateStore } from '../certificate-store.ts';
import { JobBoard } from '../job-board.ts';
import { loadOrCreateSecret } from '../secret.ts';
import { loadOrCreateSigningKeys } from '../signing-keys.ts';
import { AuditedChanges } from './audited-changes.ts';
import { AuditLog } from './audit-log.ts';
import { BlobStore } from './blob-store.ts';
import { DataLayout } from './data-layout.ts';
import { DocumentStore } from './document-store.ts';
import { TenantStore } from './tenant-store.ts';
import type { Storage } from './storage-interfaces.ts';
import { UsageStore } from './usage-store.ts';

export type {
  AuditStorage,
  BlobStorage,
  CertificateStorage,
  ChangeStorage,
  DocumentStorage,
  JobStorage,
  Storage,
  TenantStorage,
  UsageStorage,
} from './storage-interfaces.ts';

/** The filesystem store of `dataDir`: today's files. */
export async function openFileStorage(dataDir: string): Promise<Storage> {
  const layout = new DataLayout(dataDir);
  const documents = new DocumentStore(layout);
  const audit = new AuditLog(layout);
  return {
    kind: 'filesystem',
    tenants: new TenantStore(layout),
    documents,
    blobs: new BlobStore(layout),
    audit,
    changes: new AuditedChanges(documents, audit),
    usage: new UsageStore(layout),
    certificates: new CertificateStore(dataDir),
    jobs: new JobBoard(),
    secret: await loadOrCreateSecret(layout.secretFile),
    signing: () => loadOrCreateSigningKeys(dataDir),
    close: async () => {},
  };
}

/** The store the configuration names: PostgreSQL when a database is given, else the data directory. */
export async function openStorage(config: DaemonConfig): Promise<Storage> {
  if (!config.database) return openFileStorage(config.dataDir);
  // Loaded only when asked for, so a filesystem daemon never loads pg or the S3 client.
  const { openPostgresStorage } = await import('./pg-storage.ts');
  return openPostgresStorage({
    url: config.database,
    blobs: config.blobs,
    cacheDir: join(config.dataDir, 'blob-cache'),
    tempDir: join(config.dataDir, 'tmp'),
  });
}
