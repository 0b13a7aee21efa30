// Jobs: every request that runs engine work (upload, classify, search, propose, apply, OCR,
// preflight, certificate) is recorded as a job while it runs and for an hour after, so another
// client — a CLI in a second terminal, a CI dashboard — can follow it with GET /v1/jobs/{id}. The
// request answers as usual; its job id comes at once in a 103 Early Hints answer and again on the
// final answer, in the `X-Docfix-Job` header. Here jobs live in memory: they describe work in
// flight, not records to keep (those are in the audit log). On PostgreSQL (daemon/storage/
// pg-job-queue.ts) they are rows that outlive the instance that accepted them.
import type { RouteId } from '../src/api-routes.ts';
import { isErrorCode } from '../src/errors.ts';
import type { JobOut } from '../src/schemas.ts';
import { randomId } from './storage/ids.ts';

export const JOB_ROUTES: ReadonlySet<RouteId> = new Set<RouteId>([
  'uploadDocument',
  'classifyDocument',
  'searchDocument',
  'proposeEdit',
  'applyEdit',
  'ocrPage',
  'preflightPage',
  'issueCertificate',
]);

const KEEP_MS = 60 * 60 * 1000;
const KEEP_MAX = 2000;
const RESULT_FIELDS = [
  'document_id',
  'revision_id',
  'verification_id',
  'certificate_id',
  'proposal_id',
  'passed',
  'tier',
  'refusal',
];

/** What a job needs to run again elsewhere: the request as the route received it. */
export interface JobInput {
  key_id: string;
  params: unknown;
  query: unknown;
  body: unknown;
  /** Host header and protocol (the certificate names the key's URL from them). */
  host: string | null;
  protocol: string;
}

/** Runs a job's request again (another instance finishing a job whose instance died). */
export type JobRerun = (
  job: { job_id: string; tenant_id: string; kind: RouteId; attempt: number },
  input: JobInput,
) => Promise<{ status: number; body: unknown }>;

/** The job's answer summary: the HTTP status and the ids the client needs. */
export function jobSummary(httpStatus: number, body: unknown): Record<string, unknown> {
  const summary: Record<string, unknown> = { http_status: httpStatus };
  if (body && typeof body === 'object' && !ArrayBuffer.isView(body)) {
    for (const field of RESULT_FIELDS) {
      const value = (body as Record<string, unknown>)[field];
      if (value !== undefined && value !== null) summary[field] = value;
    }
  }
  return summary;
}

/** The error code a failed job reports. */
export function jobErrorCode(error: unknown): JobOut['last_error'] {
  const code = (error as { code?: unknown })?.code;
  return isErrorCode(code) ? code : 'internal_error';
}

interface JobEntry {
  tenantId: string;
  job: JobOut;
  finishedAt: number | null;
}

export class JobBoard {
  private jobs = new Map<string, JobEntry>();

  async begin(tenantId: string, kind: RouteId, _input: JobInput | null = null): Promise<JobOut> {
    this.prune();
    const job: JobOut = {
      job_id: randomId('job'),
      kind,
      status: 'running',
      progress: 0,
      stage: 'engine',
      result: {},
      last_error: null,
    };
    this.jobs.set(job.job_id, { tenantId, job, finishedAt: null });
    return job;
  }

  async succeed(job: JobOut, httpStatus: number, body: unknown): Promise<void> {
    this.end(job, { status: 'succeeded', result: jobSummary(httpStatus, body), last_error: null });
  }

  async fail(job: JobOut, error: unknown): Promise<void> {
    this.end(job, { status: 'failed', result: {}, last_error: jobErrorCode(error) });
  }

  /** The job if it belongs to this tenant (another tenant's id is not found). */
  async get(tenantId: string, jobId: string): Promise<JobOut | null> {
    const entry = this.jobs.get(jobId);
    return entry && entry.tenantId === tenantId ? entry.job : null;
  }

  /** Nothing to take over here: a job in memory ends with its process. */
  startWorker(_rerun: JobRerun): void {}

  async stop(): Promise<void> {}

  private end(job: JobOut, change: Pick<JobOut, 'status' | 'result' | 'last_error'>): void {
    const entry = this.jobs.get(job.job_id);
    if (!entry) return;
    Object.assign(entry.job, change, { progress: 1, stage: null });
    entry.finishedAt = Date.now();
  }

  private prune(now = Date.now()): void {
    for (const [id, entry] of this.jobs) {
      if (entry.finishedAt !== null && now - entry.finishedAt > KEEP_MS) this.jobs.delete(id);
    }
    // Oldest first (insertion order): drop finished ones beyond the cap.
    for (const [id, entry] of this.jobs) {
      if (this.jobs.size <= KEEP_MAX) break;
      if (entry.finishedAt !== null) this.jobs.delete(id);
    }
  }
}
