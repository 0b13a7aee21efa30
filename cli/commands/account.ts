// The account and the service: plans, usage, jobs, audit, health, openapi.
import { Option, type Command } from 'commander';
import { DocfixError, EXIT } from '../../src/errors.ts';
import type { UsageOut } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  dispatch,
  failure,
  getClient,
  globalOptions,
  info,
  intArg,
  print,
  printJson,
  success,
  table,
  UsageError,
  type GlobalOptions,
} from '../context.ts';

export interface PlainOptions {
  globals: GlobalOptions;
}
export interface JobOptions extends PlainOptions {
  job: string;
  wait: boolean;
}
export interface AuditOptions extends PlainOptions {
  verify: boolean;
  limit: number;
  subject?: string;
}

const unlimited = (n: number | null | undefined) =>
  n === null || n === undefined || n < 0 ? 'unlimited' : String(n);

export function register(program: Command): void {
  program
    .command('plans')
    .description('List the plans, their limits and capabilities (public)')
    .addHelpText('after', '\nExamples:\n  $ docfix plans\n  $ docfix plans --json')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('plans', { globals: globalOptions(cmd) } satisfies PlainOptions, runPlans);
    });

  program
    .command('usage')
    .description("Show today's usage and the plan's limits")
    .addHelpText('after', '\nExamples:\n  $ docfix usage')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('usage', { globals: globalOptions(cmd) } satisfies PlainOptions, runUsage);
    });

  program
    .command('jobs')
    .alias('job')
    .description('Show a queued job')
    .argument('<job>', 'job id')
    .option('--wait', 'wait until the job finishes')
    .addHelpText('after', '\nExamples:\n  $ docfix jobs job_123 --wait')
    .action(async (job: string, o: { wait?: boolean }, cmd: Command) => {
      await dispatch(
        'jobs',
        { globals: globalOptions(cmd), job, wait: Boolean(o.wait) } satisfies JobOptions,
        runJob,
      );
    });

  program
    .command('audit')
    .description("List the account's audit record, newest first; --verify recomputes the hash chain")
    .option('--verify', 'recompute the hash chain and say where it breaks (exit 6 if it does)')
    .addOption(
      new Option('-L, --limit <n>', 'how many entries (at most 500)')
        .default(100)
        .argParser(intArg('--limit', 1)),
    )
    .option('--subject <id>', 'only entries about this document, certificate, …')
    .addHelpText(
      'after',
      '\nExamples:\n  $ docfix audit --limit 20\n  $ docfix audit --subject 3f2a…\n  $ docfix audit --verify',
    )
    .action(async (o: { verify?: boolean; limit: number; subject?: string }, cmd: Command) => {
      if (o.limit > 500) throw new UsageError('--limit is at most 500');
      const options: AuditOptions = {
        globals: globalOptions(cmd),
        verify: Boolean(o.verify),
        limit: o.limit,
        ...(o.subject ? { subject: o.subject } : {}),
      };
      await dispatch('audit', options, runAudit);
    });

  program
    .command('health')
    .description('Check that the daemon answers (GET /healthz)')
    .addHelpText('after', '\nExamples:\n  $ docfix health --json')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('health', { globals: globalOptions(cmd) } satisfies PlainOptions, runHealth);
    });

  program
    .command('openapi')
    .description('Print the OpenAPI 3.1 document the daemon serves')
    .addHelpText('after', '\nExamples:\n  $ docfix openapi > openapi.json')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('openapi', { globals: globalOptions(cmd) } satisfies PlainOptions, runOpenapi);
    });
}

export async function runPlans(o: PlainOptions): Promise<void> {
  const client = await getClient(o.globals);
  const plans = await client.call('plans');
  if (o.globals.json) return printJson(plans);
  // Whose plans: an account on the local plan (a daemon on one's own machine) pays nothing and meets
  // no hosted limit, so the hosted price list would only mislead; it stays in --json (GET /v1/plans).
  const usage = await client.call('usage').catch((error: unknown) => {
    if (error instanceof DocfixError) return null; // no key, or a key the daemon does not know
    throw error;
  });
  if (usage?.plan === 'local') return printLocalPlan(usage);
  table(
    plans.plans.map((p) => [
      p.id,
      p.name,
      p.price_label,
      `${p.upload_mb} MB`,
      String(p.pages),
      unlimited(p.corrections_per_day),
      p.downloads,
    ]),
    ['ID', 'NAME', 'PRICE', 'UPLOAD', 'PAGES', 'CORRECTIONS/DAY', 'DOWNLOADS'],
  );
  info(c.dim(`prices in ${plans.currency}${plans.prices_include_vat ? ', VAT included' : ''}`));
  if (usage?.plan) info(`This account is on the ${usage.plan} plan.`);
}

