// A subset of a bundled TrueType face for embedding (tier 4): only the glyphs a correction draws
// (and the components of composite glyphs, and .notdef) keep their outlines; every other glyph is
// left empty. Glyph ids do not change, so the PDF's Identity-H codes, its W array and ToUnicode stay
// as MuPDF wrote them for the whole face, and a later correction can tell from the kept ids whether
// the subset already draws what it needs. Tables a PDF renderer does not read (layout, kerning,
// bitmaps, vertical metrics, signatures) are dropped; cmap keeps only the kept characters. A whole
// face is 0.3–3.4 MB; a subset of a few glyphs is a few KB.
//
// Faces with CFF outlines (the Latin Modern OTFs) are subset by `subsetOpenType`: their
// CharStrings keep the drawn glyphs, the subroutines stay whole.

import * as mupdf from 'mupdf';
import { readCffDict as readDict, readCffIndex as readIndex } from './cff.ts';

const KEEP_TABLES = new Set(['head', 'hhea', 'hmtx', 'maxp', 'OS/2', 'name', 'cvt ', 'fpgm', 'prep', 'gasp']);

interface TableRecord {
  tag: string;
  offset: number;
  length: number;
}

function readTables(font: Uint8Array, outlines: 'glyf' | 'CFF '): Map<string, TableRecord> | null {
  if (font.length < 12) return null;
  const v = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const version = v.getUint32(0);
  const trueType = version === 0x00010000 || version === 0x74727565;
  if (outlines === 'glyf' ? !trueType : version !== 0x4f54544f) return null; // 'OTTO': CFF outlines
  const count = v.getUint16(4);
  const tables = new Map<string, TableRecord>();
  for (let i = 0; i < count; i += 1) {
    const at = 12 + 16 * i;
    if (at + 16 > font.length) return null;
    const tag = String.fromCharCode(...font.subarray(at, at + 4));
    const offset = v.getUint32(at + 8);
    const length = v.getUint32(at + 12);
    if (offset + length > font.length) return null;
    tables.set(tag, { tag, offset, length });
  }
  return tables;
}

const COMPOSITE_WORDS = 0x0001;
const COMPOSITE_SCALE = 0x0008;
const COMPOSITE_MORE = 0x0020;
const COMPOSITE_XY_SCALE = 0x0040;
const COMPOSITE_2X2 = 0x0080;

/** Glyph ids a composite glyph's outline is made of (empty for a simple glyph). */
function components(glyph: Uint8Array): number[] {
  if (glyph.length < 10) return [];
  const v = new DataView(glyph.buffer, glyph.byteOffset, glyph.byteLength);
  if (v.getInt16(0) >= 0) return [];
  const out: number[] = [];
  let at = 10;
  for (;;) {
    if (at + 4 > glyph.length) break;
    const flags = v.getUint16(at);
    out.push(v.getUint16(at + 2));
    at += 4 + (flags & COMPOSITE_WORDS ? 4 : 2);
    if (flags & COMPOSITE_SCALE) at += 2;
    else if (flags & COMPOSITE_XY_SCALE) at += 4;
    else if (flags & COMPOSITE_2X2) at += 8;
    if (!(flags & COMPOSITE_MORE)) break;
  }
  return out;
}

