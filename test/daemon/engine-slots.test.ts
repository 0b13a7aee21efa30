// Engine slots: tasks run in worker threads, a full pool answers busy before doing anything, the
// watchdog stops a task that hangs and the slot keeps serving, errors cross the boundary by code.
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineSlots } from '../../daemon/engine-slots.ts';
import { DocfixError } from '../../src/errors.ts';
import { openGate } from './fixtures/gates.ts';
const CORPUS_DIR = new URL('../../fixtures/corpus/pdf/', import.meta.url).pathname;

const slowWorker = new URL('./fixtures/slow-worker.ts', import.meta.url);
// The registry's types do not know the stand-in tasks.
const run = (pool: EngineSlots, name: string, input: unknown, options = {}) =>
  (pool.run as (n: string, i: unknown, o: object) => Promise<unknown>)(name, input, options);

const unexpected = (): DocfixError => {
  throw new Error('expected the task to fail');
};

test('a full pool answers busy with Retry-After, having queued nothing', async () => {
  const pool = new EngineSlots({ slots: 1, queue: 1, workerUrl: slowWorker, log: () => {} });
  try {
    const first = run(pool, 'sleep', { ms: 300 });
    const second = run(pool, 'sleep', { ms: 10 });
    const error = await run(pool, 'echo', {}).then(unexpected, (e: DocfixError) => e);
    assert.instance(error, DocfixError);
    assert.is(error.code, 'busy');
    assert.type(error.extra.retry_after, 'number');
    await Promise.all([first, second]);
    assert.equal(await run(pool, 'echo', { a: 1 }), { name: 'echo', input: { a: 1 } });
  } finally {
    await pool.close();
  }
});

test('a task with an affinity key goes to the free slot that last ran that key, and never waits for it', async () => {
  const pool = new EngineSlots({ slots: 2, workerUrl: slowWorker, log: () => {} });
  try {
    // Two tasks at once take both slots: rev-a's and rev-b's.
    await Promise.all([
      run(pool, 'sleep', { ms: 100 }, { affinity: 'rev-a' }),
      run(pool, 'sleep', { ms: 100 }, { affinity: 'rev-b' }),
    ]);
    const a = await run(pool, 'whoami', {}, { affinity: 'rev-a' });
    const b = await run(pool, 'whoami', {}, { affinity: 'rev-b' });
    assert.is.not(a, b);
    // Both slots idle: each key finds its own slot again, whatever order they come in.
    for (let i = 0; i < 4; i += 1) {
      assert.is(await run(pool, 'whoami', {}, { affinity: 'rev-b' }), b);
      assert.is(await run(pool, 'whoami', {}, { affinity: 'rev-a' }), a);
    }
    // Its slot busy, the key is served by the other one at once (before the busy task ends).
    let busyDone = false;
    const busy = run(pool, 'sleep', { ms: 1000 }, { affinity: 'rev-a' }).then(() => {
      busyDone = true;
    });
    const elsewhere = await run(pool, 'whoami', {}, { affinity: 'rev-a' });
    assert.not.ok(busyDone, 'did not wait for the busy slot');
    assert.is(elsewhere, b);
    await busy;
  } finally {
    await pool.close();
  }
});

test('the watchdog stops a hanging task with the caller’s code and the slot serves again', async () => {
  const pool = new EngineSlots({ slots: 1, workerUrl: slowWorker, log: () => {} });
  try {
    const started = Date.now();
    const error = await run(pool, 'spin', {}, { timeoutMs: 300, timeoutCode: 'unreadable_pdf' }).then(
      unexpected,
      (e: DocfixError) => e,
    );
    assert.is(error.code, 'unreadable_pdf');
    assert.ok(Date.now() - started < 3000, 'stopped promptly');
    assert.equal(await run(pool, 'echo', { again: true }), { name: 'echo', input: { again: true } });
  } finally {
    await pool.close();
  }
});

test('a crashed worker answers the task and is replaced', async () => {
  const pool = new EngineSlots({ slots: 1, workerUrl: slowWorker, log: () => {} });
  try {
    const error = await run(pool, 'crash', {}, { timeoutCode: 'edit_failed' }).then(
      unexpected,
      (e: DocfixError) => e,
    );
    assert.is(error.code, 'edit_failed');
    assert.equal(await run(pool, 'echo', {}), { name: 'echo', input: {} });
  } finally {
    await pool.close();
  }
});

test('a DocfixError crosses the worker boundary by code and message', async () => {
  const pool = new EngineSlots({ slots: 1, workerUrl: slowWorker, log: () => {} });
  try {
    const error = await run(pool, 'fail', {}).then(unexpected, (e: DocfixError) => e);
    assert.instance(error, DocfixError);
    assert.is(error.code, 'unreadable_pdf');
    assert.is(error.message, 'broken on purpose');
  } finally {
    await pool.close();
  }
});

