// Runs the daemon in the foreground: builds the app, makes the default tenant and key on first start
// (written to the CLI's configuration so a new user's first command just works), listens, prints the
// ready line, and shuts down gracefully on SIGINT/SIGTERM (in-flight work finishes; new requests get 503).
import { rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { openLocalConfig } from '../src/local-config.ts';
import { build } from './app.ts';
import { resolveConfig, type DaemonConfig } from './config.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { writeFileDurable } from './storage/atomic-file.ts';
import { DataLayout } from './storage/data-layout.ts';
import { recoverDataDir } from './storage/recovery.ts';
import { TenantStore } from './storage/tenant-store.ts';
import type { TenantStorage } from './storage/storage.ts';

export const DEFAULT_TENANT = 'default';
/** How long a stopping daemon waits for in-flight work before it exits all the same. */
const STOP_GRACE_MS = 15_000;

/**
 * First start with no keys: a default tenant and a key, remembered in the CLI config. The tenant is
 * on the `local` plan: the owner's own daemon has no hosted plan's limits (pages, size, corrections a
 * day, requests a minute) unless its configuration sets some (DaemonConfig.localPlan).
 */
export async function ensureDefaultKey(
  dataDir: string,
  url: string,
  tenants: TenantStorage = new TenantStore(new DataLayout(dataDir)),
): Promise<{ created: boolean }> {
  const config = openLocalConfig();
  const keys = await tenants.listKeys();
  if (keys.length === 0) {
    const tenant = await tenants.setTenant(DEFAULT_TENANT, { plan: 'local' });
    const key = await tenants.createKey(tenant.tenant_id, 'default key made on first start');
    config.set('local', {
      url,
      api_key: key.api_key,
      key_id: key.key_id,
      tenant_id: tenant.tenant_id,
      data_dir: dataDir,
    });
    return { created: true };
  }
  const local = config.get('local');
  if (local && local.data_dir === dataDir && local.url !== url) config.set('local', { ...local, url });
  return { created: false };
}

export async function serve(overrides: Partial<DaemonConfig>): Promise<void> {
  // One daemon per data directory: the lock first (a second daemon stops here, naming the first),
  // then the recovery of what a killed daemon left, then the app. With --database the data dir is
  // this instance's own (temporary files, blob cache): several daemons share the database, each on
  // its own data dir.
  const lock = await lockDataDir(resolveConfig(overrides).dataDir);
  const recovered = await recoverDataDir(resolveConfig(overrides).dataDir, (line) =>
    process.stderr.write(`docfix daemon: ${line}\n`),
  );
  if (
    recovered.temp_files_removed ||
    recovered.deleted_folders_removed ||
    recovered.audit_bytes_truncated ||
    recovered.audit_entries_recovered
  )
    process.stderr.write(`docfix daemon: start-up recovery ${JSON.stringify(recovered)}\n`);
  // Errors (with their stacks) are logged always; every request with DOCFIX_LOG=1.
  const app = await build({
    config: overrides,
    logger: process.env.DOCFIX_LOG === '1' ? true : { level: 'error' },
  });
  const { config } = app.docfix;
  const layout = new DataLayout(config.dataDir);
  const address = await app.listen({ host: config.host, port: config.port });
  const port = new URL(address).port;
  const scheme = config.tls ? 'https' : 'http';
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // On a shared database the first instance to start makes the default key (one tenant per name).
  const { created } = await ensureDefaultKey(config.dataDir, url, app.docfix.tenants);
  await writeFileDurable(layout.pidFile, `${process.pid}\n`);
  await writeFileDurable(layout.runFile, JSON.stringify({ pid: process.pid, url, data_dir: config.dataDir }));
  // Only now does the lock name this daemon's address: whoever finds it through the lock (daemon
  // start, status) finds it ready, its default key already in the CLI's configuration.
  lock.setUrl(url);
  if (created)
    process.stderr.write('created a default tenant and API key (saved in the docfix CLI configuration)\n');
  process.stdout.write(`docfix daemon listening on ${url}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`docfix daemon stopping (${signal})\n`);
    try {
      // In-flight work gets a bounded time to finish: a request or worker that never ends must not
      // keep the daemon (and `docfix daemon stop`, a service manager, a test) waiting for ever.
      const closed = await Promise.race([
        app.close().then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), STOP_GRACE_MS).unref()),
      ]);
      if (!closed)
        process.stderr.write(
          `docfix daemon: in-flight work did not finish within ${STOP_GRACE_MS / 1000} s; stopping anyway\n`,
        );
    } finally {
      await rm(layout.pidFile, { force: true });
      await rm(layout.runFile, { force: true });
      await lock.release();
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  watchParent(() => void stop('its parent process exited'));
}

/**
 * `docfix daemon serve` runs this daemon as its child and passes a pipe as fd 3 with
 * DOCFIX_PARENT_PIPE=3. The kernel closes the pipe when the parent dies, however it dies (kill -9
 * included), so the daemon stops with it rather than running on orphaned.
 */
function watchParent(onGone: () => void): void {
  const fd = Number(process.env.DOCFIX_PARENT_PIPE);
  if (!Number.isInteger(fd) || fd < 3) return;
  let pipe: Socket;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  pipe.on('data', () => {});
  pipe.on('error', onGone);
  pipe.on('close', onGone);
  // The pipe alone must not keep the daemon alive once it stops listening.
  pipe.unref();
}
