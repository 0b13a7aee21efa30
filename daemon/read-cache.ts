// Answers of light reads kept in the daemon's memory: a page's preview, a crop, a search's answer,
// each keyed by tenant, document, revision blob and what was asked. Revisions are immutable and
// content-addressed, so an answer kept for a blob stays true for it; a changed document has a new
// head blob and so new keys, and a deleted one is refused before its keys are looked up. Bounded in
// bytes; the least recently used answer goes first. This is what lets the event loop answer a
// repeated preview, crop or search at once, without a slot (docs/daemon.md, "Lanes").

/** 64 MiB of answers: a few hundred page previews. */
export const READ_CACHE_BYTES = 64 * 1024 * 1024;

export class ReadCache {
  private entries = new Map<string, { value: unknown; bytes: number }>();
  private held = 0;
  readonly maxBytes: number;
  hits = 0;
  misses = 0;

  constructor(maxBytes = READ_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  get<T>(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key); // most recently used last
    this.entries.set(key, hit);
    return hit.value as T;
  }

  /** Keeps `value` (about `bytes` large); one larger than a quarter of the cache is not kept. */
  set(key: string, value: unknown, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes / 4) return;
    this.entries.set(key, { value, bytes });
    this.held += bytes;
    for (const [oldest] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const hit = this.entries.get(key);
    if (!hit) return;
    this.held -= hit.bytes;
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.held;
  }
}

/** The key of an answer about one revision of one tenant's document. */
export function readKey(
  kind: 'preview' | 'crop' | 'search',
  tenantId: string,
  documentId: string,
  blobSha256: string,
  asked: unknown,
): string {
  return `${kind}\u0000${tenantId}\u0000${documentId}\u0000${blobSha256}\u0000${JSON.stringify(asked)}`;
}