function printLocalPlan(u: UsageOut): void {
  const limits = [
    u.page_limit !== undefined && u.page_limit >= 0 ? `${u.page_limit} pages a document` : null,
    u.upload_limit_mb !== undefined && u.upload_limit_mb >= 0 ? `files up to ${u.upload_limit_mb} MB` : null,
    u.limit >= 0 ? `${u.limit} corrections a day` : null,
  ].filter((l): l is string => l !== null);
  print(
    limits.length
      ? `This account is on the local plan of its own daemon, with the limits its configuration sets: ${limits.join(', ')}.`
      : 'This account is on the local plan of its own daemon: no limits on pages, file size or corrections a day.',
  );
  print('Every capability is included (downloads, certificates, audit export); nothing is charged.');
  info(
    c.dim(
      "Limits of the local plan come from the daemon's environment (DOCFIX_LOCAL_PAGES, DOCFIX_LOCAL_UPLOAD_MB, " +
        'DOCFIX_LOCAL_CORRECTIONS_PER_DAY, DOCFIX_LOCAL_RATE_PER_MINUTE). The plans a hosted deployment offers: docfix plans --json.',
    ),
  );
}

export async function runUsage(o: PlainOptions): Promise<void> {
  const client = await getClient(o.globals);
  const u = await client.call('usage');
  if (o.globals.json) return printJson(u);
  const facts: [string, string][] = [
    ['plan', u.plan ?? '-'],
    [
      'corrections today',
      u.limit < 0 ? `${u.used} (unlimited)` : `${u.used} of ${u.limit}, ${u.remaining} left`,
    ],
    ['resets on', u.resets_on],
    ['upload limit', (u.upload_limit_mb ?? 5) < 0 ? 'unlimited' : `${u.upload_limit_mb ?? 5} MB`],
    ['page limit', unlimited(u.page_limit ?? 100)],
    ['retention', `${u.retention_days ?? 90} days`],
  ];
  for (const [k, v] of facts) print(`${c.dim(`${k}:`.padEnd(20))}${v}`);
  for (const n of u.notices ?? []) info(`${c.yellow('!')} ${n.text}`);
}

const FINISHED = new Set([
  'done',
  'succeeded',
  'success',
  'completed',
  'failed',
  'error',
  'cancelled',
  'canceled',
]);

export async function runJob(o: JobOptions): Promise<void> {
  const client = await getClient(o.globals);
  let job = await client.call('getJob', { params: { job_id: o.job } });
  while (o.wait && !FINISHED.has(job.status)) {
    await new Promise((r) => setTimeout(r, 500));
    job = await client.call('getJob', { params: { job_id: o.job }, retry: true });
  }
  if (o.globals.json) return printJson(job);
  print(
    `${job.job_id}  ${job.kind}  ${job.status}  ${Math.round(job.progress * 100)}%${job.stage ? `  ${job.stage}` : ''}`,
  );
  if (job.last_error) failure(job.last_error);
}

export async function runAudit(o: AuditOptions): Promise<void> {
  const client = await getClient(o.globals);
  if (o.verify) {
    const chain = await client.call('verifyAuditChain');
    if (o.globals.json) printJson(chain);
    else if (chain.intact)
      success(`Audit chain intact: ${chain.entries} entries, head ${chain.head_hash ?? '-'}`);
    else failure(`Audit chain broken at entry ${chain.first_broken_seq}: ${chain.reason ?? ''}`);
    if (!chain.intact) throw new CliExit(EXIT.verification);
    return;
  }
  const entries = await client.call('listAudit', {
    query: { limit: o.limit, ...(o.subject ? { subject_id: o.subject } : {}) },
  });
  if (o.globals.json) return printJson(entries);
  if (entries.length === 0) return info('No audit entries.');
  table(
    entries.map((e) => [
      String(e.seq),
      e.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      e.action,
      e.subject_id,
      e.actor_kind,
    ]),
    ['SEQ', 'TIME', 'ACTION', 'SUBJECT', 'ACTOR'],
  );
}

export async function runHealth(o: PlainOptions): Promise<void> {
  const client = await getClient(o.globals);
  const h = await client.call('health');
  if (o.globals.json) return printJson(h);
  success(
    `${client.baseUrl} answers: docfix ${h.version}, ${h.engine_slots} engine slot(s), up ${Math.round(h.uptime_s)} s`,
  );
}

export async function runOpenapi(o: PlainOptions): Promise<void> {
  const client = await getClient(o.globals);
  printJson(await client.call('openapi'));
}
