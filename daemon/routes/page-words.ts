// Reading a page's words: OCR (text layer or recognition, and the matches of a string) and the
// preflight that names the words known to refuse correction.
import { DocfixError } from '../../src/errors.ts';
import { availableLanguages, languageFolders } from '../../src/ocr/languages.ts';
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
    path: await revisionPath(services, record, currentRevision(record)),
    password: documentPassword(record, services),
    page_index: params.page_index,
    box_render: (body.box_render as Box | null | undefined) ?? null,
    render_dpi: body.render_dpi ?? null,
  };
}

/**
 * Runs a reader of the page; when it fails unexpectedly, the file is examined (the corrections'
 * damage check): a damaged document answers `unreadable_pdf` naming the damage and how to repair
 * it, anything else stays the service's `internal_error` (logged by the engine slot).
 */
async function readingPage<T>(
  services: Services,
  region: { path: string; password: string; page_index: number },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DocfixError) || error.code !== 'internal_error') throw error;
    let advice: Awaited<ReturnType<typeof services.engine.run<'corrections.damage'>>> = null;
    try {
      advice = await services.engine.run('corrections.damage', region, { timeoutMs: 30_000 });
    } catch {
      throw error;
    }
    if (!advice) throw error;
    throw new DocfixError('unreadable_pdf', `This page cannot be read. ${advice.what}`, { advice });
  }
}

export const pageWordHandlers: Handlers = {
  // The engine's workers share the daemon's environment (DOCFIX_TESSDATA_DIRS, TESSDATA_PREFIX) and
  // folders, so the list read here is what recognition finds; it only reads folders (no engine slot).
  ocrLanguages: async () => ({
    languages: availableLanguages().map(({ code, source, file }) => ({ code, source, file })),
    folders: languageFolders(),
  }),

  ocrPage: async ({ params, body, caller, services }) => {
    const region = await pageRegion(services, caller, params, body);
    return readingPage(services, region, () =>
      services.engine.run(
        'ocr.page',
        { ...region, find: body.find ?? '', lang: body.lang ?? null, turn: body.turn ?? 0 },
        {
          timeoutMs: 240_000,
          timeoutCode: 'internal_error',
          timeoutMessage: 'Recognition took too long; try a smaller region.',
        },
      ),
    );
  },

  preflightPage: async ({ params, body, caller, services }) => {
    const region = await pageRegion(services, caller, params, body);
    return readingPage(services, region, () =>
      services.engine.run('preflight.page', region, {
        timeoutMs: 120_000,
        timeoutCode: 'internal_error',
        timeoutMessage: 'The preflight took too long; ask for a smaller region.',
      }),
    );
  },
};
