// Builds a daemon app over a temporary data dir with a tenant and key, for inject() tests. One engine
// pool is shared by every app of the test process (workers are costly to start).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { build } from '../../daemon/app.ts';
import type { DaemonConfig } from '../../daemon/config.ts';
import { EngineSlots } from '../../daemon/engine-slots.ts';
import type { PlanId } from '../../src/plans.ts';
import { startPostgres, type PostgresServer } from './postgres-server.ts';

let engine: EngineSlots | null = null;
let cluster: Promise<PostgresServer> | null = null;
let databases = 0;

/**
 * DOCFIX_TEST_STORE=postgres runs the inject() tests on PostgreSQL: one private cluster for the test
 * process, a fresh database for each harness (so accounts of one test never meet another's).
 */
async function testDatabase(): Promise<string | null> {
  if (process.env.DOCFIX_TEST_STORE !== 'postgres') return null;
  cluster ??= startPostgres();
  return (await cluster).newDatabase(`harness_${process.pid}_${++databases}`);
}

/** The test process's engine pool (2 slots; workers are unref'd so the process can exit). */
export function sharedEngine(): EngineSlots {
  engine ??= new EngineSlots({ slots: 2, queue: 8, timeoutMs: 60_000, log: () => {} });
  return engine;
}

export interface FilePart {
  filename: string;
  content: Uint8Array;
  type?: string;
}

/** A multipart/form-data payload for inject(). */
export function multipart(fields: Record<string, string | FilePart>): {
  payload: Buffer;
  headers: Record<string, string>;
} {
  const boundary = `----docfix${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
      );
    } else {
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type ?? 'application/pdf'}\r\n\r\n`,
        ),
        Buffer.from(value.content),
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export interface Account {
  tenantId: string;
  apiKey: string;
  keyId: string;
  headers: Record<string, string>;
}

export interface Harness {
  app: FastifyInstance;
  dataDir: string;
  account: Account;
  /** inject() as the harness account (headers may override). */
  inject(options: InjectOptions, as?: Account): Promise<LightMyRequestResponse>;
  /** JSON request as the account; returns status and parsed body. */
  json(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
    as?: Account,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Uploads a PDF (bytes or a file path) as the account. */
  upload(
    file: Uint8Array | string,
    options?: { password?: string; filename?: string; as?: Account },
  ): Promise<{ status: number; body: any }>;
  /** Another tenant with its own key. */
  newAccount(name: string, plan?: PlanId): Promise<Account>;
  close(): Promise<void>;
}

export async function makeHarness(
  options: { plan?: PlanId; config?: Partial<DaemonConfig>; engine?: EngineSlots } = {},
): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'docfix-test-'));
  const database = await testDatabase();
  const app = await build({
    config: {
      dataDir,
      rateLimit: { perMinute: 1_000_000, burst: 1_000_000 },
      ...(database ? { database } : {}),
      ...options.config,
    },
    engine: options.engine ?? sharedEngine(),
  });
  const newAccount = async (name: string, plan: PlanId = 'business'): Promise<Account> => {
    const tenant = await app.docfix.tenants.setTenant(name, { plan });
    const key = await app.docfix.tenants.createKey(tenant.tenant_id);
    return {
      tenantId: tenant.tenant_id,
      apiKey: key.api_key,
      keyId: key.key_id,
      headers: { authorization: `Bearer ${key.api_key}` },
    };
  };
  const account = await newAccount('test', options.plan ?? 'business');
  const inject = (opts: InjectOptions, as: Account = account) =>
    app.inject({
      ...opts,
      headers: { ...as.headers, ...(opts.headers as Record<string, string> | undefined) },
    });
  return {
    app,
    dataDir,
    account,
    inject,
    async json(method, url, body, as = account) {
      const response = await inject(
        body === undefined
          ? { method, url }
          : { method, url, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
        as,
      );
      let parsed: unknown = null;
      try {
        parsed = response.body ? JSON.parse(response.body) : null;
      } catch {
        parsed = response.body;
      }
      return { status: response.statusCode, body: parsed, headers: response.headers };
    },
    async upload(file, opts = {}) {
      const content = typeof file === 'string' ? new Uint8Array(await readFile(file)) : file;
      const filename = opts.filename ?? (typeof file === 'string' ? basename(file) : 'upload.pdf');
      const fields: Record<string, string | FilePart> = { file: { filename, content } };
      if (opts.password !== undefined) fields.password = opts.password;
      const { payload, headers } = multipart(fields);
      const response = await inject(
        { method: 'POST', url: '/v1/documents', payload, headers },
        opts.as ?? account,
      );
      return { status: response.statusCode, body: response.body ? JSON.parse(response.body) : null };
    },
    newAccount,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const CORPUS_DIR = new URL('../../fixtures/corpus/pdf/', import.meta.url).pathname;
