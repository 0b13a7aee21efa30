// What route plugins get to work with: the stores, the engine slots, configuration and the caller.
// Built once by app.ts (build(opts)) and decorated onto the fastify instance as `docfix`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BodyOf, ParamsOf, QueryOf, ResponseOf, RouteId } from '../src/api-routes.ts';
import type { EngineSlots } from './engine-slots.ts';
import type { ReadCache } from './read-cache.ts';
import type { KeyRecord, TenantRecord } from './storage/records.ts';
import type { DaemonConfig } from './config.ts';
import type { SigningKeys } from './signing-keys.ts';
import type {
  AuditStorage,
  BlobStorage,
  CertificateStorage,
  ChangeStorage,
  DocumentStorage,
  JobStorage,
  TenantStorage,
  UsageStorage,
} from './storage/storage.ts';

export interface Services {
  config: DaemonConfig;
  /** Which store serves (daemon/storage/storage.ts). */
  storage: 'filesystem' | 'postgres';
  tenants: TenantStorage;
  documents: DocumentStorage;
  blobs: BlobStorage;
  audit: AuditStorage;
  /** Audited changes of documents: the change and its audit entry, atomic in effect. */
  changes: ChangeStorage;
  usage: UsageStorage;
  engine: EngineSlots;
  /** Answers of light reads (previews, crops, searches) by revision: the light lane's memory. */
  reads: ReadCache;
  certificates: CertificateStorage;
  jobs: JobStorage;
  /** The certificate signing keys, read on each use so a rotation by an admin command counts at once. */
  signing: () => Promise<SigningKeys>;
  /** 32 random bytes (data dir, or the database's settings): HMAC for confirm tokens, sealing of passwords. */
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
