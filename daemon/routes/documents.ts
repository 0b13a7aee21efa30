// Route handlers of the documents area: upload (streamed to disk, size checked as bytes arrive,
// inspected in an engine slot), list/get/delete, classify, search, preview.png and crop.png (with
// the unpaid-document marking and inspection budget, and the record of every served region).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DocfixError } from '../../src/errors.ts';
import { hasCapability, planLimits } from '../../src/plans.ts';
import type { DocumentOut } from '../../src/schemas.ts';
import {
  FILENAME_HINT_MAX,
  INSPECT_TIMEOUT_MS,
  INSPECTION_BUDGET_PIXELS,
  LIST_LIMIT_MAX,
  RENDER_DPI,
  RENDER_TIMEOUT_MS,
  SEARCH_TIMEOUT_MS,
} from '../../src/documents/limits.ts';
import { sealPassword } from '../../src/documents/password-seal.ts';
import { parsePageRanges } from '../../src/page-ranges.ts';
import { cropOutputSize, secondsToUtcMidnight } from '../../src/documents/render.ts';
import type { BoxRender } from '../../src/documents/text-find.ts';
import type { Caller, Handlers, Services } from '../services.ts';
import {
  checkPageIndex,
  currentRevision,
  documentPassword,
  findRevision,
  loadDocument,
  revisionPath,
} from '../document-access.ts';
import { randomId } from '../storage/ids.ts';
import type { DocumentRecord, RevisionRecord, ServedRegion } from '../storage/records.ts';

/** Most recent served regions kept per document (the OCR confirmation reads the latest ones). */
const SERVED_REGIONS_KEPT = 1000;

