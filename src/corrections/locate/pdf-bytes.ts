// Copies bytes out of MuPDF buffers (which own WASM memory) and frees the buffers at once, and
// hashes a document's bytes once per buffer.
import { createHash } from 'node:crypto';
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
    hex = createHash('sha256').update(bytes).digest('hex');
    hashed.set(bytes, hex);
  }
  return hex;
}
