// A private PostgreSQL cluster for tests and the bench: `initdb` into a temporary folder, `postgres`
// on a free loopback port with its socket in that folder, stopped and removed at the end. Debian's
// server binaries are found under /usr/lib/postgresql/<version>/bin (or $DOCFIX_PG_BIN, or PATH).
// PostgreSQL refuses to run as root: as root, the cluster belongs to and runs as the `postgres`
// user (made by Debian's package; created here when missing). Anything that goes wrong throws with
// the server's log: a test on PostgreSQL fails loudly, it never skips.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PostgresServer {
  /** postgres://docfix@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  dir: string;
  /** A fresh, empty database on this cluster; its URL. */
  newDatabase(name: string): Promise<string>;
  /** One query on a database of this cluster (default: postgres). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    values?: unknown[],
    url?: string,
  ): Promise<R[]>;
  log(): string;
  stop(): Promise<void>;
}

const SUPERUSER = 'docfix';

function binDir(): string {
  if (process.env.DOCFIX_PG_BIN) return process.env.DOCFIX_PG_BIN;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(base, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    if (initdb) return initdb.replace(/\/initdb$/, '');
  } catch {
    // not on PATH either
  }
  throw new Error(
    "PostgreSQL server binaries not found (install Debian's postgresql, or set DOCFIX_PG_BIN): the PostgreSQL tests cannot run",
  );
}

/** As root, the unprivileged user the cluster runs as (uid, gid), created when missing. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const name = 'postgres';
  const lookup = () => {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      return null;
    }
  };
  let ids = lookup();
  if (!ids) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
    ids = lookup();
  }
  if (!ids) throw new Error('could not make a user to run PostgreSQL as (it refuses to run as root)');
  return { name, ...ids };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function asUser(user: ReturnType<typeof serverUser>, command: string, args: string[]): [string, string[]] {
  return user ? ['runuser', ['-u', user.name, '--', command, ...args]] : [command, args];
}

const running = new Set<string>();
process.on('exit', () => {
  // Never leave a server behind, even when a test process ends abruptly.
  for (const dir of running) {
    try {
      const pid = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGQUIT');
    } catch {
      // already gone
    }
  }
});

/**
 * Starts a cluster. `durable: false` (tests) turns fsync off for speed; the bench keeps PostgreSQL's
 * defaults so its figures mean what a deployment would see.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = binDir();
  const user = serverUser();
  const dir = await mkdtemp(join(tmpdir(), 'docfix-pg-'));
  const data = join(dir, 'data');
  if (user) {
    await chown(dir, user.uid, user.gid);
    await chmod(dir, 0o700);
  }
  const [initCmd, initArgs] = asUser(user, join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    SUPERUSER,
    '--auth=trust',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  try {
    execFileSync(initCmd, initArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const stderr = String((error as { stderr?: Buffer }).stderr ?? '');
    throw new Error(`initdb failed: ${stderr || (error as Error).message}`);
  }
  let log = '';
  let child: ChildProcess | null = null;
  let port = 0;
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    const settings = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(options.durable
        ? []
        : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ];
    const [cmd, args] = asUser(user, join(bin, 'postgres'), settings);
    const started = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    started.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    running.add(dir);
    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    if (await ready(url, started)) child = started;
    else if (started.exitCode === null) started.kill('SIGKILL');
  }
  if (!child) {
    running.delete(dir);
    await rm(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${log}`);
  }
  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const server = child;
  const query = async <R extends pg.QueryResultRow>(sql: string, values: unknown[] = [], on = url) => {
    const client = new pg.Client({ connectionString: on });
    await client.connect();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    url,
    port,
    dir,
    query,
    async newDatabase(name) {
      if (!/^[a-z][a-z0-9_]{0,40}$/.test(name)) throw new Error(`bad database name ${name}`);
      await query(`CREATE DATABASE ${name}`);
      return `postgres://${SUPERUSER}@127.0.0.1:${port}/${name}`;
    },
    log: () => log,
    async stop() {
      const exited = new Promise<void>((resolve) => {
        if (server.exitCode !== null || server.signalCode !== null) resolve();
        else server.once('exit', () => resolve());
      });
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pid > 0) process.kill(pid, 'SIGINT');
      } catch {
        server.kill('SIGINT');
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      running.delete(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function ready(url: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return false;
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return true;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return false;
}