/** A cmap table with one format 4 subtable (Windows, Unicode BMP) for the given characters. */
function buildCmap(map: ReadonlyMap<number, number>): Uint8Array {
  const pairs = [...map].filter(([cp]) => cp > 0 && cp < 0xffff).sort((a, b) => a[0] - b[0]);
  // One segment per character keeps the writer simple; the subset maps a handful of them.
  const segments = [
    ...pairs.map(([cp, gid]) => ({ start: cp, end: cp, delta: (gid - cp) & 0xffff })),
    {
      start: 0xffff,
      end: 0xffff,
      delta: 1,
    },
  ];
  const segX2 = segments.length * 2;
  const subLength = 16 + segments.length * 8;
  const out = new Uint8Array(4 + 8 + subLength);
  const v = new DataView(out.buffer);
  v.setUint16(0, 0); // version
  v.setUint16(2, 1); // one subtable
  v.setUint16(4, 3); // Windows
  v.setUint16(6, 1); // Unicode BMP
  v.setUint32(8, 12);
  const s = 12;
  v.setUint16(s, 4);
  v.setUint16(s + 2, subLength);
  v.setUint16(s + 4, 0);
  v.setUint16(s + 6, segX2);
  const power = 2 ** Math.floor(Math.log2(segments.length));
  v.setUint16(s + 8, power * 2);
  v.setUint16(s + 10, Math.log2(power));
  v.setUint16(s + 12, segX2 - power * 2);
  let at = s + 14;
  for (const g of segments) v.setUint16((at += 2) - 2, g.end);
  at += 2; // reservedPad
  for (const g of segments) v.setUint16((at += 2) - 2, g.start);
  for (const g of segments) v.setUint16((at += 2) - 2, g.delta);
  for (let i = 0; i < segments.length; i += 1) v.setUint16((at += 2) - 2, 0); // idRangeOffset
  return out;
}

/**
 * The name table with its identifying records only (IDs 0–6: copyright, family, style, unique,
 * full and PostScript names); descriptions and the licence's full text stay in the bundled file.
 */
function trimName(name: Uint8Array): Uint8Array {
  if (name.length < 6) return name;
  const v = new DataView(name.buffer, name.byteOffset, name.byteLength);
  const count = v.getUint16(2);
  const storage = v.getUint16(4);
  if (v.getUint16(0) !== 0 || 6 + count * 12 > name.length) return name;
  const records: { head: Uint8Array; bytes: Uint8Array }[] = [];
  for (let i = 0; i < count; i += 1) {
    const at = 6 + i * 12;
    if (v.getUint16(at + 6) > 6) continue;
    const length = v.getUint16(at + 8);
    const offset = storage + v.getUint16(at + 10);
    if (offset + length > name.length) return name;
    records.push({ head: name.subarray(at, at + 12), bytes: name.subarray(offset, offset + length) });
  }
  const out = new Uint8Array(6 + records.length * 12 + records.reduce((s, r) => s + r.bytes.length, 0));
  const o = new DataView(out.buffer);
  o.setUint16(2, records.length);
  o.setUint16(4, 6 + records.length * 12);
  let data = 0;
  records.forEach((r, i) => {
    const at = 6 + i * 12;
    out.set(r.head, at);
    o.setUint16(at + 10, data);
    out.set(r.bytes, 6 + records.length * 12 + data);
    data += r.bytes.length;
  });
  return out;
}

/** A post table of version 3 (no glyph names: a PDF renderer addresses glyphs by id). */
function buildPost(original: Uint8Array | null): Uint8Array {
  const out = new Uint8Array(32);
  if (original && original.length >= 32) out.set(original.subarray(0, 32));
  new DataView(out.buffer).setUint32(0, 0x00030000);
  return out;
}

function checksum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 4) {
    const word =
      ((bytes[i] << 24) | ((bytes[i + 1] ?? 0) << 16) | ((bytes[i + 2] ?? 0) << 8) | (bytes[i + 3] ?? 0)) >>>
      0;
    sum = (sum + word) >>> 0;
  }
  return sum;
}

export interface FontSubset {
  /** The subset font program (a TrueType file). */
  bytes: Uint8Array;
  /** Glyph ids whose outlines it keeps (the asked ones, their components and 0), ascending. */
  glyphs: number[];
}

/**
 * Subsets a TrueType font to `chars` (code point → glyph id, as the face maps them): the glyph ids
 * stay those of the whole face. Null for a font this cannot subset (CFF outlines, a collection,
 * damaged tables): embed it whole then.
 */
