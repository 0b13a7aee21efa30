// The text index of a revision: for each page, its text in the form search compares (folded, white
// space and hyphens removed) and whether the page has any text at all. Revisions are immutable and
// content-addressed, so an index built once for a blob answers every later search of it: only the
// pages whose indexed text may contain the query are opened again, for the boxes of the matches.
//
// Two layers: a bounded in-memory cache per engine thread (least recently used goes first), and a
// file beside the revision blob (`<sha256>.text-index.json`), so every engine slot and every restart
// finds it. Documents opened with a password keep their index in memory only: their text is not
// written to disk in clear.
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { SearchableText } from './text-find.ts';

/** Bumped whenever the indexed form of a page's text changes (older files are ignored). */
export const TEXT_INDEX_VERSION = 1;

export interface TextIndex {
  version: number;
  /** Per page: its searchable text (text-find.ts searchableText), or null when not read yet. */
  pages: (SearchableText | null)[];
  /** Per page: the text layer has no character but white space (meaningful only when pages[i] is read). */
  blank: boolean[];
}

export function emptyTextIndex(pageCount: number): TextIndex {
  return {
    version: TEXT_INDEX_VERSION,
    pages: Array.from({ length: pageCount }, () => null),
    blank: Array.from({ length: pageCount }, () => false),
  };
}

export function isComplete(index: TextIndex): boolean {
  return index.pages.every((p) => p !== null);
}

function sizeOf(index: TextIndex): number {
  let chars = 0;
  for (const p of index.pages) chars += (p?.text.length ?? 0) + 16;
  return chars;
}

/** Indexes kept in memory by one engine thread: at most `maxEntries`, at most `maxChars` in all. */
export class TextIndexCache {
  private entries = new Map<string, { index: TextIndex; chars: number }>();
  private chars = 0;
  readonly maxEntries: number;
  readonly maxChars: number;

  constructor(maxEntries = 16, maxChars = 32 * 1024 * 1024) {
    this.maxEntries = maxEntries;
    this.maxChars = maxChars;
  }

  get(key: string): TextIndex | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key); // most recently used last
    this.entries.set(key, hit);
    return hit.index;
  }

  set(key: string, index: TextIndex): void {
    this.delete(key);
    const chars = sizeOf(index);
    if (chars > this.maxChars) return; // larger than the whole cache: not kept
    this.entries.set(key, { index, chars });
    this.chars += chars;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const hit = this.entries.get(key);
    if (!hit) return;
    this.chars -= hit.chars;
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Characters held (the bound is on this figure). */
  get heldChars(): number {
    return this.chars;
  }
}

/**
 * How this thread's searches came by their indexes (counted for tests, which check that a revision's
 * pages are read once: never timed): from the cache, from the file beside the blob, or none there.
 */
export const textIndexUse = { cache: 0, file: 0, missing: 0 };

/** This engine thread's cache (each worker thread loads its own copy of this module). */
export const textIndexCache = new TextIndexCache();

/** The index file beside a revision blob `<sha256>.pdf`. */
export function textIndexPath(pdfPath: string): string {
  return `${pdfPath.replace(/\.pdf$/u, '')}.text-index.json`;
}

function valid(value: unknown): value is TextIndex {
  if (!value || typeof value !== 'object') return false;
  const v = value as TextIndex;
  return (
    v.version === TEXT_INDEX_VERSION &&
    Array.isArray(v.pages) &&
    Array.isArray(v.blank) &&
    v.pages.length === v.blank.length &&
    v.pages.every((p) => p === null || (typeof p?.text === 'string' && typeof p.soft === 'boolean')) &&
    v.blank.every((b) => typeof b === 'boolean')
  );
}

/** The index of the blob at `pdfPath`: from this thread's cache, else from its file, else null. */
export function loadTextIndex(pdfPath: string, persisted: boolean): TextIndex | null {
  const hit = textIndexCache.get(pdfPath);
  if (hit) {
    textIndexUse.cache++;
    return hit;
  }
  const parsed = persisted ? readIndexFile(textIndexPath(pdfPath)) : null;
  if (!parsed) {
    textIndexUse.missing++;
    return null; // absent or unreadable: built again by the next search
  }
  textIndexUse.file++;
  textIndexCache.set(pdfPath, parsed);
  return parsed;
}

function readIndexFile(path: string): TextIndex | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return valid(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Keeps the index of the blob at `pdfPath` in this thread's cache and, when `persisted`, writes it
 * beside the blob (temp file, then rename: a reader sees the old file or the whole new one). A
 * failed write costs only speed.
 */
export function storeTextIndex(pdfPath: string, index: TextIndex, persisted: boolean): void {
  textIndexCache.set(pdfPath, index);
  if (persisted) writeTextIndex(textIndexPath(pdfPath), index);
}

/** Writes an index file (temp file, then rename); a failed write costs only speed. */
export function writeTextIndex(target: string, index: TextIndex): void {
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(temp, JSON.stringify(index), { mode: 0o600 });
    renameSync(temp, target);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** writeTextIndex without blocking the thread on the disk (the daemon's event loop joins split indexes). */
export async function saveTextIndex(target: string, index: TextIndex): Promise<void> {
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, JSON.stringify(index), { mode: 0o600 });
    await rename(temp, target);
  } catch {
    await rm(temp, { force: true });
  }
}
