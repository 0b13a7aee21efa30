// Immutable, content-addressed files of a document (original and corrected revisions, certificate
// PDFs): named by their SHA-256, written durably, never rewritten. They live in the document's folder
// so deleting a document deletes every file made from it.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir } from './atomic-file.ts';
import type { DataLayout } from './data-layout.ts';

export class BlobStore {
  private layout: DataLayout;

  constructor(layout: DataLayout) {
    this.layout = layout;
  }

  path(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a SHA-256: ${sha256}`);
    return join(this.layout.documentDir(tenantId, documentId), 'blobs', `${sha256}.${ext}`);
  }

  /** A fresh path in the data dir's temp folder (same filesystem, so a rename can publish it). */
  async tempPath(): Promise<string> {
    const dir = join(this.layout.root, 'tmp');
    await mkdir(dir, { recursive: true });
    return join(dir, `upload-${process.pid}-${randomBytes(8).toString('hex')}`);
  }

  /** Publishes a finished temp file (already written) as a blob; returns its SHA-256. */
  async putFile(
    tenantId: string,
    documentId: string,
    tempFile: string,
    sha256?: string,
    ext = 'pdf',
  ): Promise<string> {
    const hash =
      sha256 ??
      createHash('sha256')
        .update(await readFile(tempFile))
        .digest('hex');
    const target = this.path(tenantId, documentId, hash, ext);
    await mkdir(join(this.layout.documentDir(tenantId, documentId), 'blobs'), { recursive: true });
    const handle = await open(tempFile, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (await exists(target)) {
      await rm(tempFile, { force: true });
    } else {
      await rename(tempFile, target);
      await fsyncDir(join(this.layout.documentDir(tenantId, documentId), 'blobs'));
    }
    return hash;
  }

  /** Writes bytes as a blob durably; returns its SHA-256. Existing blobs are never rewritten. */
  async putBytes(tenantId: string, documentId: string, bytes: Uint8Array, ext = 'pdf'): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const target = this.path(tenantId, documentId, hash, ext);
    if (await exists(target)) return hash;
    const temp = await this.tempPath();
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      return await this.putFile(tenantId, documentId, temp, hash, ext);
    } catch (error) {
      // A full disk must not leave the part that fitted holding space until restart.
      await rm(temp, { force: true });
      throw error;
    }
  }

  async read(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<Uint8Array> {
    return new Uint8Array(await readFile(this.path(tenantId, documentId, sha256, ext)));
  }

  async has(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<boolean> {
    return exists(this.path(tenantId, documentId, sha256, ext));
  }

  /** A file the engine can open: here the blob itself. */
  async localPath(tenantId: string, documentId: string, sha256: string, ext = 'pdf'): Promise<string> {
    return this.path(tenantId, documentId, sha256, ext);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