export function subsetTrueType(font: Uint8Array, chars: ReadonlyMap<number, number>): FontSubset | null {
  const tables = readTables(font, 'glyf');
  if (!tables) return null;
  const head = tables.get('head');
  const maxp = tables.get('maxp');
  const loca = tables.get('loca');
  const glyf = tables.get('glyf');
  if (!head || !maxp || !loca || !glyf || head.length < 54 || maxp.length < 6) return null;
  const fv = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const longLoca = fv.getInt16(head.offset + 50) === 1;
  const numGlyphs = fv.getUint16(maxp.offset + 4);
  if (loca.length < (numGlyphs + 1) * (longLoca ? 4 : 2)) return null;
  const glyphRange = (gid: number): [number, number] => {
    const a = longLoca ? fv.getUint32(loca.offset + 4 * gid) : fv.getUint16(loca.offset + 2 * gid) * 2;
    const b = longLoca
      ? fv.getUint32(loca.offset + 4 * gid + 4)
      : fv.getUint16(loca.offset + 2 * gid + 2) * 2;
    return [Math.min(a, glyf.length), Math.min(Math.max(a, b), glyf.length)];
  };
  const glyphBytes = (gid: number) => {
    const [a, b] = glyphRange(gid);
    return font.subarray(glyf.offset + a, glyf.offset + b);
  };

  const keep = new Set<number>([0]);
  const queue = [...chars.values()].filter((g) => g > 0 && g < numGlyphs);
  while (queue.length) {
    const gid = queue.pop() as number;
    if (keep.has(gid)) continue;
    keep.add(gid);
    for (const c of components(glyphBytes(gid))) if (c < numGlyphs && !keep.has(c)) queue.push(c);
  }

  // glyf and a long loca with the same ids: dropped glyphs take no bytes.
  const parts: Uint8Array[] = [];
  const newLoca = new Uint8Array((numGlyphs + 1) * 4);
  const lv = new DataView(newLoca.buffer);
  let size = 0;
  for (let gid = 0; gid < numGlyphs; gid += 1) {
    lv.setUint32(gid * 4, size);
    if (!keep.has(gid)) continue;
    const g = glyphBytes(gid);
    const padded = new Uint8Array(g.length + ((4 - (g.length % 4)) % 4));
    padded.set(g);
    parts.push(padded);
    size += padded.length;
  }
  lv.setUint32(numGlyphs * 4, size);
  const newGlyf = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    newGlyf.set(p, at);
    at += p.length;
  }

  const out = sharedTables(font, tables, keep, chars, numGlyphs);
  const hv = new DataView((out.get('head') as Uint8Array).buffer);
  hv.setInt16(50, 1); // indexToLocFormat: long
  out.set('loca', newLoca);
  out.set('glyf', newGlyf);
  return { bytes: writeSfnt(out, 0x00010000), glyphs: [...keep].sort((a, b) => a - b) };
}

/**
 * The tables both kinds of subset keep: head (checksum adjustment cleared), hhea, hmtx with the
 * dropped glyphs' advances zeroed (PDF renderers take advances from W; zeros pack small), maxp,
 * OS/2, the hinting tables, a trimmed name, a cmap of the kept characters, post without names.
 */
function sharedTables(
  font: Uint8Array,
  tables: Map<string, TableRecord>,
  keep: Set<number>,
  chars: ReadonlyMap<number, number>,
  numGlyphs: number,
): Map<string, Uint8Array> {
  const fv = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const out = new Map<string, Uint8Array>();
  for (const [tag, rec] of tables) {
    if (KEEP_TABLES.has(tag)) out.set(tag, font.slice(rec.offset, rec.offset + rec.length));
  }
  new DataView((out.get('head') as Uint8Array).buffer).setUint32(8, 0);
  const hhea = tables.get('hhea');
  const hmtx = out.get('hmtx');
  if (hhea && hhea.length >= 36 && hmtx) {
    const metrics = fv.getUint16(hhea.offset + 34);
    for (let gid = 0; gid < numGlyphs; gid += 1) {
      if (keep.has(gid)) continue;
      const at = gid < metrics ? gid * 4 : metrics * 4 + (gid - metrics) * 2;
      hmtx.fill(0, at, Math.min(hmtx.length, at + (gid < metrics ? 4 : 2)));
    }
  }
  const name = out.get('name');
  if (name) out.set('name', trimName(name));
  out.set('cmap', buildCmap(new Map([...chars].filter(([, g]) => keep.has(g)))));
  const post = tables.get('post');
  out.set('post', buildPost(post ? font.subarray(post.offset, post.offset + post.length) : null));
  return out;
}

