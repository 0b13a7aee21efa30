// A content-stream tokenizer that keeps byte offsets. Every token and every operator knows where it
// starts and ends in the decoded stream, so an edit can splice new bytes into the original buffer and
// leave every other byte as it was (docs/engine.md, "Content streams").
import { decodeName } from '../../pdf/object-syntax.ts';

export type Operand =
  | { kind: 'number'; value: number; start: number; end: number }
  | { kind: 'string'; bytes: Uint8Array; hex: boolean; start: number; end: number }
  | { kind: 'name'; value: string; start: number; end: number }
  | { kind: 'bool'; value: boolean; start: number; end: number }
  | { kind: 'null'; start: number; end: number }
  | { kind: 'array'; items: Operand[]; start: number; end: number }
  | { kind: 'dict'; entries: Record<string, Operand>; start: number; end: number };

export interface ContentOp {
  /** Operator keyword (`Tj`, `cm`, `BI` …). */
  op: string;
  operands: Operand[];
  /** Byte offset of the first operand (or of the operator when it has none). */
  start: number;
  /** Byte offset just past the operator keyword (for `BI`, past the closing `EI`). */
  end: number;
  /** Some operands came from the previous part of the page's /Contents (offsets not in this part). */
  carried?: boolean;
}

const WS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WS[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;

const isRegular = (c: number) => !WS[c] && !DELIM[c];

/** Thrown for a stream the tokenizer cannot read (the engine then refuses rather than guessing). */
export class ContentSyntaxError extends Error {
  override readonly name = 'ContentSyntaxError';
}

type Token = Operand | { kind: 'op'; value: string; start: number; end: number };

/** A tokenizer over one decoded content stream: `pos` is where it reads next. */
class ContentReader {
  readonly bytes: Uint8Array;
  readonly n: number;
  pos = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.n = bytes.length;
  }

  skipWs(): void {
    const { bytes, n } = this;
    while (this.pos < n) {
      const c = bytes[this.pos];
      if (WS[c]) this.pos += 1;
      else if (c === 0x25 /* % */) {
        while (this.pos < n && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos += 1;
      } else break;
    }
  }

  /** The next operand or operator, or null at the end of the stream. */
  readToken(): Token | null {
    const { bytes } = this;
    this.skipWs();
    if (this.pos >= this.n) return null;
    const start = this.pos;
    const c = bytes[this.pos];
    if (c === 0x28 /* ( */) return this.readLiteral();
    if (c === 0x3c /* < */) return bytes[this.pos + 1] === 0x3c ? this.readDict(start) : this.readHex();
    if (c === 0x5b /* [ */) return this.readArray(start);
    if (c === 0x2f /* / */) return this.readName(start);
    if (c === 0x5d || c === 0x3e || c === 0x29 || c === 0x7b || c === 0x7d) {
      this.pos += 1;
      throw new ContentSyntaxError(`unexpected '${String.fromCharCode(c)}' at ${start}`);
    }
    return this.readWord(start);
  }

  readDict(start: number): Operand {
    const { bytes, n } = this;
    this.pos += 2;
    const entries: Record<string, Operand> = {};
    for (;;) {
      this.skipWs();
      if (this.pos >= n) throw new ContentSyntaxError('unterminated dictionary');
      if (bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { kind: 'dict', entries, start, end: this.pos };
      }
      const key = this.readToken();
      if (!key || key.kind !== 'name') throw new ContentSyntaxError('dictionary key is not a name');
      const value = this.readToken();
      if (!value || value.kind === 'op') throw new ContentSyntaxError('dictionary value missing');
      entries[key.value] = value;
    }
  }

  readArray(start: number): Operand {
    const { bytes, n } = this;
    this.pos += 1;
    const items: Operand[] = [];
    for (;;) {
      this.skipWs();
      if (this.pos >= n) throw new ContentSyntaxError('unterminated array');
      if (bytes[this.pos] === 0x5d) {
        this.pos += 1;
        return { kind: 'array', items, start, end: this.pos };
      }
      const item = this.readToken();
      if (!item) throw new ContentSyntaxError('unterminated array');
      if (item.kind === 'op') {
        // Keywords inside arrays (true/false/null handled below) are not valid operands.
        throw new ContentSyntaxError(`operator ${item.value} inside an array`);
      }
      items.push(item);
    }
  }

  readName(start: number): Operand {
    const { bytes, n } = this;
    this.pos += 1;
    while (this.pos < n && isRegular(bytes[this.pos])) this.pos += 1;
    const raw = latin1(bytes, start + 1, this.pos);
    return {
      kind: 'name',
      value: decodeName(raw),
      start,
      end: this.pos,
    };
  }

  /** A number, a boolean, null, or an operator. */
  readWord(start: number): Token {
    const { bytes, n } = this;
    while (this.pos < n && isRegular(bytes[this.pos])) this.pos += 1;
    const word = latin1(bytes, start, this.pos);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) || /^[+-]?\d*\.?\d*$/.test(word)) {
      const value = Number(word.replace(/^([+-]?)\./, '$10.').replace(/\.$/, ''));
      if (Number.isFinite(value)) return { kind: 'number', value, start, end: this.pos };
      if (/^[+-]?\.?$/.test(word)) return { kind: 'number', value: 0, start, end: this.pos };
    }
    if (word === 'true' || word === 'false')
      return { kind: 'bool', value: word === 'true', start, end: this.pos };
    if (word === 'null') return { kind: 'null', start, end: this.pos };
    return { kind: 'op', value: word, start, end: this.pos };
  }

  readLiteral(): Operand {
    const { bytes, n } = this;
    const start = this.pos;
    this.pos += 1;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < n) {
      const c = bytes[this.pos];
      if (c === 0x5c /* \ */) {
        this.pos += 1;
        const e = bytes[this.pos];
        if (e === undefined) break;
        if (e >= 0x30 && e <= 0x37) {
          let v = 0;
          let k = 0;
          while (k < 3 && this.pos < n && bytes[this.pos] >= 0x30 && bytes[this.pos] <= 0x37) {
            v = v * 8 + (bytes[this.pos] - 0x30);
            this.pos += 1;
            k += 1;
          }
          out.push(v & 0xff);
          continue;
        }
        this.pos += 1;
        if (e === 0x6e) out.push(0x0a);
        else if (e === 0x72) out.push(0x0d);
        else if (e === 0x74) out.push(0x09);
        else if (e === 0x62) out.push(0x08);
        else if (e === 0x66) out.push(0x0c);
        else if (e === 0x0d) {
          if (bytes[this.pos] === 0x0a) this.pos += 1; // line continuation
        } else if (e === 0x0a) {
          // line continuation
        } else out.push(e);
        continue;
      }
      if (c === 0x28) depth += 1;
      else if (c === 0x29) {
        depth -= 1;
        if (depth === 0) {
          this.pos += 1;
          return { kind: 'string', bytes: Uint8Array.from(out), hex: false, start, end: this.pos };
        }
      }
      out.push(c);
      this.pos += 1;
    }
    throw new ContentSyntaxError('unterminated string');
  }

  readHex(): Operand {
    const { bytes, n } = this;
    const start = this.pos;
    this.pos += 1;
    const digits: number[] = [];
    while (this.pos < n && bytes[this.pos] !== 0x3e) {
      const c = bytes[this.pos];
      const d = hexValue(c);
      if (d >= 0) digits.push(d);
      else if (!WS[c]) throw new ContentSyntaxError('bad hex string');
      this.pos += 1;
    }
    if (this.pos >= n) throw new ContentSyntaxError('unterminated hex string');
    this.pos += 1;
    if (digits.length % 2) digits.push(0);
    const out = new Uint8Array(digits.length / 2);
    for (let i = 0; i < out.length; i += 1) out[i] = digits[2 * i] * 16 + digits[2 * i + 1];
    return { kind: 'string', bytes: out, hex: true, start, end: this.pos };
  }

  /** Inline image: dictionary up to ID, then binary data up to a whitespace-delimited EI. */
  readInlineImage(start: number): ContentOp {
    const { bytes, n } = this;
    const entries: Operand[] = [];
    for (;;) {
      const t = this.readToken();
      if (!t) throw new ContentSyntaxError('unterminated inline image');
      if (t.kind === 'op' && t.value === 'ID') break;
      if (t.kind === 'op') throw new ContentSyntaxError('bad inline image dictionary');
      entries.push(t);
    }
    this.pos += 1; // one whitespace byte after ID
    let end = -1;
    for (let i = this.pos; i + 1 < n; i += 1) {
      if (
        bytes[i] === 0x45 &&
        bytes[i + 1] === 0x49 &&
        (i === 0 || WS[bytes[i - 1]]) &&
        (i + 2 >= n || WS[bytes[i + 2]] || DELIM[bytes[i + 2]])
      ) {
        end = i + 2;
        break;
      }
    }
    if (end < 0) throw new ContentSyntaxError('inline image without EI');
    this.pos = end;
    return { op: 'BI', operands: entries, start, end };
  }
}

