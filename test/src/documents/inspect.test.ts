// inspect on upload: hostile and broken files answer their documented error within bounded time and
// memory; passwords open (or refuse) as documented; plan limits and concerns; saving keeps encryption.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocfixError } from '../../../src/errors.ts';
import { mupdf, openPdf, saveKeepingEncryption } from '../../../src/pdf/mupdf-adapter.ts';
import { inspectPdf } from '../../../src/documents/inspect.ts';
import { makeHostileFixtures, simpleTextPdf, type HostileFixture } from '../../../fixtures/make-hostile.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const corpus = (file: string) => new Uint8Array(readFileSync(CORPUS + file));

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof DocfixError) return error.code;
    throw error;
  }
}

let fixtures: HostileFixture[] = [];
test.before(async () => {
  fixtures = await makeHostileFixtures();
});

// Not a timing assertion (bench measures speed): a guard that nothing hangs, far under the 60 s watchdog.
test('every hostile file gets its documented answer, none hangs, memory stays bounded', () => {
  assert.ok(fixtures.length >= 12);
  // Relative to the start: other test files share this process (uvu) and WASM memory never shrinks.
  const rssBefore = process.memoryUsage().rss;
  for (const f of fixtures) {
    const started = performance.now();
    const code = codeOf(() => inspectPdf(new Uint8Array(readFileSync(f.path)), { maxPages: 300 }));
    const ms = performance.now() - started;
    assert.is(code, f.expect, `${f.name} (${f.what})`);
    assert.ok(ms < 20_000, `${f.name} took ${Math.round(ms)} ms`);
    const grown = process.memoryUsage().rss - rssBefore;
    assert.ok(grown < 1024 ** 3, `${f.name}: resident memory grew ${Math.round(grown / 1024 ** 2)} MiB`);
  }
});

test('messages say what is wrong: bomb, huge image, wide page', () => {
  const message = (name: string) => {
    try {
      inspectPdf(new Uint8Array(readFileSync(fixtures.find((f) => f.name === name)!.path)));
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  };
  assert.match(message('decompression-bomb.pdf'), /decompression bomb/);
  assert.match(message('huge-image.pdf'), /20000 × 20000 pixels \(400 megapixels/);
  assert.match(message('wide-page.pdf'), /200 × 11 inches/);
});

test('a repaired file is accepted and says it was damaged', () => {
  const f = fixtures.find((x) => x.name === 'xref-nowhere.pdf')!;
  const r = inspectPdf(new Uint8Array(readFileSync(f.path)));
  assert.is(r.page_count, 1);
  assert.ok(r.signals.repaired);
  assert.ok(r.concerns.some((c) => c.startsWith('damaged')));
});

test('passwords: required, incorrect, not_protected; owner-only opens without one', () => {
  assert.is(
    codeOf(() => inspectPdf(corpus('libreoffice-password.pdf'))),
    'password_required',
  );
  assert.is(
    codeOf(() => inspectPdf(corpus('libreoffice-password.pdf'), { password: 'wrong' })),
    'password_incorrect',
  );
  assert.is(
    codeOf(() => inspectPdf(corpus('latex-minimal.pdf'), { password: 'x' })),
    'not_protected',
  );
  const open = inspectPdf(corpus('libreoffice-password.pdf'), { password: 'openpassword' });
  assert.ok(open.protected && open.unlocked && open.encrypted);
  assert.ok(open.concerns.some((c) => c.startsWith('password-protected')));
  const ownerOnly = inspectPdf(corpus('aes256-owner-only.pdf'));
  assert.ok(!ownerOnly.protected && ownerOnly.encrypted);
  assert.ok(ownerOnly.concerns.some((c) => c.startsWith('encrypted without a user password')));
  // The owner password of an owner-only file is accepted (and kept) rather than refused.
  const withOwner = inspectPdf(corpus('aes256-owner-only.pdf'), { password: 'asdfzxcv' });
  assert.ok(withOwner.unlocked);
});

test('plan page limit: too_many_pages names the limit', () => {
  try {
    inspectPdf(corpus('standard14-tcpdf.pdf'), { maxPages: 10 });
    assert.unreachable();
  } catch (error) {
    assert.is((error as DocfixError).code, 'too_many_pages');
    assert.match((error as Error).message, /14 pages.*at most 10/);
  }
  assert.is(inspectPdf(corpus('standard14-tcpdf.pdf'), { maxPages: 14 }).page_count, 14);
});

test('concerns: signatures, usage rights, non-embedded fonts, forms, JavaScript', () => {
  const signed = inspectPdf(corpus('signed-qualified.pdf'));
  assert.is(signed.signals.signatures, 1);
  assert.ok(signed.concerns[0].startsWith('digitally signed: 1 signature'));
  const tax = inspectPdf(corpus('tax-form-incremental.pdf'));
  assert.is(tax.signals.signatures, 0, 'a UR3 usage-rights signature is not a document signature');
  assert.ok(tax.signals.usage_rights_signature);
  assert.ok(tax.signals.form_fields > 50);
  assert.ok(tax.signals.javascript);
  const annotated = inspectPdf(corpus('annotated.pdf'));
  assert.equal(annotated.signals.fonts_not_embedded, ['Helvetica']);
  const plain = inspectPdf(corpus('latex-minimal.pdf'));
  assert.equal(plain.concerns, []);
});

test('classification of a plain text page: counts and sizes', () => {
  const r = inspectPdf(simpleTextPdf(['Hello world', 'Second line']));
  const [p] = r.pages;
  assert.is(p.kind, 'text');
  assert.is(p.char_count, 'HelloworldSecondline'.length);
  assert.is(p.image_count, 0);
  assert.is(p.image_coverage, 0);
  assert.is(p.width_pt, 612);
  assert.is(p.height_pt, 792);
  assert.is(p.natural_dpi, 300);
});

test('saveKeepingEncryption: a protected document stays protected with the same password', () => {
  for (const [file, password] of [
    ['libreoffice-password.pdf', 'openpassword'],
    ['aes256-user-owner.pdf', 'foo'],
  ] as const) {
    const { doc } = openPdf(corpus(file), password);
    const method = doc.getMetaData('encryption');
    for (const incremental of [false, true]) {
      const out = saveKeepingEncryption(doc, { incremental });
      assert.is(
        codeOf(() => openPdf(out)),
        'password_required',
        `${file} incremental=${incremental}`,
      );
      // qpdf, independently: same revision and permissions, and the password is the user password.
      const dir = mkdtempSync(join(tmpdir(), 'docfix-enc-'));
      try {
        writeFileSync(join(dir, 'out.pdf'), out);
        writeFileSync(join(dir, 'in.pdf'), corpus(file));
        const show = (f: string) =>
          execFileSync('qpdf', ['--show-encryption', `--password=${password}`, join(dir, f)], {
            encoding: 'utf8',
          });
        const before = show('in.pdf');
        const after = show('out.pdf');
        assert.match(after, /Supplied password is user password/);
        assert.is(after.match(/^R = \d+/m)?.[0], before.match(/^R = \d+/m)?.[0]);
        assert.is(after.match(/^P = -?\d+/m)?.[0], before.match(/^P = -?\d+/m)?.[0]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const again = openPdf(out, password);
      assert.is(again.doc.getMetaData('encryption'), method);
      assert.ok(again.doc.loadPage(0).toStructuredText('').asText().length > 10, 'text still reads');
      again.doc.destroy();
    }
    doc.destroy();
  }
});

test.run();
