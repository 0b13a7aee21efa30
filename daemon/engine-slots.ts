// Engine slots: a fixed pool of worker threads that run engine tasks (src/engine-tasks.ts), each
// kept warm (MuPDF loaded once), in two lanes:
// - the engine lane (propose, apply, OCR, upload, classify, a revision's first search, certificates):
//   `slots` workers and a bounded queue, taken in turn per tenant (the tenant served longest ago goes
//   first, so one tenant's sixteen proposals do not starve another's one). When every slot is taken
//   and the queue is full the caller gets `busy` (503, Retry-After) before anything was done; a
//   tenant holding fewer places than the one holding most takes that one's newest place instead
//   (that request is answered busy, having done nothing).
// - the light lane (page renders for preview and crop, searches through a built text index): its own
//   small pool (`lightSlots`, started at first use), so a render never waits behind proposals; it may
//   borrow an idle engine slot when no engine work waits.
// A watchdog stops a task that runs too long by terminating its worker and starting a fresh one.
// Memory is bounded per worker: a small young generation; a garbage collection after a task when
// external memory is high (dead renders); and a worker whose footprint after a task (V8 heap plus
// external memory: the WASM heaps of MuPDF and PDFium, which never shrink, and kept renders) passes
// `recycleMb` is replaced by a fresh one once the task is answered.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DocfixError, type ErrorCode } from '../src/errors.ts';
import type { EngineTaskInput, EngineTaskName, EngineTaskOutput } from '../src/engine-tasks.ts';
import type { MachineFontSettings } from '../src/fonts/machine-fonts.ts';
import { currentTenant } from './job-context.ts';

/** What a worker thread is started with (engine-worker.ts reads it). */
export interface EngineWorkerData {
  collectAboveMb: number;
  nice: number;
  fonts: MachineFontSettings | undefined;
}

export interface EngineSlotsOptions {
  slots?: number;
  /** Engine tasks that may wait for a slot before callers are told `busy`. */
  queue?: number;
  /** Workers of the light lane (renders, indexed searches); started at the first light task. */
  lightSlots?: number;
  /** Light tasks that may wait (they are short; past this the light lane answers `busy` too). */
  lightQueue?: number;
  timeoutMs?: number;
  /** V8 old-generation cap per worker (MiB). */
  maxHeapMb?: number;
  /** V8 young-generation size per worker (MiB): short-lived objects (text walks) stay in a small space. */
  maxYoungMb?: number;
  /** A worker whose footprint (V8 heap + external memory, MiB) passes this after a task is replaced. */
  recycleMb?: number;
  /** A worker collects garbage after a task when its ArrayBuffers (MiB) pass this. */
  collectAboveMb?: number;
  /**
   * Scheduling priority (nice, 0–19) of the engine lane's threads: on a machine with fewer cores than
   * busy threads, the event loop (light requests) and the light slot run first. Linux only.
   */
  engineNice?: number;
  /** The machine fonts tier 4 may draw with (the daemon's config); unset: the environment's. */
  fonts?: MachineFontSettings;
  log?: (message: string) => void;
  /** The worker's module (tests give a deliberately slow one). */
  workerUrl?: URL;
}

export type Lane = 'engine' | 'light';

export interface RunOptions {
  timeoutMs?: number;
  /** Error code answered when the watchdog stops the task (default edit_failed). */
  timeoutCode?: ErrorCode;
  timeoutMessage?: string;
  /**
   * Work that shares this key (a revision's blob) goes to the slot that last ran it when that slot
   * is free: the proposal and its apply then meet in one worker, where the proposal's verified bytes
   * and renders are kept. Never waits for that slot: any free slot serves otherwise.
   */
  affinity?: string;
  /** 'light': a short read (one page's render, an indexed search), never queued behind engine work. */
  lane?: Lane;
  /** Whose work this is, for the turns of the queue (default: the request's tenant, job-context.ts). */
  tenant?: string;
}

