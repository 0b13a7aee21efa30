import { createPublicKey, verify as nodeVerify, createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  fromBase64Url,
  keyIdOf,
  parsePublicKeys,
  publicKeyToPem,
  sign,
  toBase64Url,
  verify,
} from '../../../src/certificates/crypto.ts';
import { makeKey } from './make-certificate.ts';

test('key id is the first 16 hex digits of SHA-256 of the raw public key', () => {
  const key = makeKey();
  assert.is(key.key_id, createHash('sha256').update(key.public_key).digest('hex').slice(0, 16));
  assert.is(keyIdOf(key.public_key), key.key_id);
  assert.match(key.key_id, /^[0-9a-f]{16}$/);
});

test('signatures verify with node:crypto through the PEM we publish (interoperable Ed25519)', () => {
  const key = makeKey();
  const message = new TextEncoder().encode('{"a":1}');
  const signature = sign(message, key.secret_key);
  assert.is(signature.length, 64);
  const pem = publicKeyToPem(key.public_key);
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/);
  assert.ok(nodeVerify(null, message, createPublicKey(pem), signature));
  assert.ok(verify(signature, message, key.public_key));
  const changed = new TextEncoder().encode('{"a":2}');
  assert.not.ok(verify(signature, changed, key.public_key));
  assert.not.ok(verify(signature, message, makeKey().public_key));
  assert.not.ok(verify(signature.subarray(0, 63), message, key.public_key));
  assert.not.ok(verify(new Uint8Array(64), message, key.public_key));
});

test('public keys are read from base64url, hex, PEM and the published JSON (with previous keys)', () => {
  const a = makeKey();
  const b = makeKey();
  for (const form of [
    toBase64Url(a.public_key),
    Buffer.from(a.public_key).toString('hex'),
    publicKeyToPem(a.public_key),
  ]) {
    const [found] = parsePublicKeys(form);
    assert.is(found.key_id, a.key_id);
    assert.equal([...found.public_key], [...a.public_key]);
  }
  const published = JSON.stringify({
    algorithm: 'Ed25519',
    key_id: b.key_id,
    public_key: toBase64Url(b.public_key),
    public_key_pem: publicKeyToPem(b.public_key),
    previous: [
      {
        key_id: a.key_id,
        public_key: toBase64Url(a.public_key),
        public_key_pem: '',
        retired_at: '2026-01-01T00:00:00Z',
      },
    ],
  });
  assert.equal(
    parsePublicKeys(published).map((k) => k.key_id),
    [b.key_id, a.key_id],
  );
  assert.throws(() => parsePublicKeys('not a key'), /not an Ed25519 public key/);
  assert.throws(() => parsePublicKeys('{"x":1}'), /no public_key/);
});

test('strict base64url', () => {
  assert.equal([...(fromBase64Url('AQID') ?? [])], [1, 2, 3]);
  assert.is(fromBase64Url('AQI+'), null);
  assert.is(fromBase64Url('AQI='), null);
});

test.run();
