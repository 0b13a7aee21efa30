// The text index of a revision: the searchable text built from a page's plain text is the matcher's
// own unit stream (every corpus page), a search through the index answers exactly as a full search
// (first, from this thread's cache, from the file beside the blob), the cache is bounded, and a
// document opened with a password never has its text written to disk.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { readPageText as readTextLines } from '../../../src/corrections/locate/page-text.ts';
import {
  EXACT_RULE,
  findMatches,
  lineMatches,
  mayMatch,
  pageStext,
  readPageText,
  searchableText,
  searchableTextOf,
} from '../../../src/documents/text-find.ts';
import { searchFile, searchPdf } from '../../../src/documents/search.ts';
import {
  emptyTextIndex,
  textIndexCache,
  TextIndexCache,
  textIndexPath,
} from '../../../src/documents/text-index.ts';

mupdf.setLog({ warning() {}, error() {} });
const CORPUS = fileURLToPath(new URL('../../../fixtures/corpus/pdf/', import.meta.url));
const bytes = (file: string) => new Uint8Array(readFileSync(CORPUS + file));
const PASSWORDS: Record<string, string> = {
  'crazyones-aes256.pdf': 'password',
  'libreoffice-password.pdf': 'password',
  'aes256-user-owner.pdf': 'user',
};

/** A revision blob as the daemon stores it: `<sha256>.pdf` in a private folder. */
function asBlob(file: string): { path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-text-index-'));
  const path = join(dir, `${'ab'.repeat(32)}.pdf`);
  copyFileSync(CORPUS + file, path);
  return { path, dir };
}

test('searchable text from asText equals the matcher’s units on every corpus page (first 12 pages)', () => {
  let pages = 0;
  let soft = 0;
  for (const file of readdirSync(CORPUS).filter((f) => f.endsWith('.pdf'))) {
    let doc: mupdf.PDFDocument;
    try {
      doc = openPdf(bytes(file), PASSWORDS[file] ?? '').doc;
    } catch {
      continue; // needs a password this test does not know
    }
    try {
      for (let i = 0; i < Math.min(doc.countPages(), 12); i++) {
        const page = doc.loadPage(i);
        const st = pageStext(page);
        try {
          const fromPlain = searchableText(st.asText());
          const fromChars = searchableTextOf(readPageText(page, st));
          assert.equal(fromPlain, fromChars, `${file} page ${i}`);
          pages++;
          if (fromPlain.soft) soft++;
        } finally {
          st.destroy();
          page.destroy();
        }
      }
    } finally {
      doc.destroy();
    }
  }
  assert.ok(pages > 100, `${pages} pages compared`);
  assert.ok(soft > 0, 'some page has a word hyphenated at a line end');
});

test('mayMatch never rules out a page where a match is found (words of corpus pages, hyphenated ones too)', () => {
  for (const file of ['latex-4-pages.pdf', 'tracemonkey-two-column.pdf', 'latex-multicolumn.pdf']) {
    const { doc } = openPdf(bytes(file));
    try {
      for (let i = 0; i < Math.min(doc.countPages(), 4); i++) {
        const page = doc.loadPage(i);
        try {
          const text = readPageText(page);
          const searchable = searchableTextOf(text);
          const plain = text.chars.map((c) => c.c).join('');
          // Every word, every pair of words, and each hyphenated line end both joined and kept.
          const words = plain.split(/\s+/u).filter((w) => w.length > 1);
          const queries = new Set<string>();
          words.forEach((w, k) => {
            queries.add(w);
            if (words[k + 1]) queries.add(`${w} ${words[k + 1]}`);
            if (/-$/u.test(w) && words[k + 1]) {
              queries.add(`${w}${words[k + 1]}`);
              queries.add(`${w.slice(0, -1)}${words[k + 1]}`);
            }
          });
          for (const q of queries) {
            if (findMatches(text, q, 1).length > 0)
              assert.ok(mayMatch(searchable, q), `${file} p${i}: “${q}” found but ruled out`);
          }
          assert.not.ok(mayMatch(searchable, 'zzqx not on any page'));
        } finally {
          page.destroy();
        }
      }
    } finally {
      doc.destroy();
    }
  }
});

test('mayMatch never rules out a page where the matching rule finds a match (exact, any case, whole words)', () => {
  for (const file of [
    'latex-4-pages.pdf',
    'tracemonkey-two-column.pdf',
    'latex-multicolumn.pdf',
    'annotated.pdf',
  ]) {
    const { doc } = openPdf(bytes(file));
    try {
      for (let i = 0; i < Math.min(doc.countPages(), 3); i++) {
        const page = doc.loadPage(i);
        try {
          const st = pageStext(page);
          const searchable = searchableText(st.asText());
          st.destroy();
          // The lines as the engine reads them (annotations' text included), as search matches them.
          const lines = readTextLines(page).map((l) => l.chars.map((c) => c.c));
          const queries = new Set<string>();
          for (const chars of lines) {
            const words = chars
              .join('')
              .split(/\s+/u)
              .filter((w) => w.length > 1);
            words.forEach((w, k) => {
              queries.add(w);
              queries.add(w.toUpperCase());
              queries.add(w.slice(1));
              if (words[k + 1]) queries.add(`${w} ${words[k + 1]}`);
            });
          }
          let checked = 0;
          for (const q of queries) {
            for (const rule of [
              EXACT_RULE,
              { ignoreCase: true, word: false },
              { ignoreCase: true, word: true },
            ]) {
              if (lineMatches(lines, q, rule).length === 0) continue;
              checked++;
              assert.ok(mayMatch(searchable, q), `${file} p${i}: “${q}” found but ruled out`);
            }
          }
          assert.ok(checked > 0 || queries.size === 0, `${file} p${i}: some query matched`);
        } finally {
          page.destroy();
        }
      }
    } finally {
      doc.destroy();
    }
  }
});