test('engine work queues in turns per tenant: one task of B goes before the second of A’s ten', async () => {
  const pool = new EngineSlots({ slots: 1, queue: 20, workerUrl: slowWorker, log: () => {} });
  try {
    const started: string[] = [];
    const note = (label: string) => () => started.push(label);
    // One slot: the order in which tasks answer is the order in which they started.
    const all = [run(pool, 'gate', { gate: 'fair' }, { tenant: 'A' }).then(note('A0'))];
    for (let i = 1; i <= 10; i += 1) all.push(run(pool, 'echo', {}, { tenant: 'A' }).then(note(`A${i}`)));
    all.push(run(pool, 'echo', {}, { tenant: 'B' }).then(note('B1')));
    openGate('fair');
    await Promise.all(all);
    assert.equal(started.slice(0, 3), ['A0', 'B1', 'A1']);
    assert.equal(started.slice(3), ['A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'A9', 'A10']);
  } finally {
    await pool.close();
  }
});

test('a full queue held by one tenant makes room for another: the holder’s newest task is answered busy', async () => {
  const pool = new EngineSlots({ slots: 1, queue: 2, workerUrl: slowWorker, log: () => {} });
  try {
    const running = run(pool, 'gate', { gate: 'room' }, { tenant: 'A' });
    const a1 = run(pool, 'echo', { n: 1 }, { tenant: 'A' });
    const a2 = run(pool, 'echo', { n: 2 }, { tenant: 'A' }).then(unexpected, (e: DocfixError) => e);
    const b1 = run(pool, 'echo', { n: 'b' }, { tenant: 'B' });
    const displaced = await a2;
    assert.is(displaced.code, 'busy');
    assert.type(displaced.extra.retry_after, 'number');
    // B holds one place and A one: a further task of either is busy.
    const more = await run(pool, 'echo', {}, { tenant: 'B' }).then(unexpected, (e: DocfixError) => e);
    assert.is(more.code, 'busy');
    openGate('room');
    await running;
    assert.equal(await b1, { name: 'echo', input: { n: 'b' } });
    assert.equal(await a1, { name: 'echo', input: { n: 1 } });
  } finally {
    await pool.close();
  }
});

test('light work is served by its own slot while every engine slot and the queue are full', async () => {
  const pool = new EngineSlots({ slots: 1, queue: 1, workerUrl: slowWorker, log: () => {} });
  try {
    let engineAnswered = false;
    const engine = [run(pool, 'gate', { gate: 'lanes' }), run(pool, 'gate', { gate: 'lanes' })].map((p) =>
      p.then(() => (engineAnswered = true)),
    );
    const busy = await run(pool, 'echo', {}).then(unexpected, (e: DocfixError) => e);
    assert.is(busy.code, 'busy');
    const engineThread = await Promise.race([
      run(pool, 'whoami', {}, { lane: 'light' }),
      Promise.all(engine).then(() => 'engine answered first'),
    ]);
    assert.type(engineThread, 'number');
    assert.not.ok(engineAnswered, 'the light task did not wait for the engine work');
    openGate('lanes');
    await Promise.all(engine);
  } finally {
    await pool.close();
  }
});

test('light work borrows an idle engine slot when its own is taken, never one engine work waits for', async () => {
  const pool = new EngineSlots({ slots: 1, queue: 1, workerUrl: slowWorker, log: () => {} });
  try {
    // The light slot held: the next light task runs in the idle engine slot.
    const held = run(pool, 'gate', { gate: 'borrow' }, { lane: 'light' });
    const lightThread = await run(pool, 'whoami', {}, { lane: 'light' });
    const engineThread = await run(pool, 'whoami', {});
    assert.is(lightThread, engineThread);
    openGate('borrow');
    await held;
  } finally {
    await pool.close();
  }
});

test('engine-lane threads run at a lower priority than the event loop and the light slot (Linux)', async () => {
  const niceOf = () =>
    readdirSync('/proc/self/task').map((tid) => {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[16]); // field 19 of stat: nice
    });
  const before = niceOf().filter((n) => n === 7).length;
  const pool = new EngineSlots({ slots: 2, engineNice: 7, log: () => {} });
  try {
    // The real worker; a task in each lane makes sure every thread has started.
    const input = { path: `${CORPUS_DIR}latex-minimal.pdf`, password: '' };
    await Promise.all([
      pool.run('documents.inspect', input),
      pool.run('documents.inspect', input),
      pool.run('documents.inspect', input, { lane: 'light' }),
    ]);
    assert.is(niceOf().filter((n) => n === 7).length - before, 2, 'the two engine threads');
    assert.is(niceOf()[0], 0, 'the event loop keeps its priority');
  } finally {
    await pool.close();
  }
});

test.run();
