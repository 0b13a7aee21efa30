// PDFium renders on a thread of their own, so that the correction engine's second renderer draws
// the page while MuPDF draws it on the engine's thread (proof/second-renderer.ts): on two cores the
// witness costs the engine's thread nothing but the wait for what is left of it. One thread per
// engine thread, started on first use and kept (PDFium's WASM is loaded there once, about 40 ms);
// it keeps the process alive only while a render is under way. Renders are the same as `renderPageWithPdfium`
// in-thread (test/src/verify/pdfium-thread.test.ts compares them byte for byte); errors come back as
// the same DocfixError (its code, message and details), and a thread that dies fails what it had
// in hand and is replaced on the next call.
import { Worker } from 'node:worker_threads';
import { DocfixError } from '../errors.ts';
import type { RgbImage } from './pdfium-render.ts';

/** A render asked of the thread. */
export interface ThreadRenderRequest {
  id: number;
  bytes: Uint8Array;
  password: string;
  pageIndex: number;
  dpi: number;
  rows?: [number, number];
}

/** The thread's answer: the render (its pixels' buffer transferred), or the error in plain form. */
export type ThreadRenderReply =
  { id: number; image: RgbImage } | { id: number; error: Record<string, unknown> | null; message: string };

const WORKER_URL = new URL('./pdfium-thread-worker.ts', import.meta.url);

interface Pending {
  resolve: (image: RgbImage) => void;
  reject: (error: Error) => void;
}

/** The thread and the renders it has in hand. */
interface PdfiumThread {
  worker: Worker;
  pending: Map<number, Pending>;
}

let current: PdfiumThread | null = null;
/** Renders asked of the thread so far (tests count the work a correction does, never its time). */
export const pdfiumThreadWork = { renders: 0 };
let nextId = 1;

function thread(): PdfiumThread {
  if (current) return current;
  const t: PdfiumThread = { worker: new Worker(WORKER_URL), pending: new Map() };
  const failAll = (error: Error) => {
    if (current === t) current = null;
    for (const [id, p] of t.pending) {
      settled(t, id);
      p.reject(error);
    }
  };
  t.worker.on('message', (reply: ThreadRenderReply) => {
    const p = t.pending.get(reply.id);
    if (!p) return;
    settled(t, reply.id);
    if ('image' in reply) p.resolve(reply.image);
    else p.reject(DocfixError.fromJSON(reply.error, reply.message));
  });
  t.worker.on('error', failAll);
  t.worker.on('exit', (code) => failAll(new Error(`the PDFium thread exited with code ${code}`)));
  t.worker.unref();
  current = t;
  return t;
}

function settled(t: PdfiumThread, id: number): void {
  t.pending.delete(id);
  // Held while a render is under way (a caller awaits it), let go when none is.
  if (t.pending.size === 0) t.worker.unref();
}

/**
 * Renders a page with PDFium on its own thread (the arguments of `renderPageWithPdfium`). The bytes
 * are copied to the thread (only the view's own bytes); the caller may keep using them. `handOver`:
 * bytes made for this render alone, in a buffer of their own, are moved to the thread, not copied
 * (they are then empty here).
 */
export function renderPageOnPdfiumThread(
  bytes: Uint8Array,
  password: string,
  pageIndex: number,
  dpi: number,
  rows?: [number, number],
  handOver = false,
): Promise<RgbImage> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pdfiumThreadWork.renders += 1;
    const t = thread();
    if (t.pending.size === 0) t.worker.ref();
    t.pending.set(id, { resolve, reject });
    // A copy of just these bytes in a buffer of its own, handed over whole: cloning the view would
    // copy all of the buffer under it (a view of a bigger one). Not `slice()`: a Buffer's is a view
    // of the same memory, and handing that over would take the caller's bytes away.
    const buffer = bytes.buffer;
    const whole =
      buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
    const own = handOver && whole ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
    const request: ThreadRenderRequest = { id, bytes: own, password, pageIndex, dpi, ...(rows && { rows }) };
    try {
      t.worker.postMessage(request, [own.buffer]);
    } catch (error) {
      settled(t, id);
      reject(error as Error);
    }
  });
}

/** Stops the thread (tests; a process that ends needs nothing: the thread is unref'd). */
export async function stopPdfiumThread(): Promise<void> {
  const t = current;
  current = null;
  if (t) await t.worker.terminate();
}
