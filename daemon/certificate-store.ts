// Certificate records, public by id: DATA/certificates/<certificate_id>.json holds what the service
// signed (statement, signature, seal) and whose it is; DATA/certificates/by-sha256/<sha256> names the
// certificate whose file has those exact bytes (the public verify-by-file route). The certificate PDF
// itself is a blob in the document's folder, so deleting the document deletes it; the record stays,
// so the certificate is still checkable by id.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CertificateStatement } from '../src/certificates/statement.ts';
import type { CertificateOut } from '../src/schemas.ts';
import { writeFileDurable } from './storage/atomic-file.ts';
import { isSafeId } from './storage/data-layout.ts';

export interface CertificateRecord {
  certificate_id: string;
  tenant_id: string;
  document_id: string;
  issued_at: string;
  original_sha256: string;
  corrected_sha256: string;
  /** SHA-256 of the certificate file as issued. */
  certificate_sha256: string;
  corrections: number;
  key_id: string;
  algorithm: 'Ed25519';
  statement: CertificateStatement;
  /** Ed25519 signature of the statement's canonical JSON, base64url. */
  signature: string;
  /** Ed25519 signature of {certificate_id, certificate_sha256, key_id} (canonical JSON), base64url. */
  seal: string;
  /** SHA-256 of the file before its seal line, which the line's own signature covers. */
  sealed_sha256: string;
}

export function certificateOut(record: CertificateRecord, pdfAvailable: boolean): CertificateOut {
  return {
    certificate_id: record.certificate_id,
    document_id: record.document_id,
    issued_at: record.issued_at,
    original_sha256: record.original_sha256,
    corrected_sha256: record.corrected_sha256,
    certificate_sha256: record.certificate_sha256,
    corrections: record.corrections,
    key_id: record.key_id,
    pdf_available: pdfAvailable,
  };
}

export class CertificateStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'certificates');
  }

  private file(certificateId: string): string {
    return join(this.dir, `${certificateId}.json`);
  }

  private shaFile(sha256: string): string {
    return join(this.dir, 'by-sha256', sha256);
  }

  /** Writes the record, then the index by file hash (both durable). */
  async put(record: CertificateRecord): Promise<void> {
    if (!isSafeId(record.certificate_id)) throw new Error(`unsafe certificate id ${record.certificate_id}`);
    if (!/^[0-9a-f]{64}$/.test(record.certificate_sha256))
      throw new Error('certificate_sha256 is not a SHA-256');
    await writeFileDurable(this.file(record.certificate_id), `${JSON.stringify(record, null, 2)}\n`);
    await writeFileDurable(this.shaFile(record.certificate_sha256), `${record.certificate_id}\n`);
  }

  /** Withdraws a record whose issue was not completed (its audit entry could not be written). */
  async remove(record: CertificateRecord): Promise<void> {
    if (!isSafeId(record.certificate_id)) return;
    await rm(this.shaFile(record.certificate_sha256), { force: true });
    await rm(this.file(record.certificate_id), { force: true });
  }

  /**
   * The record; null for an unknown id (or one that could not be a certificate id); 'damaged' when
   * the file is there but is not a record any more (it was edited or broken).
   */
  async get(certificateId: string): Promise<CertificateRecord | 'damaged' | null> {
    if (!isSafeId(certificateId)) return null;
    let text: string;
    try {
      text = await readFile(this.file(certificateId), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const record = JSON.parse(text) as CertificateRecord;
      return isRecordShaped(record) ? record : 'damaged';
    } catch {
      return 'damaged';
    }
  }

  /** The certificate id whose file has exactly these bytes (by SHA-256), or null. */
  async idBySha256(sha256: string): Promise<string | null> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    try {
      const id = (await readFile(this.shaFile(sha256), 'utf8')).trim();
      return isSafeId(id) ? id : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}

/** The fields the service reads and answers with have their types (the signatures say the rest). */
export function isRecordShaped(r: unknown): r is CertificateRecord {
  if (!r || typeof r !== 'object') return false;
  const o = r as Record<string, unknown>;
  const strings = [
    'certificate_id',
    'tenant_id',
    'document_id',
    'issued_at',
    'original_sha256',
    'corrected_sha256',
    'certificate_sha256',
    'key_id',
    'signature',
    'seal',
  ];
  return strings.every((k) => typeof o[k] === 'string') && Number.isSafeInteger(o.corrections);
}
