// The body of one engine slot: runs engine tasks by name and answers with plain data. Errors cross
// back as DocfixError JSON; anything unexpected becomes internal_error (details go to the log only).
// Every answer carries the thread's memory footprint, so the slots can recycle a worker that holds
// too much (engine-slots.ts).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { collectGarbage, emptyResourceStore, engineFootprint } from '../src/engine-memory.ts';
import { ENGINE_TASKS, type EngineTaskName } from '../src/engine-tasks.ts';
import { DocfixError } from '../src/errors.ts';
import { useMachineFontSettings } from '../src/fonts/machine-fonts.ts';
import type { EngineWorkerData } from './engine-slots.ts';

interface Request {
  id: number;
  name: EngineTaskName;
  input: unknown;
}

function transferables(value: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const visit = (v: unknown, depth: number) => {
    if (v instanceof Uint8Array) {
      if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength)
        out.add(v.buffer);
    } else if (v && typeof v === 'object' && depth < 3) {
      for (const item of Object.values(v)) visit(item, depth + 1);
    }
  };
  visit(value, 0);
  return [...out];
}

const port = parentPort;
if (!port) throw new Error('engine-worker runs only as a worker thread');
/** ArrayBuffer memory (MiB) past which the thread collects garbage once a task is answered. */
const started = workerData as Partial<EngineWorkerData> | null;
const collectAboveMb = started?.collectAboveMb ?? 160;
// The daemon's font settings, not the environment's (they differ with `serve --font-dir`).
if (started?.fonts) useMachineFontSettings(started.fonts);

/**
 * An engine-lane thread runs at a lower priority (engine-slots.ts `engineNice`): on Linux a thread has
 * its own id (/proc/thread-self names it) and setpriority on that id changes this thread alone.
 * Elsewhere, or when refused, the thread keeps the process's priority.
 */
function lowerPriority(nice: number): void {
  if (nice <= 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or not allowed: the same priority as the event loop
  }
}
lowerPriority(started?.nice ?? 0);

/**
 * After the answer is posted (off the request's path): when the thread's buffers pass the mark (the
 * renders kept for the next proposal take about 100 MiB), dead renders are collected and MuPDF's
 * resource store emptied before the next task, so neither the allocator nor the WASM heap has to grow.
 */
function settle(): void {
  if (process.memoryUsage().arrayBuffers / 1048576 > collectAboveMb) {
    emptyResourceStore();
    collectGarbage();
  }
}

port.on('message', async ({ id, name, input }: Request) => {
  try {
    const task = ENGINE_TASKS[name] as ((input: unknown) => unknown) | undefined;
    if (!task) throw new Error(`unknown engine task ${name}`);
    const output = await task(input);
    port.postMessage({ id, ok: true, output, footprint: engineFootprint() }, transferables(output));
    settle();
  } catch (error) {
    if (error instanceof DocfixError) {
      port.postMessage({ id, ok: false, error: error.toJSON(), footprint: engineFootprint() });
      settle();
    } else {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      port.postMessage({
        id,
        ok: false,
        error: { error: 'internal_error', message: 'The engine failed.' },
        internal: detail,
        footprint: engineFootprint(),
      });
      settle();
    }
  }
});
