// The save stage, second half: the document saved incrementally, and the object numbers MuPDF
// re-printed put back where the input wrote them (src/pdf/exact-save.ts).
import { keepOriginalNumbers } from '../../pdf/exact-save.ts';
import type { mupdf, openPdf } from '../../pdf/mupdf-adapter.ts';
import { freePages, pageTreeTouched, restoreShownBoxes } from '../../pdf/page-frame.ts';
import { ObjectIndex, readXref, type StreamDecoder, type XrefRead } from '../../pdf/xref-index.ts';
import type { EditTaskInput } from '../correction.ts';
import { sha256, takeBytes } from '../locate/pdf-bytes.ts';
import type { DeclaredObject, RepairedFile, RepairedObject } from '../proof/object-guard.ts';
import { streamDecoder, type SavedCorrection } from '../proof/verify.ts';
import type { ChangedObject } from '../rewrite/write.ts';

/** Saves incrementally and puts back the object numbers MuPDF re-printed where the input wrote them. */
export function saveExact(
  doc: mupdf.PDFDocument,
  input: EditTaskInput,
  opened: ReturnType<typeof openPdf>,
  t: { pageIndex: number; pageCount: number },
  changedObjects: ChangedObject[],
  objects: { declared: DeclaredObject[]; rewrittenExisting: number[] },
  repaired?: { cause: string; objects: RepairedObject[]; file: RepairedFile } | null,
): SavedCorrection {
  const inputIndex = inputIndexOf(input.pdf, streamDecoder(doc));
  const saved = save(doc);
  let output = saved;
  let numbersKept = 0;
  try {
    const exact = keepOriginalNumbers(
      input.pdf,
      saved,
      inputIndex,
      new Map(objects.declared.filter((d) => d.from !== undefined).map((d) => [d.num, d.from!])),
      pageTreeTouched(doc),
    );
    output = exact.bytes;
    numbersKept = exact.restored;
  } catch {
    // MuPDF's bytes stand; the structural guard then names every number it re-printed.
  }
  return {
    output,
    input: input.pdf,
    password: input.password,
    protectedInput: opened.protected || (opened.encrypted && input.password !== ''),
    pageIndex: t.pageIndex,
    pageCount: t.pageCount,
    changedObjects,
    rewrittenExisting: objects.rewrittenExisting,
    inputIndex,
    declared: objects.declared,
    numbersKept,
    encrypted: opened.encrypted,
    ...(repaired && { repaired }),
  };
}

/** Cross-reference chains of the last inputs, by their SHA-256: a long file's table is read once. */
const chains = new Map<string, XrefRead>();

/**
 * The input's objects as its bytes write them; its cross-reference chain read once per input (the
 * proposal, its apply and the corrections after it on the same revision share it).
 */
export function inputIndexOf(pdf: Uint8Array, decode: StreamDecoder): ObjectIndex {
  const key = sha256(pdf);
  let read = chains.get(key);
  if (!read) {
    try {
      read = readXref(pdf);
    } catch {
      return new ObjectIndex(pdf, decode); // a broken chain: the index scans the file, every time
    }
    chains.set(key, read);
    if (chains.size > 2) chains.delete(chains.keys().next().value!);
  }
  return new ObjectIndex(pdf, decode, { read });
}

export function save(doc: mupdf.PDFDocument): Uint8Array {
  restoreShownBoxes(doc);
  // MuPDF numbers its open pages again once saved: after a page was looked up alone (page-frame.ts)
  // that maps the whole tree, the cost the lookup spared. Nothing reads a page after the save.
  if (pageTreeTouched(doc).size) freePages(doc);
  // Incremental: the original bytes stay as a prefix (signed revisions stay byte-exact) and the
  // document's encryption is kept for the new objects.
  const options = doc.canBeSavedIncrementally() ? 'incremental' : 'garbage=0';
  return takeBytes(doc.saveToBuffer(options));
}