export const documentHandlers: Handlers = {
  uploadDocument: async ({ caller, services, req }) => {
    const tenantId = caller.tenant.tenant_id;
    // A hosted plan's limits, or the local plan's (none unless the daemon's configuration sets them).
    const limits = planLimits(caller.tenant.plan, services.config.localPlan);
    const maxBytes = limits.upload_mb === null ? Number.POSITIVE_INFINITY : limits.upload_mb * 1024 * 1024;
    const upload = await receiveUpload(req, services, maxBytes);
    try {
      const inspected = await services.engine.run(
        'documents.inspect',
        {
          path: upload.path,
          password: upload.password,
          ...(limits.pages === null ? {} : { max_pages: limits.pages }),
        },
        {
          timeoutMs: INSPECT_TIMEOUT_MS,
          timeoutCode: 'unreadable_pdf',
          timeoutMessage: `The PDF could not be read within ${INSPECT_TIMEOUT_MS / 1000} seconds; it is refused.`,
        },
      );
      const documentId = randomId('doc');
      const sha = await services.blobs.putFile(tenantId, documentId, upload.path, upload.sha256);
      const now = new Date().toISOString();
      const revision: RevisionRecord = {
        revision_id: randomId('rev'),
        parent_revision_id: null,
        blob_sha256: sha,
        correction_seq: null,
        created_at: now,
      };
      const document: DocumentOut = {
        document_id: documentId,
        tenant_id: tenantId,
        state: 'uploaded',
        page_count: inspected.page_count,
        original_sha256: sha,
        head_revision_id: null,
        filename_hint: filenameHint(upload.filename),
        pages: inspected.pages,
        issued_signals: { ...inspected.signals },
        concerns: inspected.concerns,
        protected: inspected.protected,
        unlocked: inspected.unlocked,
        watermarked: false,
        created_at: now,
      };
      const record: DocumentRecord = {
        document,
        password_sealed: upload.password !== '' ? sealPassword(services.secret, upload.password) : null,
        original_revision_id: revision.revision_id,
        revisions: [revision],
        corrections: [],
        verifications: {},
        verification_by_revision: {},
        attestations: [],
        certificates: [],
        served_regions: [],
        inspection: { day: '', pixels: 0 },
      };
      await services.changes.create(tenantId, record, {
        action: 'document.upload',
        subject_type: 'document',
        subject_id: documentId,
        payload: {
          original_sha256: sha,
          bytes: upload.bytes,
          page_count: document.page_count,
          protected: document.protected,
          filename_hint: document.filename_hint,
        },
      });
      return document;
    } finally {
      await rm(upload.path, { force: true });
    }
  },

  listDocuments: async ({ caller, services, query }) => {
    const limit = Math.min(Math.max(1, query.limit ?? 50), LIST_LIMIT_MAX);
    const records = await services.documents.list(caller.tenant.tenant_id, limit);
    return records.map((r) => r.document);
  },

  getDocument: async ({ caller, services, params }) =>
    (await loadDocument(services, caller, params.document_id)).document,

  deleteDocument: async ({ caller, services, params }) => {
    const tenantId = caller.tenant.tenant_id;
    await loadDocument(services, caller, params.document_id);
    const removed = await services.changes.remove(tenantId, params.document_id, (record) => ({
      action: 'document.delete',
      subject_type: 'document',
      subject_id: params.document_id,
      payload: {
        original_sha256: record.document.original_sha256,
        revisions: record.revisions.length,
        corrections: record.corrections.length,
        certificates: record.certificates.map((c) => c.certificate_id),
        filename_hint: record.document.filename_hint,
      },
    }));
    if (!removed) throw new DocfixError('not_found', `No document ${params.document_id} on this account.`);
    return undefined;
  },

  classifyDocument: async ({ caller, services, params }) => {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const revision = currentRevision(record);
    const inspected = await services.engine.run(
      'documents.inspect',
      { path: await revisionPath(services, record, revision), password: documentPassword(record, services) },
      { timeoutMs: INSPECT_TIMEOUT_MS, timeoutCode: 'unreadable_pdf' },
    );
    await services.documents.update(tenantId, params.document_id, (r) => {
      r.document.pages = inspected.pages;
      r.document.concerns = inspected.concerns;
    });
    return inspected.pages;
  },

  searchDocument: async ({ caller, services, params, query }) => {
    const record = await loadDocument(services, caller, params.document_id);
    const revision = currentRevision(record);
    const pages = query.pages === undefined ? undefined : searchPages(query.pages, record);
    return services.engine.run(
      'documents.search',
      {
        path: await revisionPath(services, record, revision),
        password: documentPassword(record, services),
        q: query.q ?? '',
        kinds: record.document.pages?.map((p) => p.kind),
        ignore_case: query.ignore_case ?? false,
        word: query.word ?? false,
        ...(pages ? { pages } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
        count: query.count ?? false,
      },
      {
        timeoutMs: SEARCH_TIMEOUT_MS,
        timeoutCode: 'internal_error',
        timeoutMessage: 'The search took too long; nothing was found.',
      },
    );
  },

  pagePreview: async ({ caller, services, params, query, reply }) => {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const revision = query.revision ? findRevision(record, query.revision) : currentRevision(record);
    checkPageIndex(record, params.page_index);
    const picture = await services.engine.run(
      'documents.preview',
      {
        path: await revisionPath(services, record, revision),
        password: documentPassword(record, services),
        page_index: params.page_index,
        thumb: query.thumb ?? false,
      },
      { timeoutMs: RENDER_TIMEOUT_MS, timeoutCode: 'internal_error' },
    );
    const page = record.document.pages?.[params.page_index];
    const full: BoxRender = page
      ? [0, 0, Math.ceil((page.width_pt * RENDER_DPI) / 72), Math.ceil((page.height_pt * RENDER_DPI) / 72)]
      : [
          0,
          0,
          Math.round((picture.width * RENDER_DPI) / picture.dpi),
          Math.round((picture.height * RENDER_DPI) / picture.dpi),
        ];
    await recordServed(services, tenantId, record.document.document_id, {
      revision_id: revision.revision_id,
      page_index: params.page_index,
      box_render: full,
      dpi: picture.dpi,
      at: new Date().toISOString(),
    });
    reply.header('x-docfix-revision', revision.revision_id);
    return picture.png;
  },

  pageCrop: async ({ caller, services, params, query, reply }) => {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const revision = query.revision ? findRevision(record, query.revision) : currentRevision(record);
    checkPageIndex(record, params.page_index);
    const page = record.document.pages?.[params.page_index];
    const scanned = page !== undefined && page.kind !== 'text';
    const defaultDpi = scanned ? page.natural_dpi : RENDER_DPI;
    const req = {
      x: query.x ?? 0,
      y: query.y ?? 0,
      w: query.w ?? 1,
      h: query.h ?? 1,
      dpi: query.dpi ?? 0,
      default_dpi: defaultDpi,
    };
    cropOutputSize(req); // crop_too_large before any engine work
    const marking = markingFor(caller, record, revision, params.page_index);
    const picture = await services.engine.run(
      'documents.crop',
      {
        path: await revisionPath(services, record, revision),
        password: documentPassword(record, services),
        page_index: params.page_index,
        ...req,
        marking,
      },
      { timeoutMs: RENDER_TIMEOUT_MS, timeoutCode: 'internal_error' },
    );
    const today = new Date().toISOString().slice(0, 10);
    await services.documents.update(tenantId, record.document.document_id, (r) => {
      pushServed(r, {
        revision_id: revision.revision_id,
        page_index: params.page_index,
        box_render: picture.box_render,
        dpi: picture.dpi,
        at: new Date().toISOString(),
      });
      if (marking && picture.native_inside_pixels > 0) {
        if (r.inspection?.day !== today) r.inspection = { day: today, pixels: 0 };
        r.inspection.pixels += picture.native_inside_pixels;
      }
    });
    reply.header('x-docfix-revision', revision.revision_id);
    reply.header('x-docfix-dpi', String(picture.dpi));
    reply.header('x-docfix-marked', picture.marked ? 'true' : 'false');
    return picture.png;
  },
};

/**
 * Unpaid documents (nothing on the account pays for downloads): a page that carries corrections in
 * this revision's chain is marked outside them, with today's remaining native-pixel budget.
 */
function markingFor(
  caller: Caller,
  record: DocumentRecord,
  revision: RevisionRecord,
  pageIndex: number,
): { boxes: BoxRender[]; budget_pixels: number } | null {
  if (hasCapability(caller.tenant.plan, 'downloads')) return null;
  const chain = new Set<string>();
  for (let r: RevisionRecord | undefined = revision; r;) {
    if (chain.has(r.revision_id)) break;
    chain.add(r.revision_id);
    const parent: string | null = r.parent_revision_id;
    r = parent ? record.revisions.find((x) => x.revision_id === parent) : undefined;
  }
  const boxes: BoxRender[] = [];
  for (const c of record.corrections) {
    if (c.page_index !== pageIndex || !chain.has(c.revision_id)) continue;
    for (const box of [c.box_render, c.changed_render]) {
      if (Array.isArray(box) && box.length === 4) boxes.push([box[0], box[1], box[2], box[3]]);
    }
  }
  if (boxes.length === 0) return null;
  const today = new Date().toISOString().slice(0, 10);
  const spent = record.inspection?.day === today ? record.inspection.pixels : 0;
  const left = INSPECTION_BUDGET_PIXELS - spent;
  if (left <= 0) {
    throw new DocfixError(
      'inspection_budget_spent',
      `Today's ${INSPECTION_BUDGET_PIXELS / 1e6} megapixels of native pixels inside this unpaid document's corrections are used; the rest of the page is still served marked outside the corrections. The budget resets next UTC day, or when the document is paid for.`,
      { retry_after: secondsToUtcMidnight() },
    );
  }
  return { boxes, budget_pixels: left };
}

function pushServed(record: DocumentRecord, region: ServedRegion): void {
  record.served_regions ??= [];
  record.served_regions.push(region);
  if (record.served_regions.length > SERVED_REGIONS_KEPT) {
    record.served_regions.splice(0, record.served_regions.length - SERVED_REGIONS_KEPT);
  }
}

async function recordServed(
  services: Services,
  tenantId: string,
  documentId: string,
  region: ServedRegion,
): Promise<void> {
  await services.documents.update(tenantId, documentId, (r) => pushServed(r, region));
}

/** filename_hint: a hint only — the basename, control characters removed, length-capped. */
export function filenameHint(name: string | undefined): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (clean === '' || clean === '.' || clean === '..') return 'document.pdf';
  return [...clean].slice(0, FILENAME_HINT_MAX).join('');
}

