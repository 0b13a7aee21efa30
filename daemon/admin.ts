// The daemon's own commands (run by bin/docfix-daemon.js; the docfix CLI forwards `daemon`, `keys`
// and `tenants` here): serve in the foreground, start/stop/status a background daemon, and manage
// keys and tenants directly in a data directory or a deployment's PostgreSQL database (--database,
// DOCFIX_DATABASE_URL) — running daemons on it see the change at once. `migrate` brings a database's
// schema up to date without serving.
import { daemonEnvironment } from '../src/daemon-environment.ts';
import { Command, CommanderError, Option } from 'commander';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../src/errors.ts';
import { machineFontSettings, type MachineFontSettings } from '../src/fonts/machine-fonts.ts';
import { DEFAULT_HOST, DEFAULT_PORT, defaultDataDir } from '../src/local-config.ts';
import { isPlanId, PLAN_IDS, type PlanId } from '../src/plans.ts';
import { askHolder, lockAddress } from './data-dir-lock.ts';
import { serve } from './server.ts';
import { loadOrCreateSigningKeys, publishedKeyDocument, rotateSigningKey } from './signing-keys.ts';
import { DataLayout } from './storage/data-layout.ts';
import { TenantStore } from './storage/tenant-store.ts';
import type { TenantStorage } from './storage/storage.ts';
import type { SigningKeys } from './signing-keys.ts';

const DAEMON_BIN = fileURLToPath(new URL('../bin/docfix-daemon.js', import.meta.url));

class UsageError extends Error {}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--port must be 0..65535, not ${value}`);
  return n;
}

function plan(value: string): PlanId {
  if (!isPlanId(value)) throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')}`);
  return value;
}

function bool(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`expected true or false, not ${value}`);
}

const dataDirOption = () =>
  new Option('--data-dir <dir>', 'data directory ($DOCFIX_DATA_DIR or the platform data folder)');

const databaseOption = () =>
  new Option('--database <url>', "a deployment's PostgreSQL database, postgres://… ($DOCFIX_DATABASE_URL)");

interface StoreOptions {
  dataDir?: string;
  database?: string;
}

/**
 * The database named by --database, else by DOCFIX_DATABASE_URL unless --data-dir was given
 * (an explicit data directory wins over the environment), else none.
 */
function databaseUrl(opts: StoreOptions): string | null {
  if (opts.database) return opts.database;
  if (opts.dataDir) return null;
  return process.env.DOCFIX_DATABASE_URL || null;
}

/** Runs `work` on the tenant store the options name: a database (migrated first) or a data dir. */
async function withTenants<T>(opts: StoreOptions, work: (store: TenantStorage) => Promise<T>): Promise<T> {
  const url = databaseUrl(opts);
  if (!url) return work(new TenantStore(new DataLayout(opts.dataDir ?? defaultDataDir())));
  const { Database } = await import('./storage/pg-database.ts');
  const { PgTenantStore } = await import('./storage/pg-tenant-store.ts');
  const db = new Database(url, { max: 2 });
  try {
    await db.migrate();
    return await work(new PgTenantStore(db));
  } finally {
    await db.close();
  }
}

/** The signing keys of a data dir, or of a database (shared by every instance on it). */
async function withSigning(opts: StoreOptions, rotate: boolean): Promise<SigningKeys> {
  const url = databaseUrl(opts);
  const dataDir = opts.dataDir ?? defaultDataDir();
  if (!url) return rotate ? rotateSigningKey(dataDir) : loadOrCreateSigningKeys(dataDir);
  const { Database } = await import('./storage/pg-database.ts');
  const settings = await import('./storage/pg-settings.ts');
  const db = new Database(url, { max: 2 });
  try {
    await db.migrate();
    return rotate
      ? await settings.rotateSharedSigningKey(db)
      : await settings.loadOrCreateSharedSigningKeys(db);
  } finally {
    await db.close();
  }
}

function print(json: boolean, data: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
}

