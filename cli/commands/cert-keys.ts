// The certificate keys the CLI trusts, and how `cert verify` chooses one. Keys are pinned in the CLI's
// configuration (`certificate_keys`, per deployment address) by the commands that talk to a deployment
// anyway — `cert issue`, `cert pdf`, `cert key` — and by `cert verify --key-url URL --pin`. `cert
// verify` itself never talks to a daemon and never pins a key it was not given: it trusts the key
// given (--key, --key-url, --key-fingerprint) or a key pinned earlier, else it says it has none.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { ApiClient } from '../../src/api-client.ts';
import {
  keyFingerprint,
  parsePublicKeys,
  toBase64Url,
  type PublicKeyInfo,
} from '../../src/certificates/crypto.ts';
import type { KeyClaim } from '../../src/certificates/verify-offline.ts';
import { EXIT } from '../../src/errors.ts';
import { openLocalConfig, type PinnedCertificateKeys } from '../../src/local-config.ts';
import { c, CliExit, info, UsageError, warn } from '../context.ts';

// ───────────────────────────── pins ─────────────────────────────

export interface PinnedKey extends PublicKeyInfo {
  /** The deployment it was pinned for. */
  url: string;
  pinned_at: string;
}

const normalUrl = (url: string) => url.replace(/\/+$/, '');

function keysOf(pinned: PinnedCertificateKeys): PublicKeyInfo[] {
  return pinned.keys.flatMap((k) => {
    try {
      return parsePublicKeys(k.public_key);
    } catch {
      return []; // a damaged pin trusts nothing
    }
  });
}

/** Every pinned key, of every deployment. */
export function pinnedKeys(): PinnedKey[] {
  const all = openLocalConfig().get('certificate_keys') ?? {};
  return Object.entries(all).flatMap(([url, pinned]) =>
    keysOf(pinned).map((k) => ({ ...k, url, pinned_at: pinned.pinned_at })),
  );
}

/** The keys pinned for one deployment address. */
export function pinnedKeysOf(url: string): PublicKeyInfo[] {
  const pinned = openLocalConfig().get('certificate_keys')?.[normalUrl(url)];
  return pinned ? keysOf(pinned) : [];
}

/**
 * Pins keys for a deployment: `add` keeps what was pinned before (certificates signed with an earlier
 * key still verify), `replace` pins exactly these. Answers the keys that were not pinned before.
 */
export function pinKeys(url: string, keys: PublicKeyInfo[], mode: 'add' | 'replace'): PublicKeyInfo[] {
  const config = openLocalConfig();
  const all = config.get('certificate_keys') ?? {};
  const at = normalUrl(url);
  const before = all[at] ? keysOf(all[at]) : [];
  const added = keys.filter((k) => !before.some((b) => b.key_id === k.key_id));
  const kept = mode === 'add' ? before : [];
  const union = [...keys, ...kept.filter((b) => !keys.some((k) => k.key_id === b.key_id))];
  if (added.length === 0 && mode === 'add') return [];
  const pinned: PinnedCertificateKeys = {
    keys: union.map((k) => ({ key_id: k.key_id, public_key: toBase64Url(k.public_key) })),
    pinned_at: new Date().toISOString(),
  };
  config.set('certificate_keys', { ...all, [at]: pinned });
  return added;
}

/** The keys a deployment publishes (GET /.well-known/docfix-certificate-key). */
export async function fetchDaemonKeys(client: ApiClient): Promise<PublicKeyInfo[]> {
  const published = await client.call('certificateKey');
  return parsePublicKeys(JSON.stringify(published));
}

export function describeKey(k: PublicKeyInfo): string {
  return `${k.key_id} (fingerprint ${keyFingerprint(k.public_key)})`;
}

/**
 * After `cert issue` / `cert pdf`: pins the keys of the deployment that issued the certificate, so it
 * can be verified later with no daemon. A failure to fetch them is a warning: the command did its work.
 */
export async function pinIssuerKeys(client: ApiClient, certificateKeyId?: string): Promise<void> {
  const url = normalUrl(client.baseUrl);
  let keys: PublicKeyInfo[];
  try {
    keys = await fetchDaemonKeys(client);
  } catch (error) {
    warn(
      `could not pin the certificate key of ${url}: ${(error as Error).message} (later: docfix cert key --refresh)`,
    );
    return;
  }
  const hadPins = pinnedKeysOf(url).length > 0;
  const added = pinKeys(url, keys, 'add');
  for (const k of added) {
    if (hadPins) warn(`${url} now signs with key ${describeKey(k)}, not pinned before; pinned it too`);
    else info(c.dim(`Pinned the certificate key ${describeKey(k)} of ${url}`));
  }
  if (certificateKeyId && !keys.some((k) => k.key_id === certificateKeyId)) {
    warn(`the certificate names key ${certificateKeyId}, which ${url} does not publish`);
  }
}

