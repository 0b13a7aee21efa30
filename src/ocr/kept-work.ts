// Work an engine thread keeps between tasks: a page's recognised words and a scan's decoded pixels,
// so that a proposal and its apply, and several matches on one page, recognise and decode the page
// once (issue 35, item 2). Entries are keyed by the SHA-256 of the document's bytes (its revision)
// with the page, resolution and language, so a changed document never reads an earlier one's entry;
// line readings (a proof's read-backs, ocr/recognizer.ts) by the exact pixels read. The store is
// bounded by bytes and forgets the least recently used entry first.
import { sha256 } from '../corrections/locate/pdf-bytes.ts';

/** What the thread keeps at most (bytes): a 200 dpi A4 colour scan decodes to about 11 MiB. */
export const KEPT_WORK_BYTES = 48 * 1024 * 1024;

/** A bounded store: the least recently used entries go first once `maxBytes` is passed. */
export class KeptWork {
  readonly maxBytes: number;
  private entries = new Map<string, { value: unknown; bytes: number }>();
  private total = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get<V>(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: taken out and put back, the entry becomes the most recent.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as V;
  }

  /** Keeps `value` (about `bytes` large); a value larger than the whole store is not kept. */
  set(key: string, value: unknown, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.total;
  }
}

/** The thread's one store (each engine worker thread has its own module instance). */
export const keptWork = new KeptWork(KEPT_WORK_BYTES);

/**
 * The revision key of a document's bytes: their SHA-256 (hex), the one hash the engine's other caches
 * key by, taken once per buffer.
 */
export const revisionKey = sha256;

/** A rough size of recognised words kept (their text and numbers), for the store's bound. */
export function wordsBytes(words: { text: string }[]): number {
  return 64 + words.reduce((sum, w) => sum + 80 + 2 * w.text.length, 0);
}
