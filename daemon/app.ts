// Builds the daemon's fastify app (tested with inject(); daemon/server.ts listens). Routes come from
// the route table in src/api-routes.ts; each area's plugin in daemon/routes/ supplies handlers, and
// only routes with a handler are registered — and listed in the OpenAPI document.
import multipart from '@fastify/multipart';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { mkdir, rm } from 'node:fs/promises';
import { fastifyPath, ROUTES, type RouteDef, type RouteId } from '../src/api-routes.ts';
import { DocfixError } from '../src/errors.ts';
import { buildOpenApi, plainSchema } from '../src/openapi.ts';
import { readTls, resolveConfig, type DaemonConfig } from './config.ts';
import { EngineSlots } from './engine-slots.ts';
import { answerClientError, handleError, handleFrameworkError, sendDocfixError } from './http-errors.ts';
import { PlanRateLimits } from './rate-limit.ts';
import { ReadCache } from './read-cache.ts';
import { certificateHandlers } from './routes/certificates.ts';
import { correctionHandlers } from './routes/corrections.ts';
import { documentHandlers, readUploadBody, type ReceivedUpload } from './routes/documents.ts';
import { fontHandlers } from './routes/fonts.ts';
import { pageWordHandlers } from './routes/page-words.ts';
import { platformHandlers } from './routes/platform.ts';
import { JOB_ROUTES, type JobInput, type JobRerun } from './job-board.ts';
import { runForTenant, runInJob } from './job-context.ts';
import type { Caller, Handlers, HandlerInput, Services } from './services.ts';
import { openStorage, type Storage } from './storage/storage.ts';

declare module 'fastify' {
  interface FastifyInstance {
    docfix: Services;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** An upload's body, read whole before its handler (daemon/routes/documents.ts). */
    upload: ReceivedUpload | null;
  }
}

export interface BuildOptions {
  config?: Partial<DaemonConfig>;
  /** Fastify's logger: false (tests), true (everything), or options such as `{ level: 'error' }`. */
  logger?: boolean | { level: string };
  /** Extra or replacement handlers (tests). */
  handlers?: Handlers;
  /** An engine pool to share (tests build many apps over one pool). */
  engine?: EngineSlots;
}

// ajv-formats is CommonJS with a default export.
const addFormats =
  (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false,
  });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

export const ALL_HANDLERS: Handlers = {
  ...platformHandlers,
  ...documentHandlers,
  ...correctionHandlers,
  ...certificateHandlers,
  ...pageWordHandlers,
  ...fontHandlers,
};

export async function build(options: BuildOptions = {}): Promise<FastifyInstance> {
  const config = resolveConfig(options.config);
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  // The filesystem store of the data dir, or PostgreSQL when a database is configured.
  const storage = await openStorage(config);
  const services = assembleServices(config, storage, options.engine);
  // The signing key pair is made at first start, not at the first certificate.
  await services.signing();

  const app = createServer(config, options.logger ?? false);
  app.decorate('docfix', services);
  app.decorateRequest('caller', null);
  app.decorateRequest('upload', null);
  addBodyParsers(app);
  await app.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 4096, parts: 12 } });
  registerRoutes(app, services, { ...ALL_HANDLERS, ...options.handlers });
  guardTenantIsolation(app);

  // Jobs whose instance died are finished here (PostgreSQL); a no-op on the filesystem.
  storage.jobs.startWorker(rerunJob(services, { ...ALL_HANDLERS, ...options.handlers }));
  app.addHook('onClose', async () => {
    await storage.close();
    if (!options.engine) await services.engine.close();
  });
  return app;
}

function assembleServices(config: DaemonConfig, storage: Storage, engine: EngineSlots | undefined): Services {
  return {
    config,
    storage: storage.kind,
    tenants: storage.tenants,
    documents: storage.documents,
    blobs: storage.blobs,
    audit: storage.audit,
    changes: storage.changes,
    usage: storage.usage,
    engine:
      engine ??
      new EngineSlots({
        slots: config.engineSlots,
        queue: config.engineQueue,
        timeoutMs: config.engineTimeoutMs,
        engineNice: config.engineNice,
        fonts: config.fonts,
      }),
    reads: new ReadCache(),
    secret: storage.secret,
    certificates: storage.certificates,
    jobs: storage.jobs,
    signing: storage.signing,
  };
}

/**
 * The fastify instance with every answer in the service's error shape, the framework's own
 * included: errors before routing (a bad URL, an over-long id), in the socket (huge or stalled
 * headers) and everywhere else (the error handler). HTTPS when given a certificate and key; the
 * instance is typed as the HTTP one: routes and hooks do not depend on which.
 */
function createServer(config: DaemonConfig, logger: BuildOptions['logger']): FastifyInstance {
  // Node checks stalled headers only this often (default 30 s); a short headers timeout needs it sooner.
  const serverOptions = {
    headersTimeout: config.headersTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(config.headersTimeoutMs / 4))),
  };
  const app = Fastify({
    ...(config.tls ? { https: { ...readTls(config.tls), ...serverOptions } } : { http: serverOptions }),
    logger,
    bodyLimit: config.jsonBodyLimit,
    return503OnClosing: true,
    ajv: { customOptions: { removeAdditional: false } },
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    sendDocfixError(
      reply,
      new DocfixError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
    );
  });
  const bodyAjv = makeAjv(false);
  const partAjv = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : partAjv).compile(schema as object),
  );
  return app;
}

