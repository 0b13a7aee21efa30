// Where each object of a PDF file is written: the cross-reference chain read from the bytes
// (classic tables, cross-reference streams, hybrid files, object streams), newest section first.
// Used to find the exact text an object had before a save, independently of MuPDF's parsed view.
import { inflateSync } from 'node:zlib';
import { keepsPrefix } from './kept-prefix.ts';
import { dictGet, intOf, parseIndirect, parseValue, skipSpace, type PdfValue } from './object-syntax.ts';

export type XrefEntry = { type: 1; offset: number } | { type: 2; stream: number; index: number };

/** Decoded bytes of a stream object by number (filters and decryption applied), or null. */
export type StreamDecoder = (num: number) => Uint8Array | null;

export interface ObjectSource {
  /** Bytes holding the object's value, and where the value starts in them. */
  bytes: Uint8Array;
  value: PdfValue;
  /** Stream data span in `bytes`, for stream objects written in the file itself. */
  stream: { start: number; end: number } | null;
}

const text = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');

/** The offset the file's last `startxref` gives (whatever follows its %%EOF), or null. */
export function lastStartxref(bytes: Uint8Array): number | null {
  const tail = text(bytes, Math.max(0, bytes.length - 2048), bytes.length);
  const at = tail.lastIndexOf('startxref');
  if (at < 0) return null;
  const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
  return m ? Number(m[1]) : null;
}

/** PNG predictors (10–15) undone row by row, as cross-reference streams use them. */
function unpredict(data: Uint8Array, columns: number): Uint8Array {
  const rowLen = columns + 1;
  const rows = Math.floor(data.length / rowLen);
  const out = new Uint8Array(rows * columns);
  for (let r = 0; r < rows; r += 1) {
    const type = data[r * rowLen];
    for (let c = 0; c < columns; c += 1) {
      const raw = data[r * rowLen + 1 + c];
      const up = r > 0 ? out[(r - 1) * columns + c] : 0;
      const left = c > 0 ? out[r * columns + c - 1] : 0;
      let v = raw;
      if (type === 1) v = raw + left;
      else if (type === 2) v = raw + up;
      else if (type === 3) v = raw + ((left + up) >> 1);
      else if (type === 4) {
        const ul = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1] : 0;
        const p = left + up - ul;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - ul);
        v = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : ul);
      }
      out[r * columns + c] = v & 0xff;
    }
  }
  return out;
}

/** Decodes a cross-reference stream's data (Flate with or without PNG predictor; unfiltered). */
export function xrefStreamData(
  bytes: Uint8Array,
  dict: PdfValue,
  span: { start: number; end: number },
): Uint8Array {
  const raw = bytes.subarray(span.start, span.end);
  const filter = dictGet(dict, '/Filter');
  const filterName = filter?.kind === 'array' ? filter.items[0] : filter;
  let data: Uint8Array;
  if (!filterName) data = raw;
  else if (filterName.kind === 'name' && (filterName.text === '/FlateDecode' || filterName.text === '/Fl'))
    data = new Uint8Array(inflateSync(raw));
  else throw new Error(`cross-reference stream filter ${filterName.kind === 'name' ? filterName.text : '?'}`);
  const parms = dictGet(dict, '/DecodeParms');
  const parm = parms?.kind === 'array' ? parms.items[0] : parms;
  const predictor = intOf(dictGet(parm, '/Predictor')) ?? 1;
  if (predictor >= 10) data = unpredict(data, intOf(dictGet(parm, '/Columns')) ?? 1);
  else if (predictor !== 1) throw new Error(`cross-reference stream predictor ${predictor}`);
  return data;
}

