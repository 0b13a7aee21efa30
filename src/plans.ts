// The plans: the hosted plans of spec Part 8 (limits, capabilities, prices), which GET /v1/plans
// publishes, and the `local` plan of a daemon run on one's own machine, which has every capability
// and no limit unless the daemon's configuration sets one (LocalPlanLimits, daemon/config.ts). The
// daemon enforces them (upload size, pages, corrections a day, requests a minute, downloads,
// certificates, audit export). Prices are the defaults of a hosted deployment; a local daemon's
// default account is on `local`, other tenants get plans from `docfix keys create` / `tenants set`.
import type { PlanFacts, PlansOut } from './schemas.ts';

/** The plans of the specification, published by GET /v1/plans (API clients read ids from there). */
export const HOSTED_PLAN_IDS = ['free', 'one_document', 'ten_documents', 'personal', 'business'] as const;
export type HostedPlanId = (typeof HOSTED_PLAN_IDS)[number];
export const PLAN_IDS = [...HOSTED_PLAN_IDS, 'local'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const CAPABILITIES = [
  'corrections',
  'downloads',
  'unlimited_corrections',
  'certificates',
  'audit_export',
  'api_keys',
  'batch',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const caps = (...on: Capability[]): Record<string, boolean> =>
  Object.fromEntries(CAPABILITIES.map((c) => [c, on.includes(c)]));

/**
 * A plan as the daemon applies it: PlanFacts, where a limit may be null (none). Every hosted plan
 * has its limits; the local plan has the ones its daemon's configuration sets.
 */
export type PlanRules = Omit<PlanFacts, 'upload_mb' | 'pages'> & {
  upload_mb: number | null;
  pages: number | null;
};

/** What a daemon's configuration sets for its local plan; null: no limit (the default). */
export interface LocalPlanLimits {
  upload_mb: number | null;
  pages: number | null;
  corrections_per_day: number | null;
  /** Requests a minute per key, and the burst allowed at once. */
  rate: { perMinute: number; burst: number } | null;
}

export const NO_LOCAL_LIMITS: LocalPlanLimits = Object.freeze({
  upload_mb: null,
  pages: null,
  corrections_per_day: null,
  rate: null,
});

const HOSTED: Record<HostedPlanId, PlanFacts> = {
  free: {
    id: 'free',
    name: 'Free',
    kind: 'free',
    price_eur: 0,
    price_label: 'free',
    recurring: false,
    downloads: 'after purchase',
    upload_mb: 5,
    pages: 50,
    headroom: 0,
    documents: null,
    corrections_per_day: 10,
    unlimited_corrections_days: null,
    capabilities: caps('corrections'),
    cancel_anytime: null,
    sign_in_required: false,
  },
  one_document: {
    id: 'one_document',
    name: '1 document',
    kind: 'one_time',
    price_eur: 4.9,
    price_label: '€4.90 once',
    recurring: false,
    downloads: '1 document',
    upload_mb: 5,
    pages: 50,
    headroom: 0,
    documents: 1,
    corrections_per_day: 10,
    unlimited_corrections_days: 30,
    capabilities: caps('corrections', 'downloads'),
    cancel_anytime: null,
    sign_in_required: true,
  },
  ten_documents: {
    id: 'ten_documents',
    name: '10 documents',
    kind: 'one_time',
    price_eur: 29,
    price_label: '€29 once',
    recurring: false,
    downloads: '10 documents',
    upload_mb: 5,
    pages: 50,
    headroom: 0,
    documents: 10,
    corrections_per_day: 10,
    unlimited_corrections_days: 30,
    capabilities: caps('corrections', 'downloads'),
    cancel_anytime: null,
    sign_in_required: true,
  },
  personal: {
    id: 'personal',
    name: 'Personal',
    kind: 'subscription',
    price_eur: 9.9,
    price_label: '€9.90 a month',
    recurring: true,
    downloads: 'unlimited',
    upload_mb: 10,
    pages: 100,
    headroom: 0,
    documents: null,
    corrections_per_day: null,
    unlimited_corrections_days: null,
    capabilities: caps('corrections', 'downloads', 'unlimited_corrections'),
    cancel_anytime: true,
    sign_in_required: true,
  },
  business: {
    id: 'business',
    name: 'Business',
    kind: 'subscription',
    price_eur: 49,
    price_label: '€49 a month',
    recurring: true,
    downloads: 'unlimited',
    upload_mb: 30,
    pages: 300,
    headroom: 0,
    documents: null,
    corrections_per_day: null,
    unlimited_corrections_days: null,
    // Business has every capability.
    capabilities: caps(...CAPABILITIES),
    cancel_anytime: true,
    sign_in_required: false,
  },
};

/** The local plan without its limits (they come from the daemon's configuration). */
const LOCAL: Omit<PlanRules, 'upload_mb' | 'pages' | 'corrections_per_day'> = {
  id: 'local',
  name: 'Local',
  kind: 'local',
  price_eur: 0,
  price_label: 'no charge',
  recurring: false,
  downloads: 'unlimited',
  headroom: 0,
  documents: null,
  unlimited_corrections_days: null,
  // Everything a Business account may do: it is the owner's own daemon.
  capabilities: caps(...CAPABILITIES),
  cancel_anytime: null,
  sign_in_required: false,
};

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

export function isHostedPlan(plan: PlanId): plan is HostedPlanId {
  return plan !== 'local';
}

/** The plan's facts and limits; the local plan's limits are `local` (the daemon's configuration). */
export function planLimits(plan: PlanId, local: LocalPlanLimits = NO_LOCAL_LIMITS): PlanRules {
  if (isHostedPlan(plan)) return HOSTED[plan];
  return {
    ...LOCAL,
    upload_mb: local.upload_mb,
    pages: local.pages,
    corrections_per_day: local.corrections_per_day,
  };
}

/** Requests a minute per key and the burst (spec Part 8 for hosted plans); null: not limited. */
export function rateLimitOf(
  plan: PlanId,
  hosted: { perMinute: number; burst: number },
  local: LocalPlanLimits = NO_LOCAL_LIMITS,
): { perMinute: number; burst: number } | null {
  return isHostedPlan(plan) ? hosted : local.rate;
}

export function hasCapability(plan: PlanId, capability: Capability): boolean {
  return (isHostedPlan(plan) ? HOSTED[plan] : LOCAL).capabilities?.[capability] === true;
}

/** GET /v1/plans: the hosted plans of the specification (the local plan is not for sale). */
export function plansDocument(): PlansOut {
  return {
    currency: 'EUR',
    prices_include_vat: true,
    capabilities: [...CAPABILITIES],
    plans: HOSTED_PLAN_IDS.map((id) => HOSTED[id]),
  };
}

/**
 * Corrections a UTC day for a tenant on `plan` (null: unlimited). One-time plans are unlimited for
 * `unlimited_corrections_days` after a purchase, then fall back to the daily limit.
 */
export function dailyCorrectionLimit(
  plan: PlanId,
  boughtAt: readonly string[],
  now = new Date(),
  local: LocalPlanLimits = NO_LOCAL_LIMITS,
): number | null {
  const facts = planLimits(plan, local);
  if (facts.corrections_per_day == null) return null;
  const days = facts.unlimited_corrections_days;
  if (days) {
    const window = days * 86_400_000;
    if (boughtAt.some((at) => now.getTime() - Date.parse(at) < window)) return null;
  }
  return facts.corrections_per_day;
}
