// The provenance manifest: built bytes, embedded without changing any page's pixels, read back
// byte for byte (also from an encrypted file, after an incremental save, and when replaced).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  MANIFEST_FILENAME,
  MANIFEST_SCHEMA,
  buildManifest,
  embedManifest,
  engineIdentity,
  parseManifest,
  readManifest,
  type ManifestCorrection,
  type ManifestInput,
} from '../../../../src/corrections/save/manifest.ts';
import { openPdf, renderPage } from '../../../../src/pdf/mupdf-adapter.ts';

const CORPUS = new URL('../../../../fixtures/corpus/pdf/', import.meta.url);
const corpus = (name: string) => new Uint8Array(readFileSync(new URL(name, CORPUS)));

const input: ManifestInput = {
  document_id: 'doc_1',
  original_sha256: 'ab'.repeat(32),
  standing: [],
  ...engineIdentity(),
  dpi: 300,
};
const correction = (over: Partial<ManifestCorrection> = {}): ManifestCorrection => ({
  page: 0,
  box_render: [10, 20, 110, 60],
  box_dpi: 300,
  text_before: 'nonumy',
  text_after: 'nonmuy',
  tier: 1,
  tier_name: 'glyph_reuse',
  visibility_cost: 'none',
  created_at: '2026-11-22T05:00:00.000Z',
  ...over,
});

/** Opens, embeds and saves incrementally, as the engine does. */
function embedInto(pdf: Uint8Array, password: string, bytes: Uint8Array): Uint8Array {
  const { doc } = openPdf(pdf, password);
  try {
    embedManifest(doc, bytes);
    return new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  } finally {
    doc.destroy();
  }
}

function pixelsOf(pdf: Uint8Array, password: string, page: number): Buffer {
  const { doc } = openPdf(pdf, password);
  try {
    const p = doc.loadPage(page);
    try {
      return Buffer.from(renderPage(p, 150).pixels);
    } finally {
      p.destroy();
    }
  } finally {
    doc.destroy();
  }
}

test('buildManifest writes the versioned schema with standing corrections first', () => {
  const first = correction({
    created_at: '2026-11-22T04:00:00.000Z',
    text_before: 'dolore',
    text_after: 'dolroe',
  });
  const bytes = buildManifest({ ...input, standing: [first] }, correction());
  const text = new TextDecoder().decode(bytes);
  assert.ok(text.endsWith('}\n'));
  const m = parseManifest(bytes);
  assert.is(m.schema, MANIFEST_SCHEMA);
  assert.is(m.schema, 'docfix.manifest/1');
  assert.is(m.document_id, 'doc_1');
  assert.is(m.original_sha256, 'ab'.repeat(32));
  assert.is(m.dpi, 300);
  assert.match(m.engine_version, /^docfix \d+\.\d+\.\d+/);
  assert.match(m.renderer, /^mupdf \d+\.\d+/);
  assert.equal(
    m.corrections.map((c) => c.text_before),
    ['dolore', 'nonumy'],
  );
  assert.equal(Object.keys(m.corrections[1]), [
    'page',
    'box_render',
    'box_dpi',
    'text_before',
    'text_after',
    'tier',
    'tier_name',
    'visibility_cost',
    'created_at',
  ]);
  assert.equal(Object.keys(m), [
    'schema',
    'document_id',
    'original_sha256',
    'engine_version',
    'renderer',
    'dpi',
    'corrections',
  ]);
  // Same input, same bytes; extra fields on the input are not written.
  const again = buildManifest(
    { ...input, standing: [{ ...first, extra: 1 } as ManifestCorrection] },
    correction(),
  );
  assert.equal(Buffer.from(again), Buffer.from(bytes));
});