/** An sfnt file of `tables`: offset table, records in tag order, tables 4-byte aligned, checksums. */
function writeSfnt(out: Map<string, Uint8Array>, version: number): Uint8Array {
  const tags = [...out.keys()].sort();
  const n = tags.length;
  const power = 2 ** Math.floor(Math.log2(n));
  let offset = 12 + 16 * n;
  const placed = tags.map((tag) => {
    const bytes = out.get(tag) as Uint8Array;
    const rec = { tag, bytes, offset };
    offset += bytes.length + ((4 - (bytes.length % 4)) % 4);
    return rec;
  });
  const file = new Uint8Array(offset);
  const v = new DataView(file.buffer);
  v.setUint32(0, version);
  v.setUint16(4, n);
  v.setUint16(6, power * 16);
  v.setUint16(8, Math.log2(power));
  v.setUint16(10, n * 16 - power * 16);
  placed.forEach((rec, i) => {
    const r = 12 + 16 * i;
    for (let k = 0; k < 4; k += 1) file[r + k] = rec.tag.charCodeAt(k);
    v.setUint32(r + 4, checksum(rec.bytes));
    v.setUint32(r + 8, rec.offset);
    v.setUint32(r + 12, rec.bytes.length);
    file.set(rec.bytes, rec.offset);
  });
  const headAt = placed.find((p) => p.tag === 'head')?.offset as number;
  v.setUint32(headAt + 8, (0xb1b0afba - checksum(file)) >>> 0);
  return file;
}

// ---------------------------------------------------------------------------------------------
// CFF outlines (OpenType 'OTTO', e.g. Latin Modern): the CharStrings INDEX keeps the drawn glyphs
// and gives every other glyph a bare `endchar`; the Top DICT's offsets are rewritten for the new
// layout. Subroutines, charset and the Private DICT are copied as they are (a glyph may call any
// subroutine). CID-keyed CFF (FDArray) is declined.

function writeIndex(items: Uint8Array[]): Uint8Array {
  if (items.length === 0) return Uint8Array.from([0, 0]);
  const dataLength = items.reduce((s, it) => s + it.length, 0);
  const offSize =
    dataLength + 1 < 0x100 ? 1 : dataLength + 1 < 0x10000 ? 2 : dataLength + 1 < 0x1000000 ? 3 : 4;
  const out = new Uint8Array(3 + (items.length + 1) * offSize + dataLength);
  out[0] = items.length >> 8;
  out[1] = items.length & 0xff;
  out[2] = offSize;
  let offset = 1;
  const putOffset = (i: number, v: number) => {
    for (let k = offSize - 1; k >= 0; k -= 1)
      out[3 + i * offSize + (offSize - 1 - k)] = (v >> (8 * k)) & 0xff;
  };
  let at = 3 + (items.length + 1) * offSize;
  items.forEach((it, i) => {
    putOffset(i, offset);
    out.set(it, at);
    at += it.length;
    offset += it.length;
  });
  putOffset(items.length, offset);
  return out;
}