interface RunInfo {
  pid: number;
  url: string;
  data_dir: string;
}

async function readRunInfo(dataDir: string): Promise<RunInfo | null> {
  try {
    const info = JSON.parse(await readFile(new DataLayout(dataDir).runFile, 'utf8')) as RunInfo;
    if (alive(info.pid)) return info;
  } catch {
    // no run file: ask the lock
  }
  // The holder of the data directory's lock says who it is, run file or not.
  try {
    const holder = await askHolder((await lockAddress(dataDir)).address);
    if (holder && holder !== 'no-answer' && holder.url)
      return { pid: holder.pid, url: holder.url, data_dir: dataDir };
  } catch {
    // no such directory
  }
  return null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

interface RunStatus {
  running: boolean;
  pid: number | null;
  url: string | null;
}

export async function daemonStatus(dataDir: string): Promise<RunStatus> {
  const info = await readRunInfo(dataDir);
  if (!info || !alive(info.pid)) return { running: false, pid: null, url: null };
  return { running: await healthy(info.url), pid: info.pid, url: info.url };
}

export function program(): Command {
  const root = new Command('docfix-daemon').exitOverride().showHelpAfterError();
  addServe(root);
  addMigrate(root);
  addStart(root);
  addStop(root);
  addStatus(root);
  addKeys(root.command('keys').description('API keys (stored hashed; shown once)'));
  addSigningKey(root.command('signing-key').description('the Ed25519 key certificates are signed with'));
  addTenants(root.command('tenants').description('tenants (accounts) and their plans'));
  return root;
}

/** `--font-dir`, repeatable: folders of faces tier 4 may draw with, replacing DOCFIX_FONT_DIRS. */
function fontDirOption(): Option {
  return new Option(
    '--font-dir <dir>',
    'a folder of fonts tier 4 may draw with, repeatable ($DOCFIX_FONT_DIRS)',
  ).argParser((dir: string, dirs: string[] = []) => [...dirs, resolve(dir)]);
}

function systemFontsOption(): Option {
  return new Option(
    '--no-system-fonts',
    "draw only with bundled and --font-dir faces, not fontconfig's ($DOCFIX_SYSTEM_FONTS=0)",
  );
}

interface FontFlags {
  fontDir?: string[];
  systemFonts: boolean;
}

/**
 * The font settings the flags give, each replacing its variable; undefined without font flags (the
 * environment's, then). The daemon hands them to its engine threads, so they need not be exported.
 */
function fontFlags(opts: FontFlags, command: Command): MachineFontSettings | undefined {
  const systemFlag = command.getOptionValueSource('systemFonts') === 'cli';
  if (!opts.fontDir && !systemFlag) return undefined;
  const fromEnv = machineFontSettings();
  return { system: systemFlag ? opts.systemFonts : fromEnv.system, dirs: opts.fontDir ?? fromEnv.dirs };
}

/** `serve`: the daemon in the foreground. */
function addServe(root: Command): void {
  root
    .command('serve')
    .description('run the daemon in the foreground until SIGINT/SIGTERM')
    // No commander defaults: an unset flag leaves the DOCFIX_* variable (a service's environment
    // file), then the default, to daemon/config.ts.
    .option('--host <host>', `address to listen on ($DOCFIX_HOST, default ${DEFAULT_HOST})`)
    .option('--port <port>', `port, 0 picks a free one ($DOCFIX_PORT, default ${DEFAULT_PORT})`, port)
    .addOption(dataDirOption())
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain) ($DOCFIX_TLS_CERT)')
    .option('--tls-key <file>', 'and this PEM private key ($DOCFIX_TLS_KEY)')
    .addOption(databaseOption())
    .option('--blobs <url>', 'keep revision files in an S3 bucket, s3://BUCKET[/PREFIX] ($DOCFIX_BLOBS)')
    .addOption(fontDirOption())
    .addOption(systemFontsOption())
    .action(
      async (
        opts: {
          host?: string;
          port?: number;
          dataDir?: string;
          tlsCert?: string;
          tlsKey?: string;
          database?: string;
          blobs?: string;
          fontDir?: string[];
          systemFonts: boolean;
        },
        command: Command,
      ) => {
        if (Boolean(opts.tlsCert) !== Boolean(opts.tlsKey))
          throw new UsageError('--tls-cert and --tls-key go together');
        const fonts = fontFlags(opts, command);
        await serve({
          ...(fonts ? { fonts } : {}),
          ...(opts.host !== undefined ? { host: opts.host } : {}),
          ...(opts.port !== undefined ? { port: opts.port } : {}),
          dataDir: opts.dataDir ?? defaultDataDir(),
          ...(opts.tlsCert && opts.tlsKey ? { tls: { certFile: opts.tlsCert, keyFile: opts.tlsKey } } : {}),
          ...(opts.database !== undefined ? { database: opts.database } : {}),
          ...(opts.blobs !== undefined ? { blobs: opts.blobs } : {}),
        });
      },
    );
}

