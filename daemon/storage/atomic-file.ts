// Durable writes: temp file → fsync → rename → fsync of the folder, so a crash at any instant leaves
// either the old file or the new one, never half of one. Also a per-key lock for read-modify-write.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function tempPathBeside(path: string): string {
  return join(dirname(path), `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

/**
 * Writes `data` to `path` durably and atomically; `mode` applies to a newly created file. On any
 * failure (a full disk included) the temp file is removed at once and `path` is as it was.
 */
export async function writeFileDurable(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempPathBeside(path);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await fsyncDir(dirname(path));
}

/** Serialises async work per key (one document, one tenant's audit log) inside this process. */
export class KeyedLock {
  private tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
