// The one-kid view of a long flat page tree, written from the file's own bytes: one update appended
// that writes the root /Pages node again with a single page as its only kid (Count 1), every other
// key as the file writes it, so that a reader finds that page as page 0 without reading the kids
// before it (PDFium reads every one: proof/second-renderer.ts). Nothing is parsed into MuPDF or saved
// by it: the update is a few hundred bytes after a copy of the file, in the cross-reference form
// (table or stream) of the file's newest section.
import { dictGet, intOf, skipSpace, valueText } from './object-syntax.ts';
import { lastStartxref, type ObjectIndex } from './xref-index.ts';

/** Keys of the newest trailer the update's trailer repeats (the rest describe the section itself). */
const TRAILER_KEYS = ['/Root', '/Info', '/ID', '/Encrypt'];

/**
 * `index.bytes` with the update appended, in a buffer of its own; null where the file does not say
 * plainly that page `at` of `pages` is object `page`, the root's direct kid (no trailer /Root, /Kids
 * not a direct array of `pages` references, a damaged chain), or where the node cannot be written
 * again as it was: in an encrypted file, a node read from an object stream (its strings were
 * encrypted with the stream, not under its own number).
 */
export function oneKidView(index: ObjectIndex, page: number, at: number, pages: number): Uint8Array | null {
  const bytes = index.bytes;
  const trailer = index.trailer;
  const prev = lastStartxref(bytes);
  const size = intOf(dictGet(trailer ?? undefined, '/Size'));
  if (index.scanned || !trailer || prev === null || size === null) return null;
  const root = dictGet(trailer, '/Root');
  const catalog = root?.kind === 'ref' ? index.get(root.num) : null;
  const ref = dictGet(catalog?.value, '/Pages');
  const node = ref?.kind === 'ref' ? index.get(ref.num) : null;
  if (!node || ref?.kind !== 'ref' || node.value.kind !== 'dict') return null;
  const kids = node.value.entries.get('/Kids');
  const kid = kids?.kind === 'array' && kids.items.length === pages ? kids.items[at] : undefined;
  if (kid?.kind !== 'ref' || kid.num !== page) return null;
  if (dictGet(trailer, '/Encrypt') && index.entries.get(ref.num)?.type === 2) return null;

  const keys = [...node.value.entries].filter(([k]) => k !== '/Kids' && k !== '/Count');
  const dict = [
    `/Kids [${kid.num} ${kid.gen} R] /Count 1`,
    ...keys.map(([k, v]) => `${k} ${valueText(node.bytes, v)}`),
  ].join(' ');
  const kept = TRAILER_KEYS.flatMap((k) => {
    const v = dictGet(trailer, k);
    return v ? [`${k} ${valueText(bytes, v)}`] : [];
  });
  const nodeAt = bytes.length + 1;
  const object = `\n${ref.num} ${ref.gen} obj\n<< ${dict} >>\nendobj\n`;
  const xrefAt = bytes.length + object.length;
  if (xrefAt + 1024 >= 2 ** 32) return null;
  const classic =
    Buffer.from(bytes.buffer, bytes.byteOffset + skipSpace(bytes, prev), 4).toString('latin1') === 'xref';
  let section: Buffer;
  if (classic) {
    const line = `${String(nodeAt).padStart(10, '0')} ${String(ref.gen).padStart(5, '0')} n \n`;
    section = Buffer.from(
      `xref\n${ref.num} 1\n${line}trailer\n<< /Size ${size} ${kept.join(' ')} /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`,
      'latin1',
    );
  } else {
    // A stream of two 7-byte rows (type 1, 4-byte offset, 2-byte generation): the node, then itself.
    const rows = Buffer.alloc(14);
    rows.writeUInt8(1, 0);
    rows.writeUInt32BE(nodeAt, 1);
    rows.writeUInt16BE(ref.gen, 5);
    rows.writeUInt8(1, 7);
    rows.writeUInt32BE(xrefAt, 8); // generation 0: the buffer's zeros
    const head = `${size} 0 obj\n<< /Type /XRef /Size ${size + 1} /W [1 4 2] /Index [${ref.num} 1 ${size} 1] ${kept.join(' ')} /Prev ${prev} /Length 14 >>\nstream\n`;
    const tail = `\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
    section = Buffer.concat([Buffer.from(head, 'latin1'), rows, Buffer.from(tail, 'latin1')]);
  }
  const view = new Uint8Array(xrefAt + section.length);
  view.set(bytes);
  view.set(Buffer.from(object, 'latin1'), bytes.length);
  view.set(section, xrefAt);
  return view;
}
