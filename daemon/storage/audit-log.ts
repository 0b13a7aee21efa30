// The append-only audit record of each tenant: one JSON line per entry, hash-chained
// (src/audit-chain.ts). An entry is acknowledged only once it is on disk whole: written to the end,
// its length checked, fsync'd. When that cannot be done (a full disk), the bytes that did land are
// cut off again and the append fails with `insufficient_storage`, so the log never keeps a torn line
// that a later entry would be appended onto. The head (last seq, hash and the log's length) is kept
// in memory after the first read, so an append costs the same however long the history is.
import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  GENESIS_HASH,
  hashAuditEntry,
  verifyAuditChain,
  type AuditEntryDraft,
  type StoredAuditEntry,
} from '../../src/audit-chain.ts';
import type { AuditChainOut, AuditEntryOut } from '../../src/schemas.ts';
import { KeyedLock, writeFileDurable } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';
import { insufficientStorage, isStorageFull } from './storage-full.ts';

export interface AuditEvent {
  action: string;
  subject_type: string;
  subject_id: string;
  payload?: Record<string, unknown>;
  actor_kind?: string;
  actor_user_id?: string | null;
}

interface Head {
  seq: number;
  hash: string;
  /** Length of the log up to the end of its last whole entry. */
  bytes: number;
}

/** What start-up found after the last whole entry of a log (AuditLog.quarantineTail). */
export interface TornTail {
  /** Bytes cut from the log. */
  bytes: number;
  /** Where they were kept aside. */
  quarantine: string;
  /** Whole entries found inside the cut bytes (appended onto a torn line by an older daemon). */
  whole: StoredAuditEntry[];
}

export class AuditLog {
  private layout: DataLayout;
  private lock = new KeyedLock();
  private heads = new Map<string, Head>();

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  async append(tenantId: string, event: AuditEvent): Promise<AuditEntryOut> {
    return this.lock.run(tenantId, async () => {
      const head = this.heads.get(tenantId) ?? (await this.readHead(tenantId));
      const draft: AuditEntryDraft = {
        seq: head.seq + 1,
        ts: new Date().toISOString(),
        actor_user_id: event.actor_user_id ?? null,
        actor_kind: event.actor_kind ?? 'api_key',
        action: event.action,
        subject_type: event.subject_type,
        subject_id: event.subject_id,
        payload: event.payload ?? {},
        prev_hash: head.hash,
      };
      const entry: StoredAuditEntry = { ...draft, entry_hash: hashAuditEntry(draft) };
      const line = Buffer.from(`${JSON.stringify(entry)}\n`);
      await this.writeWhole(tenantId, head, line);
      this.heads.set(tenantId, { seq: entry.seq, hash: entry.entry_hash, bytes: head.bytes + line.length });
      return toOut(entry);
    });
  }

  /** Appends `line` after the head's last byte, whole and durable, or leaves the log as it was. */
  private async writeWhole(tenantId: string, head: Head, line: Buffer): Promise<void> {
    const file = this.layout.auditFile(tenantId);
    let handle: FileHandle;
    try {
      await mkdir(dirname(file), { recursive: true });
      // Read and append: a leftover past the head is looked at before it is cut.
      handle = await open(file, 'a+', 0o600);
    } catch (error) {
      if (isStorageFull(error)) throw insufficientStorage('the audit entry of this change', error);
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (size !== head.bytes) await this.settleTail(tenantId, handle, head.bytes, size);
      try {
        await writeAll(handle, line);
        await handle.sync();
        const after = (await handle.stat()).size;
        if (after !== head.bytes + line.length)
          throw new Error(`the audit log is ${after} bytes after an append, not ${head.bytes + line.length}`);
      } catch (error) {
        await this.cutBack(handle, head.bytes);
        if (isStorageFull(error)) throw insufficientStorage('the audit entry of this change', error);
        throw error;
      }
    } finally {
      await handle.close();
    }
  }

  /**
   * The log is not as long as its head says. Bytes past the head with no newline are what an
   * earlier failed append could not cut (never acknowledged): they are cut now. Anything else
   * means the file changed under this process: the head is read again at the next append.
   */
  private async settleTail(tenantId: string, handle: FileHandle, bytes: number, size: number): Promise<void> {
    if (size > bytes) {
      const extra = Buffer.alloc(size - bytes);
      await handle.read(extra, 0, extra.length, bytes);
      if (!extra.includes(0x0a)) {
        await handle.truncate(bytes);
        return;
      }
    }
    this.heads.delete(tenantId);
    throw new Error(`the audit log of ${tenantId} changed outside this process; its head is read again`);
  }

  /** Cuts what a failed append left; if even that fails, the next append cuts it (the head is kept). */
  private async cutBack(handle: FileHandle, bytes: number): Promise<void> {
    try {
      await handle.truncate(bytes);
      await handle.sync();
    } catch {
      // The head stays: the next append finds the file longer than its head and cuts first.
    }
  }

