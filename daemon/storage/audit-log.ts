// The append-only audit record of each tenant: one JSON line per entry, hash-chained
// (src/audit-chain.ts), appended with fsync. The head (last seq and hash) is kept in memory after the
// first read, so an append costs the same however long the history is.
import { open, readFile } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  GENESIS_HASH,
  hashAuditEntry,
  verifyAuditChain,
  type AuditEntryDraft,
  type StoredAuditEntry,
} from '../../src/audit-chain.ts';
import type { AuditChainOut, AuditEntryOut } from '../../src/schemas.ts';
import { KeyedLock } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';

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
      const file = this.layout.auditFile(tenantId);
      await mkdir(dirname(file), { recursive: true });
      const handle = await open(file, 'a', 0o600);
      try {
        await handle.write(`${JSON.stringify(entry)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      this.heads.set(tenantId, { seq: entry.seq, hash: entry.entry_hash });
      return toOut(entry);
    });
  }

  /** The record's lines exactly as stored, oldest first (the export hands them out unchanged). */
  async readLines(tenantId: string): Promise<string[]> {
    try {
      return (await readFile(this.layout.auditFile(tenantId), 'utf8'))
        .split('\n')
        .filter((line) => line.length > 0);
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
      if (options.subjectId && entry.subject_id !== options.subjectId) continue;
      out.push(toOut(entry));
    }
    return out;
  }

  /**
   * Start-up only (the data dir's lock held): removes a last line cut short by a crash during its
   * append. Such a line was never acknowledged (an append answers after fsync of the whole line).
   * Returns the bytes removed.
   */
  async repairTail(tenantId: string): Promise<number> {
    const file = this.layout.auditFile(tenantId);
    let handle;
    try {
      handle = await open(file, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (size === 0) return 0;
      // Look back from the end for the last newline, a block at a time.
      const block = Buffer.alloc(64 * 1024);
      let end = size;
      let keep = 0;
      while (end > 0) {
        const start = Math.max(0, end - block.length);
        const { bytesRead } = await handle.read(block, 0, end - start, start);
        const at = block.subarray(0, bytesRead).lastIndexOf(0x0a);
        if (at >= 0) {
          keep = start + at + 1;
          break;
        }
        end = start;
      }
      if (keep === size) return 0;
      await handle.truncate(keep);
      await handle.sync();
      this.heads.delete(tenantId);
      return size - keep;
    } finally {
      await handle.close();
    }
  }

  async verifyChain(tenantId: string): Promise<AuditChainOut> {
    return verifyAuditChain(await this.readAll(tenantId));
  }

  private async readHead(tenantId: string): Promise<Head> {
    const all = await this.readAll(tenantId);
    const last = all[all.length - 1];
    const head = last ? { seq: last.seq, hash: last.entry_hash } : { seq: 0, hash: GENESIS_HASH };
    this.heads.set(tenantId, head);
    return head;
  }
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