const int32 = (v: number) => [29, (v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];

/** Bytes of a charset (offset > 2) or custom encoding (offset > 1) starting at `at`. */
function charsetLength(c: Uint8Array, at: number, numGlyphs: number): number | null {
  const format = c[at];
  if (format === 0) return 1 + 2 * (numGlyphs - 1);
  if (format !== 1 && format !== 2) return null;
  let covered = 1;
  let p = at + 1;
  while (covered < numGlyphs) {
    if (p + (format === 1 ? 3 : 4) > c.length) return null;
    const left = format === 1 ? c[p + 2] : (c[p + 2] << 8) | c[p + 3];
    covered += left + 1;
    p += format === 1 ? 3 : 4;
  }
  return p - at;
}

function encodingLength(c: Uint8Array, at: number): number | null {
  const format = c[at] & 0x7f;
  let n = format === 0 ? 2 + c[at + 1] : format === 1 ? 2 + 2 * c[at + 1] : -1;
  if (n < 0) return null;
  if (c[at] & 0x80) n += 1 + 3 * c[at + n];
  return n;
}

/** A subset of a bare CFF font (one font, not CID-keyed): same glyph ids. */
function subsetCff(c: Uint8Array, keep: Set<number>): { bytes: Uint8Array; numGlyphs: number } | null {
  const header = c.subarray(0, c[2]);
  const names = readIndex(c, c[2]);
  const topIndex = names && readIndex(c, names.end);
  const strings = topIndex && readIndex(c, topIndex.end);
  const gsubrs = strings && readIndex(c, strings.end);
  if (!names || !topIndex || !strings || !gsubrs || topIndex.items.length !== 1) return null;
  const top = readDict(topIndex.items[0]);
  if (top.some((e) => e.op === 1230 || e.op === 1236)) return null; // ROS / FDArray: CID-keyed
  const opnd = (op: number) => top.find((e) => e.op === op)?.operands;
  const csAt = opnd(17)?.[0];
  const priv = opnd(18);
  if (csAt === undefined || !priv || priv.length < 2) return null;
  const charStrings = readIndex(c, csAt);
  if (!charStrings) return null;
  const numGlyphs = charStrings.items.length;
  const charsetAt = opnd(15)?.[0] ?? 0;
  const encodingAt = opnd(16)?.[0] ?? 0;
  const charsetLen = charsetAt > 2 ? charsetLength(c, charsetAt, numGlyphs) : 0;
  const encodingLen = encodingAt > 1 ? encodingLength(c, encodingAt) : 0;
  if (charsetLen === null || encodingLen === null) return null;
  const [privSize, privAt] = priv;
  const privDict = readDict(c.subarray(privAt, privAt + privSize));
  const subrsRel = privDict.find((e) => e.op === 19)?.operands[0];
  let privEnd = privAt + privSize;
  if (subrsRel !== undefined) {
    const subrs = readIndex(c, privAt + subrsRel);
    if (!subrs || subrsRel < privSize) return null; // subroutines before the dict: not this layout
    privEnd = subrs.end;
  }
  const charset = c.subarray(charsetAt, charsetAt + charsetLen);
  const encoding = c.subarray(encodingAt, encodingAt + encodingLen);
  const privBlock = c.subarray(privAt, privEnd);
  const endchar = Uint8Array.from([14]);
  const newCharStrings = writeIndex(charStrings.items.map((it, gid) => (keep.has(gid) ? it : endchar)));

  // The Top DICT with every offset written as a 5-byte integer, so its size is known first.
  const rewritten = (offsets: Map<number, number[]>) => {
    const parts: number[] = [];
    for (const e of top) {
      const values = offsets.get(e.op);
      if (values) parts.push(...values.flatMap(int32), e.op);
      else parts.push(...e.raw);
    }
    return Uint8Array.from(parts);
  };
  const placeholder = new Map<number, number[]>([
    [17, [0]],
    [18, [0, 0]],
  ]);
  if (charsetLen) placeholder.set(15, [0]);
  if (encodingLen) placeholder.set(16, [0]);
  const topLength = writeIndex([rewritten(placeholder)]).length;
  const prefix =
    header.length +
    (names.end - c[2]) +
    topLength +
    (strings.end - topIndex.end) +
    (gsubrs.end - strings.end);
  const charsetNew = prefix;
  const encodingNew = charsetNew + charset.length;
  const csNew = encodingNew + encoding.length;
  const privNew = csNew + newCharStrings.length;
  const offsets = new Map<number, number[]>([
    [17, [csNew]],
    [18, [privSize, privNew]],
  ]);
  if (charsetLen) offsets.set(15, [charsetNew]);
  if (encodingLen) offsets.set(16, [encodingNew]);
  const topNew = writeIndex([rewritten(offsets)]);
  if (topNew.length !== topLength) return null;
  const pieces = [
    header,
    c.subarray(c[2], names.end),
    topNew,
    c.subarray(topIndex.end, gsubrs.end),
    charset,
    encoding,
    newCharStrings,
    privBlock,
  ];
  const out = new Uint8Array(pieces.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return { bytes: out, numGlyphs };
}

/**
 * Subsets an OpenType font with CFF outlines to `chars` (code point → glyph id): glyph ids stay.
 * Null for a font this cannot subset (TrueType outlines, CID-keyed CFF, an unusual layout).
 */
export function subsetOpenType(font: Uint8Array, chars: ReadonlyMap<number, number>): FontSubset | null {
  const tables = readTables(font, 'CFF ');
  const cff = tables?.get('CFF ');
  if (!tables || !cff || !tables.get('head') || !tables.get('maxp')) return null;
  const keep = new Set<number>([0, ...[...chars.values()].filter((g) => g > 0)]);
  const sub = subsetCff(font.subarray(cff.offset, cff.offset + cff.length), keep);
  if (!sub) return null;
  const out = sharedTables(font, tables, keep, chars, sub.numGlyphs);
  out.set('CFF ', sub.bytes);
  return { bytes: writeSfnt(out, 0x4f54544f), glyphs: [...keep].sort((a, b) => a - b) };
}

/** A glyph drawn as MuPDF draws it (96 px em, grey, on a 160 px square): its pixels. */
function glyphPixels(font: mupdf.Font, gid: number): Buffer {
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, 160, 160], false);
  const text = new mupdf.Text();
  const device = new mupdf.DrawDevice(mupdf.Matrix.identity, pix);
  try {
    pix.clear(255);
    text.showGlyph(font, [96, 0, 0, -96, 32, 120], gid, 0, 0);
    device.fillText(text, mupdf.Matrix.identity, mupdf.ColorSpace.DeviceGray, [0], 1);
    device.close();
    return Buffer.from(pix.getPixels());
  } finally {
    device.destroy();
    text.destroy();
    pix.destroy();
  }
}

/**
 * Whether every kept glyph of `subset` draws exactly as in the whole face, already loaded (MuPDF,
 * 96 px em, grey). A CFF
 * glyph may build itself from others (`endchar` with accent arguments) that the subset emptied;
 * such a subset is not used.
 */
export function drawsAlike(whole: mupdf.Font, subset: Uint8Array, glyphs: number[]): boolean {
  const cut = new mupdf.Font('subset', subset);
  try {
    return glyphs.every((gid) => glyphPixels(whole, gid).equals(glyphPixels(cut, gid)));
  } finally {
    cut.destroy();
  }
}

/**
 * Whether a glyph draws anything: a subset may keep a glyph's id, advance and cmap entry and empty its
 * outline (iText does), so a program that maps a letter need not draw it.
 */
export function glyphLeavesInk(font: mupdf.Font, gid: number): boolean {
  return glyphPixels(font, gid).some((v) => v < 255);
}

/** Whether glyph `gid` can stand for `ch`: white space draws nothing, any other letter draws ink. */
export function drawsLetter(font: mupdf.Font, gid: number, ch: string): boolean {
  return /\s/u.test(ch) || glyphLeavesInk(font, gid);
}
