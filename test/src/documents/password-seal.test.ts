// Sealed document passwords: round trip, a fresh nonce each time, tampering and a wrong secret refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { sealPassword, unsealPassword } from '../../../src/documents/password-seal.ts';

const secret = randomBytes(32);

test('round trip, unicode included; the clear password never appears', () => {
  for (const pw of ['openpassword', 'pässwörd ✓', '']) {
    const sealed = sealPassword(secret, pw);
    assert.is(unsealPassword(secret, sealed), pw);
    if (pw) assert.not.ok(sealed.includes(pw));
  }
  assert.is.not(sealPassword(secret, 'same'), sealPassword(secret, 'same'));
});

test('tampered or foreign seals are refused', () => {
  const sealed = sealPassword(secret, 'foo');
  const raw = Buffer.from(sealed.slice('aesgcm1.'.length), 'base64url');
  raw[raw.length - 1] ^= 1;
  assert.throws(() => unsealPassword(secret, `aesgcm1.${raw.toString('base64url')}`));
  assert.throws(() => unsealPassword(randomBytes(32), sealed));
  assert.throws(() => unsealPassword(secret, 'plain'));
  assert.throws(() => sealPassword(randomBytes(16), 'x'));
});

test.run();
