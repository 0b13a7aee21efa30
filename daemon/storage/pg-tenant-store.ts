// Tenants and API keys in PostgreSQL: the same records and the same rules as tenant-store.ts (keys
// stored as the SHA-256 of their secret, compared in constant time), one row each. Every instance
// reads them on each request, so a key made or revoked by `docfix keys --database` counts at once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isPlanId, type PlanId } from '../../src/plans.ts';
import { isSafeId } from './data-layout.ts';
import { randomId } from './ids.ts';
import type { Database } from './pg-database.ts';
import type { KeyRecord, TenantRecord } from './records.ts';
import type { CreatedKey } from './tenant-store.ts';
import type { TenantStorage } from './storage-interfaces.ts';

const DUMMY_HASH = Buffer.alloc(32);

export class PgTenantStore implements TenantStorage {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async getTenant(tenantId: string): Promise<TenantRecord | null> {
    if (!isSafeId(tenantId)) return null;
    const rows = await this.db.query<{ record: TenantRecord }>(
      'SELECT record FROM tenants WHERE tenant_id = $1',
      [tenantId],
    );
    return rows[0]?.record ?? null;
  }

  async listTenants(): Promise<TenantRecord[]> {
    const rows = await this.db.query<{ record: TenantRecord }>(
      'SELECT record FROM tenants ORDER BY created_at, tenant_id',
    );
    return rows.map((r) => r.record);
  }

  async findTenantByName(name: string): Promise<TenantRecord | null> {
    const rows = await this.db.query<{ record: TenantRecord }>('SELECT record FROM tenants WHERE name = $1', [
      name,
    ]);
    return rows[0]?.record ?? null;
  }

  /** Creates the tenant when it does not exist (one row per name, whoever races); changes only what is given. */
  async setTenant(name: string, changes: { plan?: PlanId; suspended?: boolean } = {}): Promise<TenantRecord> {
    if (changes.plan !== undefined && !isPlanId(changes.plan))
      throw new Error(`unknown plan ${changes.plan}`);
    return this.db.tx(async (c) => {
      const fresh: TenantRecord = {
        tenant_id: randomId('tnt'),
        name,
        plan: 'business',
        suspended: false,
        created_at: new Date().toISOString(),
        bought_plans: [],
      };
      await c.query(
        `INSERT INTO tenants (tenant_id, name, created_at, record) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO NOTHING`,
        [fresh.tenant_id, name, fresh.created_at, JSON.stringify(fresh)],
      );
      const rows = await c.query<{ record: TenantRecord }>(
        'SELECT record FROM tenants WHERE name = $1 FOR UPDATE',
        [name],
      );
      const tenant = rows.rows[0].record;
      if (changes.plan !== undefined) tenant.plan = changes.plan;
      if (changes.suspended !== undefined) tenant.suspended = changes.suspended;
      await c.query('UPDATE tenants SET record = $2 WHERE tenant_id = $1', [
        tenant.tenant_id,
        JSON.stringify(tenant),
      ]);
      return tenant;
    });
  }

  async createKey(tenantId: string, label = ''): Promise<CreatedKey> {
    const key_id = randomId('key');
    const secret = randomBytes(32).toString('base64url');
    const record: KeyRecord = {
      key_id,
      tenant_id: tenantId,
      secret_sha256: sha256(secret),
      created_at: new Date().toISOString(),
      revoked_at: null,
      label,
    };
    await this.db.query(
      'INSERT INTO api_keys (key_id, tenant_id, created_at, record) VALUES ($1, $2, $3, $4)',
      [key_id, tenantId, record.created_at, JSON.stringify(record)],
    );
    return { api_key: `${key_id}.${secret}`, key_id, tenant_id: tenantId };
  }

  async listKeys(): Promise<KeyRecord[]> {
    const rows = await this.db.query<{ record: KeyRecord }>(
      'SELECT record FROM api_keys ORDER BY created_at, key_id',
    );
    return rows.map((r) => r.record);
  }

  async revokeKey(keyId: string): Promise<KeyRecord | null> {
    if (!isSafeId(keyId)) return null;
    return this.db.tx(async (c) => {
      const rows = await c.query<{ record: KeyRecord }>(
        'SELECT record FROM api_keys WHERE key_id = $1 FOR UPDATE',
        [keyId],
      );
      const record = rows.rows[0]?.record;
      if (!record) return null;
      if (!record.revoked_at) {
        record.revoked_at = new Date().toISOString();
        await c.query('UPDATE api_keys SET record = $2 WHERE key_id = $1', [keyId, JSON.stringify(record)]);
      }
      return record;
    });
  }

  /** As TenantStore.authenticate: constant-time comparison, a missing key still costs one. */
  async authenticate(apiKey: string): Promise<KeyRecord | null> {
    const dot = apiKey.indexOf('.');
    const keyId = dot > 0 ? apiKey.slice(0, dot) : '';
    const secret = dot > 0 ? apiKey.slice(dot + 1) : apiKey;
    const presented = Buffer.from(sha256(secret), 'hex');
    const rows = isSafeId(keyId)
      ? await this.db.query<{ record: KeyRecord }>('SELECT record FROM api_keys WHERE key_id = $1', [keyId])
      : [];
    const record = rows[0]?.record ?? null;
    const stored = record ? Buffer.from(record.secret_sha256, 'hex') : DUMMY_HASH;
    const same = stored.length === presented.length && timingSafeEqual(stored, presented);
    if (!record || !same || record.revoked_at) return null;
    return record;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
