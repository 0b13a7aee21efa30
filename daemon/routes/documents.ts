// Route handlers of the documents area: upload (streamed to disk, size checked as bytes arrive,
// inspected in an engine slot), list/get/delete, classify, search, preview.png and crop.png (with
// the unpaid-document marking and inspection budget, and the record of every served region).
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { access, rename, rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DocfixError } from '../../src/errors.ts';
import { hasCapability, planLimits } from '../../src/plans.ts';
import type { DocumentOut, SearchOut } from '../../src/schemas.ts';
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
import {
  cropOutputSize,
  secondsToUtcMidnight,
  type CropPicture,
  type Picture,
} from '../../src/documents/render.ts';
import type { CropTaskInput } from '../../src/documents/tasks.ts';
import {
  finishInspect,
  joinTextIndex,
  splitPages,
  type InspectedPages,
  type InspectResult,
  type PageRange,
} from '../../src/documents/inspect.ts';
import { joinSearchParts, SEARCH_PART_MIN_PAGES } from '../../src/documents/search.ts';
import { saveTextIndex, textIndexPath } from '../../src/documents/text-index.ts';
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
import { readKey } from '../read-cache.ts';
import { randomId } from '../storage/ids.ts';
import { insufficientStorage, isStorageFull } from '../storage/storage-full.ts';
import type { DocumentRecord, RevisionRecord, ServedRegion } from '../storage/records.ts';

/** Most recent served regions kept per document (the OCR confirmation reads the latest ones). */
const SERVED_REGIONS_KEPT = 1000;

