// What an engine thread holds in memory, measured between tasks: its V8 heap, and its external
// memory — the WASM heaps of MuPDF and PDFium (they grow to the largest task seen and never shrink)
// and pixel buffers (renders kept for the next proposal or apply). The daemon's engine slots read it
// after every task and give a worker that holds too much a fresh thread, which is how a WASM heap is
// given back.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mupdf } from './pdf/mupdf-adapter.ts';

export interface EngineFootprint {
  /** V8 heap of this thread (MiB), as reserved. */
  heap_mb: number;
  /** Memory outside the V8 heap owned by this thread (MiB): WASM heaps, ArrayBuffers. */
  external_mb: number;
}

export { DAEMON_MALLOC_ENV } from './daemon-environment.ts';

const MIB = 1024 * 1024;

/** This thread's footprint (cheap: no system call). Renders and PNGs are among the ArrayBuffers. */
export function engineFootprint(): EngineFootprint {
  const s = getHeapStatistics();
  return {
    heap_mb: Math.round(s.total_heap_size / MIB),
    external_mb: Math.round(s.external_memory / MIB),
  };
}

let collect: (() => void) | null = null;

/**
 * A full garbage collection of this thread, now. Renders are large ArrayBuffers whose JavaScript
 * handles are small: V8 sees little reason to collect them soon, so dead renders of earlier tasks
 * stay resident. Engine threads call this between tasks when their external memory is high.
 */
export function collectGarbage(): void {
  if (!collect) {
    // `gc` is exposed to contexts made after the flag is set; the flag is V8's, set once per process.
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * Empties MuPDF's resource store (decoded fonts and images kept for reuse): space inside its WASM
 * heap that the next task can use, before the heap has to grow.
 */
export function emptyResourceStore(): void {
  mupdf.emptyStore();
}
