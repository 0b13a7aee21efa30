// The route table of the /v1 API (spec Part 4): method, path, auth, schemas and the errors each route
// can answer. The daemon serves from it, the OpenAPI document is built from it and the typed API
// client calls through it, so the three cannot drift apart.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ErrorCode } from './errors.ts';
import * as S from './schemas.ts';
import { SEARCH_MATCH_CAP } from './documents/limits.ts';
import { PAGE_RANGES_MAX_LENGTH, PAGE_RANGES_PATTERN } from './page-ranges.ts';

export type Auth = 'key' | 'public';
/** What a successful response carries besides JSON. */
export type Media = 'application/pdf' | 'image/png' | 'application/x-ndjson' | 'empty';

export interface MultipartField {
  name: string;
  type: 'file' | 'string';
  required: boolean;
  description: string;
}

export interface RouteDef {
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI-style path: `{name}` for parameters; a literal `:` is allowed (edits:propose). */
  path: string;
  auth: Auth;
  summary: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  multipart?: MultipartField[];
  status: number;
  response?: TSchema;
  media?: Media;
  errors: ErrorCode[];
}

/** Errors any key route can answer (spec Part 4 preamble). */
export const KEY_ROUTE_ERRORS: ErrorCode[] = [
  'invalid_api_key',
  'not_available_to_api_keys',
  'too_many_requests',
  'busy',
  'invalid_request',
  'account_suspended',
  'internal_error',
];

const DocParams = Type.Object({ document_id: Type.String({ minLength: 1, maxLength: 100 }) });
const PageParams = Type.Object({
  document_id: Type.String({ minLength: 1, maxLength: 100 }),
  page_index: Type.Integer({ minimum: 0 }),
});
const CertParams = Type.Object({ certificate_id: Type.String({ minLength: 1, maxLength: 100 }) });
const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100 }) });
const strictQuery = { additionalProperties: false } as const;

const GATE: ErrorCode[] = [
  'not_found',
  'nothing_to_export',
  'not_verified',
  'verification_hash_mismatch',
  'verification_failed',
  'diff_outside_expected_region',
];