interface Job {
  id: number;
  name: string;
  input: unknown;
  options: RunOptions;
  tenant: string;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  /** Affinity keys of the last tasks this slot ran (newest first, a few). */
  recent: string[];
  lane: Lane;
}

interface Footprint {
  heap_mb: number;
  external_mb: number;
}

type WorkerReply = { id: number; footprint?: Footprint } & (
  { ok: true; output: unknown } | { ok: false; error: Record<string, unknown>; internal?: string }
);

const WORKER_URL = new URL('./engine-worker.ts', import.meta.url);

export function defaultSlotCount(): number {
  return Math.max(1, Math.min(availableParallelism(), 8));
}

function busyError(what: string): DocfixError {
  return new DocfixError('busy', `${what}; try again shortly.`, { retry_after: 2 });
}

/** Engine tasks waiting, one queue per tenant, taken in turns (the tenant served longest ago first). */
class TenantQueues {
  private queues = new Map<string, Job[]>();
  /** When each tenant last had a task started (a counter, not a clock). */
  private lastServed = new Map<string, number>();
  private turn = 0;
  size = 0;

  push(job: Job): void {
    const queue = this.queues.get(job.tenant);
    if (queue) queue.push(job);
    else this.queues.set(job.tenant, [job]);
    this.size++;
  }

  /** The next task: the first waiting one of the tenant whose last start is oldest. */
  shift(): Job | undefined {
    let chosen: string | null = null;
    let oldest = Number.POSITIVE_INFINITY;
    for (const tenant of this.queues.keys()) {
      const served = this.lastServed.get(tenant) ?? -1;
      if (served < oldest) {
        oldest = served;
        chosen = tenant;
      }
    }
    if (chosen === null) return undefined;
    const queue = this.queues.get(chosen)!;
    const job = queue.shift()!;
    if (queue.length === 0) this.queues.delete(chosen);
    this.size--;
    return job;
  }

  /** A task of `tenant` starts now (queued or not): its tenant's turn comes last again. */
  served(tenant: string): void {
    this.lastServed.delete(tenant);
    this.lastServed.set(tenant, ++this.turn);
    // Tenants with nothing waiting and long served are forgotten (their next task is first anyway).
    if (this.lastServed.size > 1024) {
      for (const [t] of this.lastServed) {
        if (this.lastServed.size <= 512) break;
        if (!this.queues.has(t)) this.lastServed.delete(t);
      }
    }
  }

  /**
   * A full queue makes room for `tenant` when another tenant holds more places than it: that
   * tenant's newest task leaves the queue (answered busy by the caller). Null when nobody holds more.
   */
  displaceFor(tenant: string): Job | null {
    const mine = this.queues.get(tenant)?.length ?? 0;
    let largest: string | null = null;
    let most = mine;
    for (const [t, queue] of this.queues) {
      if (queue.length > most) {
        most = queue.length;
        largest = t;
      }
    }
    if (largest === null || most <= mine + 1) return null;
    const queue = this.queues.get(largest)!;
    const job = queue.pop()!;
    if (queue.length === 0) this.queues.delete(largest);
    this.size--;
    return job;
  }

  drain(): Job[] {
    const jobs = [...this.queues.values()].flat();
    this.queues.clear();
    this.size = 0;
    return jobs;
  }
}

