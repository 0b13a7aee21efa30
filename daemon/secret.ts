// The daemon's secret (32 random bytes, 0600): HMAC key of confirmation tokens and the key that seals
// stored document passwords. Made once per data directory.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeFileDurable } from './storage/atomic-file.ts';

export async function loadOrCreateSecret(path: string): Promise<Buffer> {
  try {
    const existing = await readFile(path);
    if (existing.length === 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Only the daemon's app builder makes it, once per data directory, before it serves anything.
  const secret = randomBytes(32);
  await writeFileDurable(path, secret, 0o600);
  return secret;
}
