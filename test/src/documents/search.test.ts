// Document search: matches across pages, the matching rule (exact by default, --ignore-case,
// --word), each hit naming what the engine needs to correct exactly it (checked against the engine's
// own locator on corpus files), the page selection, the cap and `truncated`, the count, pages
// needing recognition, the query length bound.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DocfixError } from '../../../src/errors.ts';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { searchDocument, searchPdf } from '../../../src/documents/search.ts';
import {
  EXACT_RULE,
  toBoxRender,
  unionQuads,
  type MatchRule,
  type Quad,
} from '../../../src/documents/text-find.ts';
import { findMatch } from '../../../src/corrections/locate/locate.ts';
import { readPageText as readTextLines } from '../../../src/corrections/locate/page-text.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytes = (file: string) => new Uint8Array(readFileSync(CORPUS + file));

const IGNORE_CASE = { ignoreCase: true, word: false };

test('matches on several pages, in page order, each with its page', () => {
  const r = searchPdf(bytes('latex-4-pages.pdf'), 'Should', { rule: IGNORE_CASE });
  assert.is(r.query, 'Should');
  assert.equal(r.pages_searched, [0, 1, 2, 3]);
  assert.equal(r.pages_needing_recognition, []);
  const pages = new Set(r.matches!.map((m) => m.page_index));
  assert.equal([...pages], [0, 1, 2, 3]);
  const order = r.matches!.map((m) => m.page_index);
  assert.equal(
    order,
    [...order].sort((a, b) => a - b),
  );
  assert.ok(r.matches!.every((m) => m.text.toLowerCase() === 'should'));
  assert.ok(r.matches!.length >= 80, 'every occurrence (pdftotext counts 92)');
  assert.is(r.truncated, false);
  assert.is(r.total, r.matches!.length);
  assert.equal(r.pages_matched, [0, 1, 2, 3]);
});

test('the rule: exact and case-sensitive by default, --ignore-case, --word; the text as the page has it', () => {
  const file = bytes('latex-4-pages.pdf');
  assert.equal(searchPdf(file, 'Should').matches, [], 'the page has only "should"');
  const exact = searchPdf(file, 'should');
  assert.is(exact.matches!.length, searchPdf(file, 'SHOULD', { rule: IGNORE_CASE }).matches!.length);
  assert.ok(exact.matches!.every((m) => m.text === 'should'));
  const any = searchPdf(file, 'THE', { rule: IGNORE_CASE }).matches!;
  assert.ok(any.some((m) => m.text === 'the') && any.some((m) => m.text === 'The'));
  const inside = searchPdf(file, 'the').matches!;
  const words = searchPdf(file, 'the', { rule: { ignoreCase: false, word: true } }).matches!;
  assert.ok(words.length > 0 && words.length < inside.length, 'not inside "there", "other"');
  for (const m of words) {
    assert.not.match(m.before!, /[\p{L}\p{N}_]$/u);
    assert.not.match(m.after!, /^[\p{L}\p{N}_]/u);
  }
  assert.ok(
    inside.some((m) => /^re/u.test(m.after!)),
    '"the" in "there" without --word',
  );
});

test('each hit is what the engine corrects: its text and match_index find the same characters there', () => {
  const cases: [string, string, MatchRule][] = [
    ['tex-review.pdf', 'Applications', IGNORE_CASE], // "applications" on page 0, "Applications" on 13
    ['tex-review.pdf', 'Capabilities', EXACT_RULE], // page 1 only
    ['latex-multicolumn.pdf', 'laoreet', EXACT_RULE], // page 1 only
    ['latex-multicolumn.pdf', 'ut', { ignoreCase: true, word: true }], // "Ut", "ut", not in "But"
    ['latex-multicolumn.pdf', 'or', EXACT_RULE], // inside words, several times a line
    ['annotated.pdf', 'e', IGNORE_CASE], // a page with annotations: their text is read too
  ];
  for (const [file, find, rule] of cases) {
    const { doc } = openPdf(bytes(file));
    try {
      const r = searchDocument(doc, find, { rule });
      assert.ok(r.matches!.length > 0, `${file} "${find}"`);
      for (const hit of r.matches!) {
        const page = doc.loadPage(hit.page_index);
        try {
          // The engine's own locator over the engine's own reading of the page.
          const m = findMatch(readTextLines(page), hit.text, hit.match_index!);
          const chars = m.line.chars.slice(m.start, m.start + m.length);
          assert.is(chars.map((c) => c.c).join(''), hit.text);
          const visible = chars.filter((c) => c.c.trim() !== '');
          const box = toBoxRender(unionQuads((visible.length ? visible : chars).map((c) => c.quad as Quad)));
          assert.equal(box, hit.box_render, `${file} "${find}" page ${hit.page_index} #${hit.match_index}`);
        } finally {
          page.destroy();
        }
      }
    } finally {
      doc.destroy();
    }
  }
});

test('pages: only the selection is searched; count: every match, beyond the cap too', () => {
  const file = bytes('latex-4-pages.pdf');
  const some = searchPdf(file, 'the', { pages: [1, 3] });
  assert.equal(some.pages_searched, [1, 3]);
  assert.equal([...new Set(some.matches!.map((m) => m.page_index))], [1, 3]);
  const all = searchPdf(file, 'the');
  const capped = searchPdf(file, 'the', { cap: 3 });
  assert.is(capped.truncated, true);
  assert.is(capped.total, undefined, 'no count unless asked: the search stops at the cap');
  const counted = searchPdf(file, 'the', { cap: 3, count: true });
  assert.is(counted.matches!.length, 3);
  assert.is(counted.total, all.matches!.length);
  assert.equal(counted.pages_matched, [0, 1, 2, 3]);
  assert.equal(counted.matches, all.matches!.slice(0, 3));
});

test('the cap truncates', () => {
  const { doc } = openPdf(bytes('latex-4-pages.pdf'));
  const all = searchDocument(doc, 'e');
  assert.ok(all.matches!.length > 20);
  const capped = searchDocument(doc, 'e', { cap: 20 });
  assert.is(capped.matches!.length, 20);
  assert.is(capped.truncated, true);
  assert.equal(capped.matches, all.matches!.slice(0, 20));
});

test('scanned pages without a text layer need recognition; OCR layers are searched', () => {
  const scan = searchPdf(bytes('scan-russian-form.pdf'), 'form');
  assert.equal(scan.pages_searched, []);
  assert.equal(scan.pages_needing_recognition, [0, 1]);
  assert.equal(scan.matches, []);
  const withKinds = searchPdf(bytes('scan-russian-form.pdf'), 'form', { kinds: ['scanned', 'scanned'] });
  assert.equal(withKinds.pages_needing_recognition, [0, 1]);
  const layered = searchPdf(bytes('vicksburg-ocr.pdf'), 'Vicksburg', { rule: IGNORE_CASE });
  assert.ok(layered.matches!.length > 0, 'the invisible OCR layer is text');
  assert.equal(layered.pages_needing_recognition, []);
});

test('an empty query finds nothing; a query over 200 characters is refused', () => {
  const r = searchPdf(bytes('latex-minimal.pdf'), '');
  assert.equal(r.matches, []);
  assert.equal(r.pages_searched, [0]);
  try {
    searchPdf(bytes('latex-minimal.pdf'), 'x'.repeat(201));
    assert.unreachable();
  } catch (error) {
    assert.is((error as DocfixError).code, 'invalid_request');
  }
});

test('protected documents are searched with their password', () => {
  const r = searchPdf(bytes('crazyones-aes256.pdf'), 'crazy', { password: 'password' });
  assert.ok(r.matches!.length > 0);
});

test.run();