interface ReceivedUpload {
  path: string;
  sha256: string;
  bytes: number;
  filename: string;
  password: string;
}

/**
 * Streams the multipart `file` to a temp file in the data dir while hashing it; stops as soon as
 * the plan's size is passed (file_too_large naming both sizes). Never holds the file in memory.
 */
async function receiveUpload(
  req: Parameters<NonNullable<Handlers['uploadDocument']>>[0]['req'],
  services: Services,
  /** Infinity: no size limit (the local plan unless configured; the plugin's default would be 1 MiB). */
  maxBytes: number,
): Promise<ReceivedUpload> {
  if (!req.isMultipart()) {
    throw new DocfixError('invalid_request', 'Send the PDF as multipart/form-data with a `file` part.', {
      problems: [{ field: 'file', problem: 'required (multipart/form-data)' }],
    });
  }
  let received: Omit<ReceivedUpload, 'password'> | null = null;
  let password = '';
  const declared = Number(req.headers['content-length'] ?? 0);
  try {
    for await (const part of req.parts({ limits: { fileSize: maxBytes + 1 } })) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || received) {
          part.file.resume();
          continue;
        }
        const path = await services.blobs.tempPath();
        const hash = createHash('sha256');
        let bytes = 0;
        const meter = new Transform({
          transform(chunk: Buffer, _enc, done) {
            bytes += chunk.length;
            if (bytes > maxBytes) {
              done(tooLarge(Math.max(bytes, declared), maxBytes));
              return;
            }
            hash.update(chunk);
            done(null, chunk);
          },
        });
        try {
          await pipeline(part.file, meter, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
        } catch (error) {
          await rm(path, { force: true });
          if (error instanceof DocfixError) throw error;
          if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
            throw tooLarge(Math.max(bytes, declared), maxBytes);
          throw error;
        }
        received = { path, sha256: hash.digest('hex'), bytes, filename: part.filename };
      } else if (part.fieldname === 'password') {
        password = typeof part.value === 'string' ? part.value : String(part.value ?? '');
      }
    }
  } catch (error) {
    if (received) await rm(received.path, { force: true });
    if (error instanceof DocfixError) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(declared, maxBytes);
    if (typeof code === 'string' && code.startsWith('FST_')) {
      throw new DocfixError(
        'invalid_request',
        `The multipart body could not be read: ${(error as Error).message}`,
        {
          problems: [{ field: 'file', problem: (error as Error).message }],
        },
      );
    }
    throw error;
  }
  if (!received) {
    throw new DocfixError('invalid_request', 'The upload has no `file` part.', {
      problems: [{ field: 'file', problem: 'required' }],
    });
  }
  return { ...received, password };
}

function tooLarge(bytes: number, maxBytes: number): DocfixError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new DocfixError(
    'file_too_large',
    `The file is ${bytes > maxBytes ? `at least ${mb(bytes)}` : 'larger than the limit'}; this plan accepts files up to ${mb(maxBytes)}.`,
    { limit_bytes: maxBytes },
  );
}

/** The search's `pages` selection ("3-7,10"), each page checked against the document. */
function searchPages(text: string, record: DocumentRecord): number[] {
  const parsed = parsePageRanges(text);
  if ('problem' in parsed) {
    throw new DocfixError('invalid_request', `pages: ${parsed.problem}`, {
      problems: [{ field: 'pages', problem: parsed.problem }],
    });
  }
  // A page beyond the last answers page_out_of_range, as a page route does (the list is ascending).
  if (parsed.pages.length > 0) checkPageIndex(record, parsed.pages[parsed.pages.length - 1]);
  return parsed.pages;
}
