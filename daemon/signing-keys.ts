// The certificate signing keys (Ed25519) in DATA/signing/:
//   keys.json            public index: the current key id and every key ever used (public parts,
//                        created_at, retired_at), so certificates of retired keys still verify
//   <key_id>.key         the current private key (32-byte seed, base64url), mode 0600
// A key pair is made the first time it is needed (daemon start). Rotation makes a new pair, marks
// the old one retired, keeps its public key published and deletes its private key.
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ALGORITHM,
  fromBase64Url,
  generateKeyPair,
  keyIdOf,
  publicKeyOf,
  publicKeyToPem,
  toBase64Url,
} from '../src/certificates/crypto.ts';
import type { CertificateKeyOut } from '../src/schemas.ts';
import { KeyedLock, writeFileDurable } from './storage/atomic-file.ts';

export interface PublishedKey {
  key_id: string;
  /** Raw 32-byte public key, base64url. */
  public_key: string;
  created_at: string;
  retired_at: string | null;
}

export interface KeyIndex {
  algorithm: typeof ALGORITHM;
  current: string;
  keys: PublishedKey[];
}

export interface SigningKeys {
  algorithm: typeof ALGORITHM;
  /** The key new certificates are signed with. */
  current: { key_id: string; public_key: Uint8Array; secret_key: Uint8Array };
  /** Every key ever used, current first; public parts only. */
  published: PublishedKey[];
  /** Public key by key id (current and retired). */
  publicKey(keyId: string): Uint8Array | null;
}

const lock = new KeyedLock();

export function signingDir(dataDir: string): string {
  return join(dataDir, 'signing');
}

const indexFile = (dataDir: string) => join(signingDir(dataDir), 'keys.json');
const privateFile = (dataDir: string, keyId: string) => join(signingDir(dataDir), `${keyId}.key`);

/** Loads the signing keys of a data dir, making the first key pair when there is none. */
export async function loadOrCreateSigningKeys(dataDir: string): Promise<SigningKeys> {
  const existing = await readKeys(dataDir);
  if (existing) return existing;
  return lock.run(dataDir, async () => {
    const again = await readKeys(dataDir);
    if (again) return again;
    await writeNewKey(dataDir, []);
    const made = await readKeys(dataDir);
    if (!made) throw new Error('the signing key could not be created');
    return made;
  });
}

/** Makes a new current key; the old one stays published (retired) and its private key is deleted. */
export async function rotateSigningKey(dataDir: string): Promise<SigningKeys> {
  await loadOrCreateSigningKeys(dataDir);
  return lock.run(dataDir, async () => {
    const index = await readIndex(dataDir);
    if (!index) throw new Error('no signing key index');
    const now = new Date().toISOString();
    const keys = index.keys.map((k) =>
      k.key_id === index.current ? { ...k, retired_at: k.retired_at ?? now } : k,
    );
    await writeNewKey(dataDir, keys);
    await rm(privateFile(dataDir, index.current), { force: true });
    const rotated = await readKeys(dataDir);
    if (!rotated) throw new Error('the rotated signing key could not be read');
    return rotated;
  });
}

/** What GET /.well-known/docfix-certificate-key publishes. */
export function publishedKeyDocument(keys: SigningKeys): CertificateKeyOut {
  const current = keys.current;
  return {
    algorithm: ALGORITHM,
    key_id: current.key_id,
    public_key: toBase64Url(current.public_key),
    public_key_pem: publicKeyToPem(current.public_key),
    previous: keys.published
      .filter((k) => k.key_id !== current.key_id)
      .map((k) => ({
        key_id: k.key_id,
        public_key: k.public_key,
        public_key_pem: publicKeyToPem(fromBase64Url(k.public_key) ?? new Uint8Array(32)),
        retired_at: k.retired_at ?? '',
      })),
  };
}

async function writeNewKey(dataDir: string, keys: PublishedKey[]): Promise<void> {
  const dir = signingDir(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const pair = generateKeyPair();
  const keyId = keyIdOf(pair.publicKey);
  // The private key is durable before the index names it.
  await writeFileDurable(privateFile(dataDir, keyId), `${toBase64Url(pair.secretKey)}\n`, 0o600);
  await chmod(privateFile(dataDir, keyId), 0o600);
  const index: KeyIndex = {
    algorithm: ALGORITHM,
    current: keyId,
    keys: [
      {
        key_id: keyId,
        public_key: toBase64Url(pair.publicKey),
        created_at: new Date().toISOString(),
        retired_at: null,
      },
      ...keys,
    ],
  };
  await writeFileDurable(indexFile(dataDir), `${JSON.stringify(index, null, 2)}\n`, 0o644);
}

async function readIndex(dataDir: string): Promise<KeyIndex | null> {
  let text: string;
  try {
    text = await readFile(indexFile(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const index = JSON.parse(text) as KeyIndex;
  if (!index || typeof index.current !== 'string' || !Array.isArray(index.keys)) {
    throw new Error(`${indexFile(dataDir)} is not a signing key index`);
  }
  return index;
}

async function readKeys(dataDir: string): Promise<SigningKeys | null> {
  const index = await readIndex(dataDir);
  if (!index) return null;
  return signingKeysOf(index, (await readFile(privateFile(dataDir, index.current), 'utf8')).trim());
}

/** A fresh key index naming one new key pair, and that pair's private seed (base64url). */
export function newSigningKey(earlier: PublishedKey[]): { index: KeyIndex; seed: string } {
  const pair = generateKeyPair();
  const keyId = keyIdOf(pair.publicKey);
  return {
    index: {
      algorithm: ALGORITHM,
      current: keyId,
      keys: [
        {
          key_id: keyId,
          public_key: toBase64Url(pair.publicKey),
          created_at: new Date().toISOString(),
          retired_at: null,
        },
        ...earlier,
      ],
    },
    seed: toBase64Url(pair.secretKey),
  };
}

/** The keys of an index and its current private seed (base64url), checked against each other. */
export function signingKeysOf(index: KeyIndex, seedText: string): SigningKeys {
  const seed = fromBase64Url(seedText);
  if (!seed || seed.length !== 32) throw new Error(`the private signing key ${index.current} is damaged`);
  const publicKey = publicKeyOf(seed);
  if (keyIdOf(publicKey) !== index.current) {
    throw new Error(`the private signing key does not belong to key ${index.current}`);
  }
  const byId = new Map<string, Uint8Array>();
  for (const k of index.keys) {
    const raw = fromBase64Url(k.public_key);
    if (raw && raw.length === 32 && keyIdOf(raw) === k.key_id) byId.set(k.key_id, raw);
  }
  return {
    algorithm: ALGORITHM,
    current: { key_id: index.current, public_key: publicKey, secret_key: seed },
    published: [...index.keys].sort((a, b) =>
      a.key_id === index.current ? -1 : b.key_id === index.current ? 1 : 0,
    ),
    publicKey: (keyId) => byId.get(keyId) ?? null,
  };
}