test('buildManifest refuses malformed input', () => {
  assert.throws(
    () => buildManifest({ ...input, original_sha256: 'nothex' }, correction()),
    /original_sha256/,
  );
  assert.throws(() => buildManifest(input, correction({ page: -1 })), /page/);
  assert.throws(() => buildManifest(input, correction({ created_at: 'yesterday' })), /created_at/);
  assert.throws(() => buildManifest({ ...input, dpi: 0 }, correction()), /dpi/);
});

test('embed → incremental save → read gives the exact bytes; pages render the same', () => {
  const original = corpus('libreoffice-writer.pdf');
  const bytes = buildManifest(input, correction());
  const out = embedInto(original, '', bytes);
  // Incremental: the original bytes are a prefix of the new file.
  assert.equal(Buffer.from(out.subarray(0, original.byteLength)), Buffer.from(original));
  assert.equal(Buffer.from(readManifest(out, '')!), Buffer.from(bytes));
  assert.ok(pixelsOf(original, '', 0).equals(pixelsOf(out, '', 0)), 'page pixels unchanged');
  assert.is(readManifest(original, ''), null);
});

test('a second manifest replaces the first and keeps other embedded files', () => {
  const original = corpus('latex-minimal.pdf');
  const { doc } = openPdf(original, '');
  let withOther: Uint8Array;
  try {
    const spec = doc.addEmbeddedFile(
      'notes.txt',
      'text/plain',
      new TextEncoder().encode('keep me'),
      new Date(),
      new Date(),
    );
    doc.insertEmbeddedFile('notes.txt', spec);
    withOther = new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  } finally {
    doc.destroy();
  }
  const first = buildManifest(input, correction());
  const second = buildManifest({ ...input, standing: [correction()] }, correction({ text_before: 'dolore' }));
  const once = embedInto(withOther, '', first);
  const twice = embedInto(once, '', second);
  assert.equal(Buffer.from(readManifest(twice, '')!), Buffer.from(second));
  const reopened = openPdf(twice, '').doc;
  try {
    assert.equal(Object.keys(reopened.getEmbeddedFiles()).sort(), [MANIFEST_FILENAME, 'notes.txt']);
    const af = reopened.getTrailer().get('Root').get('AF');
    assert.is(af.length, 1, 'one manifest in /AF');
    assert.is(af.get(0).get('AFRelationship').asName(), 'Supplement');
  } finally {
    reopened.destroy();
  }
});

test('encrypted documents: embedded under the password and read back with it', () => {
  const original = corpus('libreoffice-password.pdf');
  const bytes = buildManifest(input, correction());
  const out = embedInto(original, 'openpassword', bytes);
  assert.equal(Buffer.from(readManifest(out, 'openpassword')!), Buffer.from(bytes));
  assert.ok(pixelsOf(original, 'openpassword', 0).equals(pixelsOf(out, 'openpassword', 0)));
  assert.throws(() => readManifest(out, 'wrong'), /password/);
});

test('other readers see the attachment (qpdf), and the file checks clean', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-manifest-'));
  try {
    const bytes = buildManifest(input, correction());
    const out = embedInto(corpus('pdfa-crazyones.pdf'), '', bytes);
    const file = join(dir, 'out.pdf');
    writeFileSync(file, out);
    let listed: string;
    try {
      listed = execFileSync('qpdf', ['--list-attachments', file], { encoding: 'utf8' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // qpdf not installed here
      throw error;
    }
    assert.match(listed, MANIFEST_FILENAME);
    const shown = execFileSync('qpdf', [`--show-attachment=${MANIFEST_FILENAME}`, file]);
    assert.equal(Buffer.from(shown), Buffer.from(bytes));
    execFileSync('qpdf', ['--check', file], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unreadable bytes answer unreadable_pdf', () => {
  try {
    readManifest(new TextEncoder().encode('%PDF-1.4 garbage'), '');
    // MuPDF may repair garbage into an empty document; then there is simply no manifest.
  } catch (error) {
    assert.is((error as { code?: string }).code, 'unreadable_pdf');
  }
});

test.run();