/**
 * JSON bodies: an empty body is "no body" (POST /undo and friends); anything unparsable, or a
 * string holding a lone UTF-16 surrogate (no text can carry one), is a 422.
 */
function addBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(
        new DocfixError('invalid_request', 'The request body is not valid JSON.', {
          problems: [{ field: 'body', problem: 'is not valid JSON' }],
        }),
        undefined,
      );
    }
    const broken = illFormedField(parsed, 'body');
    if (broken) {
      return done(
        new DocfixError(
          'invalid_request',
          `The request is not valid: ${broken} holds a lone UTF-16 surrogate.`,
          {
            problems: [{ field: broken, problem: 'holds a lone UTF-16 surrogate (not text)' }],
          },
        ),
        undefined,
      );
    }
    done(null, parsed);
  });
}

/** The path of the first string (value or key) in `value` that is not well-formed UTF-16. */
function illFormedField(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.isWellFormed() ? null : path;
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}.${key}`;
    if (!key.isWellFormed()) return at;
    const found = illFormedField(item, at, depth + 1);
    if (found) return found;
  }
  return null;
}

function registerRoutes(app: FastifyInstance, services: Services, handlers: Handlers): void {
  const limiter = new PlanRateLimits(services.config);
  const served = (Object.keys(ROUTES) as RouteId[]).filter((id) => handlers[id] || id === 'openapi');
  const openapi = buildOpenApi(served, services.config.version);
  for (const id of served) {
    const route: RouteDef = ROUTES[id];
    const handler =
      id === 'openapi'
        ? async () => openapi
        : (handlers[id] as (input: HandlerInput<RouteId>) => Promise<unknown>);
    const schema: Record<string, unknown> = {};
    if (route.params) schema.params = plainSchema(route.params);
    if (route.query) schema.querystring = plainSchema(route.query);
    if (route.body) schema.body = plainSchema(route.body);
    if (route.response) schema.response = { [route.status]: plainSchema(route.response) };
    app.route({
      method: route.method,
      url: fastifyPath(route.path),
      schema,
      preValidation: async (request) => {
        if (route.body && request.body === undefined) request.body = {};
      },
      onRequest:
        route.auth === 'key'
          ? (request, reply) => authenticate(request, reply, route, services, limiter)
          : undefined,
      // An upload's body is read whole before its job begins (nothing exists for a broken body).
      preHandler:
        route.multipart && id === 'uploadDocument'
          ? (request, reply) => readUploadBody(request, reply, services)
          : undefined,
      // Whatever the answer, an upload's temp file does not outlive its request.
      onResponse: route.multipart ? async (request) => discardUpload(request) : undefined,
      handler: answerRoute(id, route, handler, services),
    });
  }
}

async function discardUpload(request: FastifyRequest): Promise<void> {
  if (request.upload) await rm(request.upload.path, { force: true });
}

/** The route's handler, run as a job for the routes that are jobs, its result as the answer. */
function answerRoute(
  id: RouteId,
  route: RouteDef,
  handler: (input: HandlerInput<RouteId>) => Promise<unknown>,
  services: Services,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  return async (request, reply) => {
    const job =
      JOB_ROUTES.has(id) && request.caller
        ? await services.jobs.begin(request.caller.tenant.tenant_id, id, jobInput(id, request))
        : null;
    if (job) {
      // The id is announced at once (103 Early Hints) so another client can follow the work
      // while this request waits, and again on the final answer.
      // Node sends early hints only with a Link header: it points at the job.
      reply.writeEarlyHints({
        link: `</v1/jobs/${job.job_id}>; rel="related"`,
        'x-docfix-job': job.job_id,
      });
      reply.header('X-Docfix-Job', job.job_id);
    }
    let result: unknown;
    const run = () =>
      handler({
        params: request.params,
        query: request.query ?? {},
        body: request.body,
        caller: request.caller,
        services,
        req: request,
        reply,
      } as HandlerInput<RouteId>);
    // Engine work asked for by this request queues in its tenant's turn (daemon/engine-slots.ts).
    const tenantId = request.caller?.tenant.tenant_id;
    const asCaller = tenantId ? () => runForTenant(tenantId, run) : run;
    try {
      result = job ? await runInJob({ job_id: job.job_id, attempt: 1 }, asCaller) : await asCaller();
    } catch (error) {
      if (job) await services.jobs.fail(job, error).catch((e: unknown) => jobLogError(request, e));
      throw error;
    }
    // The work is done (and committed): a failure to record the job's end must not turn the
    // answer into an error. On PostgreSQL the job is then finished by whoever takes it over.
    if (job)
      await services.jobs.succeed(job, route.status, result).catch((e: unknown) => jobLogError(request, e));
    if (reply.sent) return reply;
    reply.code(route.status);
    if (route.media === 'empty') return reply.send();
    if (route.media) {
      reply.type(route.media);
      return reply.send(Buffer.isBuffer(result) ? result : Buffer.from(result as Uint8Array));
    }
    return result;
  };
}

/** Defence in depth: an answer to a key that names another tenant is stopped, whatever produced it. */
function guardTenantIsolation(app: FastifyInstance): void {
  app.addHook('preSerialization', async (request, _reply, payload) => {
    const tenantId = request.caller?.tenant.tenant_id;
    if (tenantId && namesOtherTenant(payload, tenantId)) {
      request.log.error({ url: request.url }, 'an answer naming another tenant was stopped');
      throw new DocfixError(
        'tenant_isolation_violation',
        'The answer was stopped: it would have crossed accounts. Nothing is shown.',
      );
    }
    return payload;
  });
}

function jobLogError(request: FastifyRequest, error: unknown): void {
  request.log.error({ err: error }, 'the job could not be recorded');
}

/** What a job needs to run again on another instance; null for an upload (its bytes stay here). */
function jobInput(id: RouteId, request: FastifyRequest): JobInput | null {
  if (id === 'uploadDocument' || !request.caller) return null;
  return {
    key_id: request.caller.key.key_id,
    params: request.params ?? {},
    query: request.query ?? {},
    body: request.body ?? null,
    host: typeof request.headers.host === 'string' ? request.headers.host : null,
    protocol: request.protocol,
  };
}

/**
 * Runs a job's request again, as its caller (the key must still be valid, its tenant not
 * suspended): the handler gets the stored request and a reply that only collects headers.
 */
function rerunJob(services: Services, handlers: Handlers): JobRerun {
  return async (job, input) => {
    const handler = handlers[job.kind] as ((input: HandlerInput<RouteId>) => Promise<unknown>) | undefined;
    if (!handler) throw new DocfixError('not_found', `No handler for ${job.kind}.`);
    const key = (await services.tenants.listKeys()).find((k) => k.key_id === input.key_id);
    const tenant = key && !key.revoked_at ? await services.tenants.getTenant(key.tenant_id) : null;
    if (!key || !tenant || tenant.tenant_id !== job.tenant_id)
      throw new DocfixError('invalid_api_key', 'The key that asked for this job is no longer valid.');
    if (tenant.suspended) throw new DocfixError('account_suspended', 'This account is suspended.');
    const reply = {
      sent: false,
      header: () => reply,
      type: () => reply,
      code: () => reply,
      writeEarlyHints: () => {},
    };
    const req = { headers: { host: input.host ?? undefined }, protocol: input.protocol };
    const body = await runForTenant(tenant.tenant_id, () =>
      handler({
        params: input.params,
        query: input.query,
        body: input.body,
        caller: { tenant, key },
        services,
        // The handlers that can run again read only these members of the request and the reply.
        req: req as unknown as FastifyRequest,
        reply: reply as unknown as FastifyReply,
      } as HandlerInput<RouteId>),
    );
    return { status: ROUTES[job.kind].status, body };
  };
}

/** Does a JSON answer carry a `tenant_id` other than the caller's (two levels deep, arrays included)? */
function namesOtherTenant(value: unknown, tenantId: string, depth = 0): boolean {
  if (depth > 3 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  if (Array.isArray(value)) return value.some((item) => namesOtherTenant(item, tenantId, depth + 1));
  const record = value as Record<string, unknown>;
  if (typeof record.tenant_id === 'string' && record.tenant_id !== tenantId) return true;
  return Object.values(record).some((item) => namesOtherTenant(item, tenantId, depth + 1));
}

/** API key → caller; rate limit per key; suspended tenants may read but start no new work. */
async function authenticate(
  request: FastifyRequest,
  reply: FastifyReply,
  route: RouteDef,
  services: Services,
  limiter: PlanRateLimits,
): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const key = match ? await services.tenants.authenticate(match[1]) : null;
  const tenant = key ? await services.tenants.getTenant(key.tenant_id) : null;
  if (!key || !tenant) {
    throw new DocfixError(
      'invalid_api_key',
      'The API key is not valid. Send Authorization: Bearer <API_KEY> with a current key.',
    );
  }
  // The local plan has no rate limit unless configured: no allowance to count, no headers.
  const decision = limiter.take(key.key_id, tenant.plan);
  if (decision) {
    reply.header('X-RateLimit-Limit', String(decision.limit));
    reply.header('X-RateLimit-Remaining', String(decision.remaining));
    reply.header('X-RateLimit-Reset', String(decision.reset));
  }
  if (decision && !decision.allowed) {
    throw new DocfixError(
      'too_many_requests',
      `This key sent more than ${decision.limit} requests a minute; wait ${decision.retryAfter} s.`,
      {
        retry_after: decision.retryAfter,
      },
    );
  }
  if (tenant.suspended && route.method !== 'GET') {
    throw new DocfixError(
      'account_suspended',
      'This account is suspended: it can read what it has but start no new work.',
    );
  }
  request.caller = { tenant, key };
}
