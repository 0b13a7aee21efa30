// Certificate records in PostgreSQL (public by id and by the exact bytes' SHA-256), as
// certificate-store.ts keeps them in files: what the service signed, kept after its document goes.
import { isRecordShaped, type CertificateRecord } from '../certificate-store.ts';
import { isSafeId } from './data-layout.ts';
import type { Database } from './pg-database.ts';
import type { CertificateStorage } from './storage-interfaces.ts';

export class PgCertificateStore implements CertificateStorage {
  private db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async put(record: CertificateRecord): Promise<void> {
    if (!isSafeId(record.certificate_id)) throw new Error(`unsafe certificate id ${record.certificate_id}`);
    if (!/^[0-9a-f]{64}$/.test(record.certificate_sha256))
      throw new Error('certificate_sha256 is not a SHA-256');
    await this.db.query(
      `INSERT INTO certificates (certificate_id, tenant_id, certificate_sha256, record) VALUES ($1, $2, $3, $4)
       ON CONFLICT (certificate_id) DO UPDATE SET record = excluded.record`,
      [record.certificate_id, record.tenant_id, record.certificate_sha256, JSON.stringify(record)],
    );
  }

  /** Withdraws a record whose issue was not completed (its audit entry could not be written). */
  async remove(record: CertificateRecord): Promise<void> {
    await this.db.query('DELETE FROM certificates WHERE certificate_id = $1', [record.certificate_id]);
  }

  async get(certificateId: string): Promise<CertificateRecord | 'damaged' | null> {
    if (!isSafeId(certificateId)) return null;
    const rows = await this.db.query<{ record: unknown }>(
      'SELECT record FROM certificates WHERE certificate_id = $1',
      [certificateId],
    );
    if (rows.length === 0) return null;
    return isRecordShaped(rows[0].record) ? rows[0].record : 'damaged';
  }

  async idBySha256(sha256: string): Promise<string | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const rows = await this.db.query<{ certificate_id: string }>(
      'SELECT certificate_id FROM certificates WHERE certificate_sha256 = $1 ORDER BY certificate_id LIMIT 1',
      [sha256],
    );
    return rows[0]?.certificate_id ?? null;
  }
}