  /** The record's lines exactly as stored, oldest first (the export hands them out unchanged). */
  async readLines(tenantId: string): Promise<string[]> {
    try {
      const text = await readFile(this.layout.auditFile(tenantId), 'utf8');
      // Only ended lines: an append in progress has not acknowledged its line yet.
      return splitLines(text.slice(0, text.lastIndexOf('\n') + 1));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Every stored entry, oldest first (lines that do not parse are kept as broken entries). */
  async readAll(tenantId: string): Promise<StoredAuditEntry[]> {
    return parseAuditLines(await this.readLines(tenantId));
  }

  /** Newest first, optionally only entries about one subject. */
  async list(
    tenantId: string,
    options: { subjectId?: string | null; limit: number },
  ): Promise<AuditEntryOut[]> {
    const all = await this.readAll(tenantId);
    const out: AuditEntryOut[] = [];
    for (let i = all.length - 1; i >= 0 && out.length < options.limit; i--) {
      const entry = all[i];
      // A line that does not parse is no entry to list (verify-chain names it).
      if (!isWholeEntry(entry)) continue;
      if (options.subjectId && entry.subject_id !== options.subjectId) continue;
      out.push(toOut(entry));
    }
    return out;
  }

  /**
   * Start-up only (the data dir's lock held): cuts the log after its last whole entry. What follows
   * — a line cut short by a crash or a full disk, and whatever an older daemon appended onto it — was
   * never acknowledged whole; it is kept aside in `audit.log.torn-<time>` beside the log, and the whole
   * entries found inside it are returned for the caller to append again. Null when the log is whole.
   */
  async quarantineTail(tenantId: string): Promise<TornTail | null> {
    const file = this.layout.auditFile(tenantId);
    let text: Buffer;
    try {
      text = await readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const keep = wholePrefixLength(text);
    if (keep === text.length) return null;
    const cut = text.subarray(keep);
    const quarantine = `${file}.torn-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    // Kept aside first: if that cannot be written, the log is left as it is (and start-up stops).
    await writeFileDurable(quarantine, cut, 0o600);
    const handle = await open(file, 'r+');
    try {
      await handle.truncate(keep);
      await handle.sync();
    } finally {
      await handle.close();
    }
    this.heads.delete(tenantId);
    return { bytes: cut.length, quarantine, whole: salvageEntries(cut.toString('utf8')) };
  }

  async verifyChain(tenantId: string): Promise<AuditChainOut> {
    return verifyAuditChain(await this.readAll(tenantId));
  }

  private async readHead(tenantId: string): Promise<Head> {
    let text: Buffer;
    try {
      text = await readFile(this.layout.auditFile(tenantId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      text = Buffer.alloc(0);
    }
    const bytes = text.lastIndexOf(0x0a) + 1;
    const all = parseAuditLines(splitLines(text.subarray(0, bytes).toString('utf8')));
    const last = all[all.length - 1];
    const head = last
      ? { seq: last.seq, hash: last.entry_hash, bytes }
      : { seq: 0, hash: GENESIS_HASH, bytes };
    this.heads.set(tenantId, head);
    return head;
  }
}

function splitLines(text: string): string[] {
  return text.split('\n').filter((line) => line.length > 0);
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  // A write may land only in part (a full disk takes what fits); the rest is written or fails.
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written);
    if (bytesWritten <= 0) throw Object.assign(new Error('no byte could be written'), { code: 'ENOSPC' });
    written += bytesWritten;
  }
}

function isWholeEntry(entry: StoredAuditEntry): boolean {
  return (
    typeof entry.seq === 'number' &&
    entry.seq > 0 &&
    typeof entry.ts === 'string' &&
    typeof entry.entry_hash === 'string' &&
    typeof entry.action === 'string'
  );
}

function parseWhole(text: string): StoredAuditEntry | null {
  try {
    const entry = JSON.parse(text) as StoredAuditEntry;
    return entry && typeof entry === 'object' && isWholeEntry(entry) ? entry : null;
  } catch {
    return null;
  }
}

/** Length of the log up to the end of its last line that is a whole entry ended by a newline. */
function wholePrefixLength(text: Buffer): number {
  let end = text.lastIndexOf(0x0a) + 1;
  // An unended last line is torn; then trailing lines that are no whole entry.
  while (end > 0) {
    // (a negative offset would search from the buffer's end)
    const start = end >= 2 ? text.lastIndexOf(0x0a, end - 2) + 1 : 0;
    if (parseWhole(text.subarray(start, end - 1).toString('utf8'))) return end;
    end = start;
  }
  return 0;
}

/**
 * Whole entries inside cut bytes: a line may hold a torn entry with a whole one appended onto it
 * (an older daemon did that on a full disk), so each `{"seq":` is tried as the start of one. An
 * entry counts only when its own hash recomputes: it was written whole by the daemon.
 */
function salvageEntries(text: string): StoredAuditEntry[] {
  const found: StoredAuditEntry[] = [];
  for (const line of splitLines(text)) {
    for (let at = line.indexOf('{"seq":'); at >= 0; at = line.indexOf('{"seq":', at + 1)) {
      const entry = parseWhole(line.slice(at));
      if (!entry) continue;
      const { entry_hash: stated, ...draft } = entry;
      if (hashAuditEntry(draft) === stated) found.push(entry);
      break;
    }
  }
  return found;
}

function toOut(entry: StoredAuditEntry): AuditEntryOut {
  const { seq, ts, actor_user_id, actor_kind, action, subject_type, subject_id, payload, entry_hash } = entry;
  return { seq, ts, actor_user_id, actor_kind, action, subject_type, subject_id, payload, entry_hash };
}

/** Parses stored lines; a line that does not parse stays in place as an entry that cannot verify. */
export function parseAuditLines(lines: readonly string[]): StoredAuditEntry[] {
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as StoredAuditEntry;
    } catch {
      return { seq: -1 - i, entry_hash: '', prev_hash: '', payload: {} } as unknown as StoredAuditEntry;
    }
  });
}
