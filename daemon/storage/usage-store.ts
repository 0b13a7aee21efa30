// Corrections counted per tenant and UTC day, for the Free plan's daily limit and GET /v1/usage.
// One small file per tenant holding only today's count: a write never grows with history.
// Applies under way hold a place (reserve) so racing applies cannot pass the limit together; the
// places are held in this process, which is the only one on its data directory.
import { readFile } from 'node:fs/promises';
import { KeyedLock, writeFileDurable } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';

interface UsageFile {
  day: string;
  corrections: number;
}

export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function nextUtcDay(now = new Date()): string {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return utcDay(next);
}

/** A place held for one correction: `commit` counts it, `release` gives it back (idempotent). */
export type UsageHold =
  { granted: true; commit(): Promise<void>; release(): Promise<void> } | { granted: false; used: number };

export class UsageStore {
  private layout: DataLayout;
  private lock = new KeyedLock();
  /** Places held per tenant by applies under way. */
  private held = new Map<string, number>();

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  private async read(tenantId: string): Promise<UsageFile> {
    try {
      const data = JSON.parse(await readFile(this.layout.usageFile(tenantId), 'utf8')) as UsageFile;
      return data.day === utcDay() ? data : { day: utcDay(), corrections: 0 };
    } catch {
      return { day: utcDay(), corrections: 0 };
    }
  }

  async correctionsToday(tenantId: string): Promise<number> {
    return (await this.read(tenantId)).corrections;
  }

  async countCorrection(tenantId: string): Promise<number> {
    return this.lock.run(tenantId, async () => {
      const usage = await this.read(tenantId);
      usage.corrections += 1;
      await writeFileDurable(this.layout.usageFile(tenantId), JSON.stringify(usage));
      return usage.corrections;
    });
  }

  /** Holds a place for one correction under `limit` (null: no limit, only counted). */
  async reserve(tenantId: string, limit: number | null): Promise<UsageHold> {
    const pending = this.held.get(tenantId) ?? 0;
    this.held.set(tenantId, pending + 1);
    let done = false;
    const release = async () => {
      if (done) return;
      done = true;
      const n = (this.held.get(tenantId) ?? 1) - 1;
      if (n <= 0) this.held.delete(tenantId);
      else this.held.set(tenantId, n);
    };
    if (limit !== null) {
      let used: number;
      try {
        used = await this.correctionsToday(tenantId);
      } catch (error) {
        await release();
        throw error;
      }
      if (used + pending >= limit) {
        await release();
        return { granted: false, used };
      }
    }
    return {
      granted: true,
      release,
      commit: async () => {
        if (done) return;
        try {
          await this.countCorrection(tenantId);
        } finally {
          await release();
        }
      },
    };
  }
}
