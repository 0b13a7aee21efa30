// Per-key token buckets (spec Part 8): `burst` requests at once, refilled at `perMinute` a minute.
// Every answer to a key of a limited plan carries X-RateLimit-Limit / -Remaining / -Reset; past the
// limit, 429 too_many_requests with Retry-After. Hosted plans have the spec's limit; the local plan
// has none unless the daemon's configuration sets one (then its answers carry the headers too).
import { rateLimitOf, type LocalPlanLimits, type PlanId } from '../src/plans.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  reset: number;
  /** Seconds until one request is allowed (0 when allowed now). */
  retryAfter: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private perMinute: number;
  private burst: number;
  private buckets = new Map<string, Bucket>();

  constructor(options: { perMinute: number; burst: number }) {
    this.perMinute = options.perMinute;
    this.burst = options.burst;
  }

  take(key: string, now = Date.now()): RateDecision {
    const rate = this.perMinute / 60_000; // tokens a millisecond
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 10_000) this.prune(now);
    return {
      allowed,
      limit: this.perMinute,
      remaining: Math.floor(bucket.tokens),
      reset: Math.ceil((this.burst - bucket.tokens) / rate / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000)),
    };
  }

  /** Forgets full buckets (they carry no information). */
  private prune(now: number): void {
    const rate = this.perMinute / 60_000;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * rate >= this.burst) this.buckets.delete(key);
    }
  }
}

/** The rate limit of each key by its tenant's plan: the hosted one, or the local plan's (if any). */
export class PlanRateLimits {
  private hosted: RateLimiter;
  private local: RateLimiter | null;
  private config: { rateLimit: { perMinute: number; burst: number }; localPlan: LocalPlanLimits };

  constructor(config: { rateLimit: { perMinute: number; burst: number }; localPlan: LocalPlanLimits }) {
    this.config = config;
    this.hosted = new RateLimiter(config.rateLimit);
    this.local = config.localPlan.rate ? new RateLimiter(config.localPlan.rate) : null;
  }

  /** The decision for one request of `key` on `plan`; null when the plan has no rate limit. */
  take(key: string, plan: PlanId, now = Date.now()): RateDecision | null {
    const limit = rateLimitOf(plan, this.config.rateLimit, this.config.localPlan);
    if (!limit) return null;
    return (limit === this.config.rateLimit ? this.hosted : this.local)?.take(key, now) ?? null;
  }
}
