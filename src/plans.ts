// The plans of spec Part 8: limits and capabilities. The daemon enforces them (upload size, pages,
// corrections a day, downloads, certificates, audit export); GET /v1/plans publishes them.
// Prices are the defaults of a deployment; a local daemon's tenants are given plans by `docfix tenants set`.
import type { PlanFacts, PlansOut } from './schemas.ts';

export const PLAN_IDS = ['free', 'one_document', 'ten_documents', 'personal', 'business'] as const;
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

const PLANS: Record<PlanId, PlanFacts> = {
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

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

export function planLimits(plan: PlanId): PlanFacts {
  return PLANS[plan];
}

export function hasCapability(plan: PlanId, capability: Capability): boolean {
  return PLANS[plan].capabilities?.[capability] === true;
}

export function plansDocument(): PlansOut {
  return {
    currency: 'EUR',
    prices_include_vat: true,
    capabilities: [...CAPABILITIES],
    plans: PLAN_IDS.map((id) => PLANS[id]),
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
): number | null {
  const facts = PLANS[plan];
  if (facts.corrections_per_day == null) return null;
  const days = facts.unlimited_corrections_days;
  if (days) {
    const window = days * 86_400_000;
    if (boughtAt.some((at) => now.getTime() - Date.parse(at) < window)) return null;
  }
  return facts.corrections_per_day;
}
