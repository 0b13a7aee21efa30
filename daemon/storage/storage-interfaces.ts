// What routes see of the daemon's storage (daemon/services.ts): one interface per store, filled at
// start-up by storage.ts with the filesystem stores or the PostgreSQL ones (pg-*.ts). In a file of
// its own so the PostgreSQL stores, which storage.ts loads on demand, need not import storage.ts.
import type { CertificateStore } from '../certificate-store.ts';
import type { JobBoard } from '../job-board.ts';
import type { SigningKeys } from '../signing-keys.ts';
import type { AuditedChanges } from './audited-changes.ts';
import type { AuditLog } from './audit-log.ts';
import type { BlobStore } from './blob-store.ts';
import type { DocumentStore } from './document-store.ts';
import type { TenantStore } from './tenant-store.ts';
import type { UsageStore } from './usage-store.ts';

export type TenantStorage = Pick<
  TenantStore,
  | 'getTenant'
  | 'listTenants'
  | 'findTenantByName'
  | 'setTenant'
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'authenticate'
>;
export type DocumentStorage = Pick<DocumentStore, 'create' | 'get' | 'update' | 'list' | 'remove' | 'dir'>;
export type ChangeStorage = Pick<AuditedChanges, 'create' | 'update' | 'remove'>;
export type AuditStorage = Pick<AuditLog, 'append' | 'readLines' | 'readAll' | 'list' | 'verifyChain'>;
export type BlobStorage = Pick<BlobStore, 'tempPath' | 'putFile' | 'putBytes' | 'read' | 'has' | 'localPath'>;
export type UsageStorage = Pick<UsageStore, 'correctionsToday' | 'countCorrection' | 'reserve'>;
export type CertificateStorage = Pick<CertificateStore, 'put' | 'get' | 'idBySha256' | 'remove'>;
export type JobStorage = Pick<JobBoard, 'begin' | 'succeed' | 'fail' | 'get' | 'startWorker' | 'stop'>;

export interface Storage {
  kind: 'filesystem' | 'postgres';
  tenants: TenantStorage;
  documents: DocumentStorage;
  blobs: BlobStorage;
  audit: AuditStorage;
  changes: ChangeStorage;
  usage: UsageStorage;
  certificates: CertificateStorage;
  jobs: JobStorage;
  /** 32 bytes: HMAC of confirm tokens, sealing of stored passwords (shared by every instance). */
  secret: Buffer;
  /** The certificate signing keys, read on each use so a rotation counts at once. */
  signing: () => Promise<SigningKeys>;
  close(): Promise<void>;
}
