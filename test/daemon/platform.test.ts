// The daemon platform through inject(): health, plans, usage, OpenAPI, keys and auth, suspension,
// rate limits, malformed requests and the audit chain.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROUTES } from '../../src/api-routes.ts';
import { DataLayout } from '../../daemon/storage/data-layout.ts';
import { makeHarness } from './harness.ts';

test('healthz answers without a key', async () => {
  const h = await makeHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/healthz' });
    assert.is(res.statusCode, 200);
    const body = res.json();
    assert.is(body.ok, true);
    assert.is(body.engine_slots, 2);
  } finally {
    await h.close();
  }
});

test('plans are public and carry the spec’s limits', async () => {
  const h = await makeHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/v1/plans' });
    assert.is(res.statusCode, 200);
    const { plans, capabilities } = res.json();
    const byId = Object.fromEntries(plans.map((p: any) => [p.id, p]));
    assert.equal(
      plans.map((p: any) => [p.id, p.upload_mb, p.pages]),
      [
        ['free', 5, 50],
        ['one_document', 5, 50],
        ['ten_documents', 5, 50],
        ['personal', 10, 100],
        ['business', 30, 300],
      ],
    );
    assert.is(byId.free.corrections_per_day, 10);
    assert.is(byId.business.corrections_per_day, null);
    assert.is(byId.one_document.unlimited_corrections_days, 30);
    assert.ok(capabilities.includes('certificates'));
    assert.is(byId.business.capabilities.certificates, true);
    assert.is(byId.free.capabilities.certificates, false);
  } finally {
    await h.close();
  }
});

test('usage reports the tenant’s plan and today’s real count', async () => {
  const h = await makeHarness({ plan: 'free' });
  try {
    let res = await h.json('GET', '/v1/usage');
    assert.is(res.status, 200);
    assert.is(res.body.limit, 10);
    assert.is(res.body.used, 0);
    assert.is(res.body.remaining, 10);
    assert.is(res.body.plan, 'free');
    assert.is(res.body.upload_limit_mb, 5);
    assert.is(res.body.page_limit, 50);
    assert.match(res.body.resets_on, /^\d{4}-\d{2}-\d{2}$/);
    await h.app.docfix.usage.countCorrection(h.account.tenantId);
    await h.app.docfix.usage.countCorrection(h.account.tenantId);
    res = await h.json('GET', '/v1/usage');
    assert.is(res.body.used, 2);
    assert.is(res.body.remaining, 8);
    const business = await h.newAccount('biz', 'business');
    res = await h.json('GET', '/v1/usage', undefined, business);
    assert.is(res.body.limit, -1);
    assert.is(res.body.used, 0, 'tenants do not share counts');
  } finally {
    await h.close();
  }
});

test('missing, garbage, wrong and revoked keys are all 401 invalid_api_key at the top level', async () => {
  const h = await makeHarness();
  try {
    const tries: (Record<string, string> | undefined)[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer \u0000\u0001garbage' },
      { authorization: `Bearer ${h.account.keyId}.wrongsecret` },
      { authorization: 'Bearer key_doesnotexist.secret' },
      { authorization: `Bearer ../../etc/passwd.x` },
    ];
    for (const headers of tries) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/usage', headers });
      assert.is(res.statusCode, 401, JSON.stringify(headers));
      assert.is(res.json().error, 'invalid_api_key');
      assert.not.match(res.body, /revoked|unknown|wrong/i);
    }
    assert.is((await h.json('GET', '/v1/usage')).status, 200);
    await h.app.docfix.tenants.revokeKey(h.account.keyId);
    const res = await h.json('GET', '/v1/usage');
    assert.is(res.status, 401);
    assert.is(res.body.error, 'invalid_api_key');
  } finally {
    await h.close();
  }
});

