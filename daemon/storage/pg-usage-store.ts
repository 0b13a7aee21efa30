// Corrections counted per tenant and UTC day in PostgreSQL, for every instance at once. A place is
// held for an apply under way by one statement that checks the limit and counts the place together
// (`corrections + reserved < limit`), so racing applies on any instances cannot pass the limit;
// `commit` turns the place into a counted correction, `release` gives it back.
// A place held by an instance killed mid-apply stays held until the day ends: the limit errs on the
// side of refusing (stated in docs/deploy.md).
import type { Database } from './pg-database.ts';
import type { UsageStorage } from './storage.ts';
import { utcDay, type UsageHold } from './usage-store.ts';

export class PgUsageStore implements UsageStorage {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async correctionsToday(tenantId: string): Promise<number> {
    const rows = await this.db.query<{ corrections: number }>(
      'SELECT corrections FROM usage_days WHERE tenant_id = $1 AND day = $2',
      [tenantId, utcDay()],
    );
    return rows[0]?.corrections ?? 0;
  }

  /** Counts one correction (no limit checked); the new count. */
  async countCorrection(tenantId: string): Promise<number> {
    const rows = await this.db.query<{ corrections: number }>(
      `INSERT INTO usage_days AS u (tenant_id, day, corrections) VALUES ($1, $2, 1)
       ON CONFLICT (tenant_id, day) DO UPDATE SET corrections = u.corrections + 1
       RETURNING corrections`,
      [tenantId, utcDay()],
    );
    return rows[0].corrections;
  }

  async reserve(tenantId: string, limit: number | null): Promise<UsageHold> {
    const day = utcDay();
    if (limit !== null) {
      const held = await this.db.query(
        `INSERT INTO usage_days AS u (tenant_id, day, corrections, reserved)
         SELECT $1, $2, 0, 1 WHERE $3::integer > 0
         ON CONFLICT (tenant_id, day) DO UPDATE SET reserved = u.reserved + 1
           WHERE u.corrections + u.reserved < $3::integer
         RETURNING 1`,
        [tenantId, day, limit],
      );
      if (held.length === 0) return { granted: false, used: await this.correctionsToday(tenantId) };
    }
    let done = false;
    return {
      granted: true,
      release: async () => {
        if (done || limit === null) return;
        done = true;
        await this.db.query(
          'UPDATE usage_days SET reserved = greatest(reserved - 1, 0) WHERE tenant_id = $1 AND day = $2',
          [tenantId, day],
        );
      },
      commit: async () => {
        if (done) return;
        done = true;
        await this.db.query(
          `INSERT INTO usage_days AS u (tenant_id, day, corrections, reserved) VALUES ($1, $2, 1, 0)
           ON CONFLICT (tenant_id, day) DO UPDATE
             SET corrections = u.corrections + 1, reserved = greatest(u.reserved - $3::integer, 0)`,
          [tenantId, day, limit === null ? 0 : 1],
        );
      },
    };
  }
}
