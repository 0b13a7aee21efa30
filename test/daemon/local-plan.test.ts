// The local plan in the daemon: no limit unless the configuration sets one (pages, size, corrections
// a day, requests a minute), each configured limit enforced with the spec's error; hosted plans keep
// theirs; GET /v1/plans publishes only the specification's plans.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveConfig } from '../../daemon/config.ts';
import { HOSTED_PLAN_IDS, NO_LOCAL_LIMITS, planLimits, rateLimitOf } from '../../src/plans.ts';
import { makeHarness } from './harness.ts';

const CORPUS = join(import.meta.dirname, '../../fixtures/corpus/pdf');
const fourPages = () => new Uint8Array(readFileSync(join(CORPUS, 'latex-4-pages.pdf')));

test('the configuration: no local limit by default; DOCFIX_LOCAL_* set them; nonsense is refused', () => {
  assert.equal(resolveConfig({ dataDir: '/tmp/x' }, {}).localPlan, NO_LOCAL_LIMITS);
  const set = resolveConfig(
    { dataDir: '/tmp/x' },
    {
      DOCFIX_LOCAL_PAGES: '2000',
      DOCFIX_LOCAL_UPLOAD_MB: '500',
      DOCFIX_LOCAL_CORRECTIONS_PER_DAY: '40',
      DOCFIX_LOCAL_RATE_PER_MINUTE: '600',
    },
  ).localPlan;
  assert.equal(set, {
    pages: 2000,
    upload_mb: 500,
    corrections_per_day: 40,
    rate: { perMinute: 600, burst: 150 },
  });
  assert.throws(() => resolveConfig({}, { DOCFIX_LOCAL_PAGES: '0' }), /at least 1/);
  assert.throws(() => resolveConfig({}, { DOCFIX_LOCAL_UPLOAD_MB: 'lots' }), /whole number/);
  assert.throws(
    () => resolveConfig({}, { DOCFIX_LOCAL_RATE_BURST: '5' }),
    /needs DOCFIX_LOCAL_RATE_PER_MINUTE/,
  );
});

test('plans: hosted plans keep the spec limits; the local plan has every capability and no limit', () => {
  assert.is(planLimits('business').pages, 300);
  assert.is(planLimits('free').upload_mb, 5);
  const local = planLimits('local');
  assert.equal([local.pages, local.upload_mb, local.corrections_per_day], [null, null, null]);
  assert.ok(Object.values(local.capabilities ?? {}).every(Boolean));
  assert.is(rateLimitOf('local', { perMinute: 120, burst: 30 }), null);
  assert.equal(rateLimitOf('free', { perMinute: 120, burst: 30 }), { perMinute: 120, burst: 30 });
});

test('GET /v1/plans lists the specification plans only, Business among them', async () => {
  const h = await makeHarness({ plan: 'local' });
  try {
    const r = await h.json('GET', '/v1/plans');
    assert.is(r.status, 200);
    const plans = r.body.plans as { id: string; name: string; pages: number }[];
    assert.equal(
      plans.map((p) => p.id),
      [...HOSTED_PLAN_IDS],
    );
    assert.is(plans.find((p) => p.name === 'Business')?.pages, 300);
  } finally {
    await h.close();
  }
});

test('local plan without configuration: no rate headers, usage says -1; a hosted key keeps its headers', async () => {
  // The harness's hosted allowance is huge; the headers are what is asserted.
  const h = await makeHarness({ plan: 'local', config: { localPlan: NO_LOCAL_LIMITS } });
  try {
    const usage = await h.json('GET', '/v1/usage');
    assert.is(usage.status, 200);
    assert.is(usage.body.plan, 'local');
    assert.equal([usage.body.limit, usage.body.page_limit, usage.body.upload_limit_mb], [-1, -1, -1]);
    assert.is(usage.headers['x-ratelimit-limit'], undefined);
    const business = await h.newAccount('hosted', 'business');
    const hosted = await h.json('GET', '/v1/usage', undefined, business);
    assert.is(hosted.body.page_limit, 300);
    assert.is(hosted.headers['x-ratelimit-limit'], '1000000');
  } finally {
    await h.close();
  }
});

test('configured local limits are enforced: too_many_pages, file_too_large, too_many_requests', async () => {
  const h = await makeHarness({
    plan: 'local',
    config: {
      localPlan: { pages: 3, upload_mb: 1, corrections_per_day: null, rate: { perMinute: 60, burst: 4 } },
    },
  });
  try {
    const pages = await h.upload(fourPages());
    assert.is(pages.status, 422);
    assert.is(pages.body.detail.error, 'too_many_pages');
    assert.match(pages.body.detail.message, /at most 3 pages/);
    const big = new Uint8Array(1024 * 1024 + 10);
    big.set(new TextEncoder().encode('%PDF-1.4\n'));
    const size = await h.upload(big);
    assert.is(size.status, 413);
    assert.is(size.body.detail.error, 'file_too_large');
    // The two uploads and two more requests use the burst of 4; the fifth request is over it.
    for (let i = 0; i < 2; i++) {
      const allowed = await h.json('GET', '/v1/usage');
      assert.is(allowed.status, 200);
      assert.is(allowed.headers['x-ratelimit-limit'], '60');
    }
    const fifth = await h.json('GET', '/v1/usage');
    assert.is(fifth.status, 429);
    // An error from the edge of the service: at the top level (spec Part 7).
    assert.is(fifth.body.error, 'too_many_requests');
  } finally {
    await h.close();
  }
});

test.run();
