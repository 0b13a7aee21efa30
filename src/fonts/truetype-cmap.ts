// Which codes of a symbolic TrueType font reach a glyph: its (3,0) or (1,0) cmap subtable, as a
// viewer reads a simple symbolic TrueType font's codes (PDF 9.6.6.4). A subset maps only the codes
// it draws; the others fall on glyph 0 (.notdef). Prawn (asciidoctor-pdf) still lists a width for
// every code from 32 to 255, the .notdef's advance for the unused ones, so those widths say nothing
// about the face and must not be read as its letters' widths.

/** Code → glyph id for the codes the font's symbolic cmap maps to a glyph; null when it has none to read. */
export function symbolicCodeGlyphs(program: Uint8Array): Map<number, number> | null {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const cmap = tableOffset(view, 'cmap');
  if (cmap === null || cmap + 4 > view.byteLength) return null;
  const count = view.getUint16(cmap + 2);
  let pick: { offset: number; ms: boolean } | null = null;
  for (let i = 0; i < count; i += 1) {
    const rec = cmap + 4 + i * 8;
    if (rec + 8 > view.byteLength) return null;
    const platform = view.getUint16(rec);
    const encoding = view.getUint16(rec + 2);
    const offset = cmap + view.getUint32(rec + 4);
    if (platform === 3 && encoding === 0) pick = { offset, ms: true };
    else if (platform === 1 && encoding === 0 && !pick) pick = { offset, ms: false };
  }
  if (!pick || pick.offset + 6 > view.byteLength) return null;
  const glyphs = subtableGlyphs(view, pick.offset);
  if (!glyphs) return null;
  // A (3,0) subtable may hold the codes at U+F000 + code (PDF 9.6.6.4): read them back as codes.
  if (!pick.ms) return glyphs;
  const out = new Map<number, number>();
  for (const [c, g] of glyphs) if (c <= 0xff || (c >= 0xf000 && c <= 0xf0ff)) out.set(c & 0xff, g);
  return out;
}

function tableOffset(view: DataView, tag: string): number | null {
  if (view.byteLength < 12) return null;
  const tables = view.getUint16(4);
  for (let i = 0; i < tables; i += 1) {
    const rec = 12 + i * 16;
    if (rec + 16 > view.byteLength) return null;
    let name = '';
    for (let k = 0; k < 4; k += 1) name += String.fromCharCode(view.getUint8(rec + k));
    if (name === tag) return view.getUint32(rec + 8);
  }
  return null;
}

/** Formats 0, 4 and 6 (what symbolic subsets are written with); glyph 0 left out. */
function subtableGlyphs(view: DataView, at: number): Map<number, number> | null {
  const out = new Map<number, number>();
  const format = view.getUint16(at);
  const u8 = (o: number) => (o < view.byteLength ? view.getUint8(o) : 0);
  const u16 = (o: number) => (o + 2 <= view.byteLength ? view.getUint16(o) : 0);
  if (format === 0) {
    for (let c = 0; c < 256; c += 1) if (u8(at + 6 + c)) out.set(c, u8(at + 6 + c));
    return out;
  }
  if (format === 6) {
    const first = u16(at + 6);
    const n = u16(at + 8);
    for (let i = 0; i < n; i += 1) if (u16(at + 10 + 2 * i)) out.set(first + i, u16(at + 10 + 2 * i));
    return out;
  }
  if (format !== 4) return null;
  const segs = u16(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + 2 * segs + 2;
  const deltas = starts + 2 * segs;
  const ranges = deltas + 2 * segs;
  for (let s = 0; s < segs; s += 1) {
    const end = u16(ends + 2 * s);
    const start = u16(starts + 2 * s);
    const delta = u16(deltas + 2 * s);
    const range = u16(ranges + 2 * s);
    for (let c = start; c <= end && c !== 0xffff; c += 1) {
      let g: number;
      if (range === 0) g = (c + delta) & 0xffff;
      else {
        const raw = u16(ranges + 2 * s + range + 2 * (c - start));
        g = raw === 0 ? 0 : (raw + delta) & 0xffff;
      }
      if (g) out.set(c, g);
    }
  }
  return out;
}