test('a key created after the app started is accepted at once; keys are stored hashed', async () => {
  const h = await makeHarness();
  try {
    const other = await h.newAccount('late');
    assert.is((await h.json('GET', '/v1/usage', undefined, other)).status, 200);
    const stored = await readFile(new DataLayout(h.dataDir).keyFile(other.keyId), 'utf8');
    assert.not.ok(stored.includes(other.apiKey.split('.')[1]), 'the secret is not stored in clear');
  } finally {
    await h.close();
  }
});

test('a suspended tenant may read but starts no new work (403 account_suspended)', async () => {
  const h = await makeHarness();
  try {
    await h.app.docfix.tenants.setTenant('test', { suspended: true });
    assert.is((await h.json('GET', '/v1/usage')).status, 200);
    const res = await h.json('POST', '/v1/attestations', { document_id: 'doc_x' });
    assert.is(res.status, 403);
    assert.is(res.body.error, 'account_suspended');
    await h.app.docfix.tenants.setTenant('test', { suspended: false });
    assert.is.not((await h.json('POST', '/v1/attestations', { document_id: 'doc_x' })).status, 403);
  } finally {
    await h.close();
  }
});

test('rate limits: headers on every answer, 429 with Retry-After past the burst', async () => {
  const h = await makeHarness({ config: { rateLimit: { perMinute: 120, burst: 5 } } });
  try {
    const seen: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await h.inject({ method: 'GET', url: '/v1/usage' });
      seen.push(last.statusCode);
      assert.is(last.headers['x-ratelimit-limit'], '120');
      assert.ok(last.headers['x-ratelimit-remaining'] !== undefined);
      assert.ok(last.headers['x-ratelimit-reset'] !== undefined);
    }
    assert.equal(seen, [200, 200, 200, 200, 200, 429, 429]);
    assert.is(last!.json().error, 'too_many_requests');
    assert.ok(Number(last!.headers['retry-after']) >= 1);
    const other = await h.newAccount('other');
    assert.is((await h.json('GET', '/v1/usage', undefined, other)).status, 200, 'limits are per key');
  } finally {
    await h.close();
  }
});

