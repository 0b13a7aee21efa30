// PDF object syntax read from file bytes, keeping every token's text and byte span. MuPDF holds
// real numbers as 32-bit floats, so its own view of an object cannot say what the file wrote;
// this reader can, which is what lets a save keep `841.889764` as written (docs/engine.md, "Exact
// numbers") and lets the structural guard compare objects token for token.

export type PdfValue =
  | { kind: 'number'; text: string; start: number; end: number }
  | { kind: 'name'; text: string; start: number; end: number }
  | { kind: 'string'; text: string; start: number; end: number }
  | { kind: 'keyword'; text: string; start: number; end: number }
  | { kind: 'ref'; num: number; gen: number; text: string; start: number; end: number }
  | { kind: 'array'; items: PdfValue[]; start: number; end: number }
  | { kind: 'dict'; entries: Map<string, PdfValue>; start: number; end: number };

export class PdfSyntaxError extends Error {
  override readonly name = 'PdfSyntaxError';
}

const WS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) WS[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
const INTEGER = /^\d+$/;

/** Bytes as latin-1 text; a short token (most are) built directly, not through a Buffer view. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  if (end - start > 32)
    return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
  let text = '';
  for (let i = start; i < end; i += 1) text += String.fromCharCode(bytes[i]);
  return text;
}

function digitsOnly(bytes: Uint8Array, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let i = start; i < end; i += 1) if (bytes[i] < 0x30 || bytes[i] > 0x39) return false;
  return true;
}

/** A name's characters, its #xx escapes decoded (writers escape a name's characters their own way). */
export const decodeName = (s: string) =>
  s.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** Skips white space and comments from `pos`; returns the next position. */
export function skipSpace(bytes: Uint8Array, pos: number): number {
  const n = bytes.length;
  while (pos < n) {
    const c = bytes[pos];
    if (WS[c]) pos += 1;
    else if (c === 0x25) {
      while (pos < n && bytes[pos] !== 0x0a && bytes[pos] !== 0x0d) pos += 1;
    } else break;
  }
  return pos;
}

/** Reads a run of regular characters (a number, keyword or name body) from `pos`. */
function regularEnd(bytes: Uint8Array, pos: number): number {
  while (pos < bytes.length && !WS[bytes[pos]] && !DELIM[bytes[pos]]) pos += 1;
  return pos;
}

function literalEnd(bytes: Uint8Array, pos: number): number {
  let depth = 0;
  for (let i = pos; i < bytes.length; i += 1) {
    const c = bytes[i];
    if (c === 0x5c) i += 1;
    else if (c === 0x28) depth += 1;
    else if (c === 0x29) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  throw new PdfSyntaxError('unterminated string');
}

/** Parses one value at `pos` (after white space). `R` references are recognised. */
export function parseValue(bytes: Uint8Array, pos: number, depth = 0): PdfValue {
  if (depth > 256) throw new PdfSyntaxError('objects nested too deep');
  pos = skipSpace(bytes, pos);
  if (pos >= bytes.length) throw new PdfSyntaxError('unexpected end of data');
  const start = pos;
  const c = bytes[pos];
  if (c === 0x28) {
    const end = literalEnd(bytes, pos);
    return { kind: 'string', text: latin1(bytes, start, end), start, end };
  }
  if (c === 0x3c && bytes[pos + 1] === 0x3c) {
    pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      pos = skipSpace(bytes, pos);
      if (pos >= bytes.length) throw new PdfSyntaxError('unterminated dictionary');
      if (bytes[pos] === 0x3e && bytes[pos + 1] === 0x3e)
        return { kind: 'dict', entries, start, end: pos + 2 };
      const key = parseValue(bytes, pos, depth + 1);
      if (key.kind !== 'name') throw new PdfSyntaxError('dictionary key is not a name');
      const value = parseValue(bytes, key.end, depth + 1);
      entries.set(key.text, value);
      pos = value.end;
    }
  }
  if (c === 0x3c) {
    const close = bytes.indexOf(0x3e, pos);
    if (close < 0) throw new PdfSyntaxError('unterminated hex string');
    return { kind: 'string', text: latin1(bytes, start, close + 1), start, end: close + 1 };
  }
  if (c === 0x5b) {
    pos += 1;
    const items: PdfValue[] = [];
    for (;;) {
      pos = skipSpace(bytes, pos);
      if (pos >= bytes.length) throw new PdfSyntaxError('unterminated array');
      if (bytes[pos] === 0x5d) return { kind: 'array', items, start, end: pos + 1 };
      const item = parseValue(bytes, pos, depth + 1);
      items.push(item);
      pos = item.end;
    }
  }
  if (c === 0x2f) {
    const end = regularEnd(bytes, pos + 1);
    return { kind: 'name', text: latin1(bytes, start, end), start, end };
  }
  if (DELIM[c]) throw new PdfSyntaxError(`unexpected '${String.fromCharCode(c)}'`);
  const end = regularEnd(bytes, pos);
  const text = latin1(bytes, start, end);
  if (digitsOnly(bytes, start, end)) {
    // `N G R` is a reference: look ahead two tokens.
    const p1 = skipSpace(bytes, end);
    const e1 = regularEnd(bytes, p1);
    if (digitsOnly(bytes, p1, e1)) {
      const p2 = skipSpace(bytes, e1);
      const e2 = regularEnd(bytes, p2);
      if (e2 === p2 + 1 && bytes[p2] === 0x52 /* R */) {
        return {
          kind: 'ref',
          num: Number(text),
          gen: Number(latin1(bytes, p1, e1)),
          text: latin1(bytes, start, e2),
          start,
          end: e2,
        };
      }
    }
  }
  if (NUMBER.test(text)) return { kind: 'number', text, start, end };
  return { kind: 'keyword', text, start, end };
}

export interface IndirectObject {
  num: number;
  gen: number;
  /** Offset of the object's first digit (`N G obj`). */
  start: number;
  /** Offset just past `endobj`. */
  end: number;
  value: PdfValue;
  /** The stream's data span (between `stream` EOL and `endstream`), when the object is a stream. */
  stream: { start: number; end: number } | null;
}

const KEYWORD = (bytes: Uint8Array, pos: number, word: string) => {
  for (let i = 0; i < word.length; i += 1) if (bytes[pos + i] !== word.charCodeAt(i)) return false;
  const after = bytes[pos + word.length];
  return after === undefined || WS[after] === 1 || DELIM[after] === 1;
};

/** Reads `N G obj … endobj` at `pos`. A stream's length is taken from a direct /Length or found by `endstream`. */
export function parseIndirect(bytes: Uint8Array, pos: number): IndirectObject {
  const start = skipSpace(bytes, pos);
  const e1 = regularEnd(bytes, start);
  const p2 = skipSpace(bytes, e1);
  const e2 = regularEnd(bytes, p2);
  const p3 = skipSpace(bytes, e2);
  if (
    !INTEGER.test(latin1(bytes, start, e1)) ||
    !INTEGER.test(latin1(bytes, p2, e2)) ||
    !KEYWORD(bytes, p3, 'obj')
  )
    throw new PdfSyntaxError(`no object header at offset ${start}`);
  const num = Number(latin1(bytes, start, e1));
  const gen = Number(latin1(bytes, p2, e2));
  const value = parseValue(bytes, p3 + 3);
  let pos2 = skipSpace(bytes, value.end);
  let stream: IndirectObject['stream'] = null;
  if (KEYWORD(bytes, pos2, 'stream')) {
    let dataStart = pos2 + 6;
    if (bytes[dataStart] === 0x0d) dataStart += 1;
    if (bytes[dataStart] === 0x0a) dataStart += 1;
    const length = value.kind === 'dict' ? value.entries.get('/Length') : undefined;
    let dataEnd = -1;
    if (length?.kind === 'number' && INTEGER.test(length.text)) {
      const candidate = dataStart + Number(length.text);
      const after = skipSpace(bytes, candidate);
      if (KEYWORD(bytes, after, 'endstream')) dataEnd = candidate;
    }
    if (dataEnd < 0) {
      const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(
        'endstream',
        dataStart,
        'latin1',
      );
      if (at < 0) throw new PdfSyntaxError(`object ${num}: stream without endstream`);
      dataEnd = at;
      // The EOL before `endstream` is not data.
      if (bytes[dataEnd - 1] === 0x0a) dataEnd -= 1;
      if (bytes[dataEnd - 1] === 0x0d) dataEnd -= 1;
    }
    stream = { start: dataStart, end: dataEnd };
    pos2 = skipSpace(bytes, dataEnd) + 'endstream'.length;
    pos2 = skipSpace(bytes, pos2);
  }
  if (!KEYWORD(bytes, pos2, 'endobj')) throw new PdfSyntaxError(`object ${num}: no endobj`);
  return { num, gen, start, end: pos2 + 6, value, stream };
}

/** The value's text exactly as the bytes write it. */
export function valueText(bytes: Uint8Array, v: PdfValue): string {
  return latin1(bytes, v.start, v.end);
}

/** A dictionary entry by key (with the slash), or undefined. */
export function dictGet(v: PdfValue | undefined, key: string): PdfValue | undefined {
  return v?.kind === 'dict' ? v.entries.get(key) : undefined;
}

/** An integer value, or null. */
export function intOf(v: PdfValue | undefined): number | null {
  return v?.kind === 'number' && /^[+-]?\d+$/.test(v.text) ? Number(v.text) : null;
}

const ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, b: 0x08, f: 0x0c };

/** A string token's bytes: hex decoded, or literal with its escapes (as readers see it). */
export function stringBytes(token: string): Buffer {
  if (token.startsWith('<')) {
    const hex = token.slice(1, -1).replace(/[^0-9a-fA-F]/g, '');
    return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  }
  const out: number[] = [];
  const body = token.slice(1, -1);
  for (let i = 0; i < body.length; i += 1) {
    let c = body[i];
    if (c === '\r' && body[i + 1] === '\n') i += 1; // an end of line in a literal reads as \n
    if (c === '\r') c = '\n';
    if (c !== '\\') {
      out.push(c.charCodeAt(0));
      continue;
    }
    const e = body[++i];
    if (e === undefined) break;
    if (e in ESCAPES) out.push(ESCAPES[e]);
    else if (/[0-7]/.test(e)) {
      let oct = e;
      while (oct.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) oct += body[++i];
      out.push(parseInt(oct, 8) & 0xff);
    } else if (e === '\r') {
      if (body[i + 1] === '\n') i += 1;
    } else if (e !== '\n') out.push(e.charCodeAt(0));
  }
  return Buffer.from(out);
}
