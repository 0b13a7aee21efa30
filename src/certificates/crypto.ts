// Ed25519 for certificates (@noble/ed25519, SHA-512 from node:crypto): signing, verifying, key ids
// and the encodings a public key travels in (raw base64url, PEM/SPKI, hex). Pure functions of bytes:
// where keys are kept is the daemon's business (daemon/signing-keys.ts).
import { createHash, randomBytes } from 'node:crypto';
import * as ed from '@noble/ed25519';

ed.hashes.sha512 = (message: Uint8Array) => new Uint8Array(createHash('sha512').update(message).digest());

export const ALGORITHM = 'Ed25519';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE { algorithm 1.3.101.112, BIT STRING }. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface PublicKeyInfo {
  key_id: string;
  public_key: Uint8Array;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Strict base64url (no padding, no other alphabet); null when the text is not that. */
export function fromBase64Url(text: string): Uint8Array | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const bytes = new Uint8Array(Buffer.from(text, 'base64url'));
  return toBase64Url(bytes) === text ? bytes : null;
}

/** Key id: the first 16 hex digits of the SHA-256 of the raw 32-byte public key. */
export function keyIdOf(publicKey: Uint8Array): string {
  return sha256Hex(publicKey).slice(0, 16);
}

/**
 * Key fingerprint: the whole SHA-256 (64 hex digits) of the raw 32-byte public key, what a person
 * compares with the issuer's before trusting a key; the key id is its first 16 digits.
 */
export function keyFingerprint(publicKey: Uint8Array): string {
  return sha256Hex(publicKey);
}

/** A fingerprint as typed (any case, with or without `:` or spaces); null unless it is 64 hex digits. */
export function parseFingerprint(text: string): string | null {
  const hex = text.replace(/[\s:]/g, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

export function generateKeyPair(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const secretKey = new Uint8Array(randomBytes(32));
  return { secretKey, publicKey: ed.getPublicKey(secretKey) };
}

export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return ed.getPublicKey(secretKey);
}

export function sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return ed.sign(message, secretKey);
}

/** Never throws: a malformed signature or key is simply not a valid signature. */
export function verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return ed.verify(signature, message, publicKey);
  } catch {
    return false;
  }
}

export function publicKeyToPem(publicKey: Uint8Array): string {
  const der = Buffer.concat([SPKI_PREFIX, Buffer.from(publicKey)]);
  return `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
}

/**
 * Reads a public key as a person might hand it over: raw base64url (43 characters), 64 hex digits,
 * PEM (SPKI), or the JSON published at /.well-known/docfix-certificate-key (current and previous
 * keys). Returns every key found; throws a TypeError when nothing usable is there.
 */
export function parsePublicKeys(text: string): PublicKeyInfo[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch {
      throw new TypeError('the key file is not valid JSON');
    }
    const published = data as { public_key?: unknown; previous?: { public_key?: unknown }[] };
    const keys: PublicKeyInfo[] = [];
    for (const entry of [published, ...(Array.isArray(published.previous) ? published.previous : [])]) {
      if (typeof entry?.public_key === 'string') keys.push(...parsePublicKeys(entry.public_key));
    }
    if (keys.length === 0) throw new TypeError('the JSON carries no public_key');
    return keys;
  }
  if (trimmed.includes('-----BEGIN PUBLIC KEY-----')) {
    const body = trimmed.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
    const der = Buffer.from(body, 'base64');
    if (der.length !== 44 || !der.subarray(0, 12).equals(SPKI_PREFIX)) {
      throw new TypeError('the PEM is not an Ed25519 public key');
    }
    return [info(new Uint8Array(der.subarray(12)))];
  }
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return [info(new Uint8Array(Buffer.from(trimmed, 'hex')))];
  const raw = fromBase64Url(trimmed.replace(/=+$/, ''));
  if (raw && raw.length === 32) return [info(raw)];
  throw new TypeError('not an Ed25519 public key (expected base64url, hex, PEM or the published JSON)');
}

function info(publicKey: Uint8Array): PublicKeyInfo {
  return { key_id: keyIdOf(publicKey), public_key: publicKey };
}
