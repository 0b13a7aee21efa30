// The local plan (issue 30, item 5): the account a local daemon makes on first start has no hosted
// plan's limits. A document longer than any hosted plan allows (305 pages, built with qpdf from the
// corpus) uploads through the CLI, and a correction on its last page verifies; a Business key on the
// same daemon still meets too_many_pages (exit 7). `docfix plans` does not present hosted prices as
// the local account's.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiClient } from '../../src/api-client.ts';
import { HOSTED_PLAN_IDS, planLimits } from '../../src/plans.ts';
import { CORPUS, ROOT, startDaemon, type TestDaemon } from './helpers.ts';

let daemon: TestDaemon;
let longPdf = '';
/** The CLI as the local account: the default key the daemon saved in the configuration. */
let asLocal: NodeJS.ProcessEnv = {};
let localKey = '';

const COPIES = 76; // × 4 pages of latex-4-pages.pdf, then the sample letter: 305 pages
const LAST_PAGE_INDEX = COPIES * 4;
const MOST_HOSTED_PAGES = Math.max(...HOSTED_PLAN_IDS.map((id) => planLimits(id).pages ?? 0));

test.before(async () => {
  daemon = await startDaemon();
  longPdf = join(daemon.dir, 'long-manual.pdf');
  const pages = Array.from({ length: COPIES }, () => [join(CORPUS, 'latex-4-pages.pdf'), '1-z']).flat();
  const made = spawnSync(
    'qpdf',
    ['--empty', '--pages', ...pages, join(ROOT, 'fixtures/sample/letter.pdf'), '1', '--', longPdf],
    { encoding: 'utf8' },
  );
  assert.is(made.status, 0, `qpdf: ${made.error ?? made.stderr}`);
  const config = JSON.parse(readFileSync(join(daemon.configDir, 'config.json'), 'utf8')) as {
    local: { url: string; api_key: string };
  };
  assert.is(config.local.url, daemon.url, 'the daemon saved its default key for the CLI');
  localKey = config.local.api_key;
  // No DOCFIX_URL/DOCFIX_API_KEY: the CLI finds the local daemon and its key in the configuration.
  asLocal = { DOCFIX_URL: '', DOCFIX_API_KEY: '', DOCFIX_NO_AUTOSTART: '1' };
});

test.after(async () => {
  await daemon?.stop();
});

test('the long document is over every hosted plan page limit', () => {
  const count = spawnSync('qpdf', ['--show-npages', longPdf], { encoding: 'utf8' });
  assert.is(Number(count.stdout.trim()), LAST_PAGE_INDEX + 1);
  assert.ok(LAST_PAGE_INDEX + 1 > MOST_HOSTED_PAGES, `${LAST_PAGE_INDEX + 1} > ${MOST_HOSTED_PAGES}`);
});

test('the default account is on the local plan: usage says no limits', async () => {
  const r = await daemon.cli(['usage', '--json'], { env: asLocal });
  assert.is(r.code, 0, r.stderr);
  const usage = JSON.parse(r.stdout) as {
    plan: string;
    limit: number;
    upload_limit_mb: number;
    page_limit: number;
  };
  assert.is(usage.plan, 'local');
  assert.is(usage.limit, -1, 'no daily correction limit');
  assert.is(usage.upload_limit_mb, -1, 'no size limit');
  assert.is(usage.page_limit, -1, 'no page limit');
  const human = await daemon.cli(['usage'], { env: asLocal });
  assert.match(human.stdout, /page limit:\s+unlimited/);
  assert.match(human.stdout, /upload limit:\s+unlimited/);
});

test('a Business key on the same daemon still meets too_many_pages (exit 7)', async () => {
  const r = await daemon.cli(['upload', longPdf, '--json']);
  assert.is(r.code, 7, r.stdout + r.stderr);
  assert.match(r.stderr, /too_many_pages/);
  assert.match(r.stderr, /at most 300 pages/);
});

test('the local account uploads it, and a correction on its last page verifies', async () => {
  const up = await daemon.cli(['upload', longPdf, '--json'], { env: asLocal });
  assert.is(up.code, 0, up.stderr);
  assert.not.match(up.stderr, /\r|█|\x1b\[/, 'no progress bar or spinner off a terminal');
  const doc = JSON.parse(up.stdout) as { document_id: string; page_count: number };
  assert.is(doc.page_count, LAST_PAGE_INDEX + 1);

  // Through the API (page indexes from 0, spec Part 2): the CLI's page flags are another brief's.
  const client = new ApiClient({ baseUrl: daemon.url, apiKey: localKey });
  const params = { document_id: doc.document_id };
  const { attestation_id } = await client.call('createAttestation', { body: params });
  const request = {
    page_index: LAST_PAGE_INDEX,
    target: { method: 'text_layer' as const, find: 'Jonh', match_index: 0 },
    replacement: 'John',
    attestation_id,
    font_attempt: 0,
  };
  const proposal = await client.call('proposeEdit', { params, body: request });
  assert.is(proposal.refusal ?? null, null, JSON.stringify(proposal.refusal));
  const verification = await client.call('applyEdit', {
    params,
    body: { request, apply: { proposal_id: proposal.proposal_id, confirm_token: proposal.confirm_token } },
  });
  assert.ok(verification.passed, JSON.stringify(verification));

  const out = join(daemon.dir, 'corrected.pdf');
  const exported = await daemon.cli(['export', doc.document_id, '-o', out], { env: asLocal });
  assert.is(exported.code, 0, exported.stderr);
  const page = String(LAST_PAGE_INDEX + 1);
  const text = spawnSync('pdftotext', ['-f', page, '-l', page, out, '-'], { encoding: 'utf8' });
  assert.is(text.status, 0, `pdftotext: ${text.error ?? text.stderr}`);
  assert.match(text.stdout, /Dear Mr John Smith/);
});

test('docfix plans on the local plan says so and shows no hosted prices; --json keeps /v1/plans', async () => {
  const r = await daemon.cli(['plans'], { env: asLocal });
  assert.is(r.code, 0, r.stderr);
  const all = r.stdout + r.stderr;
  assert.match(all, /local plan/i);
  assert.match(all, /no limits/i);
  assert.not.match(all, /€|EUR/);
  const json = await daemon.cli(['plans', '--json'], { env: asLocal });
  const plans = JSON.parse(json.stdout) as { currency: string; plans: { id: string; price_eur: number }[] };
  assert.equal(
    plans.plans.map((p) => p.id),
    [...HOSTED_PLAN_IDS],
    'the public document lists the specification plans',
  );
  // A Business account sees the hosted plans with their prices, its own marked.
  const business = await daemon.cli(['plans']);
  assert.is(business.code, 0, business.stderr);
  assert.match(business.stdout, /business\s+Business\s+€49 a month/);
});

test.run();