export const documentHandlers: Handlers = {
  uploadDocument: async ({ caller, services, req }) => {
    const tenantId = caller.tenant.tenant_id;
    // Read whole by readUploadBody before the job began, within the plan's size (a hosted plan's, or
    // the local plan's: none unless the daemon's configuration sets one).
    const limits = planLimits(caller.tenant.plan, services.config.localPlan);
    const upload = req.upload;
    if (!upload) throw new Error('the upload body was not read before its handler');
    try {
      const inspected = await inspectUpload(services, upload, limits.pages);
      const documentId = randomId('doc');
      const sha = await services.blobs.putFile(tenantId, documentId, upload.path, upload.sha256);
      await keepTextIndex(services, upload.path, tenantId, documentId, sha);
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
      await rm(textIndexPath(upload.path), { force: true });
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
    const asked = {
      q: query.q ?? '',
      kinds: record.document.pages?.map((p) => p.kind),
      ignore_case: query.ignore_case ?? false,
      word: query.word ?? false,
      ...(pages ? { pages } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      count: query.count ?? false,
    };
    const key = readKey('search', caller.tenant.tenant_id, params.document_id, revision.blob_sha256, asked);
    const known = services.reads.get<SearchOut>(key);
    if (known) return known;
    const path = await revisionPath(services, record, revision);
    const password = documentPassword(record, services);
    // The revision's first search reads every page (its text index): engine work. Once the index is
    // beside the blob, a search opens only the pages that may match: light work.
    const indexed = password === '' && (await exists(textIndexPath(path)));
    const ranges = indexed && pages === undefined ? searchRanges(services, record.document.page_count) : [];
    const run = (part: { pages?: number[] }) =>
      services.engine.run(
        'documents.search',
        { path, password, ...asked, ...part },
        {
          timeoutMs: SEARCH_TIMEOUT_MS,
          timeoutCode: 'internal_error',
          timeoutMessage: 'The search took too long; nothing was found.',
          lane: indexed ? 'light' : 'engine',
        },
      );
    const found =
      ranges.length > 1
        ? joinSearchParts(
            await Promise.all(
              ranges.map(([from, to]) =>
                run({ pages: Array.from({ length: to - from }, (_, k) => from + k) }),
              ),
            ),
            { ...(asked.limit ? { cap: asked.limit } : {}), count: asked.count },
          )
        : await run({});
    services.reads.set(key, found, JSON.stringify(found).length * 2);
    return found;
  },

  pagePreview: async ({ caller, services, params, query, reply, req }) => {
    const tenantId = caller.tenant.tenant_id;
    const record = await loadDocument(services, caller, params.document_id);
    const revision = query.revision ? findRevision(record, query.revision) : currentRevision(record);
    checkPageIndex(record, params.page_index);
    const picture = await renderedPreview(services, tenantId, record, revision, {
      page_index: params.page_index,
      thumb: query.thumb ?? false,
    });
    const page = record.document.pages?.[params.page_index];
    const full: BoxRender = page
      ? [0, 0, Math.ceil((page.width_pt * RENDER_DPI) / 72), Math.ceil((page.height_pt * RENDER_DPI) / 72)]
      : [
          0,
          0,
          Math.round((picture.width * RENDER_DPI) / picture.dpi),
          Math.round((picture.height * RENDER_DPI) / picture.dpi),
        ];
    // A read: on a full disk the picture is still served; only its note among served regions is lost.
    await recordServed(services, tenantId, record.document.document_id, {
      revision_id: revision.revision_id,
      page_index: params.page_index,
      box_render: full,
      dpi: picture.dpi,
      at: new Date().toISOString(),
    }).catch((error: unknown) => {
      if (!isStorageFull(error)) throw error;
      req.log.warn({ err: error }, 'a served preview could not be recorded: the disk is full');
    });
    reply.header('x-docfix-revision', revision.revision_id);
    return picture.png;
  },

  pageCrop: async ({ caller, services, params, query, reply, req: request }) => {
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
    const picture = await renderedCrop(services, tenantId, record, revision, {
      page_index: params.page_index,
      ...req,
      marking,
    });
    const today = new Date().toISOString().slice(0, 10);
    const charged = marking !== null && picture.native_inside_pixels > 0;
    await services.documents
      .update(tenantId, record.document.document_id, (r) => {
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
      })
      .catch((error: unknown) => {
        // A read keeps working on a full disk, unless it spends the inspection budget: that must be
        // counted before the pixels are served (507 insufficient_storage then).
        if (charged || !isStorageFull(error)) throw error;
        request.log.warn({ err: error }, 'a served crop could not be recorded: the disk is full');
      });
    reply.header('x-docfix-revision', revision.revision_id);
    reply.header('x-docfix-dpi', String(picture.dpi));
    reply.header('x-docfix-marked', picture.marked ? 'true' : 'false');
    return picture.png;
  },
};

/**
 * The upload's inspection. A long document is split over the engine lane's threads: the first step
 * opens, bounds and reads the file's facts, each range of pages is then classified in a task of its
 * own (in parallel while slots are free) and the ranges are joined, with the same answer as one
 * pass: the pages in order, and on failure the error of the first failing range. The pages' text,
 * read anyway to classify them, becomes the revision's text index (not written for a document with
 * a password: its text stays off the disk).
 */
async function inspectUpload(
  services: Services,
  upload: ReceivedUpload,
  maxPages: number | null,
): Promise<InspectResult> {
  const withIndex = upload.password === '';
  const options = {
    timeoutMs: INSPECT_TIMEOUT_MS,
    timeoutCode: 'unreadable_pdf' as const,
    timeoutMessage: `The PDF could not be read within ${INSPECT_TIMEOUT_MS / 1000} seconds; it is refused.`,
  };
  const started = await services.engine.run(
    'documents.inspect-start',
    {
      path: upload.path,
      password: upload.password,
      ...(maxPages === null ? {} : { max_pages: maxPages }),
      ...(withIndex ? { index_path: textIndexPath(upload.path) } : {}),
      parts: services.engine.size,
    },
    options,
  );
  if ('result' in started) return started.result;
  const settled = await Promise.allSettled(
    started.ranges.map(([from, to]) =>
      services.engine.run(
        'documents.inspect-pages',
        { path: upload.path, password: upload.password, from, to, index: withIndex },
        options,
      ),
    ),
  );
  const parts: InspectedPages[] = [];
  for (const part of settled) {
    if (part.status === 'rejected') throw part.reason;
    parts.push(part.value);
  }
  if (withIndex) {
    await saveTextIndex(textIndexPath(upload.path), joinTextIndex(started.head.page_count, parts));
  }
  return finishInspect(started.head, parts);
}

/** Moves the upload's text index beside its blob; without it the first search builds it (slower). */
async function keepTextIndex(
  services: Services,
  uploadPath: string,
  tenantId: string,
  documentId: string,
  sha256: string,
): Promise<void> {
  const blob = await services.blobs.localPath(tenantId, documentId, sha256);
  await rename(textIndexPath(uploadPath), textIndexPath(blob)).catch(() => {});
}

/**
 * The page ranges an indexed search of a long document is split into, one per engine thread, while
 * the daemon has nothing else to do (light tasks then borrow the idle engine slots): a user's first
 * search of a long manual reads its matching pages on every core. Under load, one range (no split):
 * the other threads are someone's.
 */
function searchRanges(services: Services, pageCount: number): PageRange[] {
  if (services.engine.load > 0) return [];
  return splitPages(pageCount, services.engine.size, SEARCH_PART_MIN_PAGES);
}

/** Whether a file is there (the text index beside a revision blob). */
async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A page's preview: from the read cache, else rendered in the light lane and kept. */
async function renderedPreview(
  services: Services,
  tenantId: string,
  record: DocumentRecord,
  revision: RevisionRecord,
  asked: { page_index: number; thumb: boolean },
): Promise<Picture> {
  const documentId = record.document.document_id;
  const key = readKey('preview', tenantId, documentId, revision.blob_sha256, asked);
  const known = services.reads.get<Picture>(key);
  if (known) return known;
  const picture = await services.engine.run(
    'documents.preview',
    {
      path: await revisionPath(services, record, revision),
      password: documentPassword(record, services),
      ...asked,
    },
    { timeoutMs: RENDER_TIMEOUT_MS, timeoutCode: 'internal_error', lane: 'light' },
  );
  services.reads.set(key, picture, picture.png.byteLength + 64);
  return picture;
}

/**
 * A crop: from the read cache, else rendered in the light lane and kept. A marked crop (an unpaid
 * document's corrected page) is rendered each time: it depends on the day's inspection budget.
 */
async function renderedCrop(
  services: Services,
  tenantId: string,
  record: DocumentRecord,
  revision: RevisionRecord,
  asked: Omit<CropTaskInput, 'path' | 'password'>,
): Promise<CropPicture> {
  const documentId = record.document.document_id;
  const key =
    asked.marking === null ? readKey('crop', tenantId, documentId, revision.blob_sha256, asked) : null;
  const known = key ? services.reads.get<CropPicture>(key) : undefined;
  if (known) return known;
  const picture = await services.engine.run(
    'documents.crop',
    {
      path: await revisionPath(services, record, revision),
      password: documentPassword(record, services),
      ...asked,
    },
    { timeoutMs: RENDER_TIMEOUT_MS, timeoutCode: 'internal_error', lane: 'light' },
  );
  if (key) services.reads.set(key, picture, picture.png.byteLength + 128);
  return picture;
}

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

export interface ReceivedUpload {
  path: string;
  sha256: string;
  bytes: number;
  filename: string;
  password: string;
}

/** An upload body that does not advance by this much within the idle timeout has stalled. */
const UPLOAD_PROGRESS_BYTES = 64 * 1024;

/**
 * Reads an upload's body before anything else happens (no job, no record): runs as the route's
 * preHandler, after authentication. The file goes to a temp file removed at once when the body is
 * not read whole; on any failure the connection is closed after the answer (the rest of the body
 * is not read).
 */
export async function readUploadBody(
  request: FastifyRequest,
  reply: FastifyReply,
  services: Services,
): Promise<void> {
  const caller = request.caller;
  if (!caller) return;
  const limits = planLimits(caller.tenant.plan, services.config.localPlan);
  const maxBytes = limits.upload_mb === null ? Number.POSITIVE_INFINITY : limits.upload_mb * 1024 * 1024;
  try {
    request.upload = await receiveUpload(request, services, maxBytes);
  } catch (error) {
    reply.header('connection', 'close');
    throw error;
  }
}

/**
 * Streams the multipart `file` to a temp file in the data dir while hashing it; stops as soon as
 * the plan's size is passed (file_too_large naming both sizes), or when the body stalls (no
 * 64 KiB of progress within the configured idle time: invalid_request). Never holds the file in
 * memory; leaves no temp file behind when it fails.
 */
async function receiveUpload(
  request: FastifyRequest,
  services: Services,
  /** Infinity: no size limit (the local plan unless configured; the plugin's default would be 1 MiB). */
  maxBytes: number,
): Promise<ReceivedUpload> {
  if (!request.isMultipart()) {
    throw new DocfixError('invalid_request', 'Send the PDF as multipart/form-data with a `file` part.', {
      problems: [{ field: 'file', problem: 'required (multipart/form-data)' }],
    });
  }
  const idleMs = services.config.uploadIdleTimeoutMs;
  const abort = new AbortController();
  const paths = new Set<string>();
  const reading = readParts(request, services, maxBytes, abort.signal, paths);
  let stalled: (error: DocfixError) => void = () => {};
  const stall = new Promise<never>((_, reject) => (stalled = reject));
  const stop = watchProgress(request, idleMs, () => {
    abort.abort();
    stalled(
      new DocfixError(
        'invalid_request',
        `The upload stalled: its body did not advance by ${UPLOAD_PROGRESS_BYTES / 1024} KiB within ${idleMs / 1000} s; nothing was stored.`,
        { problems: [{ field: 'file', problem: 'the body stopped arriving' }] },
      ),
    );
  });
  try {
    return await Promise.race([reading, stall]);
  } catch (error) {
    for (const path of paths) await rm(path, { force: true });
    // The reader settles when the connection closes; its failure is this one.
    reading.catch(() => {});
    throw error;
  } finally {
    stop();
  }
}

/** Calls `onStall` when the request's socket has not read UPLOAD_PROGRESS_BYTES more in `idleMs`. */
function watchProgress(request: FastifyRequest, idleMs: number, onStall: () => void): () => void {
  const socket = request.raw.socket;
  let mark = socket.bytesRead;
  let since = Date.now();
  const timer = setInterval(
    () => {
      if (request.raw.complete) return;
      const now = Date.now();
      if (socket.bytesRead - mark >= UPLOAD_PROGRESS_BYTES) {
        mark = socket.bytesRead;
        since = now;
      } else if (now - since >= idleMs) {
        clearInterval(timer);
        onStall();
      }
    },
    Math.max(10, Math.min(1000, idleMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

async function readParts(
  request: FastifyRequest,
  services: Services,
  maxBytes: number,
  signal: AbortSignal,
  paths: Set<string>,
): Promise<ReceivedUpload> {
  let received: Omit<ReceivedUpload, 'password'> | null = null;
  let password = '';
  const declared = Number(request.headers['content-length'] ?? 0);
  try {
    for await (const part of request.parts({ limits: { fileSize: maxBytes + 1 } })) {
      signal.throwIfAborted();
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || received) {
          part.file.resume();
          continue;
        }
        const path = await services.blobs.tempPath();
        paths.add(path);
        const { sha256, bytes } = await receiveFile(part.file, path, maxBytes, declared, signal);
        received = { path, sha256, bytes, filename: part.filename };
      } else if (part.fieldname === 'password') {
        password = typeof part.value === 'string' ? part.value : String(part.value ?? '');
      }
    }
  } catch (error) {
    for (const path of paths) await rm(path, { force: true });
    throw uploadError(error, declared, maxBytes);
  }
  if (!received) {
    throw new DocfixError('invalid_request', 'The upload has no `file` part.', {
      problems: [{ field: 'file', problem: 'required' }],
    });
  }
  return { ...received, password };
}

/** One file part to `path`, hashed and measured as it arrives. */
async function receiveFile(
  file: NodeJS.ReadableStream,
  path: string,
  maxBytes: number,
  declared: number,
  signal: AbortSignal,
): Promise<{ sha256: string; bytes: number }> {
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
    await pipeline(file, meter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), { signal });
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
      throw tooLarge(Math.max(bytes, declared), maxBytes);
    throw error;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** What a failure to read an upload answers: its own code, 507 for a full disk, else 422. */
function uploadError(error: unknown, declared: number, maxBytes: number): unknown {
  if (error instanceof DocfixError) return error;
  if (isStorageFull(error)) return insufficientStorage('the upload', error);
  const code = (error as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(declared, maxBytes);
  // A filesystem failure of the service (not full) stays a service failure.
  if ((error as { syscall?: string }).syscall) return error;
  // Everything else is the body: no boundary, a wrong one, cut short, a part without its end.
  const message = (error as Error).message ?? String(error);
  return new DocfixError('invalid_request', `The multipart body could not be read: ${message}`, {
    problems: [{ field: 'file', problem: message }],
  });
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