/** A cross-reference stream's object number of each row, from /Index (default: from 0 to /Size). */
export function xrefStreamNumbers(dict: PdfValue): number[] {
  const indexV = dictGet(dict, '/Index');
  const index =
    indexV?.kind === 'array'
      ? indexV.items.map((x) => intOf(x) ?? 0)
      : [0, intOf(dictGet(dict, '/Size')) ?? 0];
  const nums: number[] = [];
  for (let s = 0; s + 1 < index.length; s += 2)
    for (let i = 0; i < index[s + 1]; i += 1) nums.push(index[s] + i);
  return nums;
}

/** Reads entries of a cross-reference stream's decoded data into `into` (first writer wins). */
export function readXrefStreamEntries(dict: PdfValue, data: Uint8Array, into: Map<number, XrefEntry>): void {
  const w = dictGet(dict, '/W');
  if (w?.kind !== 'array' || w.items.length < 3) throw new Error('cross-reference stream without /W');
  const widths = w.items.map((x) => intOf(x) ?? 0);
  const rowLen = widths[0] + widths[1] + widths[2];
  let pos = 0;
  const field = (width: number, dflt: number) => {
    if (width === 0) return dflt;
    let v = 0;
    for (let i = 0; i < width; i += 1) v = v * 256 + data[pos + i];
    pos += width;
    return v;
  };
  for (const num of xrefStreamNumbers(dict)) {
    if (pos + rowLen > data.length) return;
    const type = field(widths[0], 1);
    const f2 = field(widths[1], 0);
    const f3 = field(widths[2], 0);
    if (into.has(num)) continue;
    if (type === 1) into.set(num, { type: 1, offset: f2 });
    else if (type === 2) into.set(num, { type: 2, stream: f2, index: f3 });
    else into.set(num, { type: 1, offset: -1 }); // free: shadows older sections
  }
}

function readClassicTable(bytes: Uint8Array, pos: number, into: Map<number, XrefEntry>): number {
  // `xref` then subsections `first count` with 20-byte lines; returns the position of `trailer`.
  pos = skipSpace(bytes, pos + 4);
  for (;;) {
    const header = /^(\d+)\s+(\d+)/.exec(text(bytes, pos, Math.min(bytes.length, pos + 40)));
    if (!header) return pos;
    const first = Number(header[1]);
    const count = Number(header[2]);
    pos = skipSpace(bytes, pos + header[0].length);
    for (let i = 0; i < count; i += 1) {
      const line = /^(\d+)\s+(\d+)\s+([nf])/.exec(text(bytes, pos, Math.min(bytes.length, pos + 24)));
      if (!line) throw new Error('malformed cross-reference line');
      const num = first + i;
      if (!into.has(num))
        into.set(num, line[3] === 'n' ? { type: 1, offset: Number(line[1]) } : { type: 1, offset: -1 });
      pos = skipSpace(bytes, pos + line[0].length);
    }
  }
}

/** A file's cross-reference chain as read: entries (newest section first) and the newest trailer. */
export interface XrefRead {
  entries: Map<number, XrefEntry>;
  trailer: PdfValue;
}

/**
 * Every object's location in the file, following /Prev (and hybrid /XRefStm) from the last startxref.
 * With `base` (the chain of a file these bytes extend, `base.length` bytes long): the sections written
 * after it are read, and where the chain steps back to the base's own last section, the base's
 * entries are taken as read (an incremental update is read in proportion to what it appends).
 */
