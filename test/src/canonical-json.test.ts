import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalBytes, canonicalize, isCanonical } from '../../src/canonical-json.ts';

test('RFC 8785 §3.2.2 example: literals, numbers and string escapes', () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
  );
  assert.is(
    canonicalize(input),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

test('RFC 8785 §3.2.3: keys sorted by UTF-16 code units, not by code points', () => {
  const input = {
    '\u20ac': 'Euro Sign',
    '\r': 'Carriage Return',
    '\ufb33': 'Hebrew Letter Dalet With Dagesh',
    '1': 'One',
    '\ud83d\ude00': 'Emoji: Grinning Face',
    '\u0080': 'Control',
    '\u00f6': 'Latin Small Letter O With Diaeresis',
  };
  const keys = Object.keys(JSON.parse(canonicalize(input)) as object);
  // JSON.parse reorders integer-like keys, so check the order in the text itself.
  const text = canonicalize(input);
  const order = ['\\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'].map((k) =>
    text.indexOf(`"${k}"`),
  );
  assert.ok(
    order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])),
    text,
  );
  assert.is(keys.length, 7);
});

test('ECMAScript number serialisation (RFC 8785 appendix B samples)', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [123456789012345680000, '123456789012345680000'],
    [9007199254740992, '9007199254740992'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [0.1 + 0.2, '0.30000000000000004'],
  ];
  for (const [n, text] of cases) assert.is(canonicalize(n), text, String(n));
});

test('no white space, nested objects sorted at every level, undefined properties left out', () => {
  assert.is(
    canonicalize({ b: [1, { d: 1, c: undefined, a: 'x' }], a: { z: null, y: true } }),
    '{"a":{"y":true,"z":null},"b":[1,{"a":"x","d":1}]}',
  );
  assert.is(canonicalize([undefined, 1]), '[null,1]');
  assert.is(canonicalize(new Date('2026-01-02T03:04:05.000Z')), '"2026-01-02T03:04:05.000Z"');
});

test('refuses what it cannot encode faithfully', () => {
  assert.throws(() => canonicalize(Number.NaN), /NaN/);
  assert.throws(() => canonicalize(Infinity), /Infinity/);
  assert.throws(() => canonicalize(10n), /bigint/);
  assert.throws(() => canonicalize({ a: () => 1 }), /function/);
  assert.throws(() => canonicalize('\ud800'), /surrogate/);
  assert.throws(() => canonicalize({ '\udc00': 1 }), /surrogate/);
});

test('canonicalBytes is UTF-8 of the canonical text; isCanonical recognises it', () => {
  const bytes = canonicalBytes({ é: '€' });
  assert.equal([...bytes], [...Buffer.from('{"é":"€"}', 'utf8')]);
  assert.ok(isCanonical('{"a":1,"b":[true]}'));
  assert.not.ok(isCanonical('{"b":1,"a":1}'));
  assert.not.ok(isCanonical('{"a": 1}'));
  assert.not.ok(isCanonical('not json'));
});

test.run();