/** `migrate`: a database schema brought up to date. */
function addMigrate(root: Command): void {
  root
    .command('migrate')
    .description("bring a PostgreSQL database up to this version's schema, then exit")
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (opts: { database?: string; json?: boolean }) => {
      const url = opts.database ?? process.env.DOCFIX_DATABASE_URL;
      if (!url) throw new UsageError('--database (or DOCFIX_DATABASE_URL) names the database to migrate');
      const { Database, isPostgresUrl } = await import('./storage/pg-database.ts');
      if (!isPostgresUrl(url)) throw new UsageError('--database must be a postgres:// or postgresql:// URL');
      const db = new Database(url, { max: 1 });
      try {
        const applied = await db.migrate();
        const version = await db.schemaVersion();
        print(
          !!opts.json,
          { applied, schema_version: version },
          applied.length
            ? `applied migration${applied.length === 1 ? '' : 's'} ${applied.join(', ')}; schema version ${version}`
            : `schema already at version ${version}`,
        );
      } finally {
        await db.close();
      }
    });
}

/** `start`: a background daemon; without --host/--port, DOCFIX_HOST/DOCFIX_PORT or the defaults. */
function addStart(root: Command): void {
  root
    .command('start')
    .description('start a background daemon and wait until it answers')
    // No commander defaults: an unset flag leaves DOCFIX_HOST/DOCFIX_PORT, then the default, to the
    // daemon (daemon/config.ts), and `start` prints the address it really listens on.
    .option('--host <host>', `address to listen on ($DOCFIX_HOST, default ${DEFAULT_HOST})`)
    .option('--port <port>', `port, 0 picks a free one ($DOCFIX_PORT, default ${DEFAULT_PORT})`, port)
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--blobs <url>', 'revision files in an S3 bucket ($DOCFIX_BLOBS)')
    .addOption(fontDirOption())
    .addOption(systemFontsOption())
    .option('--json', 'machine output')
    .action((opts: StartOptions, command: Command) => startInBackground(opts, fontFlags(opts, command)));
}

interface StartOptions extends FontFlags {
  host?: string;
  port?: number;
  dataDir?: string;
  database?: string;
  blobs?: string;
  json?: boolean;
}

async function startInBackground(opts: StartOptions, fonts: MachineFontSettings | undefined): Promise<void> {
  const dataDir = opts.dataDir ?? defaultDataDir();
  const before = await daemonStatus(dataDir);
  if (before.running) {
    print(
      !!opts.json,
      { ...before, started: false },
      `docfix daemon already running on ${before.url} (pid ${before.pid})`,
    );
    return;
  }
  const child = await spawnServe(dataDir, opts, fonts);
  const status = await waitUntilAnswering(dataDir, child);
  if (!status) throw new Error(await whyNotStarted(dataDir, child));
  print(
    !!opts.json,
    { ...status, started: true },
    `docfix daemon started on ${status.url} (pid ${status.pid})`,
  );
}

