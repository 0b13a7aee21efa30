// The audit hash chain recomputes, and names the first entry that was changed, dropped or reordered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  GENESIS_HASH,
  hashAuditEntry,
  verifyAuditChain,
  type StoredAuditEntry,
} from '../../src/audit-chain.ts';

function chain(n: number): StoredAuditEntry[] {
  const out: StoredAuditEntry[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const draft = {
      seq,
      ts: `2026-11-22T00:00:0${seq}.000Z`,
      actor_user_id: null,
      actor_kind: 'api_key',
      action: 'document.upload',
      subject_type: 'document',
      subject_id: `doc_${seq}`,
      payload: { n: seq },
      prev_hash: prev,
    };
    const entry = { ...draft, entry_hash: hashAuditEntry(draft) };
    out.push(entry);
    prev = entry.entry_hash;
  }
  return out;
}

test('an intact chain recomputes to its head', () => {
  const entries = chain(5);
  assert.equal(verifyAuditChain(entries), {
    intact: true,
    entries: 5,
    head_hash: entries[4].entry_hash,
    first_broken_seq: null,
    reason: null,
  });
  assert.equal(verifyAuditChain([]), {
    intact: true,
    entries: 0,
    head_hash: null,
    first_broken_seq: null,
    reason: null,
  });
});

test('a changed payload, a dropped entry and a reorder are each named', () => {
  const changed = chain(5);
  changed[2] = { ...changed[2], payload: { n: 42 } };
  assert.is(verifyAuditChain(changed).first_broken_seq, 3);

  const dropped = chain(5);
  dropped.splice(1, 1);
  assert.is(verifyAuditChain(dropped).first_broken_seq, 3);

  const swapped = chain(5);
  [swapped[3], swapped[4]] = [swapped[4], swapped[3]];
  assert.is(verifyAuditChain(swapped).first_broken_seq, 5);

  const rehashed = chain(3);
  const { entry_hash: _h, ...draft } = { ...rehashed[1], payload: { n: 7 } };
  rehashed[1] = { ...draft, entry_hash: hashAuditEntry(draft) };
  const verdict = verifyAuditChain(rehashed);
  assert.is(verdict.first_broken_seq, 3, 'recomputing one hash breaks the next link');
});

test.run();