export const ROUTES = {
  health: {
    method: 'GET',
    path: '/healthz',
    auth: 'public',
    summary: 'Health check (unversioned).',
    status: 200,
    response: S.HealthOut,
    errors: [],
  },
  openapi: {
    method: 'GET',
    path: '/docs/api/openapi.json',
    auth: 'public',
    summary: 'This OpenAPI 3.1 document.',
    status: 200,
    response: Type.Object({}, { additionalProperties: true }),
    errors: [],
  },
  certificateKey: {
    method: 'GET',
    path: '/.well-known/docfix-certificate-key',
    auth: 'public',
    summary: 'The Ed25519 public key certificates are signed with, and earlier keys still trusted.',
    status: 200,
    response: S.CertificateKeyOut,
    errors: [],
  },
  plans: {
    method: 'GET',
    path: '/v1/plans',
    auth: 'public',
    summary: 'Plans, their limits and capabilities.',
    status: 200,
    response: S.PlansOut,
    errors: [],
  },
  usage: {
    method: 'GET',
    path: '/v1/usage',
    auth: 'key',
    summary: "The account's usage today and its plan's limits (read-only).",
    status: 200,
    response: S.UsageOut,
    errors: [],
  },
  fonts: {
    method: 'GET',
    path: '/v1/fonts',
    auth: 'key',
    summary:
      'The faces tier 4 may draw a missing character with: bundled, found by fontconfig, or in DOCFIX_FONT_DIRS.',
    status: 200,
    response: S.FontsOut,
    errors: [],
  },
  uploadDocument: {
    method: 'POST',
    path: '/v1/documents',
    auth: 'key',
    summary: 'Upload a PDF (multipart), with its password when it will not open without one.',
    multipart: [
      { name: 'file', type: 'file', required: true, description: 'the PDF' },
      { name: 'password', type: 'string', required: false, description: 'password, default ""' },
    ],
    status: 201,
    response: S.DocumentOut,
    errors: [
      'file_too_large',
      'too_many_pages',
      'page_too_large',
      'image_too_large',
      'not_a_pdf',
      'unreadable_pdf',
      'no_pages',
      'password_protected',
      'password_required',
      'password_incorrect',
      'not_protected',
      'insufficient_storage',
    ],
  },
  listDocuments: {
    method: 'GET',
    path: '/v1/documents',
    auth: 'key',
    summary: 'Documents of this account, newest first.',
    query: Type.Object(
      { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
      strictQuery,
    ),
    status: 200,
    response: Type.Array(S.DocumentOut),
    errors: [],
  },
  getDocument: {
    method: 'GET',
    path: '/v1/documents/{document_id}',
    auth: 'key',
    summary: 'One document.',
    params: DocParams,
    status: 200,
    response: S.DocumentOut,
    errors: ['not_found'],
  },
  deleteDocument: {
    method: 'DELETE',
    path: '/v1/documents/{document_id}',
    auth: 'key',
    summary:
      'Delete a document, its revisions and every file made from it; the audit record keeps that it existed.',
    params: DocParams,
    status: 204,
    media: 'empty',
    errors: ['not_found', 'missing_capability', 'insufficient_storage'],
  },
  classifyDocument: {
    method: 'POST',
    path: '/v1/documents/{document_id}/classify',
    auth: 'key',
    summary: 'Classify every page (text, scanned, …).',
    params: DocParams,
    status: 200,
    response: Type.Array(S.PageInfo),
    errors: ['not_found', 'insufficient_storage'],
  },
  createAttestation: {
    method: 'POST',
    path: '/v1/attestations',
    auth: 'key',
    summary: 'Record that the caller is authorised to correct a document.',
    body: S.AttestationRequest,
    status: 201,
    response: S.AttestationOut,
    errors: ['not_found', 'insufficient_storage'],
  },
  proposeEdit: {
    method: 'POST',
    path: '/v1/documents/{document_id}/edits:propose',
    auth: 'key',
    summary: 'Propose a correction; changes nothing. A refusal is reported inside the proposal.',
    params: DocParams,
    body: S.EditRequest,
    status: 200,
    response: S.ProposalOut,
    errors: ['not_found', 'attestation_required', 'page_out_of_range'],
  },
  applyEdit: {
    method: 'POST',
    path: '/v1/documents/{document_id}/edits',
    auth: 'key',
    summary: 'Apply a proposal with its confirmation token; answers with the verification.',
    params: DocParams,
    body: S.ApplyBody,
    status: 200,
    response: S.VerificationOut,
    errors: [
      'not_found',
      'attestation_required',
      'stale_or_invalid_confirmation',
      'edit_refused',
      'edit_failed',
      'daily_limit_reached',
      'page_out_of_range',
      'insufficient_storage',
    ],
  },
  getVerification: {
    method: 'GET',
    path: '/v1/documents/{document_id}/verification',
    auth: 'key',
    summary: 'The verification of the document as it now stands.',
    params: DocParams,
    status: 200,
    response: S.VerificationOut,
    errors: ['not_found', 'not_verified', 'no_revision'],
  },
  listCorrections: {
    method: 'GET',
    path: '/v1/documents/{document_id}/corrections',
    auth: 'key',
    summary: 'Corrections standing, oldest first.',
    params: DocParams,
    status: 200,
    response: Type.Array(S.CorrectionOut),
    errors: ['not_found'],
  },
  undo: {
    method: 'POST',
    path: '/v1/documents/{document_id}/undo',
    auth: 'key',
    summary: 'Step back the most recent correction; nothing is deleted.',
    params: DocParams,
    status: 200,
    response: S.UndoOut,
    errors: ['not_found', 'nothing_to_undo', 'insufficient_storage'],
  },
  redo: {
    method: 'POST',
    path: '/v1/documents/{document_id}/redo',
    auth: 'key',
    summary: 'Restore the most recently undone correction.',
    params: DocParams,
    status: 200,
    response: S.UndoOut,
    errors: ['not_found', 'nothing_to_redo', 'insufficient_storage'],
  },
  getManifest: {
    method: 'GET',
    path: '/v1/documents/{document_id}/manifest',
    auth: 'key',
    summary: 'The provenance manifest embedded in the corrected file, byte for byte (docs/manifest.md).',
    params: DocParams,
    status: 200,
    response: Type.Object({}, { additionalProperties: true }),
    errors: ['not_found', 'no_revision', 'no_manifest'],
  },
  exportDocument: {
    method: 'POST',
    path: '/v1/documents/{document_id}/export',
    auth: 'key',
    summary: 'Release the corrected document through the export gate.',
    params: DocParams,
    status: 200,
    response: S.ExportOut,
    errors: [...GATE, 'insufficient_storage'],
  },
  downloadDocument: {
    method: 'GET',
    path: '/v1/documents/{document_id}/export/download',
    auth: 'key',
    summary: 'The corrected PDF, through the same gate as export.',
    params: DocParams,
    status: 200,
    media: 'application/pdf',
    errors: [...GATE, 'payment_required', 'email_required', 'insufficient_storage'],
  },
  issueCertificate: {
    method: 'POST',
    path: '/v1/documents/{document_id}/certificate',
    auth: 'key',
    summary: 'Issue a signed verification certificate for the document as it now stands.',
    params: DocParams,
    body: Type.Optional(S.CertificateRequest),
    status: 201,
    response: S.CertificateOut,
    errors: [
      'business_plan_required',
      'not_found',
      'nothing_to_export',
      'not_verified',
      'verification_failed',
      'nothing_to_certify',
      'correction_not_verified',
      'record_does_not_verify',
      'insufficient_storage',
    ],
  },
  listCertificates: {
    method: 'GET',
    path: '/v1/documents/{document_id}/certificates',
    auth: 'key',
    summary: 'Certificates of a document, newest first.',
    params: DocParams,
    status: 200,
    response: Type.Array(S.CertificateOut),
    errors: ['not_found'],
  },
  certificatePdf: {
    method: 'GET',
    path: '/v1/certificates/{certificate_id}/pdf',
    auth: 'key',
    summary: 'The certificate PDF of a certificate this account holds.',
    params: CertParams,
    status: 200,
    media: 'application/pdf',
    errors: ['not_found', 'certificate_file_deleted'],
  },
  checkCertificate: {
    method: 'GET',
    path: '/v1/certificates/{certificate_id}',
    auth: 'public',
    summary: 'Check a certificate by id (public).',
    params: CertParams,
    status: 200,
    response: S.CertificateCheckOut,
    errors: ['not_found'],
  },
  verifyCertificateFile: {
    method: 'POST',
    path: '/v1/certificates/verify',
    auth: 'public',
    summary: 'Check a certificate file by its exact bytes (public, multipart).',
    multipart: [{ name: 'file', type: 'file', required: true, description: 'the certificate PDF' }],
    status: 200,
    response: S.CertificateCheckOut,
    errors: [],
  },
  ocrLanguages: {
    method: 'GET',
    path: '/v1/ocr/languages',
    auth: 'key',
    summary: "The recognition languages the daemon's machine has, and where each comes from.",
    status: 200,
    response: S.OcrLanguagesOut,
    errors: [],
  },
  ocrPage: {
    method: 'POST',
    path: '/v1/documents/{document_id}/pages/{page_index}/ocr',
    auth: 'key',
    summary: 'Recognise words on a page (or a region) and find text among them.',
    params: PageParams,
    body: S.OcrSearchRequest,
    status: 200,
    response: S.OcrPageOut,
    errors: ['not_found', 'page_out_of_range'],
  },
  preflightPage: {
    method: 'POST',
    path: '/v1/documents/{document_id}/pages/{page_index}/preflight',
    auth: 'key',
    summary: 'Name the words on a page known to refuse correction (one-sided check).',
    params: PageParams,
    body: S.PreflightRequest,
    status: 200,
    response: S.PreflightOut,
    errors: ['not_found', 'page_out_of_range'],
  },
  searchDocument: {
    method: 'GET',
    path: '/v1/documents/{document_id}/search',
    auth: 'key',
    summary: 'Search the text layer of every text-bearing page.',
    params: DocParams,
    query: Type.Object(
      {
        q: Type.Optional(Type.String({ maxLength: 200, default: '' })),
        // The matching rule (docs/documents.md): exact and case-sensitive unless these say otherwise.
        ignore_case: Type.Optional(Type.Boolean({ default: false })),
        word: Type.Optional(Type.Boolean({ default: false })),
        pages: Type.Optional(
          Type.String({ pattern: PAGE_RANGES_PATTERN, maxLength: PAGE_RANGES_MAX_LENGTH }),
        ),
        limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: SEARCH_MATCH_CAP, default: SEARCH_MATCH_CAP }),
        ),
        count: Type.Optional(Type.Boolean({ default: false })),
      },
      strictQuery,
    ),
    status: 200,
    response: S.SearchOut,
    errors: ['not_found', 'page_out_of_range'],
  },
  pagePreview: {
    method: 'GET',
    path: '/v1/documents/{document_id}/pages/{page_index}/preview.png',
    auth: 'key',
    summary: 'A low-resolution page image.',
    params: PageParams,
    query: Type.Object(
      {
        revision: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        thumb: Type.Optional(Type.Boolean({ default: false })),
      },
      strictQuery,
    ),
    status: 200,
    media: 'image/png',
    errors: ['not_found', 'page_out_of_range'],
  },
  pageCrop: {
    method: 'GET',
    path: '/v1/documents/{document_id}/pages/{page_index}/crop.png',
    auth: 'key',
    summary: 'Native-resolution pixels of a page region.',
    params: PageParams,
    query: Type.Object(
      {
        x: Type.Integer({ minimum: 0, maximum: 100000 }),
        y: Type.Integer({ minimum: 0, maximum: 100000 }),
        w: Type.Integer({ minimum: 1, maximum: 100000 }),
        h: Type.Integer({ minimum: 1, maximum: 100000 }),
        dpi: Type.Optional(Type.Integer({ minimum: 0, maximum: 2400, default: 0 })),
        revision: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      strictQuery,
    ),
    status: 200,
    media: 'image/png',
    errors: [
      'not_found',
      'crop_too_large',
      'inspection_budget_spent',
      'page_out_of_range',
      'insufficient_storage',
    ],
  },
  getJob: {
    method: 'GET',
    path: '/v1/jobs/{job_id}',
    auth: 'key',
    summary: 'A queued job.',
    params: JobParams,
    status: 200,
    response: S.JobOut,
    errors: ['not_found'],
  },
  listAudit: {
    method: 'GET',
    path: '/v1/audit',
    auth: 'key',
    summary: "This account's audit record, newest first.",
    query: Type.Object(
      {
        subject_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
      },
      strictQuery,
    ),
    status: 200,
    response: Type.Array(S.AuditEntryOut),
    errors: [],
  },
  exportAudit: {
    method: 'GET',
    path: '/v1/audit/export',
    auth: 'key',
    summary: 'The whole audit record as a file with the chain verdict inside (docs/audit-export.md).',
    status: 200,
    media: 'application/x-ndjson',
    errors: ['business_plan_required'],
  },
  verifyAuditChain: {
    method: 'GET',
    path: '/v1/audit/verify-chain',
    auth: 'key',
    summary: 'Recompute the hash chain and say where it breaks, if anywhere.',
    status: 200,
    response: S.AuditChainOut,
    errors: [],
  },
} as const satisfies Record<string, RouteDef>;

export type RouteId = keyof typeof ROUTES;
export const ROUTE_IDS = Object.keys(ROUTES) as RouteId[];

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;
export type ParamsOf<R extends RouteId> = StaticOf<
  (typeof ROUTES)[R] extends { params: infer P } ? P : undefined
>;
export type QueryOf<R extends RouteId> = (typeof ROUTES)[R] extends { query: infer Q }
  ? Partial<StaticOf<Q>>
  : undefined;
export type BodyOf<R extends RouteId> = StaticOf<
  (typeof ROUTES)[R] extends { body: infer B } ? B : undefined
>;
export type ResponseOf<R extends RouteId> = (typeof ROUTES)[R] extends { response: infer T }
  ? StaticOf<T>
  : (typeof ROUTES)[R] extends { media: 'empty' }
    ? undefined
    : Uint8Array;

/** `/v1/documents/{document_id}` → `/v1/documents/:document_id` (fastify; a literal `:` doubles). */
export function fastifyPath(path: string): string {
  return path.replaceAll(':', '::').replace(/\{(\w+)\}/g, ':$1');
}

/** Fills `{name}` parameters of a route path, encoding each value. */
export function fillPath(path: string, params: Record<string, string | number> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
