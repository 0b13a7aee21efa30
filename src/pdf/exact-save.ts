// Saving without rounding. MuPDF keeps real numbers as 32-bit floats, so every object it writes back
// comes out with its reals re-printed (`841.92004` → `841.92007`, `595.275591` → `595.2756`); poppler
// and other readers then place the page a fraction of a point elsewhere. After MuPDF has saved, this
// pass puts back, in every object MuPDF wrote that has a counterpart in the original file (the same
// object, or the object it was copied from), each number whose value MuPDF did not mean to change,
// as the original text; then it rewrites the cross-reference offsets of what moved.
import { deflateSync } from 'node:zlib';
import {
  decodeName,
  dictGet,
  intOf,
  parseIndirect,
  parseValue,
  PdfSyntaxError,
  skipSpace,
  stringBytes,
  type IndirectObject,
  type PdfValue,
} from './object-syntax.ts';
import { keepsPrefix } from './kept-prefix.ts';
import type { ObjectIndex, XrefEntry } from './xref-index.ts';
import { xrefStreamData, xrefStreamNumbers } from './xref-index.ts';

export interface SavedRegion {
  /** Offset where the written part starts: the original's length for an incremental save, else 0. */
  start: number;
  incremental: boolean;
  objects: IndirectObject[];
  /** Classic table: offset of `xref` and each entry line's offset by object number. */
  table: { start: number; lines: Map<number, number> } | null;
  /** The cross-reference stream object, when the save wrote one. */
  xrefStream: IndirectObject | null;
  /** Offset of the number after the last `startxref`. */
  startxrefNumber: { start: number; end: number } | null;
}

const text = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');

/** Reads the part of a saved file that a save wrote: objects, the table or xref stream, startxref. */
export function readSavedRegion(original: Uint8Array, saved: Uint8Array): SavedRegion {
  const incremental = keepsPrefix(original, saved);
  const start = incremental ? original.length : 0;
  const region: SavedRegion = {
    start,
    incremental,
    objects: [],
    table: null,
    xrefStream: null,
    startxrefNumber: null,
  };
  let pos = start;
  for (;;) {
    pos = skipSpace(saved, pos);
    if (pos >= saved.length) break;
    const word = text(saved, pos, Math.min(saved.length, pos + 9));
    if (word.startsWith('xref')) {
      const lines = new Map<number, number>();
      const tableStart = pos;
      pos = skipSpace(saved, pos + 4);
      for (;;) {
        const header = /^(\d+)\s+(\d+)\s/.exec(text(saved, pos, Math.min(saved.length, pos + 40)));
        if (!header) break;
        const first = Number(header[1]);
        pos = skipSpace(saved, pos + header[0].length);
        for (let i = 0; i < Number(header[2]); i += 1) {
          const line = /^(\d+)\s+(\d+)\s+([nf])/.exec(text(saved, pos, Math.min(saved.length, pos + 24)));
          if (!line) throw new PdfSyntaxError('malformed cross-reference line');
          lines.set(first + i, pos);
          pos = skipSpace(saved, pos + line[0].length);
        }
      }
      if (text(saved, pos, pos + 7) !== 'trailer') throw new PdfSyntaxError('no trailer');
      pos = parseValue(saved, pos + 7).end;
      region.table = { start: tableStart, lines };
    } else if (word.startsWith('startxref')) {
      const numStart = skipSpace(saved, pos + 9);
      const m = /^\d+/.exec(text(saved, numStart, Math.min(saved.length, numStart + 20)));
      if (!m) throw new PdfSyntaxError('startxref without a number');
      region.startxrefNumber = { start: numStart, end: numStart + m[0].length };
      pos = numStart + m[0].length;
    } else {
      const obj = parseIndirect(saved, pos);
      const type = dictGet(obj.value, '/Type');
      if (obj.stream && type?.kind === 'name' && type.text === '/XRef') region.xrefStream = obj;
      else region.objects.push(obj);
      pos = obj.end;
    }
  }
  return region;
}

