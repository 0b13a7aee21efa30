// Durable jobs on PostgreSQL: a job is a row written when its request arrives (status, the request
// needed to run it again, and a lease: `locked_by`, `lease_until`). The instance running it renews
// the lease every third of its length; if that instance dies, the lease runs out and another
// instance claims the row with `SELECT … FOR UPDATE SKIP LOCKED` (no two instances claim one job,
// none waits on another's claim), raises its `attempt` and finishes it.
//
// Our own queue rather than pg-boss or graphile-worker: the work is not deferred — the instance
// that accepts a request runs it at once and answers it — so the queue only has to notice an
// instance that died and hand its jobs on. That is one table and two statements, and it lets a
// change and its job's fence share one transaction (pg-document-store.ts), which an external
// queue's own connection could not.
//
// Never twice: a change made for a job commits only while that attempt is the job's current one
// (the fence), and its audit entry names the job. A new attempt first looks for such an entry:
// found, the work was done before the instance died and the job is finished from that record;
// not found, nothing was committed and the request runs again. An upload (its bytes were on the
// dead instance's disk) cannot run again: its job fails, and nothing of it was acknowledged.
import { hostname } from 'node:os';
import { ROUTES, type RouteId } from '../../src/api-routes.ts';
import type { JobOut } from '../../src/schemas.ts';
import { faultPause, runInJob } from '../job-context.ts';
import { jobErrorCode, jobSummary, type JobInput, type JobRerun } from '../job-board.ts';
import { randomId } from './ids.ts';
import type { Database } from './pg-database.ts';
import { JobLeaseLost } from './pg-document-store.ts';
import type { JobStorage } from './storage-interfaces.ts';

const KEEP_MS = 60 * 60 * 1000;

interface Claimed {
  job_id: string;
  tenant_id: string;
  kind: RouteId;
  attempt: number;
  input: JobInput | null;
}

export class PgJobQueue implements JobStorage {
  private db: Database;
  readonly instance = `${hostname()}:${process.pid}:${randomId('i', 4)}`;
  private leaseMs: number;
  private pollMs: number;
  /** Jobs this instance runs, with the attempt it holds. */
  private mine = new Map<string, number>();
  private timers: NodeJS.Timeout[] = [];
  private working: Promise<void> | null = null;
  private stopped = false;
  private lastPrune = 0;

  constructor(db: Database, options: { leaseMs?: number; pollMs?: number } = {}) {
    this.db = db;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 1_000;
  }

  async begin(tenantId: string, kind: RouteId, input: JobInput | null = null): Promise<JobOut> {
    const job: JobOut = {
      job_id: randomId('job'),
      kind,
      status: 'running',
      progress: 0,
      stage: 'engine',
      result: {},
      last_error: null,
    };
    await this.db.query(
      `INSERT INTO jobs (job_id, tenant_id, kind, status, attempt, locked_by, lease_until, input, job)
       VALUES ($1, $2, $3, 'running', 1, $4, now() + $5 * interval '1 millisecond', $6, $7)`,
      [
        job.job_id,
        tenantId,
        kind,
        this.instance,
        this.leaseMs,
        input ? JSON.stringify(input) : null,
        JSON.stringify(job),
      ],
    );
    this.mine.set(job.job_id, 1);
    return job;
  }

  async succeed(job: JobOut, httpStatus: number, body: unknown): Promise<void> {
    await faultPause('end');
    await this.end(job.job_id, this.mine.get(job.job_id) ?? 1, {
      ...job,
      status: 'succeeded',
      progress: 1,
      stage: null,
      result: jobSummary(httpStatus, body),
      last_error: null,
    });
  }

  async fail(job: JobOut, error: unknown): Promise<void> {
    const attempt = this.mine.get(job.job_id) ?? 1;
    // Taken over: the job is another instance's now; leave its row alone.
    if (error instanceof JobLeaseLost) {
      this.mine.delete(job.job_id);
      return;
    }
    await this.end(job.job_id, attempt, {
      ...job,
      status: 'failed',
      progress: 1,
      stage: null,
      result: {},
      last_error: jobErrorCode(error),
    });
  }

