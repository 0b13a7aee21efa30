// The engine's dry run agrees with real proposals on corpus pages: every word it names as refusing
// (for the preflight's probe, two of the word's own letters swapped) refuses with the same code when
// proposed for real, and a sample of the words it lets pass do not refuse for a reason about the word.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposeEdit } from '../../../src/corrections/engine.ts';
import { readPageText } from '../../../src/corrections/locate/page-text.ts';
import { mupdf, openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { PageDryRun, type DryRunAnswer } from '../../../src/preflight/dry-run.ts';
import {
  pageWords,
  REPLACEMENT_CODES,
  sameGlyphReplacement,
  type PageWord,
} from '../../../src/preflight/page-preflight.ts';
import { CORPUS_DIR } from '../../daemon/harness.ts';

mupdf.setLog({ warning() {}, error() {} });

/** Corpus pages with text layers of many kinds (fonts, encodings, forms, CJK, vertical, rotation). */
const PAGES: [string, number][] = [
  ['libreoffice-writer.pdf', 0],
  ['latex-4-pages.pdf', 1],
  ['tracemonkey-two-column.pdf', 0],
  ['latex-multicolumn.pdf', 2],
  ['google-docs.pdf', 0],
  ['standard14-tcpdf.pdf', 0],
  ['cjk-90ms-rksj.pdf', 0],
  ['japanese-vertical.pdf', 0],
  ['openoffice-form.pdf', 0],
  ['annotated.pdf', 0],
  ['pdftex-type3-bitmap.pdf', 0],
  ['identity-tounicode.pdf', 0],
  ['reportlab-overlay.pdf', 0],
  ['alpha-transparency.pdf', 0],
  ['tax-form-incremental.pdf', 0],
  ['zapf-dingbats.pdf', 0],
  ['arabic-cid.pdf', 0],
  ['type3-word-spacing.pdf', 0],
  ['multilang.pdf', 0],
  ['chinese-excel-cid.pdf', 0],
  ['owner-only-rc4-40.pdf', 0],
  ['annotations-many-types.pdf', 0],
];
/** Passing words proposed for real per page (each a full proposal: render, save, verify). */
const PASS_SAMPLE = 3;

async function propose(pdf: Uint8Array, pageIndex: number, word: PageWord) {
  return proposeEdit({
    pdf,
    password: '',
    request: {
      page_index: pageIndex,
      target: { method: 'text_layer', find: word.text, match_index: word.matchIndex },
      replacement: sameGlyphReplacement(word.text),
      attestation_id: 'dry-run-test',
      font_attempt: 0,
    },
    manifest: {
      document_id: 'dry-run-test',
      original_sha256: '',
      standing: [],
      engine_version: '',
      renderer: '',
      dpi: 300,
    },
  });
}

function dryRun(pdf: Uint8Array, pageIndex: number): { word: PageWord; answer: DryRunAnswer }[] {
  const { doc } = openPdf(pdf);
  try {
    const page = doc.loadPage(pageIndex);
    try {
      const lines = readPageText(page);
      const dry = new PageDryRun(page, lines);
      try {
        return pageWords(lines, 300).map((word) => ({
          word,
          answer: dry.check({
            find: word.text,
            matchIndex: word.matchIndex,
            replacement: sameGlyphReplacement(word.text),
          }),
        }));
      } finally {
        dry.destroy();
      }
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
}

let named = 0;
let passedChecked = 0;
for (const [file, pageIndex] of PAGES) {
  test(`${file} p${pageIndex}: the dry run agrees with real proposals`, async () => {
    const pdf = new Uint8Array(readFileSync(`${CORPUS_DIR}${file}`));
    const answers = dryRun(pdf, pageIndex);
    assert.ok(answers.length > 0, 'the page has words');
    for (const { word, answer } of answers) {
      if (answer.verdict !== 'refuses') continue;
      const real = await propose(pdf, pageIndex, word);
      assert.is(
        real.advice?.code,
        answer.advice.code,
        `“${word.text}” #${word.matchIndex}: dry run ${answer.advice.code}, proposal ${real.advice?.code ?? 'works'}`,
      );
      named++;
    }
    const passing = answers.filter((a) => a.answer.verdict === 'passes');
    const step = Math.max(1, Math.floor(passing.length / PASS_SAMPLE));
    for (let k = 0; k < passing.length && k < step * PASS_SAMPLE; k += step) {
      const { word } = passing[k];
      const real = await propose(pdf, pageIndex, word);
      const code = real.advice?.code;
      assert.ok(
        !real.refusal || (code !== undefined && REPLACEMENT_CODES.has(code)),
        `“${word.text}” #${word.matchIndex}: the dry run passes it, the proposal refuses with ${code}`,
      );
      passedChecked++;
    }
  });
}

test('a replacement the page has no glyph for is left to a real proposal (unknown)', () => {
  const { doc } = openPdf(new Uint8Array(readFileSync(`${CORPUS_DIR}libreoffice-writer.pdf`)));
  try {
    const page = doc.loadPage(0);
    const dry = new PageDryRun(page);
    try {
      const answer = dry.check({ find: 'nonumy', matchIndex: 0, replacement: 'nonum€' });
      assert.is(answer.verdict, 'unknown');
      assert.equal(dry.check({ find: 'nonumy', matchIndex: 0, replacement: 'nonmuy' }), {
        verdict: 'passes',
      });
      const missing = dry.check({ find: 'not on this page', matchIndex: 0, replacement: 'x' });
      assert.is(missing.verdict === 'refuses' && missing.advice.code, 'text_not_found');
    } finally {
      dry.destroy();
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
});

test('the corpus pages exercised both answers', () => {
  assert.ok(named > 20, `${named} refusing words confirmed`);
  assert.ok(passedChecked > 15, `${passedChecked} passing words confirmed`);
});

test.run();
