// Start-up recovery of a data directory, run by `daemon serve` after it holds the directory's lock
// (daemon/data-dir-lock.ts) and before it answers anyone:
//   1. leftovers of killed requests: temp uploads (tmp/) and `.tmp-<pid>-…` files of durable
//      writes whose process is gone (an admin command running beside the daemon keeps its own);
//   2. each tenant's audit log: a torn tail (a line cut short by a crash or a full disk, never
//      acknowledged) is cut and kept aside in `audit.log.torn-<time>`, named in the log; whole
//      entries found inside it (an older daemon appended onto a torn line) are appended again;
//   3. audit entries owed by changes (daemon/storage/audited-changes.ts): appended when missing,
//      so the chain verifies again and holds every change the records prove;
//   4. folders of deleted documents (`.deleted-…`) removed once their entry is in the log.
import type { Dirent } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredAuditEntry } from '../../src/audit-chain.ts';
import { AuditLog, type AuditEvent } from './audit-log.ts';
import { writeFileDurable } from './atomic-file.ts';
import { DataLayout, isSafeId } from './data-layout.ts';
import { RETIRED_PREFIX } from './document-store.ts';
import type { DocumentRecord, PendingAudit } from './records.ts';

export interface RecoveryReport {
  temp_files_removed: number;
  audit_bytes_truncated: number;
  /** Files holding the torn tails cut from audit logs. */
  audit_quarantine_files: string[];
  audit_entries_recovered: number;
  deleted_folders_removed: number;
}

const TEMP_NAME = /^\.tmp-(\d+)-[0-9a-f]+$/;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function entries(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** `.tmp-<pid>-…` files of dead processes, anywhere but inside blob folders (written via tmp/). */
async function removeTempFiles(dir: string, depth: number): Promise<number> {
  let removed = 0;
  for (const entry of await entries(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'blobs' && depth < 6) removed += await removeTempFiles(path, depth + 1);
      continue;
    }
    const match = TEMP_NAME.exec(entry.name);
    if (match && !alive(Number(match[1]))) {
      await rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

async function readRecord(dir: string): Promise<DocumentRecord | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'record.json'), 'utf8')) as DocumentRecord;
  } catch {
    return null;
  }
}

/** Recovers `dataDir`; `log` gets one line per thing done. */
export async function recoverDataDir(
  dataDir: string,
  log: (line: string) => void = () => {},
): Promise<RecoveryReport> {
  const layout = new DataLayout(dataDir);
  const report: RecoveryReport = {
    temp_files_removed: 0,
    audit_bytes_truncated: 0,
    audit_quarantine_files: [],
    audit_entries_recovered: 0,
    deleted_folders_removed: 0,
  };

  // 1. Leftovers. Only this daemon uses tmp/ (uploads, new blobs), and it holds the lock.
  for (const entry of await entries(join(dataDir, 'tmp'))) {
    await rm(join(dataDir, 'tmp', entry.name), { recursive: true, force: true });
    report.temp_files_removed++;
  }
  report.temp_files_removed += await removeTempFiles(dataDir, 0);

  const audit = new AuditLog(layout);
  for (const tenant of await entries(layout.tenantsDir)) {
    if (!tenant.isDirectory() || !isSafeId(tenant.name)) continue;
    await recoverTenant(layout, audit, tenant.name, report, log);
  }
  return report;
}

async function recoverTenant(
  layout: DataLayout,
  audit: AuditLog,
  tenantId: string,
  report: RecoveryReport,
  log: (line: string) => void,
): Promise<void> {
  // 2. A torn tail, kept aside.
  const torn = await audit.quarantineTail(tenantId);
  if (torn) {
    report.audit_bytes_truncated += torn.bytes;
    report.audit_quarantine_files.push(torn.quarantine);
    log(
      `cut a torn tail of ${torn.bytes} bytes from the audit log of ${tenantId}, kept in ${torn.quarantine}`,
    );
  }
  const { owed, live, retired } = await readOwed(layout, tenantId);
  if (owed.length > 0 || torn?.whole.length) {
    const logged = new Set<string>();
    for (const entry of await audit.readAll(tenantId)) {
      const opId = opIdOf(entry);
      if (opId) logged.add(opId);
    }
    for (const entry of torn?.whole ?? []) {
      const opId = opIdOf(entry);
      if (opId && logged.has(opId)) continue;
      await audit.append(tenantId, salvagedEvent(entry));
      if (opId) logged.add(opId);
      report.audit_entries_recovered++;
      log(`appended again audit entry ${entry.action} of ${entry.subject_id} found in the torn tail`);
    }
    // 3. In the order the changes were made; the operation id breaks a tie (one millisecond).
    owed.sort((a, b) => a.at.localeCompare(b.at) || a.op_id.localeCompare(b.op_id));
    for (const item of owed) {
      if (logged.has(item.op_id)) continue;
      const event: AuditEvent = { ...item.event, payload: { ...item.event.payload, recovered: true } };
      await audit.append(tenantId, event);
      logged.add(item.op_id);
      report.audit_entries_recovered++;
      log(`recovered audit entry ${item.event.action} of ${item.event.subject_id} (${item.op_id})`);
    }
  }
  // Every owed entry is now in the log: the records owe nothing any more.
  for (const { dir, record } of live) {
    record.pending_audit = [];
    await writeFileDurable(join(dir, 'record.json'), JSON.stringify(record));
  }
  // 4. Deleted documents' folders.
  for (const dir of retired) {
    await rm(dir, { recursive: true, force: true });
    report.deleted_folders_removed++;
  }
}

/** The entries the tenant's records owe, the live records that owe any, the retired folders. */
async function readOwed(
  layout: DataLayout,
  tenantId: string,
): Promise<{ owed: PendingAudit[]; live: { dir: string; record: DocumentRecord }[]; retired: string[] }> {
  const owed: PendingAudit[] = [];
  const live: { dir: string; record: DocumentRecord }[] = [];
  const retired: string[] = [];
  const docsDir = layout.documentsDir(tenantId);
  for (const doc of await entries(docsDir)) {
    if (!doc.isDirectory()) continue;
    const dir = join(docsDir, doc.name);
    const isRetired = doc.name.startsWith(RETIRED_PREFIX);
    if (isRetired) retired.push(dir);
    else if (!isSafeId(doc.name)) continue;
    const record = await readRecord(dir);
    if (!record?.pending_audit?.length) continue;
    if (!isRetired) live.push({ dir, record });
    // A delete is in effect only once the folder was retired; any other change once written.
    for (const item of record.pending_audit) {
      if (isRetired || item.when === 'present') owed.push(item);
    }
  }
  return { owed, live, retired };
}

function opIdOf(entry: StoredAuditEntry): string | null {
  const opId = (entry.payload as Record<string, unknown> | undefined)?.op_id;
  return typeof opId === 'string' ? opId : null;
}

/** A whole entry from a torn tail, appended again: the same event, saying where it was found. */
function salvagedEvent(entry: StoredAuditEntry): AuditEvent {
  return {
    action: entry.action,
    subject_type: entry.subject_type,
    subject_id: entry.subject_id,
    actor_kind: entry.actor_kind,
    actor_user_id: entry.actor_user_id,
    payload: {
      ...entry.payload,
      recovered: true,
      recovered_from: { seq: entry.seq, ts: entry.ts, entry_hash: entry.entry_hash },
    },
  };
}
