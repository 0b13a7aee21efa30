// Platform routes: health, plans, usage and the audit record's list and chain check.
import {
  dailyCorrectionLimit,
  hasCapability,
  planLimits,
  plansDocument,
  CAPABILITIES,
} from '../../src/plans.ts';
import { DocfixError } from '../../src/errors.ts';
import type { Handlers } from '../services.ts';
import { nextUtcDay } from '../storage/usage-store.ts';

const started = Date.now();

export const platformHandlers: Handlers = {
  health: async ({ services }) => ({
    ok: true,
    version: services.config.version,
    engine_slots: services.engine.size,
    engine_load: services.engine.load,
    uptime_s: Math.round((Date.now() - started) / 1000),
  }),

  plans: async () => plansDocument(),

  usage: async ({ caller, services }) => {
    const { tenant } = caller;
    const facts = planLimits(tenant.plan, services.config.localPlan);
    const used = await services.usage.correctionsToday(tenant.tenant_id);
    const limit = dailyCorrectionLimit(
      tenant.plan,
      tenant.bought_plans.map((b) => b.at),
      new Date(),
      services.config.localPlan,
    );
    const unlimitedUntil = facts.unlimited_corrections_days
      ? (tenant.bought_plans
          .map((b) =>
            new Date(Date.parse(b.at) + facts.unlimited_corrections_days! * 86_400_000).toISOString(),
          )
          .sort()
          .at(-1) ?? null)
      : null;
    return {
      limit: limit ?? -1,
      used,
      remaining: limit === null ? -1 : Math.max(0, limit - used),
      resets_on: nextUtcDay(),
      checkout_open: false,
      subscribed: facts.recurring,
      plan: tenant.plan,
      entitlement: Object.fromEntries(CAPABILITIES.map((c) => [c, hasCapability(tenant.plan, c)])),
      // -1 when unlimited, as `limit` (the local plan unless its daemon's configuration sets one).
      upload_limit_mb: facts.upload_mb ?? -1,
      page_limit: facts.pages ?? -1,
      retention_days: 90,
      unlimited_until: unlimitedUntil,
      bought_plans: tenant.bought_plans.map((b) => b.plan),
      notices: tenant.suspended
        ? [
            {
              id: 'suspended',
              kind: 'warning',
              text: 'This account is suspended: no new work is accepted.',
              at: null,
            },
          ]
        : [],
      subscription: facts.recurring
        ? { plan: tenant.plan, state: tenant.suspended ? 'suspended' : 'active' }
        : null,
    };
  },

  listAudit: async ({ caller, services, query }) =>
    services.audit.list(caller.tenant.tenant_id, {
      subjectId: query.subject_id ?? null,
      limit: query.limit ?? 100,
    }),

  verifyAuditChain: async ({ caller, services }) => services.audit.verifyChain(caller.tenant.tenant_id),

  getJob: async ({ caller, services, params }) => {
    const job = await services.jobs.get(caller.tenant.tenant_id, params.job_id);
    if (!job)
      throw new DocfixError(
        'not_found',
        `No job ${params.job_id} on this account (jobs are kept for an hour).`,
      );
    return job;
  },
};