/** `serve` as a detached process logging to DATA/daemon.log; unset flags are left to its environment. */
async function spawnServe(
  dataDir: string,
  opts: StartOptions,
  fonts: MachineFontSettings | undefined,
): Promise<ChildProcess> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const log = openSync(join(dataDir, 'daemon.log'), 'a');
  const child = spawn(
    process.execPath,
    [
      DAEMON_BIN,
      'serve',
      ...(opts.host !== undefined ? ['--host', opts.host] : []),
      ...(opts.port !== undefined ? ['--port', String(opts.port)] : []),
      '--data-dir',
      dataDir,
      ...(opts.database ? ['--database', opts.database] : []),
      ...(opts.blobs ? ['--blobs', opts.blobs] : []),
      ...(fonts ? fonts.dirs.flatMap((dir) => ['--font-dir', dir]) : []),
      ...(fonts && !fonts.system ? ['--no-system-fonts'] : []),
    ],
    { detached: true, stdio: ['ignore', log, log], env: daemonEnvironment() },
  );
  child.unref();
  closeSync(log);
  return child;
}

/** The started daemon's status once it answers (20 s at most); null if it exits or never answers. */
async function waitUntilAnswering(dataDir: string, child: ChildProcess): Promise<RunStatus | null> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const status = await daemonStatus(dataDir);
    if (status.running && status.pid === child.pid) return status;
    if (child.exitCode !== null) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** Says why, when the daemon said so (e.g. another daemon holds the data directory). */
async function whyNotStarted(dataDir: string, child: ChildProcess): Promise<string> {
  const logFile = join(dataDir, 'daemon.log');
  const last = (await readFile(logFile, 'utf8').catch(() => ''))
    .trim()
    .split('\n')
    .pop()
    ?.replace(/^docfix: /, '');
  return `the daemon did not start${child.exitCode !== null && last ? `: ${last}` : ''} (see ${logFile})`;
}

/** `stop`: the background daemon, after its in-flight work. */
function addStop(root: Command): void {
  root
    .command('stop')
    .description('stop the background daemon (it finishes in-flight work first)')
    .addOption(dataDirOption())
    .option('--json', 'machine output')
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      const dataDir = opts.dataDir ?? defaultDataDir();
      const info = await readRunInfo(dataDir);
      if (!info || !alive(info.pid)) {
        print(!!opts.json, { stopped: false, running: false }, 'docfix daemon is not running');
        return;
      }
      process.kill(info.pid, 'SIGTERM');
      const deadline = Date.now() + 20_000;
      while (alive(info.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (alive(info.pid)) throw new Error(`the daemon (pid ${info.pid}) did not stop within 20 s`);
      print(!!opts.json, { stopped: true, pid: info.pid }, `docfix daemon stopped (pid ${info.pid})`);
    });
}

/** `status`: whether a daemon runs on the data directory. */
function addStatus(root: Command): void {
  root
    .command('status')
    .description('say whether a daemon runs on the data directory')
    .addOption(dataDirOption())
    .option('--json', 'machine output')
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      const status = await daemonStatus(opts.dataDir ?? defaultDataDir());
      print(
        !!opts.json,
        status,
        status.running
          ? `docfix daemon running on ${status.url} (pid ${status.pid})`
          : 'docfix daemon is not running',
      );
      if (!status.running) process.exitCode = 1;
    });
}

