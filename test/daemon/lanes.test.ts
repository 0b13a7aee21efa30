// The daemon's lanes (docs/daemon.md, "Lanes"): while every engine slot and the engine queue hold
// proposals, light requests — the record, usage, the audit list, a preview or crop, a search of an
// indexed revision — are answered 200, and a further engine request is answered 503 busy with
// Retry-After. The proposals are held by a gate of the engine worker (no clock): ordering only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineSlots } from '../../daemon/engine-slots.ts';
import { openGate } from './fixtures/gates.ts';
import { CORPUS_DIR, makeHarness, type Harness } from './harness.ts';

const gatedWorker = new URL('./fixtures/gated-engine-worker.ts', import.meta.url);
const PNG = [0x89, 0x50, 0x4e, 0x47];

let h: Harness;
let pool: EngineSlots;

test.before(async () => {
  pool = new EngineSlots({ slots: 1, queue: 1, lightSlots: 1, workerUrl: gatedWorker, log: () => {} });
  h = await makeHarness({ engine: pool });
});

test.after(async () => {
  await h.close();
  await pool.close();
});

/** Waits (without a clock of its own) until the pool holds `tasks` running or queued. */
async function poolHolds(tasks: number): Promise<void> {
  for (let i = 0; i < 10_000 && pool.load < tasks; i += 1) await new Promise((r) => setImmediate(r));
  assert.is(pool.load, tasks, 'the proposals hold the engine slot and the queue');
}

test('light requests are answered while proposals fill every engine slot and the queue; engine work is busy', async () => {
  const uploaded = await h.upload(`${CORPUS_DIR}libreoffice-writer.pdf`);
  assert.is(uploaded.status, 201);
  const id = uploaded.body.document_id as string;
  const doc = `/v1/documents/${id}`;
  // The first preview and search (light work, answers then kept) before the slots fill.
  assert.is((await h.inject({ method: 'GET', url: `${doc}/pages/0/preview.png` })).statusCode, 200);
  assert.is((await h.json('GET', `${doc}/search?q=nonumy`)).status, 200);
  const attestation = await h.json('POST', '/v1/attestations', { document_id: id });
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find: 'nonumy' },
    replacement: 'nonmuy',
    attestation_id: attestation.body.attestation_id,
  };

  let proposalsAnswered = 0;
  const proposals = [1, 2].map(() =>
    h.json('POST', `${doc}/edits:propose`, request).then((r) => {
      proposalsAnswered += 1;
      return r;
    }),
  );
  await poolHolds(2);

  const hitsBefore = h.app.docfix.reads.hits;
  const preview = await h.inject({ method: 'GET', url: `${doc}/pages/0/preview.png` });
  assert.is(preview.statusCode, 200);
  assert.equal([...preview.rawPayload.subarray(0, 4)], PNG);
  assert.is(h.app.docfix.reads.hits, hitsBefore + 1, 'the preview came from the read cache');
  const again = await h.json('GET', `${doc}/search?q=nonumy`);
  assert.is(again.status, 200);
  assert.is(again.body.matches.length, 2);
  // A new query and a new crop: the light slot reads the page, the engine slot still held.
  const other = await h.json('GET', `${doc}/search?q=Lorem`);
  assert.is(other.status, 200);
  assert.ok(other.body.matches.length >= 3, 'Lorem found through the text index');
  const crop = await h.inject({ method: 'GET', url: `${doc}/pages/0/crop.png?x=100&y=100&w=400&h=200` });
  assert.is(crop.statusCode, 200);
  assert.equal([...crop.rawPayload.subarray(0, 4)], PNG);
  assert.is((await h.json('GET', doc)).status, 200);
  assert.is((await h.json('GET', '/v1/usage')).status, 200);
  const audit = await h.json('GET', `/v1/audit?subject_id=${id}`);
  assert.is(audit.status, 200);
  assert.ok(audit.body.some((e: { action: string }) => e.action === 'document.upload'));
  assert.is((await h.json('GET', '/healthz')).status, 200);
  assert.is(proposalsAnswered, 0, 'every light request was answered while the proposals waited');

  const busy = await h.json('POST', `${doc}/edits:propose`, request);
  assert.is(busy.status, 503);
  assert.is(busy.body.error, 'busy');
  assert.ok(Number(busy.headers['retry-after']) > 0, 'Retry-After says when to try again');

  openGate('proposeEdit');
  for (const answered of await Promise.all(proposals)) {
    assert.is(answered.status, 200);
    assert.ok(answered.body.tier >= 0, 'the held proposals were then made');
  }
});

test.run();
