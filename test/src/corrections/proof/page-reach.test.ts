// The proof of the other pages on a long file (proof/page-reach.ts, verify.ts proveStructure): a
// correction renders only its own page and proves the 199 others by their objects; an update that
// rewrites an object other pages draw from (the body font of pages 1, 2, 199 and 200) has those pages
// found, rendered before and after, and the guard fails — also on the next revision, whose page
// graph is the kept one updated.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { PageReach } from '../../../../src/corrections/proof/page-reach.ts';
import { proveStructure, streamDecoder, type VerifyPage } from '../../../../src/corrections/proof/verify.ts';
import { inputIndexOf } from '../../../../src/corrections/save/save-correction.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput } from '../fixtures.ts';

const corpus = (name: string) => join(import.meta.dirname, '../../../../fixtures/corpus/pdf', name);
const dir = mkdtempSync(join(tmpdir(), 'docfix-page-reach-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * 200 pages: TraceMonkey pages 1–2, the 4 LaTeX pages 49 times (sharing their fonts), TraceMonkey
 * pages 3–4. Built with qpdf, which the test needs.
 */
function twoHundredPages(): Uint8Array {
  const pages = ['1-2'].flatMap((r) => [corpus('tracemonkey-two-column.pdf'), r]);
  for (let i = 0; i < 49; i += 1) pages.push(corpus('latex-4-pages.pdf'), '1-4');
  pages.push(corpus('tracemonkey-two-column.pdf'), '3-4');
  const out = join(dir, 'two-hundred.pdf');
  try {
    execFileSync('qpdf', ['--empty', '--pages', ...pages, '--', out], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    throw new Error(
      `qpdf (Debian package qpdf) is needed to build the 200-page file: ${(error as Error).message}`,
    );
  }
  return new Uint8Array(readFileSync(out));
}

const long = twoHundredPages();

/** The pages naming each font in their /Resources/Font, by the font's object number. */
function fontUsers(pdf: Uint8Array): Map<number, number[]> {
  const doc = new mupdf.PDFDocument(pdf);
  try {
    const users = new Map<number, number[]>();
    for (let i = 0; i < doc.countPages(); i += 1) {
      doc
        .findPage(i)
        .get('Resources')
        .get('Font')
        .forEach((v: mupdf.PDFObject) => {
          // The TraceMonkey body font (Nimbus Roman) and the LaTeX one (CMR10) are the ones drawn.
          const name = v.resolve().get('BaseFont').toString();
          if (v.isIndirect() && /NimbusRomNo9L-Regu$|CMR10$/.test(name))
            users.set(v.asIndirect(), [...(users.get(v.asIndirect()) ?? []), i]);
        });
    }
    return users;
  } finally {
    doc.destroy();
  }
}

test('a correction on page 151 of 200 renders that page only and proves the 199 others by objects', async () => {
  const { verification } = await applyEdit(editInput(long, 'meaning', 'menaing', 150));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  const changes = verification.stream_changes as Record<string, unknown>;
  assert.is(changes.pages_rendered, 1);
  assert.is(changes.pages_proven_by_objects, 199);
  assert.is(verification.pages.length, 200);
  const rendered = verification.pages.filter((p) => p.proven_by === 'render').map((p) => p.page_index);
  assert.equal(rendered, [150]);
  const guard = verification.guards.find((g) => g.name === 'other_pages_identical')!;
  assert.ok(guard.passed, guard.detail);
});

/**
 * A hostile update of `input`: the widths of `font` (drawn by other pages too) doubled in place, and
 * page `pageIndex` rewritten, saved incrementally; the save names only the page as rewritten and
 * declares the font (so only the page proof can catch it). Returns the proof's pages and guard.
 */
function hostileProof(input: Uint8Array, font: number, pageIndex: number) {
  const doc = new mupdf.PDFDocument(input);
  let output: Uint8Array;
  let pageNum: number;
  try {
    // The font's /Widths replaced by a direct array of doubled widths (a key a font may change).
    const dict = doc.newIndirect(font).resolve();
    const widths = dict.get('Widths');
    const doubled = doc.newArray();
    for (let i = 0; i < widths.length; i += 1) doubled.push(widths.get(i).asNumber() * 2);
    dict.put('Widths', doubled);
    // The page written again as it was (its /Contents put back).
    const page = doc.findPage(pageIndex);
    pageNum = page.asIndirect();
    page.put('Contents', page.get('Contents'));
    output = takeBytes(doc.saveToBuffer('incremental'));
  } finally {
    doc.destroy();
  }
  const out = new mupdf.PDFDocument(output);
  try {
    const inputIndex = inputIndexOf(input, streamDecoder(out));
    const count = out.countPages();
    const edited: VerifyPage = {
      page_index: pageIndex,
      identical: false,
      proven_by: 'render',
      changed_pixels: 1,
      changed_fraction: 0,
      outside_pixels: 0,
      max_delta: 1,
      bbox: null,
      declared_box: null,
    };
    const proof = proveStructure(
      out,
      {
        output,
        input,
        password: '',
        protectedInput: false,
        pageIndex,
        pageCount: count,
        changedObjects: [],
        rewrittenExisting: [pageNum],
        inputIndex,
        declared: [
          { num: pageNum, kind: 'page' },
          { num: font, kind: 'font' },
        ],
        numbersKept: 0,
        encrypted: false,
      },
      edited,
    );
    return proof;
  } finally {
    out.destroy();
  }
}

function assertCaught(proof: ReturnType<typeof hostileProof>, users: number[], pageIndex: number): void {
  const structure = proof.guards.find((g) => g.name === 'objects_untouched')!;
  assert.ok(structure.passed, `the font's change is declared: ${structure.detail}`);
  const guard = proof.guards.find((g) => g.name === 'other_pages_identical')!;
  assert.not.ok(guard.passed, guard.detail);
  const others = users.filter((i) => i !== pageIndex);
  for (const i of others) {
    const page = proof.pages[i];
    assert.is(page.proven_by, 'render', `page ${i}`);
    assert.not.ok(page.identical, `page ${i}`);
    assert.ok(page.changed_pixels > 0, `page ${i} draws with the doubled widths`);
  }
  // Every other page is still proven by its objects, without a render.
  const rest = proof.pages.filter((p) => p.page_index !== pageIndex && !others.includes(p.page_index));
  assert.ok(rest.length >= 190);
  assert.ok(rest.every((p) => p.proven_by === 'objects' && p.identical));
  assert.is(proof.stream_changes.pages_rendered, others.length + 1);
}

test('a rewritten font shared with pages 1, 2, 199 and 200: those pages are rendered and the change is caught', () => {
  const [font, users] = [...fontUsers(long)].find(([, pages]) => pages[0] === 0)!;
  assert.equal(users, [0, 1, 198, 199]);
  assertCaught(hostileProof(long, font, 198), users, 198);
});

test('on the next revision (the page graph kept from the proof, updated) the shared font is still caught', async () => {
  const { output } = await applyEdit(editInput(long, 'meaning', 'menaing', 150));
  const [font, users] = [...fontUsers(output)].find(([, pages]) => pages[0] === 0)!;
  assertCaught(hostileProof(output, font, 198), users, 198);
  // And a font of the LaTeX pages, drawn by 196 pages: the page corrected before among them.
  const [latex, drawers] = [...fontUsers(output)].find(([, pages]) => pages.length === 196)!;
  const proof = hostileProof(output, latex, 2);
  assert.not.ok(proof.guards.find((g) => g.name === 'other_pages_identical')!.passed);
  const unproven = proof.pages.filter((p) => !p.identical).map((p) => p.page_index);
  assert.equal(unproven, drawers);
});

test('the page graph: a page reaches the tree nodes it inherits from, never the other pages through /Kids', () => {
  const doc = new mupdf.PDFDocument(long);
  try {
    const reach = PageReach.read(doc);
    const root = doc.getTrailer().get('Root').get('Pages').asIndirect();
    // Inherited attributes (/Resources, /MediaBox, /Rotate) live in the tree: every page reaches its root.
    assert.is(reach.pagesReaching([root]).length, 200);
    assert.equal(reach.pagesReaching([doc.findPage(5).asIndirect()]), [5]);
    const font = [...fontUsers(long)].find(([, pages]) => pages[0] === 0)!;
    assert.equal(reach.pagesReaching([font[0]]), font[1]);
  } finally {
    doc.destroy();
  }
});

test.run();