// ───────────────────────────── keys given on the command line ─────────────────────────────

export async function readKeyOption(value: string): Promise<PublicKeyInfo[]> {
  let text = value;
  if (existsSync(value)) {
    try {
      text = await readFile(value, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the key file ${value}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  try {
    return parsePublicKeys(text);
  } catch (error) {
    throw new UsageError(`--key: ${(error as Error).message}`);
  }
}

export async function fetchKeyUrl(url: string): Promise<PublicKeyInfo[]> {
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(15_000),
      headers: { accept: 'application/json, text/plain' },
    });
  } catch (error) {
    throw new CliExit(EXIT.auth, `could not fetch the key from ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new CliExit(EXIT.auth, `${url} answered ${response.status}`);
  try {
    return parsePublicKeys(await response.text());
  } catch (error) {
    throw new CliExit(EXIT.auth, `${url} did not answer with a public key: ${(error as Error).message}`);
  }
}

// ───────────────────────────── which key cert verify trusts ─────────────────────────────

export interface KeyChoice {
  /** --key: a key file, or the key itself. */
  key?: string;
  keyUrl?: string;
  /** 64 hex digits, already normalised (parseFingerprint). */
  keyFingerprint?: string;
  /** Pin what --key-url answered, for the URL's deployment. */
  pin?: boolean;
}

export type Trust =
  | { kind: 'trusted'; keys: PublicKeyInfo[]; source: string; names?: string }
  /** No key to trust: verification cannot conclude (exit 3). */
  | { kind: 'none'; reason: string };

/** The keys to verify a certificate with, from the options or the pins; never from a daemon. */
export async function chooseTrust(choice: KeyChoice, claim: KeyClaim, file: string): Promise<Trust> {
  if (choice.key) {
    return { kind: 'trusted', keys: await readKeyOption(choice.key), source: `--key ${choice.key}` };
  }
  if (choice.keyUrl) {
    const keys = await fetchKeyUrl(choice.keyUrl);
    if (choice.pin) {
      const origin = new URL(choice.keyUrl).origin;
      for (const k of pinKeys(origin, keys, 'add'))
        info(`Pinned the certificate key ${describeKey(k)} of ${origin}`);
    }
    return { kind: 'trusted', keys, source: choice.keyUrl };
  }
  if (choice.keyFingerprint) return trustByFingerprint(choice.keyFingerprint, claim);
  return trustPinned(claim, file);
}

function trustByFingerprint(fingerprint: string, claim: KeyClaim): Trust {
  const source = `--key-fingerprint ${fingerprint}`;
  if (!claim.public_key || !claim.key_id) {
    return {
      kind: 'none',
      reason:
        `the certificate does not carry its public key${claim.key_id ? ` (it names key ${claim.key_id})` : ''}, ` +
        'so a fingerprint cannot check it: give the key itself with --key FILE or --key-url URL',
    };
  }
  if (claim.fingerprint !== fingerprint) {
    // The person named the key they trust, and this is not it: the certificate fails (exit 6).
    return { kind: 'trusted', keys: [], source, names: `only the key with fingerprint ${fingerprint}` };
  }
  return { kind: 'trusted', keys: [{ key_id: claim.key_id, public_key: claim.public_key }], source };
}

function trustPinned(claim: KeyClaim, file: string): Trust {
  const pins = pinnedKeys();
  if (!claim.key_id) {
    // Not a docfix certificate (no seal line, no statement): the checks will say what is missing.
    return { kind: 'trusted', keys: pins, source: 'pinned keys' };
  }
  const matching = pins.filter((k) => k.key_id === claim.key_id);
  if (matching.length > 0) {
    return { kind: 'trusted', keys: matching, source: `pinned for ${matching[0].url}` };
  }
  const pinnedNote =
    pins.length === 0
      ? 'no certificate key is pinned (docfix cert issue, cert pdf and cert key pin the key of the deployment they talk to)'
      : `key ${claim.key_id} is not among the ${pins.length} pinned`;
  const todo = claim.fingerprint
    ? [
        `It names its signing key ${claim.key_id}, fingerprint ${claim.fingerprint}.`,
        "If that is the issuer's key fingerprint (ask them; docfix cert key prints it on their side), run:",
        `  docfix cert verify ${file} --key-fingerprint ${claim.fingerprint}`,
        'or give the key: --key FILE',
      ]
    : [
        `It names its signing key ${claim.key_id} and does not carry the key itself:`,
        'give the key with --key FILE or --key-url URL',
      ];
  return {
    kind: 'none',
    reason: [`no trusted key for this certificate: ${pinnedNote}.`, ...todo].join('\n  '),
  };
}
