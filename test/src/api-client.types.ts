// Compile-time checks of the typed client (run by `tsc`, never executed): the route table decides
// which inputs a call needs and what it answers.
import type { ApiClient } from '../../src/api-client.ts';

export async function typeChecks(c: ApiClient): Promise<void> {
  // @ts-expect-error path parameters are required
  await c.call('getDocument');
  // @ts-expect-error an unknown query field
  await c.call('listDocuments', { query: { limitt: 3 } });
  // @ts-expect-error a body of the wrong shape
  await c.call('createAttestation', { body: { document: 'd' } });
  const usage = await c.call('usage');
  const limit: number = usage.limit;
  const doc = await c.call('getDocument', { params: { document_id: 'a' } });
  const pages: number = doc.page_count;
  const pdf: Uint8Array = await c.call('downloadDocument', { params: { document_id: 'a' } });
  const nothing: undefined = await c.call('deleteDocument', { params: { document_id: 'a' } });
  void [limit, pages, pdf, nothing];
}
