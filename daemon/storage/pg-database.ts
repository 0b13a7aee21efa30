// The PostgreSQL connection of a daemon on a shared database (`--database postgres://…`,
// DOCFIX_DATABASE_URL): one pool, transactions with retry of serialisation failures, and the
// versioned migrations (pg-migrations.ts), run at start-up and by `docfix daemon migrate`.
import pg from 'pg';
import { MIGRATIONS } from './pg-migrations.ts';

export type Sql = pg.PoolClient | pg.Pool;

/** A lock number for pg_advisory_xact_lock: the migrations' own, apart from every tenant's. */
const MIGRATION_LOCK = 7_341_001;

export class Database {
  readonly pool: pg.Pool;

  constructor(url: string, options: { max?: number } = {}) {
    this.pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
    // An idle client losing its server must not crash the daemon; the next query reconnects.
    this.pool.on('error', () => {});
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<R[]> {
    return (await this.pool.query<R>(text, values)).rows;
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED: the guarantees come from row locks, advisory
   * locks and unique keys, which hold at that level). Deadlocks and serialisation failures are
   * retried a few times; any other error rolls back and is thrown.
   */
  async tx<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        const code = (error as { code?: string }).code;
        if ((code === '40001' || code === '40P01') && attempt < 5) continue;
        throw error;
      } finally {
        client.release();
      }
    }
  }

  /** Applies every migration not yet recorded, in order, in one transaction; returns their versions. */
  async migrate(): Promise<number[]> {
    const applied: number[] = [];
    await this.tx(async (c) => {
      // One migrator at a time (daemons starting together on a new database).
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await c.query(
        `CREATE TABLE IF NOT EXISTS docfix_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const done = new Set(
        (await c.query<{ version: number }>('SELECT version FROM docfix_migrations')).rows.map(
          (r) => r.version,
        ),
      );
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await c.query(migration.sql);
        await c.query('INSERT INTO docfix_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        applied.push(migration.version);
      }
    });
    return applied;
  }

  /** The newest version recorded (0 for a database never migrated). */
  async schemaVersion(): Promise<number> {
    const rows = await this.query<{ v: number | null }>(
      "SELECT CASE WHEN to_regclass('docfix_migrations') IS NULL THEN 0 ELSE (SELECT coalesce(max(version), 0) FROM docfix_migrations) END AS v",
    );
    return Number(rows[0]?.v ?? 0);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Does this look like a PostgreSQL URL (postgres:// or postgresql://)? */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The URL with its password hidden, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