export class EngineSlots {
  readonly size: number;
  private queueLimit: number;
  private lightSize: number;
  private lightQueueLimit: number;
  private timeoutMs: number;
  private maxHeapMb: number;
  private maxYoungMb: number;
  private recycleMb: number;
  private collectAboveMb: number;
  private engineNice: number;
  private fonts: MachineFontSettings | undefined;
  /** Workers replaced because of their footprint (for the log and tests). */
  recycled = 0;
  private log: (message: string) => void;
  private workerUrl: URL;
  private slots: Slot[] = [];
  private lightSlots: Slot[] = [];
  private waiting = new TenantQueues();
  private lightWaiting: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(options: EngineSlotsOptions = {}) {
    this.size = options.slots ?? defaultSlotCount();
    this.queueLimit = options.queue ?? this.size * 2;
    this.lightSize = Math.max(1, options.lightSlots ?? 1);
    this.lightQueueLimit = options.lightQueue ?? 64;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxHeapMb = options.maxHeapMb ?? 1536;
    this.maxYoungMb = options.maxYoungMb ?? 16;
    this.recycleMb = options.recycleMb ?? 448;
    this.collectAboveMb = options.collectAboveMb ?? 160;
    this.engineNice = options.engineNice ?? 10;
    this.fonts = options.fonts;
    this.workerUrl = options.workerUrl ?? WORKER_URL;
    this.log = options.log ?? ((message) => process.stderr.write(`${message}\n`));
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn('engine'));
  }

  /** Tasks running plus waiting, both lanes. */
  get load(): number {
    const running = [...this.slots, ...this.lightSlots].filter((s) => s.job).length;
    return running + this.waiting.size + this.lightWaiting.length;
  }

  run<N extends EngineTaskName>(
    name: N,
    input: EngineTaskInput<N>,
    options: RunOptions = {},
  ): Promise<EngineTaskOutput<N>> {
    if (this.closed)
      return Promise.reject(new DocfixError('busy', 'The daemon is shutting down.', { retry_after: 5 }));
    return new Promise((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        name,
        input,
        options,
        tenant: options.tenant ?? currentTenant() ?? '',
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      if (options.lane === 'light') this.admitLight(job);
      else this.admit(job);
    });
  }

  /** An engine task: a free engine slot (its affinity's first), else a place in the queue, else busy. */
  private admit(job: Job): void {
    const key = job.options.affinity;
    const free =
      (key !== undefined ? this.slots.find((s) => !s.job && s.recent.includes(key)) : undefined) ??
      this.slots.find((s) => !s.job);
    if (free) return this.start(free, job);
    if (this.waiting.size >= this.queueLimit) {
      const displaced = this.waiting.displaceFor(job.tenant);
      if (!displaced) return job.reject(busyError(`Every engine slot (${this.size}) is busy`));
      displaced.reject(busyError(`Every engine slot (${this.size}) is busy and other accounts wait`));
    }
    this.waiting.push(job);
  }

  /** A light task: a free light slot, else an idle engine slot no engine task waits for, else the light queue. */
  private admitLight(job: Job): void {
    if (this.lightSlots.length < this.lightSize && this.lightSlots.every((s) => s.job)) {
      this.lightSlots.push(this.spawn('light'));
    }
    const free =
      this.lightSlots.find((s) => !s.job) ??
      (this.waiting.size === 0 ? this.slots.find((s) => !s.job) : undefined);
    if (free) return this.start(free, job);
    if (this.lightWaiting.length >= this.lightQueueLimit)
      return job.reject(busyError(`Every render slot (${this.lightSize}) is busy`));
    this.lightWaiting.push(job);
  }

  /** Lets running tasks finish (up to `graceMs`), refuses queued ones, then stops the workers. */
  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    for (const job of [...this.waiting.drain(), ...this.lightWaiting.splice(0)]) {
      job.reject(new DocfixError('busy', 'The daemon is shutting down.', { retry_after: 5 }));
    }
    const all = () => [...this.slots, ...this.lightSlots];
    const deadline = Date.now() + graceMs;
    while (all().some((s) => s.job) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }
    // A worker still loading its WASM may never answer terminate(); it is unref'd, so it cannot keep
    // the process alive, and close() must not wait on it for ever (a stopping daemon hung on one).
    await Promise.all(all().map((s) => settleWithin(s.worker.terminate(), TERMINATE_WAIT_MS)));
  }

  private spawn(lane: Lane): Slot {
    const slot = { job: null, timer: null, recent: [], lane } as unknown as Slot;
    this.attach(slot);
    return slot;
  }
  /** Gives the slot a fresh worker; events of a replaced worker are ignored. */
  private attach(slot: Slot): void {
    const worker = new Worker(this.workerUrl, {
      workerData: {
        collectAboveMb: this.collectAboveMb,
        nice: slot.lane === 'engine' ? this.engineNice : 0,
        fonts: this.fonts,
      } satisfies EngineWorkerData,
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb, maxYoungGenerationSizeMb: this.maxYoungMb },
    });
    worker.on('message', (reply: WorkerReply) => {
      if (slot.worker === worker) this.finish(slot, reply);
    });
    worker.on('error', (error) => {
      if (slot.worker === worker) this.fail(slot, error);
    });
    worker.on('exit', (code) => {
      if (slot.worker === worker && slot.job)
        this.fail(slot, new Error(`engine worker exited with code ${code}`));
    });
    worker.unref();
    slot.worker = worker;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    if (job.options.lane !== 'light') this.waiting.served(job.tenant);
    const key = job.options.affinity;
    if (key !== undefined) {
      for (const other of this.slots) other.recent = other.recent.filter((k) => k !== key);
      slot.recent = [key, ...slot.recent].slice(0, 4);
    }
    const timeout = job.options.timeoutMs ?? this.timeoutMs;
    slot.timer = setTimeout(() => this.expire(slot), timeout);
    slot.worker.postMessage({ id: job.id, name: job.name, input: job.input });
  }

  private finish(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    this.release(slot);
    const held = reply.footprint ? reply.footprint.heap_mb + reply.footprint.external_mb : 0;
    if (held > this.recycleMb && !this.closed) {
      // Answered first; the next task waits for the fresh worker to load (a few hundred ms).
      this.recycled++;
      this.log(
        `engine worker recycled after ${job.name}: ${held} MiB held (heap ${reply.footprint!.heap_mb}, external ${reply.footprint!.external_mb}) > ${this.recycleMb}`,
      );
      this.replace(slot);
    }
    if (reply.ok) job.resolve(reply.output);
    else {
      if (reply.internal) this.log(`engine task ${job.name} failed: ${reply.internal}`);
      job.reject(DocfixError.fromJSON(reply.error));
    }
    this.next(slot);
  }

  /** The worker died (crash, out of memory): answer the task, replace the worker. */
  private fail(slot: Slot, error: unknown): void {
    const job = slot.job;
    this.release(slot);
    this.replace(slot);
    if (job) {
      this.log(
        `engine worker lost during ${job.name}: ${error instanceof Error ? error.message : String(error)}`,
      );
      job.reject(
        new DocfixError(
          job.options.timeoutCode ?? 'internal_error',
          job.options.timeoutMessage ?? 'The engine failed on this file.',
        ),
      );
    }
    this.next(slot);
  }

  private expire(slot: Slot): void {
    const job = slot.job;
    if (!job) return;
    this.release(slot);
    this.replace(slot);
    const seconds = Math.round((job.options.timeoutMs ?? this.timeoutMs) / 1000);
    this.log(`engine watchdog stopped ${job.name} after ${seconds}s`);
    job.reject(
      new DocfixError(
        job.options.timeoutCode ?? 'edit_failed',
        job.options.timeoutMessage ??
          `The engine stopped working on this after ${seconds} seconds; nothing changed.`,
      ),
    );
    this.next(slot);
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
  }

  private replace(slot: Slot): void {
    const old = slot.worker;
    // A closing pool starts no fresh worker: close() could not stop one attached after it looked.
    if (!this.closed) this.attach(slot);
    void old.terminate();
  }

  /** A slot is free: engine slots take engine work first, then light work; light slots light work. */
  private next(slot: Slot): void {
    if (this.closed || slot.job) return;
    const job =
      slot.lane === 'engine'
        ? (this.waiting.shift() ?? this.lightWaiting.shift())
        : this.lightWaiting.shift();
    if (job) this.start(slot, job);
  }
}

/** How long close() waits for one worker to stop. */
const TERMINATE_WAIT_MS = 2_000;

/** Resolves when `promise` settles or after `ms`, whichever is first (never rejects). */
function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    promise.then(
      () => (clearTimeout(timer), resolve()),
      () => (clearTimeout(timer), resolve()),
    );
  });
}