const f32 = (s: string) => Math.fround(Number(s));

interface Replacement {
  start: number;
  end: number;
  text: string;
}

/**
 * Collects the number tokens of `now` (MuPDF's text) that should read as in `was` (the original):
 * same place in the structure, same 32-bit value, different text. References on the original side
 * are followed where MuPDF wrote the object directly (a copied resources dictionary, say).
 */
function collect(now: PdfValue, was: PdfValue, index: ObjectIndex, out: Replacement[], depth: number): void {
  if (depth > 32) return;
  if (was.kind === 'ref' && now.kind !== 'ref') {
    const target = index.get(was.num);
    if (target) collect(now, target.value, index, out, depth + 1);
    return;
  }
  if (now.kind === 'number' && was.kind === 'number') {
    if (now.text !== was.text && f32(now.text) === f32(was.text))
      out.push({ start: now.start, end: now.end, text: was.text });
  } else if (now.kind === 'dict' && was.kind === 'dict') {
    for (const [key, value] of now.entries) {
      const old = was.entries.get(key);
      if (old) collect(value, old, index, out, depth + 1);
    }
  } else if (now.kind === 'array' && was.kind === 'array') {
    // Equal lengths pair by index; otherwise the alignment (entries added at the start or the end,
    // as a widths array extended by a few codes) that pairs the most equal numbers.
    let shift = 0;
    if (now.items.length !== was.items.length) {
      const score = (k: number) => {
        let s = 0;
        for (let i = 0; i < now.items.length; i += 1) {
          const a = now.items[i];
          const b = was.items[i - k];
          if (a?.kind === 'number' && b?.kind === 'number' && f32(a.text) === f32(b.text)) s += 1;
        }
        return s;
      };
      const d = now.items.length - was.items.length;
      shift = score(d) > score(0) ? d : 0;
    }
    now.items.forEach((item, i) => {
      const old = was.items[i - shift];
      if (old) collect(item, old, index, out, depth + 1);
    });
  }
}

/**
 * `bytes` with the replacements made, as parts (views of `bytes` between new texts: the caller copies
 * the whole file once, not once per step: a fresh buffer of a long file costs its page faults), their
 * length, and where an offset of `bytes` moved to.
 */
function apply(
  bytes: Uint8Array,
  reps: Replacement[],
): { parts: Buffer[]; length: number; map: (offset: number) => number } {
  reps.sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let at = 0;
  for (const r of reps) {
    parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, r.start - at), Buffer.from(r.text, 'latin1'));
    at = r.end;
  }
  parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, bytes.length - at));
  const length = parts.reduce((n, p) => n + p.length, 0);
  const ends = reps.map((r) => r.end);
  const deltas: number[] = [];
  let sum = 0;
  for (const r of reps) deltas.push((sum += r.text.length - (r.end - r.start)));
  const map = (offset: number) => {
    // Shift by every replacement that ends at or before the offset.
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return offset + (lo > 0 ? deltas[lo - 1] : 0);
  };
  return { parts, length, map };
}

function encodeXrefRows(rows: number[][], widths: number[]): Uint8Array {
  const rowLen = widths[0] + widths[1] + widths[2];
  const out = new Uint8Array(rows.length * rowLen);
  rows.forEach((row, r) => {
    let pos = r * rowLen;
    for (let f = 0; f < 3; f += 1) {
      let v = row[f];
      for (let i = widths[f] - 1; i >= 0; i -= 1) {
        out[pos + i] = v & 0xff;
        v = Math.floor(v / 256);
      }
      if (v !== 0) throw new Error('cross-reference offset does not fit its field');
      pos += widths[f];
    }
  });
  return out;
}

