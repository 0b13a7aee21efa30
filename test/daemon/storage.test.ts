// Storage: durable atomic writes leave no temp files, blobs are content-addressed and never
// rewritten, per-document updates are serialised and abort cleanly, ids cannot escape their folder.
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileDurable } from '../../daemon/storage/atomic-file.ts';
import { BlobStore } from '../../daemon/storage/blob-store.ts';
import { DataLayout } from '../../daemon/storage/data-layout.ts';
import { DocumentStore } from '../../daemon/storage/document-store.ts';
import type { DocumentRecord } from '../../daemon/storage/records.ts';

async function tempLayout() {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-storage-'));
  return { dir, layout: new DataLayout(dir) };
}

function record(id: string, created_at: string): DocumentRecord {
  return {
    document: {
      document_id: id,
      tenant_id: 'tnt_a',
      state: 'ready',
      page_count: 1,
      original_sha256: '0'.repeat(64),
      head_revision_id: null,
      filename_hint: 'a.pdf',
      created_at,
    },
    password_sealed: null,
    original_revision_id: 'rev_0',
    revisions: [],
    corrections: [],
    verifications: {},
    verification_by_revision: {},
    attestations: [],
    certificates: [],
    served_regions: [],
    inspection: { day: '', pixels: 0 },
  };
}

test('writeFileDurable replaces whole files and leaves no temp files', async () => {
  const { dir } = await tempLayout();
  try {
    const path = join(dir, 'a', 'b.json');
    await writeFileDurable(path, 'one');
    await writeFileDurable(path, 'two', 0o600);
    assert.is(await readFile(path, 'utf8'), 'two');
    assert.equal(await readdir(join(dir, 'a')), ['b.json']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('blobs are named by their SHA-256 and a second put does not rewrite', async () => {
  const { dir, layout } = await tempLayout();
  try {
    const blobs = new BlobStore(layout);
    const bytes = new TextEncoder().encode('%PDF-1.7 example');
    const sha = await blobs.putBytes('tnt_a', 'doc_a', bytes);
    assert.is(sha, createHash('sha256').update(bytes).digest('hex'));
    const first = await stat(blobs.path('tnt_a', 'doc_a', sha));
    await new Promise((r) => setTimeout(r, 20));
    assert.is(await blobs.putBytes('tnt_a', 'doc_a', bytes), sha);
    const second = await stat(blobs.path('tnt_a', 'doc_a', sha));
    assert.is(second.mtimeMs, first.mtimeMs, 'not rewritten');
    assert.equal(await blobs.read('tnt_a', 'doc_a', sha), bytes);
    assert.throws(() => blobs.path('tnt_a', 'doc_a', '../x'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('documents: serialised updates, abort on throw, newest first, isolated by tenant, removal', async () => {
  const { dir, layout } = await tempLayout();
  try {
    const docs = new DocumentStore(layout);
    await docs.create('tnt_a', record('doc_old', '2026-01-01T00:00:00.000Z'));
    await docs.create('tnt_a', record('doc_new', '2026-02-01T00:00:00.000Z'));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        docs.update('tnt_a', 'doc_new', (r) => {
          r.served_regions.push({
            revision_id: 'r',
            page_index: i,
            box_render: [0, 0, 1, 1],
            dpi: 300,
            at: '',
          });
        }),
      ),
    );
    assert.is((await docs.get('tnt_a', 'doc_new'))!.served_regions.length, 20, 'no lost update');
    await docs
      .update('tnt_a', 'doc_new', (r) => {
        r.document.state = 'broken';
        throw new Error('abort');
      })
      .catch(() => undefined);
    assert.is(
      (await docs.get('tnt_a', 'doc_new'))!.document.state,
      'ready',
      'an aborted change writes nothing',
    );
    assert.equal(
      (await docs.list('tnt_a', 10)).map((r) => r.document.document_id),
      ['doc_new', 'doc_old'],
    );
    assert.is(await docs.get('tnt_b', 'doc_new'), null);
    assert.is(await docs.get('tnt_a', '../tnt_b'), null);
    assert.is(await docs.remove('tnt_a', 'doc_old'), true);
    assert.is(await docs.get('tnt_a', 'doc_old'), null);
    assert.is(await docs.remove('tnt_a', 'doc_old'), false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