/**
 * Splits a decoded content stream into operators with their operands. Operands left on the stack at
 * the end of the stream are returned in `trailing` (a stream may continue in the next part of a
 * page's /Contents array).
 */
export function parseContent(bytes: Uint8Array): { ops: ContentOp[]; trailing: Operand[] } {
  const reader = new ContentReader(bytes);
  const ops: ContentOp[] = [];
  let stack: Operand[] = [];
  for (;;) {
    const tok = reader.readToken();
    if (!tok) break;
    if (tok.kind !== 'op') {
      stack.push(tok);
      continue;
    }
    const start = stack.length ? stack[0].start : tok.start;
    if (tok.value === 'BI') {
      ops.push(reader.readInlineImage(start));
      stack = [];
      continue;
    }
    ops.push({ op: tok.value, operands: stack, start, end: tok.end });
    stack = [];
  }
  return { ops, trailing: stack };
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i += 1) s += String.fromCharCode(bytes[i]);
  return s;
}

/** Serialises string bytes as a PDF string token: hex when `hex`, else a literal with escapes. */
export function encodeString(bytes: Uint8Array, hex: boolean): string {
  if (hex) {
    let s = '<';
    for (const b of bytes) s += b.toString(16).padStart(2, '0').toUpperCase();
    return `${s}>`;
  }
  let s = '(';
  for (const b of bytes) {
    if (b === 0x28 || b === 0x29 || b === 0x5c) s += `\\${String.fromCharCode(b)}`;
    else if (b >= 0x20 && b < 0x7f) s += String.fromCharCode(b);
    else s += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${s})`;
}

/** A number as a content-stream token: at most 4 decimals, no exponent, no trailing zeros. */
export function formatNumber(v: number): string {
  if (Object.is(v, -0) || Math.abs(v) < 5e-5) return '0';
  const s = v.toFixed(4).replace(/\.?0+$/, '');
  return s === '-0' ? '0' : s;
}

/** Replaces byte ranges of `bytes`; edits must not overlap. Bytes outside the ranges are kept. */
export function spliceBytes(
  bytes: Uint8Array,
  edits: { start: number; end: number; text: string }[],
): Uint8Array {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error('overlapping content-stream edits');
    parts.push(bytes.subarray(at, e.start));
    parts.push(Buffer.from(e.text, 'latin1'));
    at = e.end;
  }
  parts.push(bytes.subarray(at));
  return new Uint8Array(Buffer.concat(parts));
}

/** A name token for `n` (PDF 32000-1 7.3.5: delimiters, `#` and bytes outside ! … ~ as #xx). */
export const nameToken = (n: string): string =>
  `/${[...Buffer.from(n, 'latin1')].map((b) => (b > 0x20 && b < 0x7f && !'()<>[]{}/%#'.includes(String.fromCharCode(b)) ? String.fromCharCode(b) : `#${b.toString(16).padStart(2, '0')}`)).join('')}`;

/** A number written so a reader gets the same double back (no rounding to 4 decimals). */
export const exactNumber = (v: number): string => {
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(12).replace(/\.?0+$/, '') : s;
};
