// What every instance on one database must share, kept in the database's `settings` table: the
// daemon secret (confirm tokens made on one instance are checked on another; passwords sealed on
// one are opened on another) and the certificate signing keys (a certificate issued anywhere
// verifies everywhere). Made once by whichever instance starts first; the others read them. The
// private signing key is therefore as safe as the database: docs/deploy.md says so.
import { randomBytes } from 'node:crypto';
import type { PublishedKey } from '../signing-keys.ts';
import { newSigningKey, signingKeysOf, type KeyIndex, type SigningKeys } from '../signing-keys.ts';
import type { Database } from './pg-database.ts';

interface StoredSigning {
  index: KeyIndex;
  /** Private seeds (base64url) by key id; only the current key's is kept. */
  private: Record<string, string>;
}

async function loadOrCreate<T>(db: Database, name: string, make: () => T): Promise<T> {
  const read = async () =>
    (await db.query<{ value: T }>('SELECT value FROM settings WHERE name = $1', [name]))[0]?.value;
  const existing = await read();
  if (existing !== undefined) return existing;
  await db.query('INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    JSON.stringify(make()),
  ]);
  const made = await read();
  if (made === undefined) throw new Error(`the setting ${name} could not be stored`);
  return made;
}

export async function loadOrCreateSharedSecret(db: Database): Promise<Buffer> {
  const value = await loadOrCreate(db, 'daemon_secret', () => randomBytes(32).toString('base64'));
  const secret = Buffer.from(value, 'base64');
  if (secret.length !== 32) throw new Error('the daemon secret in the database is damaged');
  return secret;
}

export async function loadOrCreateSharedSigningKeys(db: Database): Promise<SigningKeys> {
  const stored = await loadOrCreate<StoredSigning>(db, 'signing_keys', () => {
    const made = newSigningKey([]);
    return { index: made.index, private: { [made.index.current]: made.seed } };
  });
  const seed = stored.private[stored.index.current];
  if (!seed) throw new Error(`no private key for signing key ${stored.index.current}`);
  return signingKeysOf(stored.index, seed);
}

/** A new current key for every instance; the old public key stays published, its private key goes. */
export async function rotateSharedSigningKey(db: Database): Promise<SigningKeys> {
  await loadOrCreateSharedSigningKeys(db);
  return db.tx(async (c) => {
    const row = await c.query<{ value: StoredSigning }>(
      "SELECT value FROM settings WHERE name = 'signing_keys' FOR UPDATE",
    );
    const old = row.rows[0].value;
    const now = new Date().toISOString();
    const earlier: PublishedKey[] = old.index.keys.map((k) =>
      k.key_id === old.index.current ? { ...k, retired_at: k.retired_at ?? now } : k,
    );
    const made = newSigningKey(earlier);
    const stored: StoredSigning = { index: made.index, private: { [made.index.current]: made.seed } };
    await c.query("UPDATE settings SET value = $1 WHERE name = 'signing_keys'", [JSON.stringify(stored)]);
    return signingKeysOf(stored.index, made.seed);
  });
}
