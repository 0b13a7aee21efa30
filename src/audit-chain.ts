// The audit hash chain: each entry carries the hash of the previous one, and its own hash covers its
// fields plus that link. Recomputing the chain finds the first entry that was changed, removed or
// reordered. Pure functions: the daemon stores entries, certificates quote the head.
import { createHash } from 'node:crypto';
import { canonicalize } from './canonical-json.ts';
import type { AuditChainOut, AuditEntryOut } from './schemas.ts';

export const GENESIS_HASH = '0'.repeat(64);

/** An entry as stored: the API's fields plus the link to the previous entry. */
export interface StoredAuditEntry extends AuditEntryOut {
  prev_hash: string;
}

export type AuditEntryDraft = Omit<StoredAuditEntry, 'entry_hash'>;

export function hashAuditEntry(entry: AuditEntryDraft): string {
  const { seq, ts, actor_user_id, actor_kind, action, subject_type, subject_id, payload, prev_hash } = entry;
  const canonical = canonicalize({
    seq,
    ts,
    actor_user_id,
    actor_kind,
    action,
    subject_type,
    subject_id,
    payload,
    prev_hash,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** Recomputes the chain; names the first entry that does not recompute. */
export function verifyAuditChain(entries: readonly StoredAuditEntry[]): AuditChainOut {
  let prev = GENESIS_HASH;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const broken = (reason: string): AuditChainOut => ({
      intact: false,
      entries: entries.length,
      head_hash: entries[entries.length - 1]?.entry_hash ?? null,
      first_broken_seq: entry.seq ?? i + 1,
      reason,
    });
    if (entry.seq !== i + 1)
      return broken(`entry ${i + 1} carries seq ${entry.seq}: an entry was removed or reordered`);
    if (entry.prev_hash !== prev) return broken(`entry ${entry.seq} does not link to the entry before it`);
    const { entry_hash: stated, ...draft } = entry;
    if (hashAuditEntry(draft) !== stated)
      return broken(`entry ${entry.seq} was changed after it was written`);
    prev = stated;
  }
  return {
    intact: true,
    entries: entries.length,
    head_hash: entries.length ? prev : null,
    first_broken_seq: null,
    reason: null,
  };
}