function decodeXrefRows(data: Uint8Array, widths: number[]): number[][] {
  const rowLen = widths[0] + widths[1] + widths[2];
  const rows: number[][] = [];
  for (let pos = 0; pos + rowLen <= data.length; pos += rowLen) {
    const row: number[] = [];
    let p = pos;
    for (let f = 0; f < 3; f += 1) {
      let v = widths[f] === 0 && f === 0 ? 1 : 0;
      for (let i = 0; i < widths[f]; i += 1) v = v * 256 + data[p + i];
      p += widths[f];
      row.push(v);
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The xref stream rewritten with mapped offsets and the entries `back` names pointed back,
 * unfiltered (its dictionary's other keys kept).
 */
function rewriteXrefStream(
  bytes: Uint8Array,
  obj: IndirectObject,
  map: (o: number) => number,
  from: number,
  back: Map<number, XrefEntry>,
): string {
  const dict = obj.value;
  if (dict.kind !== 'dict' || !obj.stream) throw new Error('cross-reference stream without a dictionary');
  const w = dictGet(dict, '/W');
  if (w?.kind !== 'array') throw new Error('cross-reference stream without /W');
  const widths = w.items.map((x) => intOf(x) ?? 0);
  const rows = decodeXrefRows(xrefStreamData(bytes, dict, obj.stream), widths);
  for (const row of rows) if (row[0] === 1 && row[1] >= from) row[1] = map(row[1]);
  if (back.size) {
    const nums = xrefStreamNumbers(dict);
    rows.forEach((row, i) => {
      const e = back.get(nums[i]);
      if (!e) return;
      row[0] = e.type;
      row[1] = e.type === 1 ? e.offset : e.stream;
      row[2] = e.type === 1 ? 0 : e.index;
    });
  }
  // One more byte for a field when the file grew past its reach (or an entry pointed back needs it).
  for (const f of [1, 2]) {
    const max = Math.max(0, ...rows.map((r) => r[f]));
    while (max >= 256 ** widths[f]) widths[f] += 1;
  }
  if (widths[0] === 0 && rows.some((r) => r[0] !== 1)) widths[0] = 1; // (no field: every row type 1)
  const data = deflateSync(encodeXrefRows(rows, widths));
  let head = '<<';
  for (const [key, value] of dict.entries) {
    if (key === '/Length' || key === '/Filter' || key === '/DecodeParms' || key === '/W') continue;
    head += `${key} ${text(bytes, value.start, value.end)}`;
  }
  head += `/W[${widths.join(' ')}]/Filter/FlateDecode/Length ${data.length}>>`;
  return `${obj.num} ${obj.gen} obj\n${head}\nstream\n${Buffer.from(data).toString('latin1')}\nendstream\nendobj\n`;
}

export interface ExactSave {
  bytes: Uint8Array;
  /** Number tokens put back as the original wrote them. */
  restored: number;
  incremental: boolean;
}

/**
 * The original's cross-reference entry for `obj` when MuPDF wrote it as the original has it (same
 * structure, names, strings, references; numbers the same 32-bit value): it can be left out of the
 * update. Null for a stream, an object the original lacks, or one the update's table cannot point
 * back at (a classic table has no entry for an object inside an object stream).
 */
function asWritten(obj: IndirectObject, index: ObjectIndex, region: SavedRegion): XrefEntry | null {
  const entry = index.entries.get(obj.num);
  const source = index.get(obj.num);
  if (!entry || !source || obj.stream || source.stream) return null;
  if (entry.type === 2 && !region.xrefStream) return null;
  return sameValue(obj.value, source.value) ? entry : null;
}

function sameValue(a: PdfValue, b: PdfValue): boolean {
  switch (a.kind) {
    case 'number':
      return b.kind === 'number' && f32(a.text) === f32(b.text);
    case 'name':
      return b.kind === 'name' && decodeName(a.text) === decodeName(b.text);
    case 'keyword':
      return b.kind === 'keyword' && a.text === b.text;
    case 'string':
      return b.kind === 'string' && stringBytes(a.text).equals(stringBytes(b.text));
    case 'ref':
      return b.kind === 'ref' && a.num === b.num && a.gen === b.gen;
    case 'array':
      return (
        b.kind === 'array' &&
        a.items.length === b.items.length &&
        a.items.every((x, i) => sameValue(x, b.items[i]))
      );
    case 'dict':
      return (
        b.kind === 'dict' &&
        a.entries.size === b.entries.size &&
        [...a.entries].every(([k, v]) => {
          const w = b.entries.get(k);
          return w !== undefined && sameValue(v, w);
        })
      );
  }
}

/**
 * Puts the original's number tokens back into what MuPDF saved. `derivedFrom` names, for new objects
 * copied from existing ones (a form or font copied for one page), the object each was copied from.
 * `unwritten` names objects docfix touched without meaning to change them (the root page-tree node
 * set and put back to look a page up, page-frame.ts): in an incremental save, each that MuPDF wrote
 * as the original has it is left out of the update, its entry pointed back at the original's.
 */
export function keepOriginalNumbers(
  original: Uint8Array,
  saved: Uint8Array,
  originalIndex: ObjectIndex,
  derivedFrom: Map<number, number>,
  unwritten: ReadonlySet<number> = new Set(),
): ExactSave {
  const region = readSavedRegion(original, saved);
  const reps: Replacement[] = [];
  const back = new Map<number, XrefEntry>();
  for (const obj of region.objects) {
    const was = region.incremental && unwritten.has(obj.num) ? asWritten(obj, originalIndex, region) : null;
    if (was) {
      reps.push({ start: obj.start, end: obj.end, text: '' });
      back.set(obj.num, was);
      continue;
    }
    const source = originalIndex.get(obj.num) ?? originalIndex.get(derivedFrom.get(obj.num) ?? -1);
    if (source) collect(obj.value, source.value, originalIndex, reps, 0);
  }
  if (reps.length === 0) return { bytes: saved, restored: 0, incremental: region.incremental };
  if (!region.startxrefNumber || (!region.table && !region.xrefStream))
    throw new PdfSyntaxError('the saved file has no cross-reference section to update');

  // Objects first (the replacements), then the cross-reference section, then startxref.
  const tail = region.xrefStream?.start ?? region.table!.start;
  if (region.objects.some((o) => o.end > tail))
    throw new PdfSyntaxError('objects after the cross-reference section');
  const body = apply(saved.subarray(0, tail), reps);
  const map = body.map;
  const xrefAt = body.length;
  let section: string;
  if (region.xrefStream) {
    // The stream's own entry points at where it now starts.
    const ownMap = (o: number) => (o === region.xrefStream!.start ? xrefAt : map(o));
    section = rewriteXrefStream(saved, region.xrefStream, ownMap, region.start, back);
  } else {
    // The table and its trailer as written, each entry of the written part at its new offset.
    const t = region.table!;
    const tableText = text(saved, t.start, region.startxrefNumber.start).replace(/startxref\s*$/, '');
    const chars = [...tableText];
    for (const [num, lineAt] of t.lines) {
      const rel = lineAt - t.start;
      const m = /^(\d{10}) (\d{5}) n/.exec(tableText.slice(rel, rel + 18));
      const was = back.get(num);
      if (!m || (Number(m[1]) < region.start && !was)) continue;
      // (asWritten points a table's entries back only at objects written in the file itself.)
      const mapped = String(was?.type === 1 ? was.offset : map(Number(m[1]))).padStart(10, '0');
      if (mapped.length !== 10) throw new Error('offset too large for a cross-reference table');
      for (let i = 0; i < 10; i += 1) chars[rel + i] = mapped[i];
    }
    section = chars.join('');
  }
  const parts = [...body.parts, Buffer.from(section, 'latin1'), Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`)];
  // One copy into memory of its own (not Node's shared pool: the bytes may be handed to a thread).
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  // (An object left out is a replacement too, not a number put back.)
  return { bytes, restored: reps.length - back.size, incremental: region.incremental };
}
