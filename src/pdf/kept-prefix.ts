// Whether one file's bytes begin with all of another's: an incremental update keeps the file it
// updates as its prefix. A correction asks it of the same two long files several times (the save,
// the index extended by the update, the proof, the hash, PDFium's view), so the last answers are
// kept by the very arrays compared; bytes are never changed once made (as sha256 in pdf-bytes.ts assumes).

const answers: { original: Uint8Array; saved: Uint8Array; kept: boolean }[] = [];
const ANSWERS = 8;

/** True when `saved` begins with every byte of `original` (compared in place, nothing copied). */
export function keepsPrefix(original: Uint8Array, saved: Uint8Array): boolean {
  if (saved.length < original.length) return false;
  const hit = answers.find((a) => a.original === original && a.saved === saved);
  if (hit) return hit.kept;
  const kept = Buffer.from(saved.buffer, saved.byteOffset, original.length).equals(
    Buffer.from(original.buffer, original.byteOffset, original.length),
  );
  // A small file compares faster than it is looked up.
  if (original.length >= 64 * 1024) {
    answers.unshift({ original, saved, kept });
    answers.length = Math.min(answers.length, ANSWERS);
  }
  return kept;
}