/** `keys create|list|revoke`. */
function addKeys(keys: Command): void {
  keys
    .command('create')
    .description('create a key for a tenant (the tenant is made when new)')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .requiredOption('--tenant <name>', 'tenant name')
    .option('--plan <plan>', `plan of a new tenant (${PLAN_IDS.join(', ')})`, plan)
    .option('--label <text>', 'a note to recognise the key by', '')
    .option('--json', 'machine output')
    .action(async (opts: StoreOptions & { tenant: string; plan?: PlanId; label: string; json?: boolean }) => {
      const { tenant, key } = await withTenants(opts, async (store) => {
        const existing = await store.findTenantByName(opts.tenant);
        const tenant = await store.setTenant(opts.tenant, {
          plan: opts.plan ?? (existing ? undefined : 'business'),
        });
        return { tenant, key: await store.createKey(tenant.tenant_id, opts.label) };
      });
      print(
        !!opts.json,
        key,
        `${key.api_key}\n(key ${key.key_id} for tenant ${tenant.name}; it is shown only now)`,
      );
    });
  keys
    .command('list')
    .description('list keys (never their secrets)')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (opts: StoreOptions & { json?: boolean }) => {
      const keys = await withTenants(opts, (store) => store.listKeys());
      const list = keys.map(({ secret_sha256: _secret, ...rest }) => rest);
      print(
        !!opts.json,
        list,
        list.length
          ? list
              .map(
                (k) =>
                  `${k.key_id}\t${k.tenant_id}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\t${k.label}`,
              )
              .join('\n')
          : 'no keys',
      );
    });
  keys
    .command('revoke')
    .description('revoke a key; it stops working at once')
    .argument('<key_id>')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (keyId: string, opts: StoreOptions & { json?: boolean }) => {
      const record = await withTenants(opts, (store) => store.revokeKey(keyId));
      if (!record) throw new UsageError(`no key ${keyId}`);
      const { secret_sha256: _secret, ...shown } = record;
      print(!!opts.json, shown, `revoked ${keyId}`);
    });
}

/** `signing-key show|rotate`. */
function addSigningKey(signing: Command): void {
  signing
    .command('show')
    .description('show the current key id and the earlier keys still published')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (opts: StoreOptions & { json?: boolean }) => {
      const keys = await withSigning(opts, false);
      const doc = publishedKeyDocument(keys);
      print(
        !!opts.json,
        doc,
        `current ${doc.key_id}; earlier keys still published: ${doc.previous.map((k) => k.key_id).join(', ') || 'none'}`,
      );
    });
  signing
    .command('rotate')
    .description(
      'make a new signing key; earlier public keys stay published so old certificates still verify',
    )
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (opts: StoreOptions & { json?: boolean }) => {
      const doc = publishedKeyDocument(await withSigning(opts, true));
      print(
        !!opts.json,
        doc,
        `new signing key ${doc.key_id}; ${doc.previous.length} earlier key(s) still published`,
      );
    });
}

/** `tenants set|list`. */
function addTenants(tenants: Command): void {
  tenants
    .command('set')
    .description('create or change a tenant')
    .argument('<name>')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--plan <plan>', `plan (${PLAN_IDS.join(', ')})`, plan)
    .option('--suspended <bool>', 'true stops new work; false lifts it', bool)
    .option('--json', 'machine output')
    .action(
      async (name: string, opts: StoreOptions & { plan?: PlanId; suspended?: boolean; json?: boolean }) => {
        const tenant = await withTenants(opts, (store) =>
          store.setTenant(name, { plan: opts.plan, suspended: opts.suspended }),
        );
        print(
          !!opts.json,
          tenant,
          `${tenant.name} (${tenant.tenant_id}): plan ${tenant.plan}${tenant.suspended ? ', suspended' : ''}`,
        );
      },
    );
  tenants
    .command('list')
    .description('list tenants')
    .addOption(dataDirOption())
    .addOption(databaseOption())
    .option('--json', 'machine output')
    .action(async (opts: StoreOptions & { json?: boolean }) => {
      const list = await withTenants(opts, (store) => store.listTenants());
      print(
        !!opts.json,
        list,
        list
          .map((t) => `${t.tenant_id}\t${t.name}\t${t.plan}${t.suspended ? '\tsuspended' : ''}`)
          .join('\n') || 'no tenants',
      );
    });
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : EXIT.usage;
      return;
    }
    process.stderr.write(`docfix: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof UsageError ? EXIT.usage : EXIT.error;
  }
}