export function readXref(
  bytes: Uint8Array,
  base?: { length: number; startxref: number; read: XrefRead },
): XrefRead {
  const entries = new Map<number, XrefEntry>();
  let trailer: PdfValue | null = null;
  let offset = lastStartxref(bytes);
  const seen = new Set<number>();
  while (offset !== null && offset >= 0 && offset < bytes.length && !seen.has(offset)) {
    if (base && offset < base.length) {
      if (offset !== base.startxref) return readXref(bytes);
      for (const [num, entry] of base.read.entries) if (!entries.has(num)) entries.set(num, entry);
      trailer ??= base.read.trailer;
      break;
    }
    seen.add(offset);
    const at = skipSpace(bytes, offset);
    let dict: PdfValue;
    if (text(bytes, at, at + 4) === 'xref') {
      const tpos = readClassicTable(bytes, at, entries);
      if (text(bytes, tpos, tpos + 7) !== 'trailer')
        throw new Error('no trailer after the cross-reference table');
      dict = parseValue(bytes, tpos + 7);
      const stm = intOf(dictGet(dict, '/XRefStm'));
      if (stm !== null) {
        const obj = parseIndirect(bytes, stm);
        if (obj.stream)
          readXrefStreamEntries(obj.value, xrefStreamData(bytes, obj.value, obj.stream), entries);
      }
    } else {
      const obj = parseIndirect(bytes, at);
      if (!obj.stream) throw new Error('startxref points at neither a table nor a stream');
      dict = obj.value;
      readXrefStreamEntries(dict, xrefStreamData(bytes, dict, obj.stream), entries);
    }
    trailer ??= dict;
    offset = intOf(dictGet(dict, '/Prev'));
  }
  if (!trailer) throw new Error('no cross-reference section found');
  return { entries, trailer };
}

/** A file's objects by number, read lazily; falls back to a scan for `N G obj` when the xref is broken. */
export class ObjectIndex {
  readonly bytes: Uint8Array;
  readonly entries: Map<number, XrefEntry>;
  readonly trailer: PdfValue | null;
  /** True when the cross-reference chain could not be read and objects were found by scanning. */
  readonly scanned: boolean;
  private readonly decode: StreamDecoder;
  private found: Map<number, XrefEntry> | undefined;
  /**
   * True once some offset of the cross-reference table is found not to hold its object: readers
   * then repair the file by scanning it, and see objects the table calls free or leaves out.
   */
  private broken: boolean | undefined;
  private readonly objstms = new Map<number, { data: Uint8Array; offsets: Map<number, number> } | null>();

  /**
   * `read`: the chain already read (xrefOf), so a file indexed before is not read again. `extends`: an
   * index of a file these bytes keep as their prefix (an incremental update of it): only the sections
   * appended are read.
   */
  constructor(
    bytes: Uint8Array,
    decode: StreamDecoder,
    from: { read?: XrefRead; extends?: ObjectIndex } = {},
  ) {
    this.bytes = bytes;
    this.decode = decode;
    let entries: Map<number, XrefEntry>;
    let trailer: PdfValue | null = null;
    let scanned = false;
    try {
      ({ entries, trailer } = from.read ?? readXref(bytes, from.extends && prefixChain(from.extends, bytes)));
    } catch {
      entries = scanObjects(bytes);
      scanned = true;
    }
    this.entries = entries;
    this.trailer = trailer;
    this.scanned = scanned;
  }

  /** The file says object `num` is in use (whether or not it can be read). */
  inUse(num: number): boolean {
    const e = this.entries.get(num);
    if (e !== undefined && (e.type === 2 || e.offset >= 0)) return true;
    // Listed as free: true only in a broken table that the file contradicts. Not listed at all (a
    // new object's number, asked often): decided only once the table is known to be broken.
    if (e !== undefined) this.checkOffsets();
    return this.broken === true && this.scan().has(num);
  }

  /** The cross-reference chain is missing or unreadable, or an offset in it misses its object. */
  damaged(): boolean {
    this.checkOffsets();
    return this.scanned || this.broken === true;
  }

  private checkOffsets(): void {
    this.broken ??=
      !this.scanned &&
      [...this.entries].some(([n, e]) => e.type === 1 && e.offset >= 0 && !this.parseAt(e.offset, n));
  }

  /** Object numbers that are in use (with those a repairing reader finds, when the xref is broken). */
  numbers(): number[] {
    const listed = [...this.entries].filter(([, e]) => e.type === 2 || e.offset >= 0).map(([n]) => n);
    // Every offset is checked here (the full list is wanted only to compare a file object by object).
    this.checkOffsets();
    if (!this.broken) return listed;
    const all = new Set(listed);
    for (const n of this.scan().keys()) all.add(n);
    return [...all];
  }

