// The proof re-derived from two files alone (src/verify/rederive.ts), on real corrections made by the
// engine: a genuine revision chain is proven (and poppler, a third renderer, agrees that nothing
// changed outside the declared boxes); each kind of tampering fails with its own reason; a pair
// docfix did not make is reported region by region and object by object.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../src/corrections/engine.ts';
import {
  embedManifest,
  engineIdentity,
  parseManifest,
  readManifest,
  type ManifestCorrection,
} from '../../../src/corrections/save/manifest.ts';
import { DocfixError } from '../../../src/errors.ts';
import { openPdf, type mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { rederiveProof, type Rederivation } from '../../../src/verify/rederive.ts';
import { pdftoppm } from '../corrections/poppler.ts';

const root = new URL('../../../', import.meta.url);
const read = (path: string) => new Uint8Array(readFileSync(new URL(path, root)));
const LETTER = read('fixtures/sample/letter.pdf');
const work = mkdtempSync(join(tmpdir(), 'docfix-rederive-'));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Applies edits one after the other as the daemon does: each revision's manifest lists those before. */
async function correct(original: Uint8Array, edits: [string, string][], password = ''): Promise<Uint8Array> {
  let pdf = original;
  let standing: ManifestCorrection[] = [];
  for (const [find, replacement] of edits) {
    const made = await applyEdit({
      pdf,
      password,
      request: {
        page_index: 0,
        target: { method: 'text_layer', find, match_index: 0 },
        replacement,
        attestation_id: 'att_test',
      },
      manifest: {
        document_id: 'doc_rederive',
        original_sha256: sha(original),
        standing,
        ...engineIdentity(),
        dpi: 300,
      },
    });
    assert.ok(made.verification.passed, made.verification.failure_reason ?? '');
    pdf = made.output;
    standing = parseManifest(readManifest(pdf, password)!).corrections;
  }
  return pdf;
}

/** An incremental update made by hand (MuPDF appends it after every byte of `pdf`). */
function amend(pdf: Uint8Array, change: (doc: mupdf.PDFDocument) => void): Uint8Array {
  const { doc } = openPdf(pdf, '');
  try {
    change(doc);
    return new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/** Rewrites the embedded manifest's corrections (an update that replaces the manifest). */
function forgeManifest(pdf: Uint8Array, edit: (corrections: ManifestCorrection[]) => void): Uint8Array {
  const manifest = parseManifest(readManifest(pdf, '')!);
  edit(manifest.corrections);
  const bytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
  return amend(pdf, (doc) => embedManifest(doc, bytes));
}

const check = (r: Rederivation, name: string) => r.checks.find((c) => c.name === name)!;
const failed = (r: Rederivation) =>
  r.checks
    .filter((c) => !c.passed)
    .map((c) => c.name)
    .sort();

let fixed: Uint8Array;

test.before(async () => {
  fixed = await correct(LETTER, [
    ['Jonh', 'John'],
    ['1,200.00', '1,300.00'],
  ]);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test('a genuine chain of two corrections is proven from the files alone', async () => {
  const r = await rederiveProof(LETTER, fixed);
  assert.is(r.verdict, 'proven', r.failures.join('\n'));
  assert.ok(r.passed);
  assert.equal(
    r.checks.map((c) => [c.name, c.passed]),
    [
      ['manifest', true],
      ['original', true],
      ['pages', true],
      ['objects', true],
      ['pixels_mupdf', true],
      ['pixels_pdfium', true],
      ['text_layer', true],
    ],
  );
  assert.is(r.original.sha256, sha(LETTER));
  assert.is(r.corrected.sha256, sha(fixed));
  assert.ok(r.objects.incremental, 'each correction appended an update after the original bytes');
  assert.equal(r.objects.changed_undeclared, []);
  assert.equal(r.objects.changed_as_declared.map((o) => o.kind).sort(), ['catalog', 'page']);
  const [page] = r.pages;
  assert.is(page.declared_boxes.length, 2);
  for (const cmp of [page.mupdf!, page.pdfium!]) {
    assert.ok(cmp.changed_pixels > 100, `${cmp.renderer} sees the corrections`);
    assert.is(cmp.counted_outside, 0);
    assert.is(cmp.width, 2480, 'A4 at 300 dpi');
  }
  assert.is(page.mupdf!.outside_pixels, 0);
  assert.equal(page.objects.undeclared, []);
  assert.equal(
    r.corrections.map((c) => [c.text_after, c.passed]),
    [
      ['John', true],
      ['1,300.00', true],
    ],
  );
  assert.match(r.corrections[0].read, /Dear Mr John Smith/);
});

test('poppler agrees: its renders of the two files differ only inside the declared boxes', async () => {
  const r = await rederiveProof(LETTER, fixed);
  writeFileSync(join(work, 'a.pdf'), LETTER);
  writeFileSync(join(work, 'b.pdf'), fixed);
  const a = pdftoppm(join(work, 'a.pdf'), 0, '', join(work, 'pa'));
  const b = pdftoppm(join(work, 'b.pdf'), 0, '', join(work, 'pb'));
  assert.equal([a.width, a.height], [b.width, b.height]);
  // 150 dpi: the 300 dpi boxes halved, outward, and 1 px for poppler's own antialiasing.
  const boxes = r.pages[0].declared_boxes.map((x) => [
    Math.floor(x[0] / 2) - 1,
    Math.floor(x[1] / 2) - 1,
    Math.ceil(x[2] / 2) + 1,
    Math.ceil(x[3] / 2) + 1,
  ]);
  let changed = 0;
  let outside = 0;
  for (let y = 0; y < a.height; y += 1) {
    for (let x = 0; x < a.width; x += 1) {
      const i = a.offset + (y * a.width + x) * 3;
      const j = b.offset + (y * b.width + x) * 3;
      if (a.data.compare(b.data, j, j + 3, i, i + 3) === 0) continue;
      changed += 1;
      if (!boxes.some((k) => x >= k[0] && x < k[2] && y >= k[1] && y < k[3])) outside += 1;
    }
  }
  assert.ok(changed > 20, `poppler sees the corrections (${changed} pixels)`);
  assert.is(outside, 0);
});

test('a drawing added outside the declared boxes fails both renderers, with its region', async () => {
  // Page /Contents is a key a correction may change, so the objects pass: only the pixels tell.
  const tampered = amend(fixed, (doc) => {
    const page = doc.findPage(0);
    const contents = page.get('Contents');
    const parts = doc.newArray();
    if (contents.isArray()) for (let i = 0; i < contents.length; i += 1) parts.push(contents.get(i));
    else parts.push(contents);
    parts.push(doc.addStream('q 1 0 0 rg 100 100 20 20 re f Q', {}));
    page.put('Contents', parts);
  });
  const r = await rederiveProof(LETTER, tampered);
  assert.is(r.verdict, 'failed');
  assert.equal(failed(r), ['pixels_mupdf', 'pixels_pdfium']);
  const mupdf = r.pages[0].mupdf!;
  // 20 pt square at (100, 100) from the bottom-left of an 842 pt page: 83 px at 300 dpi.
  assert.is(mupdf.region_count, 1);
  const [x0, y0, x1, y1] = mupdf.regions[0];
  assert.ok(Math.abs(x0 - 417) <= 1 && Math.abs(x1 - 500) <= 1, `x ${x0}–${x1}`);
  assert.ok(Math.abs(y0 - 3008) <= 1 && Math.abs(y1 - 3092) <= 1, `y ${y0}–${y1}`);
  assert.ok(mupdf.counted_outside > 6000);
  assert.ok(r.pages[0].pdfium!.counted_outside > 6000);
  assert.match(check(r, 'pixels_mupdf').detail, /page 0: \d+ pixels changed outside the declared boxes/);
});

test('an object changed that no correction declares fails the object check', async () => {
  let font = 0;
  const tampered = amend(fixed, (doc) => {
    const fonts = doc.findPage(0).getInheritable('Resources').get('Font');
    let ref: mupdf.PDFObject | null = null;
    fonts.forEach((value) => {
      ref ??= value;
    });
    font = ref!.asIndirect();
    ref!.put('Tampered', doc.newName('Yes'));
  });
  const r = await rederiveProof(LETTER, tampered);
  assert.is(r.verdict, 'failed');
  assert.equal(failed(r), ['objects']);
  assert.equal(r.objects.changed_undeclared, [{ num: font, paths: ['/Tampered'] }]);
  assert.equal(r.pages[0].objects.undeclared, [font], 'the page draws with that font');
  assert.match(check(r, 'objects').detail, new RegExp(`object ${font} /Tampered`));
});

test('a declared box shrunk so the change falls outside it fails the pixel checks', async () => {
  const tampered = forgeManifest(fixed, (corrections) => {
    const b = corrections[1].box_render!;
    corrections[1].box_render = [b[0], b[1], b[0] + 4, b[1] + 4];
  });
  const r = await rederiveProof(LETTER, tampered);
  assert.is(r.verdict, 'failed');
  assert.ok(failed(r).includes('pixels_mupdf') && failed(r).includes('pixels_pdfium'), failed(r).join());
  assert.ok(check(r, 'objects').passed, 'a replaced manifest is a declared change');
  assert.ok(r.pages[0].mupdf!.counted_outside > 50);
});

test('a manifest whose new text the page does not read fails the text check', async () => {
  const tampered = forgeManifest(fixed, (corrections) => {
    corrections[0].text_after = 'Joan';
  });
  const r = await rederiveProof(LETTER, tampered);
  assert.is(r.verdict, 'failed');
  assert.equal(failed(r), ['text_layer']);
  const k = r.corrections[0];
  assert.is(k.passed, false);
  assert.match(k.detail, /no line reads “Joan”.*Dear Mr John Smith/);
  assert.ok(r.corrections[1].passed);
});

test('another original than the manifest names fails the original check', async () => {
  const other = read('fixtures/corpus/pdf/latex-minimal.pdf');
  const r = await rederiveProof(other, fixed);
  assert.is(r.verdict, 'failed');
  assert.is(check(r, 'original').passed, false);
  assert.match(check(r, 'original').detail, /not the file the corrections were made to/);
});

test('a text corrected twice: the earlier correction is superseded, the later one read', async () => {
  const twice = await correct(LETTER, [
    ['Jonh', 'John'],
    ['John', 'Joan'],
  ]);
  const r = await rederiveProof(LETTER, twice);
  assert.is(r.verdict, 'proven', r.failures.join('\n'));
  assert.equal(
    r.corrections.map((c) => [c.superseded_by, c.passed]),
    [
      [1, true],
      [null, true],
    ],
  );
  assert.match(check(r, 'text_layer').detail, /1 corrected again later/);
});

test('a pair docfix did not make: not_docfix, every changed region and object reported', async () => {
  const a = read('fixtures/corpus/pdf/latex-minimal.pdf');
  const b = read('fixtures/corpus/pdf/libreoffice-writer.pdf');
  const r = await rederiveProof(a, b);
  assert.is(r.verdict, 'not_docfix');
  assert.is(r.passed, false);
  assert.is(r.manifest, null);
  assert.match(check(r, 'manifest').detail, /no docfix manifest/);
  assert.not.ok(r.checks.some((c) => c.name === 'text_layer' || c.name === 'original'));
  assert.is(check(r, 'objects').passed, false);
  assert.ok(r.objects.changed_undeclared.length > 0);
  const page = r.pages[0];
  assert.ok(page.mupdf!.region_count > 0 && page.pdfium!.region_count > 0);
  assert.is(page.mupdf!.counted_outside, page.mupdf!.changed_pixels, 'nothing is declared');
});

test('a qpdf rewrite of the original without a manifest: same pixels, objects reported', async () => {
  const path = join(work, 'letter.pdf');
  writeFileSync(path, LETTER);
  execFileSync('qpdf', ['--linearize', path, join(work, 'letter-qpdf.pdf')]);
  const rewritten = new Uint8Array(readFileSync(join(work, 'letter-qpdf.pdf')));
  const r = await rederiveProof(LETTER, rewritten);
  assert.is(r.verdict, 'not_docfix');
  assert.is(r.pages[0].mupdf!.changed_pixels, 0);
  assert.is(r.pages[0].pdfium!.changed_pixels, 0);
  assert.ok(check(r, 'pixels_mupdf').passed);
  assert.is(r.objects.incremental, false);
  assert.ok(r.objects.changed_undeclared.length > 0, 'qpdf renumbers the objects');
});

test('password-protected files re-derive with their password, and need it', async () => {
  const locked = read('fixtures/corpus/pdf/libreoffice-password.pdf');
  const made = await correct(locked, [['nonumy', 'nonmuy']], 'openpassword');
  const r = await rederiveProof(locked, made, { password: 'openpassword' });
  assert.is(r.verdict, 'proven', r.failures.join('\n'));
  assert.ok(r.corrected.encrypted);
  const refused = await rederiveProof(locked, made).catch((e: unknown) => e);
  assert.instance(refused, DocfixError);
  assert.is((refused as DocfixError).code, 'password_required');
  assert.match((refused as DocfixError).message, /^The original file: /);
});

test.run();
