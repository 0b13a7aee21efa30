// The error table against the specification (Part 7), the generated docs and the OpenAPI document:
// every code of the spec with its status, documented, and listed by the routes that answer it.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorDocs } from '../../scripts/error-docs.ts';
import { ROUTES, type RouteId } from '../../src/api-routes.ts';
import { DocfixError, ERROR_CODES, ERRORS } from '../../src/errors.ts';
import { buildOpenApi } from '../../src/openapi.ts';

const spec = readFileSync(new URL('../../../shared/spec/service-spec.md', import.meta.url), 'utf8');
const part7 = spec.slice(spec.indexOf('## 7. Errors'), spec.indexOf('## 8. Limits'));
const specCodes = new Map(
  [...part7.matchAll(/^\| ([a-z_]+) \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])] as const),
);

test('the spec lists the codes we expect to parse', () => {
  assert.ok(specCodes.size >= 45, `parsed ${specCodes.size} codes from the spec`);
});

test('every code of the spec is in the table with the spec’s status, and nothing else is', () => {
  for (const [code, status] of specCodes) {
    assert.ok(code in ERRORS, `missing ${code}`);
    assert.is(ERRORS[code as keyof typeof ERRORS].status, status, `status of ${code}`);
  }
  assert.equal([...ERROR_CODES].sort(), [...specCodes.keys()].sort());
});

test('docs/errors.md is the table as generated', () => {
  const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  assert.is(docs, errorDocs(), 'run `node scripts/error-docs.ts`');
  for (const code of ERROR_CODES) assert.ok(docs.includes(`\`${code}\``));
});

test('every route lists only known codes, and the OpenAPI document carries them by status', () => {
  const ids = Object.keys(ROUTES) as RouteId[];
  const doc = buildOpenApi(ids, 'test') as {
    paths: Record<string, Record<string, { responses: Record<string, { 'x-error-codes'?: string[] }> }>>;
  };
  for (const id of ids) {
    const route = ROUTES[id];
    const responses = doc.paths[route.path][route.method.toLowerCase()].responses;
    for (const code of route.errors) {
      const listed = responses[String(ERRORS[code].status)]?.['x-error-codes'] ?? [];
      assert.ok(listed.includes(code), `${id} documents ${code}`);
    }
  }
});

test('DocfixError survives its JSON form (worker and HTTP boundaries)', () => {
  const error = new DocfixError('edit_refused', 'no glyph', { advice: { code: 'glyph_missing' } });
  const copy = DocfixError.fromJSON(JSON.parse(JSON.stringify(error.toJSON())));
  assert.is(copy.code, 'edit_refused');
  assert.is(copy.message, 'no glyph');
  assert.equal(copy.extra, { advice: { code: 'glyph_missing' } });
  assert.is(copy.status, 422);
  assert.is(DocfixError.fromJSON({ error: 'no_such_code' }).code, 'internal_error');
});

test.run();
