// Engine memory bounds: each answer carries the worker's footprint, a worker that holds more than the
// recycle mark after a task is replaced by a fresh one (its WASM heaps go with it) and the pool keeps
// answering; a worker below the mark is kept warm.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineSlots } from '../../daemon/engine-slots.ts';
import { engineFootprint } from '../../src/engine-memory.ts';
import { CORPUS_DIR } from './harness.ts';

const preview = (pool: EngineSlots) =>
  pool.run('documents.preview', {
    path: `${CORPUS_DIR}latex-4-pages.pdf`,
    password: '',
    page_index: 0,
    thumb: false,
  });

test('the footprint of a thread counts its heap and its external memory', () => {
  const before = engineFootprint();
  const held = new Uint8Array(64 * 1024 * 1024).fill(1);
  const after = engineFootprint();
  assert.ok(before.heap_mb > 0);
  assert.ok(after.external_mb >= before.external_mb + 40, `${before.external_mb} → ${after.external_mb}`);
  assert.is(held[0], 1);
});

test('a worker over the recycle mark is replaced after its answer; the next task is served', async () => {
  const lines: string[] = [];
  const pool = new EngineSlots({ slots: 1, recycleMb: 1, log: (m) => lines.push(m) });
  try {
    const first = await preview(pool);
    assert.ok(first.png.byteLength > 1000, 'the first answer arrives whole');
    assert.is(pool.recycled, 1);
    assert.match(lines.join('\n'), /engine worker recycled after documents.preview: \d+ MiB held/);
    const second = await preview(pool);
    assert.equal(Buffer.from(second.png), Buffer.from(first.png), 'the fresh worker answers the same');
    assert.is(pool.recycled, 2);
  } finally {
    await pool.close();
  }
});

test('a worker under the mark is kept (no recycling in normal use)', async () => {
  const pool = new EngineSlots({ slots: 1, recycleMb: 100_000, log: () => {} });
  try {
    await preview(pool);
    await preview(pool);
    assert.is(pool.recycled, 0);
  } finally {
    await pool.close();
  }
});

test.run();
