// Every route of the API has a command: each route id of src/api-routes.ts is called somewhere in
// cli/ (the typed client takes the id as a string literal).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROUTE_IDS } from '../../src/api-routes.ts';
import { ROOT } from './helpers.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('every route id is called by the CLI', () => {
  const code = sources(join(ROOT, 'cli'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const missing = ROUTE_IDS.filter((id) => !new RegExp(`\\.(call|download|text)\\(\\s*'${id}'`).test(code));
  assert.equal(missing, [], `routes without a command: ${missing.join(', ')}`);
});

test.run();