test('malformed requests get 422 invalid_request naming each field, and the daemon keeps serving', async () => {
  const h = await makeHarness();
  try {
    const cases: [string, string | undefined, string][] = [
      ['{"document_id": 5}', 'application/json', 'body.document_id'],
      ['{"document_id": "d", "extra": true}', 'application/json', 'body.extra'],
      ['{not json', 'application/json', 'body'],
      ['[]', 'application/json', 'body'],
      ['document_id=x', 'application/x-www-form-urlencoded', 'content-type'],
      [`{"document_id": "${'x'.repeat(2 * 1024 * 1024)}"}`, 'application/json', 'body'],
    ];
    for (const [payload, type, field] of cases) {
      const res = await h.inject({
        method: 'POST',
        url: '/v1/attestations',
        payload,
        headers: type ? { 'content-type': type } : {},
      });
      assert.is(res.statusCode, 422, payload.slice(0, 40));
      const body = res.json();
      assert.is(body.error, 'invalid_request');
      assert.ok(Array.isArray(body.detail), 'HTTPValidationError detail array');
      assert.ok(
        body.problems.some((p: any) => p.field === field),
        `${payload.slice(0, 30)} names ${field}: ${JSON.stringify(body.problems)}`,
      );
    }
    const audit = await h.json('GET', '/v1/audit?limit=0');
    assert.is(audit.status, 422);
    assert.ok(audit.body.problems.some((p: any) => p.field.startsWith('querystring.limit')));
    assert.is((await h.json('GET', '/v1/audit?limit=501')).status, 422);
    assert.is((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
    assert.equal((await h.json('GET', '/v1/audit')).body, [], 'nothing was written');
  } finally {
    await h.close();
  }
});

test('an answer that would name another tenant is stopped as tenant_isolation_violation', async () => {
  const h = await makeHarness();
  try {
    const leaky = await (
      await import('../../daemon/app.ts')
    ).build({
      config: { dataDir: h.dataDir, rateLimit: { perMinute: 1e6, burst: 1e6 } },
      engine: (await import('./harness.ts')).sharedEngine(),
      handlers: {
        listDocuments: async () => [
          {
            document_id: 'doc_x',
            tenant_id: 'tnt_someone_else',
            state: 'uploaded',
            page_count: 1,
            original_sha256: '0'.repeat(64),
            head_revision_id: null,
            filename_hint: 'secret.pdf',
            created_at: new Date().toISOString(),
          },
        ],
      },
    });
    try {
      const res = await leaky.inject({ method: 'GET', url: '/v1/documents', headers: h.account.headers });
      assert.is(res.statusCode, 500);
      assert.is(res.json().error, 'tenant_isolation_violation');
      assert.not.match(res.body, /secret\.pdf|tnt_someone_else/);
    } finally {
      await leaky.close();
    }
  } finally {
    await h.close();
  }
});

test('unknown routes answer a JSON not_found', async () => {
  const h = await makeHarness();
  try {
    const res = await h.json('GET', '/v1/nothing-here');
    assert.is(res.status, 404);
    assert.is(res.body.detail.error, 'not_found');
  } finally {
    await h.close();
  }
});

test('the OpenAPI document is valid 3.1 and lists exactly the routes served', async () => {
  const h = await makeHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/docs/api/openapi.json' });
    assert.is(res.statusCode, 200);
    const doc = res.json();
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.ok(result.valid, JSON.stringify(result.errors)?.slice(0, 2000));
    assert.is(doc.openapi, '3.1.0');
    const served = new Set(h.app.printRoutes({ commonPrefix: false }).split('\n').filter(Boolean));
    assert.ok(served.size > 0);
    for (const route of Object.values(ROUTES)) {
      const listed = doc.paths[route.path]?.[route.method.toLowerCase()];
      const probe = await h.inject({ method: route.method, url: route.path.replace(/\{[a-z_]+\}/g, '0') });
      const isServed = !(probe.statusCode === 404 && probe.body.includes('No route'));
      assert.is(
        Boolean(listed),
        isServed,
        `${route.method} ${route.path}: listed ${Boolean(listed)}, served ${isServed}`,
      );
    }
  } finally {
    await h.close();
  }
});

test('audit: entries chain, list newest first, filter by subject; tampering is named', async () => {
  const h = await makeHarness();
  try {
    const tenant = h.account.tenantId;
    for (let i = 1; i <= 4; i++) {
      await h.app.docfix.audit.append(tenant, {
        action: 'test.event',
        subject_type: 'document',
        subject_id: `doc_${i % 2}`,
        payload: { i },
      });
    }
    let res = await h.json('GET', '/v1/audit?limit=3');
    assert.equal(
      res.body.map((e: any) => e.seq),
      [4, 3, 2],
    );
    res = await h.json('GET', '/v1/audit?subject_id=doc_1');
    assert.equal(
      res.body.map((e: any) => e.payload.i),
      [3, 1],
    );
    res = await h.json('GET', '/v1/audit/verify-chain');
    assert.equal(res.body, {
      intact: true,
      entries: 4,
      head_hash: res.body.head_hash,
      first_broken_seq: null,
      reason: null,
    });
    assert.match(res.body.head_hash, /^[0-9a-f]{64}$/);

    const other = await h.newAccount('other');
    assert.equal(
      (await h.json('GET', '/v1/audit', undefined, other)).body,
      [],
      'tenants never see each other',
    );

    const file = new DataLayout(h.dataDir).auditFile(tenant);
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    const third = JSON.parse(lines[2]);
    third.payload.i = 99;
    lines[2] = JSON.stringify(third);
    await writeFile(file, `${lines.join('\n')}\n`);
    res = await h.json('GET', '/v1/audit/verify-chain');
    assert.is(res.body.intact, false);
    assert.is(res.body.first_broken_seq, 3);
    await appendFile(file, 'not json\n');
    assert.is((await h.json('GET', '/v1/audit/verify-chain')).body.first_broken_seq, 3);
  } finally {
    await h.close();
  }
});

test.run();
