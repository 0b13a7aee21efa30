// Copies bytes out of MuPDF buffers (which own WASM memory) and frees the buffers at once, and
// hashes a document's bytes once per buffer.
import { createHash, type Hash } from 'node:crypto';
import { keepsPrefix } from '../../pdf/kept-prefix.ts';
import type { mupdf } from '../../pdf/mupdf-adapter.ts';

/** Copies a MuPDF buffer's bytes into JavaScript memory and destroys the buffer. */
export function takeBytes(buf: mupdf.Buffer): Uint8Array {
  try {
    return new Uint8Array(buf.asUint8Array());
  } finally {
    buf.destroy();
  }
}

/** The decoded (filters applied) bytes of a stream object. */
export function streamBytes(obj: mupdf.PDFObject): Uint8Array {
  return takeBytes(obj.readStream());
}

/** The raw (still encoded) bytes of a stream object. */
export function rawStreamBytes(obj: mupdf.PDFObject): Uint8Array {
  return takeBytes(obj.readRawStream());
}

/** Follows an indirect reference; direct objects are returned as they are. */
export function resolved(obj: mupdf.PDFObject): mupdf.PDFObject {
  return obj.isIndirect() ? obj.resolve() : obj;
}

/** Hashes already taken, by buffer: a task hashes its input for several caches (bytes are never changed). */
const hashed = new WeakMap<Uint8Array, string>();

export function sha256(bytes: Uint8Array): string {
  let hex = hashed.get(bytes);
  if (hex === undefined) {
    const hash = createHash('sha256').update(bytes);
    keepState(bytes, hash);
    hex = hash.digest('hex');
    hashed.set(bytes, hex);
  }
  return hex;
}

/**
 * Hash states at the end of the last files hashed: a correction's output is its input with an update
 * appended, and the apply's bytes the proposal's with the manifest appended, so their hash goes on
 * from where the earlier file's ended instead of reading a long file's bytes again.
 */
const states: { bytes: Uint8Array; state: Hash }[] = [];

function keepState(bytes: Uint8Array, hash: Hash): void {
  states.unshift({ bytes, state: hash.copy() });
  states.length = Math.min(states.length, 3);
}

/** sha256(bytes) for bytes that may begin with all of `prefix`'s (checked here, byte for byte). */
export function sha256Extending(bytes: Uint8Array, prefix: Uint8Array): string {
  const known = hashed.get(bytes);
  if (known !== undefined) return known;
  // An empty prefix (or one whose buffer was handed to another thread: detached, 0 bytes) gives
  // nothing to go on from; its kept state would be that of the bytes it held before.
  if (prefix.byteLength === 0) return sha256(bytes);
  if (!keepsPrefix(prefix, bytes)) return sha256(bytes);
  let at = states.find((s) => s.bytes === prefix);
  if (!at) {
    // The prefix's state was let go (only the last few are kept) even if its digest is still known:
    // hash it again here, never take another file's state.
    keepState(prefix, createHash('sha256').update(prefix));
    at = states[0];
  }
  const hash = at.state.copy().update(bytes.subarray(prefix.byteLength));
  keepState(bytes, hash);
  const hex = hash.digest('hex');
  hashed.set(bytes, hex);
  return hex;
}
