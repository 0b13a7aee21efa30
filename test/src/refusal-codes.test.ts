// The list of refusal codes (src/refusal-codes.ts) against the engine's sources, both ways: every
// code the engine can put in a refusal's advice or a tier's rejection is listed, and every listed
// code is one the engine uses. The CLI's words for each listed advice code: test/cli/refusal-text.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REFUSAL_CODES, TIER_REJECTION_CODES } from '../../src/refusal-codes.ts';

const ENGINE = fileURLToPath(new URL('../../src/corrections/', import.meta.url));

/** Every .ts file under the engine's folder (it is being split into sub-folders). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Codes written where an advice or a rejection is made: refuse('x', …), refuse(c ? 'x' : 'y', …), code: 'x'. */
function engineCodes(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [
    /\brefuse\(\s*'([a-z0-9_]+)'/g,
    /\brefuse\(\s*[^,'()]*\?\s*'([a-z0-9_]+)'\s*:\s*'([a-z0-9_]+)'/g,
    /\bcode:\s*'([a-z0-9_]+)'/g,
  ];
  for (const file of sources(ENGINE)) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns)
      for (const m of text.matchAll(pattern))
        for (const code of m.slice(1)) if (code) found.set(code, file.slice(ENGINE.length));
  }
  return found;
}

test('every code the engine writes into a refusal or a rejection is listed', () => {
  const found = engineCodes();
  // The reading itself works: the engine refuses in some thirty ways.
  assert.ok(found.size >= 30, `only ${found.size} codes read: ${[...found.keys()].join(', ')}`);
  const listed = new Set<string>([...REFUSAL_CODES, ...TIER_REJECTION_CODES]);
  const missing = [...found].filter(([code]) => !listed.has(code)).map(([c, f]) => `${c} (${f})`);
  assert.equal(missing, [], 'add them to src/refusal-codes.ts and give each words in cli/refusal-text.ts');
});

test('every listed code is one the engine uses', () => {
  const text = sources(ENGINE)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const unused = [...REFUSAL_CODES, ...TIER_REJECTION_CODES].filter((code) => !text.includes(`'${code}'`));
  assert.equal(unused, []);
});

test('the advice codes are listed once', () => {
  assert.is(new Set(REFUSAL_CODES).size, REFUSAL_CODES.length);
});

test.run();