test('search through the index answers as the full search: first, cached, from the file', () => {
  const { path, dir } = asBlob('tracemonkey-two-column.pdf');
  try {
    const queries = ['TraceMonkey', 'trace monkey', 'the', 'e', '', 'x86', 'nothing like this at all'];
    const full = queries.map((q) => searchPdf(bytes('tracemonkey-two-column.pdf'), q));
    const first = queries.map((q) => searchFile(path, q));
    assert.equal(first, full);
    assert.ok(existsSync(textIndexPath(path)), 'the index is written beside the blob');
    assert.equal(
      queries.map((q) => searchFile(path, q)),
      full,
    );
    textIndexCache.delete(path);
    assert.equal(
      queries.map((q) => searchFile(path, q)),
      full,
      'read back from the file',
    );
    // With the rule, a page selection, a cap and a count, as the route asks.
    const asked = { rule: { ignoreCase: true, word: true }, pages: [1, 2, 5], cap: 5, count: true };
    textIndexCache.delete(path);
    assert.equal(
      searchFile(path, 'the', asked),
      searchPdf(bytes('tracemonkey-two-column.pdf'), 'the', asked),
    );
    assert.equal(
      searchFile(path, 'the', asked),
      searchPdf(bytes('tracemonkey-two-column.pdf'), 'the', asked),
    );
    // With classification (kinds), as the daemon searches.
    const kinds = Array.from({ length: 14 }, () => 'text');
    assert.equal(
      searchFile(path, 'monkey', { kinds }),
      searchPdf(bytes('tracemonkey-two-column.pdf'), 'monkey', { kinds }),
    );
    assert.ok(full[0].matches!.length > 0 && full[1].matches!.length === 0);
  } finally {
    textIndexCache.delete(join(dir, `${'ab'.repeat(32)}.pdf`));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the stored file is read as needed and closed when the search ends', () => {
  const { path, dir } = asBlob('latex-4-pages.pdf');
  const fds = () => readdirSync('/proc/self/fd').length;
  try {
    const before = fds();
    for (let i = 0; i < 5; i++) {
      textIndexCache.delete(path);
      assert.ok(searchFile(path, 'should').matches!.length > 0);
    }
    assert.is(fds(), before, 'no file left open');
  } finally {
    textIndexCache.delete(path);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('scanned pages: named as needing recognition with and without the index', () => {
  for (const file of ['scan-ocr-mixed-pages.pdf', 'scan-russian-form.pdf']) {
    const { path, dir } = asBlob(file);
    try {
      const full = searchPdf(bytes(file), 'the');
      assert.equal(searchFile(path, 'the'), full);
      assert.equal(searchFile(path, 'the'), full);
    } finally {
      textIndexCache.delete(path);
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a document opened with a password: index in memory only, never on disk', () => {
  const { path, dir } = asBlob('crazyones-aes256.pdf');
  try {
    const full = searchPdf(bytes('crazyones-aes256.pdf'), 'crazy', { password: 'password' });
    assert.ok(full.matches!.length > 0);
    assert.equal(searchFile(path, 'crazy', { password: 'password' }), full);
    assert.equal(searchFile(path, 'crazy', { password: 'password' }), full);
    assert.not.ok(existsSync(textIndexPath(path)));
    assert.ok(textIndexCache.get(path), 'kept in memory');
  } finally {
    textIndexCache.delete(path);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the cache is bounded in entries and in characters, least recently used first out', () => {
  const cache = new TextIndexCache(3, 1000);
  const index = (chars: number) => {
    const i = emptyTextIndex(1);
    i.pages[0] = { text: 'x'.repeat(chars), soft: false };
    return i;
  };
  cache.set('a', index(100));
  cache.set('b', index(100));
  cache.set('c', index(100));
  cache.get('a'); // a is now the most recent
  cache.set('d', index(100));
  assert.is(cache.size, 3);
  assert.ok(cache.get('a') && cache.get('c') && cache.get('d'));
  assert.is(cache.get('b'), undefined);
  cache.set('e', index(800)); // over the character bound: the oldest go until it fits
  assert.ok(cache.heldChars <= 1000);
  assert.ok(cache.get('e'));
  cache.set('huge', index(5000)); // larger than the whole cache: not kept
  assert.is(cache.get('huge'), undefined);
});

test.run();
