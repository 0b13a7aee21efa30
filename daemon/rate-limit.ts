// Per-key token buckets (spec Part 8): `burst` requests at once, refilled at `perMinute` a minute.
// Every answer to a key carries X-RateLimit-Limit / -Remaining / -Reset; past the limit, 429
// too_many_requests with Retry-After.

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
