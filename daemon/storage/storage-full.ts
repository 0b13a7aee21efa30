// A full disk (or an exhausted quota) is not a failure of the service's code: it answers the
// documented 507 `insufficient_storage`, and whatever the failed write would have changed is undone.
import { DocfixError } from '../../src/errors.ts';

// Node's errno codes, and PostgreSQL's SQLSTATE 53100 disk_full (its transaction rolled back whole).
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', '53100']);

/** Is `error` (or an error it wraps) a filesystem's "no room left"? */
export function isStorageFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DocfixError) return e.code === 'insufficient_storage';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

export function insufficientStorage(what: string, cause?: unknown): DocfixError {
  return new DocfixError(
    'insufficient_storage',
    `The service has no room left to store ${what}; nothing changed. Try again once space is freed.`,
    {},
    cause === undefined ? undefined : { cause },
  );
}
