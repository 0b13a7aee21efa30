// The error table against the service specification's codes (Part 7, pinned below so the test
// needs nothing outside the repository), the generated docs and the OpenAPI document: every code of
// the spec with its status, documented, and listed by the routes that answer it.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorDocs } from '../../scripts/error-docs.ts';
import { ROUTES, type RouteId } from '../../src/api-routes.ts';
import { DocfixError, ERROR_CODES, ERRORS } from '../../src/errors.ts';
import { buildOpenApi } from '../../src/openapi.ts';

// Part 7 of the service specification (its error table), code and status, as written
// there. A code the specification drops or changes is changed here by hand, on purpose.
const SPEC_CODES = new Map<string, number>([
  ['invalid_api_key', 401],
  ['not_available_to_api_keys', 403],
  ['missing_capability', 403],
  ['account_suspended', 403],
  ['too_many_requests', 429],
  ['busy', 503],
  ['invalid_request', 422],
  ['internal_error', 500],
  ['tenant_isolation_violation', 500],
  ['not_found', 404],
  ['file_too_large', 413],
  ['too_many_pages', 422],
  ['page_too_large', 422],
  ['not_a_pdf', 422],
  ['unreadable_pdf', 422],
  ['no_pages', 422],
  ['password_protected', 422],
  ['password_incorrect', 422],
  ['password_required', 422],
  ['not_protected', 422],
  ['attestation_required', 409],
  ['page_out_of_range', 422],
  ['stale_or_invalid_confirmation', 409],
  ['edit_refused', 422],
  ['edit_failed', 500],
  ['daily_limit_reached', 429],
  ['nothing_to_undo', 409],
  ['nothing_to_redo', 409],
  ['no_revision', 404],
  ['no_manifest', 404],
  ['nothing_to_export', 409],
  ['not_verified', 409],
  ['verification_hash_mismatch', 409],
  ['verification_failed', 409],
  ['diff_outside_expected_region', 409],
  ['payment_required', 402],
  ['email_required', 402],
  ['business_plan_required', 402],
  ['crop_too_large', 422],
  ['image_too_large', 400],
  ['inspection_budget_spent', 429],
  ['nothing_to_certify', 409],
  ['correction_not_verified', 409],
  ['record_does_not_verify', 409],
  ['certificate_file_deleted', 410],
]);

test('every code of the spec is in the table with the spec’s status', () => {
  for (const [code, status] of SPEC_CODES) {
    assert.ok(code in ERRORS, `missing ${code}`);
    assert.is(ERRORS[code as keyof typeof ERRORS].status, status, `status of ${code}`);
  }
});

test('a code beyond the spec is documented in docs/errors.md and answered by some route', () => {
  const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const answered = new Set(Object.values(ROUTES).flatMap((route) => [...route.errors]));
  for (const code of ERROR_CODES) {
    if (SPEC_CODES.has(code)) continue;
    assert.ok(docs.includes(`| \`${code}\` | ${ERRORS[code].status} |`), `docs/errors.md lists ${code}`);
    assert.ok(answered.has(code), `a route answers ${code}`);
  }
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
