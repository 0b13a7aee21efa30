// Tenants and API keys. Each key is a file named by its id holding the SHA-256 of its secret; the
// key itself (`<key_id>.<secret>`) is shown once at creation and never stored. Files are read on
// every request, so a key created or revoked by `docfix keys` in another process counts at once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { isPlanId, type PlanId } from '../../src/plans.ts';
import { writeFileDurable } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';
import { isSafeId } from './data-layout.ts';
import { randomId } from './ids.ts';
import type { KeyRecord, TenantRecord } from './records.ts';

const DUMMY_HASH = Buffer.alloc(32);

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export interface CreatedKey {
  api_key: string;
  key_id: string;
  tenant_id: string;
}

export class TenantStore {
  private layout: DataLayout;

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  async getTenant(tenantId: string): Promise<TenantRecord | null> {
    if (!isSafeId(tenantId)) return null;
    return readJson<TenantRecord>(this.layout.tenantFile(tenantId));
  }

  async listTenants(): Promise<TenantRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.layout.tenantsDir);
    } catch {
      return [];
    }
    const out: TenantRecord[] = [];
    for (const name of names) {
      const tenant = await this.getTenant(name);
      if (tenant) out.push(tenant);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async findTenantByName(name: string): Promise<TenantRecord | null> {
    return (await this.listTenants()).find((t) => t.name === name) ?? null;
  }

  /** Creates the tenant when it does not exist; changes only what is given. */
  async setTenant(name: string, changes: { plan?: PlanId; suspended?: boolean } = {}): Promise<TenantRecord> {
    if (changes.plan !== undefined && !isPlanId(changes.plan))
      throw new Error(`unknown plan ${changes.plan}`);
    const existing = await this.findTenantByName(name);
    const tenant: TenantRecord = existing ?? {
      tenant_id: randomId('tnt'),
      name,
      plan: 'business',
      suspended: false,
      created_at: new Date().toISOString(),
      bought_plans: [],
    };
    if (changes.plan !== undefined) tenant.plan = changes.plan;
    if (changes.suspended !== undefined) tenant.suspended = changes.suspended;
    await writeFileDurable(this.layout.tenantFile(tenant.tenant_id), JSON.stringify(tenant, null, 2));
    return tenant;
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
    await writeFileDurable(this.layout.keyFile(key_id), JSON.stringify(record, null, 2), 0o600);
    return { api_key: `${key_id}.${secret}`, key_id, tenant_id: tenantId };
  }

  async listKeys(): Promise<KeyRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.layout.keysDir);
    } catch {
      return [];
    }
    const out: KeyRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const record = await readJson<KeyRecord>(`${this.layout.keysDir}/${name}`);
      if (record) out.push(record);
    }
    return out.sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async revokeKey(keyId: string): Promise<KeyRecord | null> {
    if (!isSafeId(keyId)) return null;
    const record = await readJson<KeyRecord>(this.layout.keyFile(keyId));
    if (!record) return null;
    if (!record.revoked_at) {
      record.revoked_at = new Date().toISOString();
      await writeFileDurable(this.layout.keyFile(keyId), JSON.stringify(record, null, 2), 0o600);
    }
    return record;
  }

  /**
   * The key record for a presented API key, or null. The secret is compared in constant time, and a
   * key id that does not exist still costs one comparison, so timing says nothing about which part
   * was wrong.
   */
  async authenticate(apiKey: string): Promise<KeyRecord | null> {
    const dot = apiKey.indexOf('.');
    const keyId = dot > 0 ? apiKey.slice(0, dot) : '';
    const secret = dot > 0 ? apiKey.slice(dot + 1) : apiKey;
    const presented = Buffer.from(sha256(secret), 'hex');
    const record = isSafeId(keyId) ? await readJson<KeyRecord>(this.layout.keyFile(keyId)) : null;
    const stored = record ? Buffer.from(record.secret_sha256, 'hex') : DUMMY_HASH;
    const same = stored.length === presented.length && timingSafeEqual(stored, presented);
    if (!record || !same || record.revoked_at) return null;
    return record;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
