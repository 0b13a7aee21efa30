// The repair a save makes, in the open. A damaged file (a stream whose /Length is wrong, a missing or
// broken cross-reference table, offsets that miss their objects) is read by MuPDF as repaired, and
// cannot be updated in place: its save rewrites the whole file as MuPDF read it. The objects that
// rewrite changes beyond the correction are found by saving the input alone the same way and
// comparing it, object by object as the files write them, with the input (the object guard with
// nothing declared). Each is declared to the guard as a `repair` with its paths and the reason, and
// the correction's save is then compared with that repaired file: a repaired object may differ from
// it only where the correction itself declared a change. The proposal costs `low` and says so.
import { keepOriginalNumbers } from '../../pdf/exact-save.ts';
import { keepsPrefix } from '../../pdf/kept-prefix.ts';
import { dictGet, intOf, type PdfValue } from '../../pdf/object-syntax.ts';
import { closeDocument, openPdf, type mupdf } from '../../pdf/mupdf-adapter.ts';
import { ObjectIndex, type ObjectSource } from '../../pdf/xref-index.ts';
import type { EditTaskInput } from '../correction.ts';
import {
  objectsUntouched,
  type DeclaredObject,
  type RepairedFile,
  type RepairedObject,
} from '../proof/object-guard.ts';
import { streamDecoder } from '../proof/verify.ts';
import { save } from './save-correction.ts';

export interface Repair {
  /** What is wrong with the file, in a few words. */
  cause: string;
  objects: RepairedObject[];
  /** The input saved alone as repaired, for the guard to compare repaired objects with. */
  file: RepairedFile;
  /** Changes the repair makes that cannot be declared (the trailer's catalog or encryption). */
  undeclarable: string[];
}

/** Objects read one by one at most to let MuPDF meet a broken one (and repair) as a correction might. */
const MAX_OBJECTS = 50_000;

/**
 * The repair the save of `doc` (a document the correction changed) will make, or null when it
 * can be saved as an incremental update (no repair: every original byte kept).
 */
export function repairFor(doc: mupdf.PDFDocument, input: EditTaskInput): Repair | null {
  if (doc.canBeSavedIncrementally()) return null;
  return repairOf(input.pdf, input.password);
}

/** The input's repair: what MuPDF's full rewrite of the file, unchanged, changes in its objects. */
export function repairOf(pdf: Uint8Array, password: string): Repair | null {
  const opened = openPdf(pdf, password);
  const doc = opened.doc;
  try {
    readEveryObject(doc);
    const inputIndex = new ObjectIndex(pdf, streamDecoder(doc));
    const saved = save(doc);
    if (keepsPrefix(pdf, saved)) return null;
    let bytes = saved;
    try {
      bytes = keepOriginalNumbers(pdf, saved, inputIndex, new Map()).bytes;
    } catch {
      // MuPDF's numbers stand: the correction's save falls back the same way.
    }
    // A full rewrite writes no object streams: nothing of the repaired file needs decoding.
    const index = new ObjectIndex(bytes, () => null);
    const guard = objectsUntouched(pdf, bytes, inputIndex, index, [], { encrypted: opened.encrypted });
    const objects = guard.undeclared
      .filter((u) => u.num > 0)
      .map((u) => ({
        num: u.num,
        changed: u.paths,
        reason: reasonOf(inputIndex, index, u.num, u.paths),
      }));
    return {
      cause: causeOf(inputIndex, objects),
      objects,
      file: { bytes, index },
      undeclarable: guard.undeclared.filter((u) => u.num === 0).flatMap((u) => u.paths),
    };
  } finally {
    closeDocument(doc);
  }
}

/** The repair's declarations for the object guard. */
export function repairDeclarations(repair: Repair): DeclaredObject[] {
  return repair.objects.map((o) => ({ num: o.num, kind: 'repair', paths: o.changed, reason: o.reason }));
}

/** The proposal's warning: the repair named, object by object (a few), and its cost. */
export function repairWarning(repair: Repair): string {
  const n = repair.objects.length;
  const shown = repair.objects
    .slice(0, 4)
    .map((o) => `object ${o.num} (${o.reason})`)
    .join('; ');
  const changes = n
    ? `which changes ${n} object${n === 1 ? '' : 's'} beyond the correction, each declared: ${shown}${n > 4 ? `; … ${n - 4} more` : ''}`
    : 'with a new cross-reference table; no object changes beyond the correction';
  return (
    `The file is damaged (${repair.cause}) and is saved repaired: the whole file is rewritten as MuPDF reads it, ${changes}. ` +
    'A reader that repairs the damaged file its own way may have shown it otherwise before.'
  );
}

/** Lets MuPDF meet every object, as a repair it does lazily (on the first broken object) must be made. */
function readEveryObject(doc: mupdf.PDFDocument): void {
  const count = Math.min(doc.countObjects(), MAX_OBJECTS);
  for (let num = 1; num < count; num += 1) {
    try {
      const ref = doc.newIndirect(num);
      ref.resolve();
      if (ref.isStream()) ref.readRawStream().destroy();
    } catch {
      // An object that does not parse is the repair's to drop; the comparison names it.
    }
  }
}

function causeOf(inputIndex: ObjectIndex, objects: RepairedObject[]): string {
  if (inputIndex.scanned) return 'its cross-reference table is missing or unreadable';
  if (inputIndex.damaged()) return 'its cross-reference offsets do not point at their objects';
  if (objects.some((o) => o.changed.includes('/Length'))) return 'a stream’s /Length is wrong';
  return 'MuPDF had to repair it to read it';
}

const numberOf = (v: PdfValue | undefined): number | null => (v?.kind === 'number' ? Number(v.text) : null);

/** Why one object changes: each path the repair changes, said in terms of the file. */
function reasonOf(inputIndex: ObjectIndex, repaired: ObjectIndex, num: number, paths: string[]): string {
  const before = inputIndex.get(num);
  const after = repaired.get(num);
  const streamLength = (o: ObjectSource | null) => (o?.stream ? o.stream.end - o.stream.start : null);
  const actual = streamLength(after);
  const reasons: string[] = [];
  for (const path of paths) {
    if (path === '/Length' && actual !== null) reasons.push(lengthReason(inputIndex, before, actual));
    else if (path === '<stream>')
      reasons.push(
        `its data as read is ${actual ?? 0} bytes where the file writes ${streamLength(before) ?? 0} before endstream`,
      );
    else if (path === '(missing from the output)')
      reasons.push('it does not parse and the repaired file drops it');
    else if (path === '(unreadable in the input)') reasons.push('it does not parse where the file writes it');
    else reasons.push(`${path} as MuPDF reads the damaged file`);
  }
  return reasons.join('; ');
}

function lengthReason(inputIndex: ObjectIndex, before: ObjectSource | null, actual: number): string {
  const length = before ? dictGet(before.value, '/Length') : undefined;
  if (length?.kind === 'ref') {
    const value = numberOf(inputIndex.get(length.num)?.value);
    const ref = `${length.num} ${length.gen} R`;
    if (value === null)
      return `/Length was ${ref}, which the file does not hold; the stream is ${actual} bytes`;
    if (value === actual) return `/Length was ${ref} (${value}); the rewrite writes the number itself`;
    return `/Length was ${ref} = ${value}, the stream is ${actual} bytes`;
  }
  const value = intOf(length);
  return value === null
    ? `/Length was missing or not a number; the stream is ${actual} bytes`
    : `/Length was ${value}, the stream is ${actual} bytes`;
}
