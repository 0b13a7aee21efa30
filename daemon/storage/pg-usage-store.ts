// Corrections counted per tenant and UTC day in PostgreSQL, for every instance at once. An apply
// under way holds a place (a row of usage_holds) taken in a transaction that locks the tenant's day
// row and counts corrections plus live holds against the limit, so racing applies on any instances
// cannot pass it together; `commit` turns the hold into a counted correction (one transaction),
// `release` gives it back. A hold ends by itself after HOLD_MS (longer than any engine run may
// last), so the place of an instance killed mid-apply comes back.
import { randomId } from './ids.ts';
import type { Database } from './pg-database.ts';
import type { UsageStorage } from './storage-interfaces.ts';
import { utcDay, type UsageHold } from './usage-store.ts';

/** How long a place is held at most: the engine watchdog's 2 minutes and then some. */
const HOLD_MS = 10 * 60 * 1000;

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
    const holdId = randomId('hold');
    if (limit !== null) {
      const used = await this.db.tx(async (c) => {
        // The tenant's day row is the lock every hold of that day queues on.
        await c.query(
          `INSERT INTO usage_days (tenant_id, day, corrections) VALUES ($1, $2, 0)
           ON CONFLICT (tenant_id, day) DO NOTHING`,
          [tenantId, day],
        );
        await c.query('SELECT 1 FROM usage_days WHERE tenant_id = $1 AND day = $2 FOR UPDATE', [
          tenantId,
          day,
        ]);
        // Counted by a statement of its own, after the lock: its snapshot sees every hold and
        // correction committed by whoever held the lock before (one statement's snapshot would not).
        const row = await c.query<{ corrections: number; held: string }>(
          `SELECT u.corrections,
                  (SELECT count(*) FROM usage_holds h
                    WHERE h.tenant_id = u.tenant_id AND h.day = u.day AND h.held_until > now()) AS held
           FROM usage_days u WHERE u.tenant_id = $1 AND u.day = $2`,
          [tenantId, day],
        );
        const { corrections, held } = row.rows[0];
        if (corrections + Number(held) >= limit) return corrections;
        await c.query(
          `INSERT INTO usage_holds (hold_id, tenant_id, day, held_until)
           VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
          [holdId, tenantId, day, HOLD_MS],
        );
        // Ended holds of this tenant are cleared while its row is locked anyway.
        await c.query('DELETE FROM usage_holds WHERE tenant_id = $1 AND held_until <= now()', [tenantId]);
        return null;
      });
      if (used !== null) return { granted: false, used };
    }
    let done = false;
    return {
      granted: true,
      release: async () => {
        if (done || limit === null) return;
        done = true;
        await this.db.query('DELETE FROM usage_holds WHERE hold_id = $1', [holdId]);
      },
      commit: async () => {
        if (done) return;
        done = true;
        await this.db.tx(async (c) => {
          await c.query(
            `INSERT INTO usage_days AS u (tenant_id, day, corrections) VALUES ($1, $2, 1)
             ON CONFLICT (tenant_id, day) DO UPDATE SET corrections = u.corrections + 1`,
            [tenantId, day],
          );
          await c.query('DELETE FROM usage_holds WHERE hold_id = $1', [holdId]);
        });
      },
    };
  }
}