  private scan(): Map<number, XrefEntry> {
    this.found ??= scanObjects(this.bytes);
    return this.found;
  }

  /** The object's value as the file writes it, or null when it is free or cannot be read. */
  get(num: number): ObjectSource | null {
    const e = this.entries.get(num);
    if (!e) return this.broken ? this.repaired(num) : null;
    try {
      if (e.type === 1) {
        if (e.offset < 0) {
          this.checkOffsets();
          return this.broken ? this.repaired(num) : null;
        }
        let obj = this.parseAt(e.offset, num);
        if (!obj) {
          // The table's offset does not hold the object: the file is broken, and is read as repaired.
          this.broken = !this.scanned;
          obj = this.parseFound(num);
        }
        return obj && { bytes: this.bytes, value: obj.value, stream: obj.stream };
      }
      const stm = this.objectStream(e.stream);
      const at = stm?.offsets.get(num);
      if (!stm || at === undefined) return null;
      return { bytes: stm.data, value: parseValue(stm.data, at), stream: null };
    } catch {
      return null;
    }
  }

  private parseAt(offset: number, num: number) {
    try {
      const obj = parseIndirect(this.bytes, offset);
      return obj.num === num ? obj : null;
    } catch {
      return null;
    }
  }

  /**
   * An object whose cross-reference offset is wrong, found where the file writes `N G obj` (its last
   * occurrence, as a reader repairing the file takes it).
   */
  private parseFound(num: number) {
    const e = this.scan().get(num);
    return e?.type === 1 ? this.parseAt(e.offset, num) : null;
  }

  private repaired(num: number): ObjectSource | null {
    const obj = this.parseFound(num);
    return obj && { bytes: this.bytes, value: obj.value, stream: obj.stream };
  }

  private objectStream(num: number) {
    if (this.objstms.has(num)) return this.objstms.get(num)!;
    let result: { data: Uint8Array; offsets: Map<number, number> } | null = null;
    const data = this.decode(num);
    const own = this.entries.get(num);
    if (data && own?.type === 1 && own.offset >= 0) {
      const head = parseIndirect(this.bytes, own.offset).value;
      const n = intOf(dictGet(head, '/N')) ?? 0;
      const first = intOf(dictGet(head, '/First')) ?? 0;
      const offsets = new Map<number, number>();
      let pos = 0;
      for (let i = 0; i < n; i += 1) {
        const a = parseValue(data, pos);
        const b = parseValue(data, a.end);
        const objNum = intOf(a);
        const rel = intOf(b);
        if (objNum === null || rel === null) break;
        offsets.set(objNum, first + rel);
        pos = b.end;
      }
      result = { data, offsets };
    }
    this.objstms.set(num, result);
    return result;
  }
}

/** The chain of `base` for reading `bytes` after it, when `bytes` keep every byte of `base` first. */
function prefixChain(
  base: ObjectIndex,
  bytes: Uint8Array,
): { length: number; startxref: number; read: XrefRead } | undefined {
  const b = base.bytes;
  if (base.scanned || !base.trailer || bytes.length < b.length) return undefined;
  const startxref = lastStartxref(b);
  if (startxref === null) return undefined;
  if (!keepsPrefix(b, bytes)) return undefined;
  return { length: b.length, startxref, read: { entries: base.entries, trailer: base.trailer } };
}

/** Last `N G obj` of each number in the file (for files whose cross-reference chain is broken). */
export function scanObjects(bytes: Uint8Array): Map<number, XrefEntry> {
  const out = new Map<number, XrefEntry>();
  const s = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  for (const m of s.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g))
    out.set(Number(m[1]), { type: 1, offset: m.index });
  return out;
}
