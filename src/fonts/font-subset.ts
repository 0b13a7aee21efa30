// A subset of a bundled TrueType face for embedding (tier 4): only the glyphs a correction draws
// (and the components of composite glyphs, and .notdef) keep their outlines; every other glyph is
// left empty. Glyph ids do not change, so the PDF's Identity-H codes, its W array and ToUnicode stay
// as MuPDF wrote them for the whole face, and a later correction can tell from the kept ids whether
// the subset already draws what it needs. Tables a PDF renderer does not read (layout, kerning,
// bitmaps, vertical metrics, signatures) are dropped; cmap keeps only the kept characters. A whole
// face is 0.3–3.4 MB; a subset of a few glyphs is a few KB.
//
// Faces with CFF outlines (the Latin Modern OTFs) are not subset here: `subsetTrueType` returns
// null for them and they are embedded whole, as before.

const KEEP_TABLES = new Set(['head', 'hhea', 'hmtx', 'maxp', 'OS/2', 'name', 'cvt ', 'fpgm', 'prep', 'gasp']);

interface TableRecord {
  tag: string;
  offset: number;
  length: number;
}

function readTables(font: Uint8Array): Map<string, TableRecord> | null {
  if (font.length < 12) return null;
  const v = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const version = v.getUint32(0);
  if (version !== 0x00010000 && version !== 0x74727565) return null; // TrueType outlines only
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
  const tables = readTables(font);
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

  const out = new Map<string, Uint8Array>();
  for (const [tag, rec] of tables) {
    if (KEEP_TABLES.has(tag)) out.set(tag, font.slice(rec.offset, rec.offset + rec.length));
  }
  const newHead = out.get('head') as Uint8Array;
  const hv = new DataView(newHead.buffer);
  hv.setInt16(50, 1); // indexToLocFormat: long
  hv.setUint32(8, 0); // checkSumAdjustment, set below
  // Advances of dropped glyphs are zeroed (PDF renderers take advances from W; zeros pack small).
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
  out.set('loca', newLoca);
  out.set('glyf', newGlyf);
  const keptChars = new Map([...chars].filter(([, g]) => keep.has(g)));
  out.set('cmap', buildCmap(keptChars));
  const post = tables.get('post');
  out.set('post', buildPost(post ? font.subarray(post.offset, post.offset + post.length) : null));

  // The file: offset table, table records in tag order, tables 4-byte aligned.
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
  v.setUint32(0, 0x00010000);
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
  return { bytes: file, glyphs: [...keep].sort((a, b) => a - b) };
}