  async get(tenantId: string, jobId: string): Promise<JobOut | null> {
    const rows = await this.db.query<{ job: JobOut }>(
      'SELECT job FROM jobs WHERE job_id = $1 AND tenant_id = $2',
      [jobId, tenantId],
    );
    return rows[0]?.job ?? null;
  }

  /** Renews this instance's leases and takes over jobs whose instance stopped renewing them. */
  startWorker(rerun: JobRerun): void {
    const heartbeat = setInterval(() => void this.renew().catch(() => {}), Math.max(50, this.leaseMs / 3));
    const poll = setInterval(() => {
      if (this.working || this.stopped) return;
      this.working = this.takeOver(rerun)
        .catch(() => {})
        .finally(() => (this.working = null));
    }, this.pollMs);
    heartbeat.unref();
    poll.unref();
    this.timers.push(heartbeat, poll);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.working;
  }

  private async renew(): Promise<void> {
    if (this.mine.size === 0) return;
    await this.db.query(
      `UPDATE jobs SET lease_until = now() + $3 * interval '1 millisecond'
       WHERE job_id = ANY($1) AND locked_by = $2 AND status = 'running'`,
      [[...this.mine.keys()], this.instance, this.leaseMs],
    );
  }

  private async end(jobId: string, attempt: number, job: JobOut): Promise<void> {
    this.mine.delete(jobId);
    await this.db.query(
      `UPDATE jobs SET status = $3, job = $4, locked_by = NULL, lease_until = NULL, finished_at = now()
       WHERE job_id = $1 AND attempt = $2 AND status = 'running'`,
      [jobId, attempt, job.status, JSON.stringify(job)],
    );
  }

  /** Claims at most one job whose lease ran out and finishes it. */
  private async takeOver(rerun: JobRerun): Promise<void> {
    await this.prune();
    const rows = await this.db.query<Claimed & { job: JobOut }>(
      `UPDATE jobs SET attempt = attempt + 1, locked_by = $1,
              lease_until = now() + $2 * interval '1 millisecond'
       WHERE job_id = (SELECT job_id FROM jobs WHERE status = 'running' AND lease_until < now()
                       ORDER BY lease_until FOR UPDATE SKIP LOCKED LIMIT 1)
       RETURNING job_id, tenant_id, kind, attempt, input, job`,
      [this.instance, this.leaseMs],
    );
    const claimed = rows[0];
    if (!claimed) return;
    this.mine.set(claimed.job_id, claimed.attempt);
    const job: JobOut = { ...claimed.job, stage: 'engine' };
    // Done before its instance died? Its change committed with an audit entry naming the job.
    const done = await this.db.query<{ line: string }>(
      'SELECT line FROM audit_entries WHERE job_id = $1 ORDER BY seq LIMIT 1',
      [claimed.job_id],
    );
    if (done[0]) {
      const entry = JSON.parse(done[0].line) as { subject_id: string; payload: Record<string, unknown> };
      const route = ROUTES[claimed.kind];
      await this.succeed(job, route.status, {
        document_id: entry.subject_id,
        ...entry.payload,
      });
      return;
    }
    if (!claimed.input) {
      await this.fail(job, new Error('the instance that received this upload stopped before it was stored'));
      return;
    }
    const input = claimed.input;
    const context = { job_id: claimed.job_id, attempt: claimed.attempt };
    try {
      const result = await runInJob(context, () =>
        rerun(
          {
            job_id: claimed.job_id,
            tenant_id: claimed.tenant_id,
            kind: claimed.kind,
            attempt: claimed.attempt,
          },
          input,
        ),
      );
      await this.succeed(job, result.status, result.body);
    } catch (error) {
      await this.fail(job, error);
    }
  }

  private async prune(now = Date.now()): Promise<void> {
    if (now - this.lastPrune < 60_000) return;
    this.lastPrune = now;
    await this.db.query(
      "DELETE FROM jobs WHERE status <> 'running' AND finished_at < now() - $1 * interval '1 millisecond'",
      [KEEP_MS],
    );
  }
}
