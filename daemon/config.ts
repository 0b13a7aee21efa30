// The daemon's settings: flags of `docfix daemon serve`, then DOCFIX_* environment variables, then
// defaults. Tests build apps with their own values.
import { readFileSync } from 'node:fs';
import { DEFAULT_HOST, DEFAULT_PORT, defaultDataDir } from '../src/local-config.ts';
import type { LocalPlanLimits } from '../src/plans.ts';
import { machineFontSettings, type MachineFontSettings } from '../src/fonts/machine-fonts.ts';
import { defaultSlotCount } from './engine-slots.ts';

export interface DaemonConfig {
  dataDir: string;
  host: string;
  port: number;
  engineSlots: number;
  engineQueue: number;
  engineTimeoutMs: number;
  /**
   * Nice value (0–19) of the engine slots' threads, below the event loop and the light slot (Linux;
   * DOCFIX_ENGINE_NICE, default 10; 0 runs them at the daemon's own priority).
   */
  engineNice: number;
  /** Per key of a hosted plan: steady requests a minute and the burst allowed at once (spec Part 8). */
  rateLimit: { perMinute: number; burst: number };
  /**
   * The limits of the `local` plan (the default account of a daemon on one's own machine): none
   * unless set (DOCFIX_LOCAL_UPLOAD_MB, _PAGES, _CORRECTIONS_PER_DAY, _RATE_PER_MINUTE, _RATE_BURST).
   */
  localPlan: LocalPlanLimits;
  /** Largest JSON body accepted (uploads are limited by plan instead). */
  jsonBodyLimit: number;
  /**
   * An upload whose body does not advance by 64 KiB (or end) within this time is refused and its
   * connection closed (DOCFIX_UPLOAD_IDLE_TIMEOUT_MS, default 30 s).
   */
  uploadIdleTimeoutMs: number;
  /** A request whose headers have not all arrived within this time is refused (DOCFIX_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  version: string;
  /** HTTPS with this certificate and key (PEM files; --tls-cert/--tls-key, DOCFIX_TLS_CERT/KEY), else HTTP. */
  tls: { certFile: string; keyFile: string } | null;
  /**
   * PostgreSQL URL of a deployment shared by several daemons (--database, DOCFIX_DATABASE_URL); null:
   * the filesystem store in dataDir, as always. With a database, dataDir holds only this instance's
   * temporary files and blob cache.
   */
  database: string | null;
  /** s3://bucket/prefix for revision files (--blobs, DOCFIX_BLOBS); only with a database. */
  blobs: string | null;
  /**
   * The fonts of this machine tier 4 may draw with after the bundled ones: fontconfig's unless
   * --no-system-fonts or DOCFIX_SYSTEM_FONTS=0, and the folders of --font-dir or DOCFIX_FONT_DIRS.
   * The engine's worker threads are started with these (engine-slots.ts); `GET /v1/fonts` lists them.
   */
  fonts: MachineFontSettings;
}

export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

function intFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number, not ${JSON.stringify(value)}`);
  return n;
}

function positive(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const n = intFromEnv(env, name);
  if (n === 0) throw new Error(`${name} must be above 0`);
  return n;
}

export function resolveConfig(
  overrides: Partial<DaemonConfig> = {},
  env: NodeJS.ProcessEnv = process.env,
): DaemonConfig {
  const slots = overrides.engineSlots ?? intFromEnv(env, 'DOCFIX_ENGINE_SLOTS') ?? defaultSlotCount();
  return {
    dataDir: overrides.dataDir ?? defaultDataDir(env),
    host: overrides.host ?? env.DOCFIX_HOST ?? DEFAULT_HOST,
    port: overrides.port ?? intFromEnv(env, 'DOCFIX_PORT') ?? DEFAULT_PORT,
    engineSlots: slots,
    engineQueue: overrides.engineQueue ?? intFromEnv(env, 'DOCFIX_ENGINE_QUEUE') ?? slots * 2,
    engineTimeoutMs: overrides.engineTimeoutMs ?? intFromEnv(env, 'DOCFIX_ENGINE_TIMEOUT_MS') ?? 120_000,
    engineNice: overrides.engineNice ?? Math.min(19, intFromEnv(env, 'DOCFIX_ENGINE_NICE') ?? 10),
    rateLimit: overrides.rateLimit ?? {
      perMinute: intFromEnv(env, 'DOCFIX_RATE_PER_MINUTE') ?? 120,
      burst: intFromEnv(env, 'DOCFIX_RATE_BURST') ?? 30,
    },
    localPlan: overrides.localPlan ?? localPlanFromEnv(env),
    jsonBodyLimit: overrides.jsonBodyLimit ?? 1024 * 1024,
    uploadIdleTimeoutMs:
      overrides.uploadIdleTimeoutMs ?? positive(env, 'DOCFIX_UPLOAD_IDLE_TIMEOUT_MS') ?? 30_000,
    headersTimeoutMs: overrides.headersTimeoutMs ?? positive(env, 'DOCFIX_HEADERS_TIMEOUT_MS') ?? 30_000,
    version: VERSION,
    tls: overrides.tls !== undefined ? overrides.tls : tlsFromEnv(env),
    fonts: overrides.fonts ?? machineFontSettings(env),
    ...storageFrom(overrides, env),
  };
}

/** A limit of the local plan: unset or empty is no limit; otherwise a whole number of at least 1. */
function limitFromEnv(env: NodeJS.ProcessEnv, name: string): number | null {
  const n = intFromEnv(env, name);
  if (n === undefined) return null;
  if (n < 1) throw new Error(`${name} must be at least 1 (leave it unset for no limit)`);
  return n;
}

function localPlanFromEnv(env: NodeJS.ProcessEnv): LocalPlanLimits {
  const perMinute = limitFromEnv(env, 'DOCFIX_LOCAL_RATE_PER_MINUTE');
  const burst = limitFromEnv(env, 'DOCFIX_LOCAL_RATE_BURST');
  if (burst !== null && perMinute === null)
    throw new Error('DOCFIX_LOCAL_RATE_BURST needs DOCFIX_LOCAL_RATE_PER_MINUTE');
  return {
    upload_mb: limitFromEnv(env, 'DOCFIX_LOCAL_UPLOAD_MB'),
    pages: limitFromEnv(env, 'DOCFIX_LOCAL_PAGES'),
    corrections_per_day: limitFromEnv(env, 'DOCFIX_LOCAL_CORRECTIONS_PER_DAY'),
    // Without a burst, up to a quarter of the minute's allowance at once (the spec's 120/30 ratio).
    rate: perMinute === null ? null : { perMinute, burst: burst ?? Math.max(1, Math.ceil(perMinute / 4)) },
  };
}

function storageFrom(
  overrides: Partial<DaemonConfig>,
  env: NodeJS.ProcessEnv,
): Pick<DaemonConfig, 'database' | 'blobs'> {
  const database = overrides.database !== undefined ? overrides.database : env.DOCFIX_DATABASE_URL || null;
  const blobs = overrides.blobs !== undefined ? overrides.blobs : env.DOCFIX_BLOBS || null;
  if (database && !/^postgres(ql)?:\/\//.test(database))
    throw new Error('--database (DOCFIX_DATABASE_URL) must be a postgres:// or postgresql:// URL');
  if (blobs && !database)
    throw new Error('--blobs (DOCFIX_BLOBS) needs --database: blobs in a bucket serve a shared database');
  if (blobs && !blobs.startsWith('s3://'))
    throw new Error('--blobs (DOCFIX_BLOBS) must be an s3://BUCKET[/PREFIX] URL');
  return { database, blobs };
}

function tlsFromEnv(env: NodeJS.ProcessEnv): DaemonConfig['tls'] {
  const certFile = env.DOCFIX_TLS_CERT || undefined;
  const keyFile = env.DOCFIX_TLS_KEY || undefined;
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) throw new Error('DOCFIX_TLS_CERT and DOCFIX_TLS_KEY go together');
  return { certFile, keyFile };
}

/** The certificate and key for fastify's `https` option, read now (a clear error when unreadable). */
export function readTls(tls: NonNullable<DaemonConfig['tls']>): { cert: Buffer; key: Buffer } {
  const read = (what: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new Error(
        `cannot read the TLS ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  };
  return { cert: read('certificate', tls.certFile), key: read('key', tls.keyFile) };
}
