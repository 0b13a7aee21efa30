// Sealing of document passwords: a protected document's password is kept (so the engine can reopen
// it for every later operation) only sealed with the daemon's 32-byte secret, AES-256-GCM.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'aesgcm1.';

/** Seals a password: `aesgcm1.` + base64url(iv 12 | tag 16 | ciphertext). */
export function sealPassword(secret: Uint8Array, password: string): string {
  if (secret.byteLength !== 32) throw new Error('the sealing secret must be 32 bytes');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const body = Buffer.concat([cipher.update(password, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens a sealed password; throws when it was altered or sealed with another secret. */
export function unsealPassword(secret: Uint8Array, sealed: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed password');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', secret, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
