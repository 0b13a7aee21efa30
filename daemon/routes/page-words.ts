// Reading a page's words: OCR (text layer or recognition, and the matches of a string) and the
// preflight that names the words known to refuse correction.
import type { Handlers } from '../services.ts';
import {
  checkPageIndex,
  currentRevision,
  documentPassword,
  loadDocument,
  revisionPath,
} from '../document-access.ts';

export const pageWordHandlers: Handlers = {
  ocrPage: async ({ params, body, caller, services }) => {
    const record = await loadDocument(services, caller, params.document_id);
    checkPageIndex(record, params.page_index);
    return services.engine.run(
      'ocr.page',
      {
        path: revisionPath(services, record, currentRevision(record)),
        password: documentPassword(record, services),
        page_index: params.page_index,
        find: body.find ?? '',
        box_render: (body.box_render as [number, number, number, number] | null | undefined) ?? null,
        render_dpi: body.render_dpi ?? null,
        lang: body.lang ?? null,
        turn: body.turn ?? 0,
      },
      {
        timeoutMs: 240_000,
        timeoutCode: 'internal_error',
        timeoutMessage: 'Recognition took too long; try a smaller region.',
      },
    );
  },
  preflightPage: async ({ params, body, caller, services }) => {
    const record = await loadDocument(services, caller, params.document_id);
    checkPageIndex(record, params.page_index);
    return services.engine.run(
      'preflight.page',
      {
        path: revisionPath(services, record, currentRevision(record)),
        password: documentPassword(record, services),
        page_index: params.page_index,
        box_render: (body.box_render as [number, number, number, number] | null | undefined) ?? null,
        render_dpi: body.render_dpi ?? null,
      },
      {
        timeoutMs: 120_000,
        timeoutCode: 'internal_error',
        timeoutMessage: 'The preflight took too long; ask for a smaller region.',
      },
    );
  },
};
