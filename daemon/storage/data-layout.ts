// Where everything lives in the data directory (docs/architecture.md). Ids are checked before they
// become path segments, so a crafted id can never reach outside its folder.
import { join } from 'node:path';

const ID = /^[A-Za-z0-9_-]{1,100}$/;

export function isSafeId(id: string): boolean {
  return ID.test(id);
}

export class DataLayout {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  private safe(id: string): string {
    if (!isSafeId(id)) throw new Error(`unsafe id: ${JSON.stringify(id)}`);
    return id;
  }

  get pidFile(): string {
    return join(this.root, 'daemon.pid');
  }
  get runFile(): string {
    return join(this.root, 'daemon.json');
  }
  get secretFile(): string {
    return join(this.root, 'secret.key');
  }
  get keysDir(): string {
    return join(this.root, 'keys');
  }
  keyFile(keyId: string): string {
    return join(this.keysDir, `${this.safe(keyId)}.json`);
  }
  get tenantsDir(): string {
    return join(this.root, 'tenants');
  }
  tenantDir(tenantId: string): string {
    return join(this.tenantsDir, this.safe(tenantId));
  }
  tenantFile(tenantId: string): string {
    return join(this.tenantDir(tenantId), 'tenant.json');
  }
  auditFile(tenantId: string): string {
    return join(this.tenantDir(tenantId), 'audit.log');
  }
  usageFile(tenantId: string): string {
    return join(this.tenantDir(tenantId), 'usage.json');
  }
  documentsDir(tenantId: string): string {
    return join(this.tenantDir(tenantId), 'documents');
  }
  documentDir(tenantId: string, documentId: string): string {
    return join(this.documentsDir(tenantId), this.safe(documentId));
  }
  documentRecordFile(tenantId: string, documentId: string): string {
    return join(this.documentDir(tenantId, documentId), 'record.json');
  }
  get certificatesDir(): string {
    return join(this.root, 'certificates');
  }
  get signingDir(): string {
    return join(this.root, 'signing');
  }
}
