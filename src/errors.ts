// The one table of error codes (spec Part 7): code → HTTP status → meaning → CLI exit code.
// The daemon answers with it, the OpenAPI document lists it, the API client rebuilds errors from it
// and the CLI maps codes to exit codes through it. test/src/errors.test.ts keeps it in step with the docs.

/** CLI exit codes, documented by `docfix help exit-codes` and docs/exit-codes.md. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  refused: 5,
  verification: 6,
  limit: 7,
  badFile: 8,
  conflict: 9,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** `edge` errors arrive at the top level of the body; the rest inside `detail` (spec Part 7). */
type Where = 'edge' | 'detail';

interface ErrorFacts {
  status: number;
  meaning: string;
  exit: ExitCode;
  where: Where;
}

const e = (status: number, exit: ExitCode, meaning: string, where: Where = 'detail'): ErrorFacts => ({
  status,
  meaning,
  exit,
  where,
});

export const ERRORS = {
  invalid_api_key: e(401, EXIT.auth, 'key unknown, wrong, expired or revoked', 'edge'),
  not_available_to_api_keys: e(403, EXIT.auth, 'route is for a signed-in person', 'edge'),
  missing_capability: e(403, EXIT.auth, 'caller lacks a permission'),
  account_suspended: e(403, EXIT.auth, 'account stopped from new work', 'edge'),
  too_many_requests: e(429, EXIT.limit, 'key used its allowance; carries Retry-After seconds', 'edge'),
  busy: e(
    503,
    EXIT.limit,
    'every engine slot in use and the engine queue full (engine work only: upload, propose, apply, OCR…); carries Retry-After; safe to resend',
    'edge',
  ),
  invalid_request: e(422, EXIT.usage, 'field missing or wrong shape; `problems` names each field', 'edge'),
  internal_error: e(500, EXIT.error, 'failure on the service side; nothing changed', 'edge'),
  insufficient_storage: e(
    507,
    EXIT.error,
    'no room on the service to record the change whole and durably; nothing changed; safe to resend later',
    'edge',
  ),
  tenant_isolation_violation: e(500, EXIT.error, 'an answer that would cross accounts was stopped', 'edge'),
  not_found: e(404, EXIT.notFound, 'no such document, job or certificate on this account'),
  file_too_large: e(413, EXIT.limit, "upload over the plan's size limit"),
  too_many_pages: e(422, EXIT.limit, 'more pages than the plan allows'),
  page_too_large: e(422, EXIT.badFile, 'a page too large to render at working resolution'),
  not_a_pdf: e(422, EXIT.badFile, 'file is not a PDF'),
  unreadable_pdf: e(422, EXIT.badFile, 'PDF could not be opened'),
  no_pages: e(422, EXIT.badFile, 'PDF has no pages'),
  password_protected: e(422, EXIT.badFile, 'document will not open without its password'),
  password_incorrect: e(422, EXIT.badFile, 'password did not open the document'),
  password_required: e(422, EXIT.badFile, 'document needs its password to be read'),
  not_protected: e(422, EXIT.usage, 'password sent with an unprotected document'),
  attestation_required: e(409, EXIT.refused, 'a correction needs an attestation first'),
  page_out_of_range: e(422, EXIT.usage, 'page index beyond the last page (indexes start at 0)'),
  stale_or_invalid_confirmation: e(409, EXIT.conflict, 'document changed after the proposal; propose again'),
  edit_refused: e(422, EXIT.refused, 'engine will not make the correction without it showing'),
  edit_failed: e(500, EXIT.error, 'correction could not be completed on the service side; nothing changed'),
  daily_limit_reached: e(429, EXIT.limit, 'free daily correction limit used'),
  nothing_to_undo: e(409, EXIT.conflict, 'no correction to step back from'),
  nothing_to_redo: e(409, EXIT.conflict, 'no correction has been undone'),
  no_revision: e(404, EXIT.conflict, 'document has no corrected version yet'),
  no_manifest: e(404, EXIT.conflict, 'corrected version carries no provenance record'),
  nothing_to_export: e(409, EXIT.conflict, 'no corrections to release'),
  not_verified: e(409, EXIT.verification, 'latest version not verified'),
  verification_hash_mismatch: e(409, EXIT.verification, 'document changed after it was verified'),
  verification_failed: e(409, EXIT.verification, 'verification did not pass'),
  diff_outside_expected_region: e(409, EXIT.verification, 'a correction changed pixels outside its region'),
  payment_required: e(402, EXIT.limit, 'nothing on the account pays for the download'),
  email_required: e(402, EXIT.limit, 'deployment not yet taking payments asks for an address first'),
  business_plan_required: e(402, EXIT.limit, 'route belongs to the Business plan'),
  crop_too_large: e(422, EXIT.usage, 'crop over 4 megapixels'),
  image_too_large: e(400, EXIT.badFile, 'a page carries an image over 100 megapixels'),
  inspection_budget_spent: e(
    429,
    EXIT.limit,
    "unpaid document: today's native pixels inside corrections used",
  ),
  nothing_to_certify: e(409, EXIT.conflict, 'no corrections to certify'),
  correction_not_verified: e(409, EXIT.verification, 'a correction did not verify; no certificate'),
  record_does_not_verify: e(409, EXIT.verification, 'the audit record does not recompute intact'),
  certificate_file_deleted: e(410, EXIT.notFound, 'document of the certificate was deleted with its file'),
} as const satisfies Record<string, ErrorFacts>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/**
 * A domain error: thrown deep (engine, storage, client), shown at the edge (daemon error handler,
 * CLI top level). `extra` carries the code's additional fields (advice, hint, problems, retry_after).
 */
export class DocfixError extends Error {
  override readonly name = 'DocfixError';
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message?: string,
    extra: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message ?? ERRORS[code].meaning, options);
    this.code = code;
    this.extra = extra;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }

  get exitCode(): ExitCode {
    return ERRORS[this.code].exit;
  }

  /** Plain data that survives structured clone (worker threads) and JSON (HTTP). */
  toJSON(): { error: ErrorCode; message: string } & Record<string, unknown> {
    return { ...this.extra, error: this.code, message: this.message };
  }

  /** Rebuilds an error from its plain form (worker message, HTTP body); unknown codes become internal. */
  static fromJSON(data: unknown, fallbackMessage = 'unexpected error'): DocfixError {
    if (data && typeof data === 'object' && 'error' in data) {
      const { error, message, ...extra } = data as Record<string, unknown>;
      if (isErrorCode(error)) {
        return new DocfixError(error, typeof message === 'string' ? message : undefined, extra);
      }
    }
    return new DocfixError('internal_error', fallbackMessage);
  }
}
