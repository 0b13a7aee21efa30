// Reading the Compact Font Format (Adobe TN 5176): INDEX structures and DICT entries, for the
// glyph names a document's CFF program holds (corrections/glyph-names.ts) and for subsetting the
// bundled CFF faces (font-subset.ts).

export interface CffIndex {
  end: number;
  items: Uint8Array[];
}

/** The INDEX at `at`: its items and where it ends; null when its offsets leave the data. */
export function readCffIndex(c: Uint8Array, at: number): CffIndex | null {
  if (at + 2 > c.length) return null;
  const count = (c[at] << 8) | c[at + 1];
  if (count === 0) return { end: at + 2, items: [] };
  const offSize = c[at + 2];
  if (offSize < 1 || offSize > 4) return null;
  const offsetAt = (i: number) => {
    let v = 0;
    for (let k = 0; k < offSize; k += 1) v = v * 256 + c[at + 3 + i * offSize + k];
    return v;
  };
  const base = at + 2 + (count + 1) * offSize;
  const items: Uint8Array[] = [];
  for (let i = 0; i < count; i += 1) {
    const a = base + offsetAt(i);
    const b = base + offsetAt(i + 1);
    if (b < a || b > c.length) return null;
    items.push(c.subarray(a, b));
  }
  return { end: base + offsetAt(count), items };
}

export interface CffDictEntry {
  op: number; // 0–21, or 1200 + second byte for two-byte operators
  operands: number[];
  raw: Uint8Array; // operands and operator as written
}

/** A DICT's entries in order, each with its operands (reals as NaN) and its bytes as written. */
export function readCffDict(d: Uint8Array): CffDictEntry[] {
  const entries: CffDictEntry[] = [];
  let operands: number[] = [];
  let start = 0;
  let i = 0;
  while (i < d.length) {
    const b = d[i];
    if (b <= 21) {
      const op = b === 12 ? 1200 + d[i + 1] : b;
      i += b === 12 ? 2 : 1;
      entries.push({ op, operands, raw: d.subarray(start, i) });
      operands = [];
      start = i;
    } else if (b === 28) {
      operands.push(((d[i + 1] << 24) >> 16) | d[i + 2]);
      i += 3;
    } else if (b === 29) {
      operands.push((d[i + 1] << 24) | (d[i + 2] << 16) | (d[i + 3] << 8) | d[i + 4]);
      i += 5;
    } else if (b === 30) {
      i += 1;
      while (i < d.length && (d[i] & 0x0f) !== 0x0f && d[i] >> 4 !== 0x0f) i += 1;
      i += 1;
      operands.push(Number.NaN); // a real: never an offset or a count
    } else if (b >= 32 && b <= 246) {
      operands.push(b - 139);
      i += 1;
    } else if (b >= 247 && b <= 250) {
      operands.push((b - 247) * 256 + d[i + 1] + 108);
      i += 2;
    } else if (b >= 251 && b <= 254) {
      operands.push(-(b - 251) * 256 - d[i + 1] - 108);
      i += 2;
    } else i += 1; // a reserved byte: skipped (it stays in the entry's raw bytes)
  }
  return entries;
}
