// One daemon per data directory. Two daemons on one directory would each keep their own copy of
// the audit head and fork the chain, so the first takes an exclusive lock and the second refuses,
// naming the first.
//
// The lock is a listening unix socket, because the kernel releases a bound socket when its process
// dies, however it dies (kill -9 included): no stale lock to judge by pid and start time, no pid
// reuse to get wrong. On Linux it is an abstract socket (no file) named after the directory's device
// and inode, so binding it is one atomic step and two paths to one directory (symlinks, `..`) meet
// at the same lock. Elsewhere it is a socket file in the data dir; a file left by a dead daemon is
// recognised (nobody accepts a connection on it) and replaced. The holder answers each connection
// with who it is (pid, url), which is how the second daemon names the first.
import { createHash } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  url: string | null;
  data_dir: string;
  started_at: string;
}

export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';
  readonly holder: LockHolder | null;

  constructor(dataDir: string, holder: LockHolder | null) {
    const who = holder
      ? `another docfix daemon (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ', starting'})`
      : 'another docfix daemon';
    super(
      `the data directory ${dataDir} is in use by ${who}. Stop it first ` +
        `(docfix daemon stop --data-dir ${dataDir}) or give this one another --data-dir.`,
    );
    this.holder = holder;
  }
}

export class DataDirLock {
  private server: Server;
  private info: LockHolder;
  private file: string | null;

  constructor(server: Server, info: LockHolder, file: string | null) {
    this.server = server;
    this.info = info;
    this.file = file;
  }

  /** Tells later comers where this daemon listens. */
  setUrl(url: string): void {
    this.info.url = url;
  }

  async release(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.file) await rm(this.file, { force: true });
  }
}

/** The socket address of the lock of `dataDir` (which must exist). */
export async function lockAddress(dataDir: string): Promise<{ address: string; file: string | null }> {
  if (process.platform === 'linux') {
    const s = await stat(dataDir);
    const id = createHash('sha256').update(`${s.dev}:${s.ino}`).digest('hex').slice(0, 32);
    return { address: `\0docfix-data-dir-${id}`, file: null };
  }
  const file = join(dataDir, 'daemon.sock');
  return { address: file, file };
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Asks the holder of the lock who it is; null when nobody answers (a stale socket file). */
export function askHolder(address: string, timeoutMs = 2000): Promise<LockHolder | null | 'no-answer'> {
  return new Promise((resolve) => {
    let text = '';
    let settled = false;
    const done = (value: LockHolder | null | 'no-answer') => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(value);
    };
    const socket = createConnection(address);
    socket.setTimeout(timeoutMs, () => done(null));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => {
      try {
        done(JSON.parse(text) as LockHolder);
      } catch {
        done(null);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'no-answer' : null),
    );
  });
}

/**
 * Takes the data directory's lock for this process or throws DataDirInUse naming the holder.
 * The lock lasts until `release()` or the process's death.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { address, file } = await lockAddress(dataDir);
  const info: LockHolder = {
    pid: process.pid,
    url: null,
    data_dir: dataDir,
    started_at: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.end(JSON.stringify(info));
    });
    try {
      await listen(server, address);
      // The lock must not keep a process alive on its own.
      server.unref();
      return new DataDirLock(server, info, file);
    } catch (error) {
      server.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      const holder = await askHolder(address);
      // A socket file nobody listens on was left by a daemon that died: replace it, once.
      if (holder === 'no-answer' && file && attempt === 0) {
        await rm(file, { force: true });
        continue;
      }
      throw new DataDirInUse(dataDir, holder === 'no-answer' ? null : holder);
    }
  }
}
