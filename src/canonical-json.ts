// Canonical JSON (RFC 8785, JCS): object keys sorted by UTF-16 code units, no white space, numbers
// and strings as ECMAScript serialises them. Hashes and signatures are computed over this form, so
// two parties holding the same data compute the same bytes.
//
// Accepted: null, booleans, finite numbers, strings (well-formed UTF-16), arrays and plain objects.
// Object properties whose value is `undefined` are left out and array holes become null (as
// JSON.stringify does); an object with a toJSON method (a Date) is encoded through it. Anything else
// (NaN, Infinity, BigInt, functions, symbols, lone surrogates) is refused with a TypeError rather than
// silently changed, because a signature over changed data would be a signature over something else.

export function canonicalize(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
    // ECMAScript Number::toString, as RFC 8785 §3.2.2.3 asks; -0 becomes 0.
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return encodeString(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalize(item ?? null)).join(',')}]`;
  if (typeof value === 'object') {
    const withToJson = value as { toJSON?: unknown };
    if (typeof withToJson.toJSON === 'function') {
      return canonicalize((withToJson.toJSON as () => unknown).call(value));
    }
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)); // `<` on strings compares UTF-16 code units
    return `{${entries.map(([k, v]) => `${encodeString(k)}:${canonicalize(v)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot encode ${typeof value}`);
}

/** The canonical form as UTF-8 bytes (what is hashed and signed). */
export function canonicalBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(canonicalize(value));
}

/** True when `text` is exactly the canonical form of the JSON it parses to. */
export function isCanonical(text: string): boolean {
  try {
    return canonicalize(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

function encodeString(value: string): string {
  if (!value.isWellFormed())
    throw new TypeError('canonical JSON strings must be well-formed UTF-16 (lone surrogate)');
  // JSON.stringify escapes exactly what RFC 8785 §3.2.2.2 asks: " \ and U+0000..U+001F (as \b \t \n
  // \f \r or \u00xx in lowercase hex); everything else is written as itself.
  return JSON.stringify(value);
}
