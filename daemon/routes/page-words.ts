// Reading a page's words: OCR (text layer or recognition, and the matches of a string) and the
// preflight that names the words known to refuse correction.
import type { Caller, Handlers, Services } from '../services.ts';
import {
  checkPageIndex,
  currentRevision,
  documentPassword,
  loadDocument,
  revisionPath,
} from '../document-access.ts';

type Box = [number, number, number, number];

/** The page as the document now stands, and the region asked for: what both engine tasks read. */
async function pageRegion(
  services: Services,
  caller: Caller,
  params: { document_id: string; page_index: number },
  body: { box_render?: number[] | null; render_dpi?: number | null },
) {
  const record = await loadDocument(services, caller, params.document_id);
  checkPageIndex(record, params.page_index);
  return {
    path: revisionPath(services, record, currentRevision(record)),
    password: documentPassword(record, services),
    page_index: params.page_index,
    box_render: (body.box_render as Box | null | undefined) ?? null,
    render_dpi: body.render_dpi ?? null,
  };
}

export const pageWordHandlers: Handlers = {
  ocrPage: async ({ params, body, caller, services }) =>
    services.engine.run(
      'ocr.page',
      {
        ...(await pageRegion(services, caller, params, body)),
        find: body.find ?? '',
        lang: body.lang ?? null,
        turn: body.turn ?? 0,
      },
      {
        timeoutMs: 240_000,
        timeoutCode: 'internal_error',
        timeoutMessage: 'Recognition took too long; try a smaller region.',
      },
    ),

  preflightPage: async ({ params, body, caller, services }) =>
    services.engine.run('preflight.page', await pageRegion(services, caller, params, body), {
      timeoutMs: 120_000,
      timeoutCode: 'internal_error',
      timeoutMessage: 'The preflight took too long; ask for a smaller region.',
    }),
};
