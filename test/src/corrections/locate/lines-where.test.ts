// readLinesWhere (page-text.ts), the search's reading of a page: on every real-world corpus file it
// gives readPageText's lines (order, geometry, characters) for the lines it keeps and no characters
// for the others, and reads whole the pages whose lines may be joined (vertical writing) or that
// carry annotations.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readLinesWhere, readPageText, type TextLine } from '../../../../src/corrections/locate/page-text.ts';
import { mupdf, openPdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { corpusBytes, corpusFiles } from '../../../../fixtures/corpus-manifest.ts';

mupdf.setLog({ warning() {}, error() {} });

/** Pages looked at per file: enough for every kind of page the corpus has, in little time. */
const PAGES_PER_FILE = 4;

const holdsDigitOrQ = (chars: readonly string[]) => chars.some((c) => /[0-9q]/.test(c));

function sameGeometry(a: TextLine, b: TextLine, where: string): void {
  assert.equal(a.bbox, b.bbox, where);
  assert.equal(a.dir, b.dir, where);
  assert.is(a.wmode, b.wmode, where);
  assert.is(a.index, b.index, where);
}

let partial = 0;
let skippedLines = 0;

for (const entry of corpusFiles()) {
  test(`${entry.file}: the kept lines as readPageText reads them, the others without characters`, () => {
    const { doc } = openPdf(corpusBytes(entry.file), entry.password ?? '');
    try {
      for (let i = 0; i < Math.min(PAGES_PER_FILE, doc.countPages()); i++) {
        const page = doc.loadPage(i);
        try {
          const whole = readPageText(page);
          const some = readLinesWhere(page, holdsDigitOrQ);
          assert.is(some.length, whole.length, `${entry.file} p${i} line count`);
          let skipped = 0;
          whole.forEach((line, k) => {
            const where = `${entry.file} p${i} line ${k}`;
            sameGeometry(some[k]!, line, where);
            if (some[k]!.chars.length === 0 && line.chars.length > 0) {
              skipped++;
              assert.not.ok(
                holdsDigitOrQ(line.chars.map((ch) => ch.c)),
                `${where}: a line the test keeps came without characters`,
              );
            } else {
              assert.equal(some[k]!.chars, line.chars, where);
              assert.is(some[k]!.text, line.text, where);
            }
          });
          if (skipped > 0) partial++;
          skippedLines += skipped;
        } finally {
          page.destroy();
        }
      }
    } finally {
      doc.destroy();
    }
  });
}

test('most pages are read in part: the lines without the query are not read character by character', () => {
  assert.ok(partial >= 60, `pages read in part: ${partial}`);
  assert.ok(skippedLines >= 1000, `lines skipped: ${skippedLines}`);
});

function linesOf(file: string, pageIndex: number, keep: (chars: readonly string[]) => boolean): TextLine[] {
  const entry = corpusFiles().find((f) => f.file === file)!;
  const { doc } = openPdf(corpusBytes(file), entry.password ?? '');
  try {
    const page = doc.loadPage(pageIndex);
    try {
      return readLinesWhere(page, keep);
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

test('vertical writing is read whole: its one-glyph lines are joined into columns first', () => {
  const lines = linesOf('japanese-vertical.pdf', 0, () => false);
  assert.ok(lines.some((l) => l.wmode === 1));
  assert.ok(lines.every((l) => l.chars.length > 0));
});

test('an annotated page is read whole, its annotations after its own text', () => {
  const lines = linesOf('annotated.pdf', 0, () => false);
  assert.ok(lines.length > 0);
  assert.ok(lines.every((l) => l.chars.length > 0));
});

test.run();
