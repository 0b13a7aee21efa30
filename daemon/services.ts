// What route plugins get to work with: the stores, the engine slots, configuration and the caller.
// Built once by app.ts (build(opts)) and decorated onto the fastify instance as `docfix`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BodyOf, ParamsOf, QueryOf, ResponseOf, RouteId } from '../src/api-routes.ts';
import type { AuditedChanges } from './storage/audited-changes.ts';
import type { AuditLog } from './storage/audit-log.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { DocumentStore } from './storage/document-store.ts';
import type { TenantStore } from './storage/tenant-store.ts';
import type { UsageStore } from './storage/usage-store.ts';
import type { EngineSlots } from './engine-slots.ts';
import type { KeyRecord, TenantRecord } from './storage/records.ts';
import type { DaemonConfig } from './config.ts';
import type { CertificateStore } from './certificate-store.ts';
import type { SigningKeys } from './signing-keys.ts';
import type { JobBoard } from './job-board.ts';

export interface Services {
  config: DaemonConfig;
  tenants: TenantStore;
  documents: DocumentStore;
  blobs: BlobStore;
  audit: AuditLog;
  /** Audited changes of documents: the change and its audit entry, atomic in effect. */
  changes: AuditedChanges;
  usage: UsageStore;
  engine: EngineSlots;
  certificates: CertificateStore;
  jobs: JobBoard;
  /** The certificate signing keys, read on each use so a rotation by an admin command counts at once. */
  signing: () => Promise<SigningKeys>;
  /** 32 random bytes kept in the data dir: HMAC for confirm tokens, sealing of stored passwords. */
  secret: Buffer;
}

export interface Caller {
  tenant: TenantRecord;
  key: KeyRecord;
}

export interface HandlerInput<R extends RouteId> {
  params: ParamsOf<R>;
  query: NonNullable<QueryOf<R>>;
  body: BodyOf<R>;
  /** The authenticated caller; present on every `auth: 'key'` route. */
  caller: R extends RouteId ? Caller : never;
  services: Services;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** A handler returns the response body (JSON routes) or bytes (media routes); errors are thrown. */
export type Handler<R extends RouteId> = (input: HandlerInput<R>) => Promise<ResponseOf<R>>;
export type Handlers = { [R in RouteId]?: Handler<R> };
