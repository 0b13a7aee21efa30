// Start-up recovery of a data directory, run by `daemon serve` after it holds the directory's lock
// (daemon/data-dir-lock.ts) and before it answers anyone:
//   1. leftovers of killed requests: temp uploads (tmp/) and `.tmp-<pid>-…` files of durable
//      writes whose process is gone (an admin command running beside the daemon keeps its own);
//   2. each tenant's audit log: a last line cut short by a crash is removed (never acknowledged);
//   3. audit entries owed by changes (daemon/storage/audited-changes.ts): appended when missing;
//   4. folders of deleted documents (`.deleted-…`) removed once their entry is in the log.
import type { Dirent } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog, type AuditEvent } from './audit-log.ts';
import { writeFileDurable } from './atomic-file.ts';
import { DataLayout, isSafeId } from './data-layout.ts';
import { RETIRED_PREFIX } from './document-store.ts';
import type { DocumentRecord, PendingAudit } from './records.ts';

export interface RecoveryReport {
  temp_files_removed: number;
  audit_bytes_truncated: number;
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
    const tenantId = tenant.name;
    // 2. A torn last line.
    report.audit_bytes_truncated += await audit.repairTail(tenantId);

    // 3. What changes owe.
    const owed: { item: PendingAudit }[] = [];
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
        if (isRetired || item.when === 'present') owed.push({ item });
      }
    }
    if (owed.length > 0) {
      const logged = new Set<string>();
      for (const entry of await audit.readAll(tenantId)) {
        const opId = (entry.payload as Record<string, unknown> | undefined)?.op_id;
        if (typeof opId === 'string') logged.add(opId);
      }
      // In the order the changes were made; the operation id breaks a tie (one millisecond).
      owed.sort((a, b) => a.item.at.localeCompare(b.item.at) || a.item.op_id.localeCompare(b.item.op_id));
      for (const { item } of owed) {
        if (logged.has(item.op_id)) continue;
        const event: AuditEvent = {
          ...item.event,
          payload: { ...item.event.payload, recovered: true },
        };
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
  return report;
}
