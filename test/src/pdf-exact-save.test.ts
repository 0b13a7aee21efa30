// Exact numbers and the structural guard on real files: MuPDF re-prints reals it rewrites
// (orientation.pdf's MediaBox 841.92004 → 841.92007, which poppler renders a fraction of a point
// elsewhere); the save puts the file's own tokens back, qpdf and poppler read the result, and the
// `objects_untouched` guard fails on a file where one number was rounded outside the declared keys.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../src/corrections/engine.ts';
import { objectsUntouched } from '../../src/corrections/proof/object-guard.ts';
import { streamDecoder } from '../../src/corrections/proof/verify.ts';
import { keepOriginalNumbers, readSavedRegion } from '../../src/pdf/exact-save.ts';
import { parseValue, stringBytes, type PdfValue } from '../../src/pdf/object-syntax.ts';
import { ObjectIndex } from '../../src/pdf/xref-index.ts';
import { mupdf } from '../../src/pdf/mupdf-adapter.ts';
import { editInput } from './corrections/fixtures.ts';

const corpus = fileURLToPath(new URL('../../fixtures/corpus/pdf/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'docfix-exact-'));

function indexOf(bytes: Uint8Array): { index: ObjectIndex; doc: mupdf.PDFDocument } {
  const doc = new mupdf.PDFDocument(bytes);
  return { index: new ObjectIndex(bytes, streamDecoder(doc)), doc };
}

const nameAt = (v: PdfValue, key: string) => {
  const at = v.kind === 'dict' ? v.entries.get(key) : undefined;
  return at?.kind === 'name' ? at.text : null;
};

/** A page's MediaBox as poppler reports it (pdfinfo -box). */
const mediaBox = (path: string) =>
  /MediaBox:\s+([\d.\s]+)\n/.exec(execFileSync('pdfinfo', ['-box', path], { encoding: 'utf8' }))![1].trim();

test('object syntax: references, strings with escapes, hex strings, nested dictionaries', () => {
  const bytes = Buffer.from('<</A [1 0 R 2.50 (x\\051\\n) <4142>] /B <</C -.5>> /D /N#20a>>', 'latin1');
  const v = parseValue(new Uint8Array(bytes), 0);
  assert.is(v.kind, 'dict');
  if (v.kind !== 'dict') return;
  const a = v.entries.get('/A');
  assert.ok(a?.kind === 'array' && a.items[0].kind === 'ref' && a.items[0].num === 1);
  if (a?.kind !== 'array') return;
  assert.is(a.items[1].kind === 'number' && a.items[1].text, '2.50');
  assert.equal([...stringBytes((a.items[2] as { text: string }).text)], [0x78, 0x29, 0x0a]);
  assert.equal(stringBytes((a.items[3] as { text: string }).text).toString('latin1'), 'AB');
  const b = v.entries.get('/B');
  assert.ok(b?.kind === 'dict' && b.entries.get('/C')?.kind === 'number');
});

test('orientation.pdf: the corrected page keeps MediaBox 841.92004 as written; poppler and qpdf agree', async () => {
  const path = join(corpus, 'orientation.pdf');
  const pdf = new Uint8Array(readFileSync(path));
  const result = await applyEdit(editInput(pdf, 'righy', 'rgihy'));
  assert.ok(result.verification.passed, result.verification.failure_reason ?? '');
  const out = join(work, 'orientation.pdf');
  writeFileSync(out, result.output);
  assert.is(mediaBox(out), mediaBox(path));
  const tail = Buffer.from(result.output.subarray(pdf.length)).toString('latin1');
  assert.match(tail, /\/MediaBox\s*\[0\.0 0\.0 595\.32001 841\.92004\]/);
  assert.not.match(tail, /841\.92007/);
  execFileSync('qpdf', ['--check', out], { stdio: 'ignore' });
  const guard = result.verification.guards.find((g) => g.name === 'objects_untouched');
  assert.ok(guard?.passed, guard?.detail);
  const changes = result.verification.stream_changes as { numbers_kept_as_written: number };
  assert.ok(changes.numbers_kept_as_written >= 2);
});

test('MuPDF alone rounds; keepOriginalNumbers restores; the guard fails on the rounded bytes and passes on the kept ones', () => {
  const path = join(corpus, 'orientation.pdf');
  const pdf = new Uint8Array(readFileSync(path));
  const doc = new mupdf.PDFDocument(pdf);
  const page = doc.findPage(0);
  // Any write of the page dictionary re-prints its numbers (a harmless key added for the test).
  page.put('Rotate', 0);
  const saved = new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  const pageNum = page.asIndirect();
  doc.destroy();
  assert.match(Buffer.from(saved.subarray(pdf.length)).toString('latin1'), /841\.92007/);

  const input = indexOf(pdf);
  const declared = [{ num: pageNum, kind: 'page' as const }];
  const rounded = indexOf(saved);
  const before = objectsUntouched(pdf, saved, input.index, rounded.index, declared, { encrypted: false });
  assert.not.ok(before.passed);
  assert.match(before.detail, /object \d+ \/(CropBox|MediaBox)\//);

  const kept = keepOriginalNumbers(pdf, saved, input.index, new Map());
  assert.ok(kept.restored >= 2);
  assert.ok(kept.incremental);
  const exact = indexOf(kept.bytes);
  assert.not.ok(exact.doc.wasRepaired());
  const after = objectsUntouched(pdf, kept.bytes, input.index, exact.index, declared, { encrypted: false });
  assert.ok(after.passed, after.detail);
  // The rewritten cross-reference table points at each object the save wrote.
  const region = readSavedRegion(pdf, kept.bytes);
  for (const obj of region.objects) assert.is(exact.index.get(obj.num) !== null, true);
  for (const d of [input.doc, rounded.doc, exact.doc]) d.destroy();
});

test('a cross-reference stream file (pdfTeX) and an encrypted one keep the guard and reopen without repair', async () => {
  for (const [file, find, replace, password] of [
    ['tex-review.pdf', 'models', 'modles', ''],
    ['crazyones-aes256.pdf', 'rebels', 'rebles', 'password'],
    ['owner-only-rc4-40.pdf', 'Test', 'Tset', ''],
  ] as const) {
    const pdf = new Uint8Array(readFileSync(join(corpus, file)));
    const input = editInput(pdf, find, replace);
    input.password = password;
    const result = await applyEdit(input);
    assert.ok(result.verification.passed, `${file}: ${result.verification.failure_reason}`);
    const guard = result.verification.guards.find((g) => g.name === 'objects_untouched');
    assert.ok(guard?.passed && /compared token for token/.test(guard.detail), guard?.detail);
  }
});

test('a cross-reference table shifted by one (scan-russian-form): objects are found where the file writes them', () => {
  // Its first table starts at 1 with the entry meant for 0: object 1 reads as free, object 2 points
  // at object 1, … Readers repair by scanning; the index does the same, only when offsets are wrong.
  const bytes = new Uint8Array(readFileSync(join(corpus, 'scan-russian-form.pdf')));
  const { index, doc } = indexOf(bytes);
  try {
    assert.ok(index.inUse(1), "object 1 (the first page's image) is in use though the table says free");
    const image = index.get(1)!;
    assert.is(image.value.kind, 'dict');
    assert.is(nameAt(image.value, '/Subtype'), '/Image');
    const page = index.get(3)!;
    assert.is(nameAt(page.value, '/Type'), '/Page');
    assert.ok(index.numbers().includes(1));
  } finally {
    doc.destroy();
  }
  // A sound file is read from its table alone: nothing it calls free comes back.
  const sound = new Uint8Array(readFileSync(join(corpus, 'latex-minimal.pdf')));
  const ok = indexOf(sound);
  try {
    assert.ok(!ok.index.inUse(0));
    assert.is(ok.index.get(0), null);
  } finally {
    ok.doc.destroy();
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
