// Reaching a tenant's document from a route: the record (another tenant's id is not_found), the
// revision work is done on, its file, the page index check and the stored password; and a document
// deleted while a route worked on it.
import { rm } from 'node:fs/promises';
import { unsealPassword } from '../src/documents/password-seal.ts';
import { DocfixError } from '../src/errors.ts';
import type { Caller, Services } from './services.ts';
import type { DocumentRecord, RevisionRecord } from './storage/records.ts';

export async function loadDocument(
  services: Services,
  caller: Caller,
  documentId: string,
): Promise<DocumentRecord> {
  const record = await services.documents.get(caller.tenant.tenant_id, documentId);
  if (!record || record.document.tenant_id !== caller.tenant.tenant_id) {
    throw new DocfixError('not_found', `No document ${documentId} on this account.`);
  }
  return record;
}

/** The revision as the document now stands: the head, or the original when no correction stands. */
export function currentRevision(record: DocumentRecord): RevisionRecord {
  const id = record.document.head_revision_id ?? record.original_revision_id;
  return findRevision(record, id);
}

/** A named revision of this document (not_found for an id that is not one of its revisions). */
export function findRevision(record: DocumentRecord, revisionId: string): RevisionRecord {
  const revision = record.revisions.find((r) => r.revision_id === revisionId);
  if (!revision)
    throw new DocfixError(
      'not_found',
      `No revision ${revisionId} of document ${record.document.document_id}.`,
    );
  return revision;
}

/** A local file of the revision for the engine (on PostgreSQL, fetched into this instance's cache). */
export async function revisionPath(
  services: Services,
  record: DocumentRecord,
  revision: RevisionRecord,
): Promise<string> {
  return services.blobs.localPath(
    record.document.tenant_id,
    record.document.document_id,
    revision.blob_sha256,
  );
}

/** The document's password ('' when it has none), unsealed with the daemon secret. */
export function documentPassword(record: DocumentRecord, services: Services): string {
  return record.password_sealed ? unsealPassword(services.secret, record.password_sealed) : '';
}

export function checkPageIndex(record: DocumentRecord, pageIndex: number): void {
  const count = record.document.page_count;
  if (pageIndex >= count) {
    throw new DocfixError(
      'page_out_of_range',
      `Page index ${pageIndex} is beyond the last page (the document has ${count} page${count === 1 ? '' : 's'}; indexes start at 0).`,
      { page_count: count },
    );
  }
}

/**
 * Whether the document was deleted while a route worked on it (the engine's apply, a certificate);
 * if so its folder goes too: a blob just written there must not outlive its document.
 */
export async function deletedMeanwhile(
  services: Services,
  tenantId: string,
  documentId: string,
): Promise<boolean> {
  if (await services.documents.get(tenantId, documentId)) return false;
  await rm(services.documents.dir(tenantId, documentId), { recursive: true, force: true });
  return true;
}

export const documentNotFound = (documentId: string) =>
  new DocfixError('not_found', `No document ${documentId} on this account.`);
