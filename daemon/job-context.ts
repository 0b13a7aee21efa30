// The job a piece of work runs for, carried across awaits (AsyncLocalStorage) so storage can tie a
// change to its job without every route passing it along: on PostgreSQL a change made for a job is
// fenced by the job's attempt (an instance whose lease was taken over cannot commit) and its audit
// entry names the job, which is how a re-run after a crash finds the work already done.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobContext {
  job_id: string;
  /** Which claim of the job this is (1 for the instance that accepted it). */
  attempt: number;
}

const current = new AsyncLocalStorage<JobContext>();

export function runInJob<T>(job: JobContext, work: () => Promise<T>): Promise<T> {
  return current.run(job, work);
}

export function currentJob(): JobContext | null {
  return current.getStore() ?? null;
}

/**
 * The tenant a request works for, carried the same way, so the engine queue takes tenants in turns
 * (daemon/engine-slots.ts) without every route naming the caller to every engine call.
 */
const tenantOfRequest = new AsyncLocalStorage<string>();

export function runForTenant<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
  return tenantOfRequest.run(tenantId, work);
}

export function currentTenant(): string | null {
  return tenantOfRequest.getStore() ?? null;
}

/**
 * Fault injection for the kill -9 test of durable jobs (test/daemon/postgres.test.ts):
 * DOCFIX_FAULT_JOB_PAUSE=commit:MS pauses a job's change inside its transaction, before it commits;
 * end:MS pauses after the work, before the job's end is recorded. Unset everywhere else.
 */
const PAUSE = /^(commit|end):(\d+)$/.exec(process.env.DOCFIX_FAULT_JOB_PAUSE ?? '');

export async function faultPause(point: 'commit' | 'end'): Promise<void> {
  if (PAUSE?.[1] === point) await new Promise((resolve) => setTimeout(resolve, Number(PAUSE[2])));
}
