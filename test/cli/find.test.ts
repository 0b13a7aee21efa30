// One matching rule and the whole document: `search` lists exactly what a correction with the same
// flags targets, numbered the same way; propose/apply without --page find a later page's text; the
// not-found error names the pages where the text is; search's page filter, limit, count and
// context; the one box format of --box. A real daemon process, the CLI in this process.
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { strayToUnicodePdf } from '../src/corrections/fixtures.ts';
import { CORPUS, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
/** tex-review.pdf (23 pages): "Capabilities" on page 1 only; "Applications" exactly on page 13 only,
 * "applications" on page 0; "organ" only inside "organism" (page 1) and another word (page 17). */
const REVIEW = join(CORPUS, 'tex-review.pdf');
let review = '';
/** latex-4-pages.pdf: the same text on 4 pages, "the" many times on each (most of its pages' text
 * is not readable in tex-review.pdf, which has no ToUnicode maps there). */
let lorem = '';

test.before(async () => {
  d = await startDaemon();
  const up = await d.run(['upload', REVIEW, '--json']);
  if (up.code !== 0) throw new Error(up.stderr);
  review = JSON.parse(up.stdout).document_id;
  const up2 = await d.run(['upload', join(CORPUS, 'latex-4-pages.pdf'), '--json']);
  if (up2.code !== 0) throw new Error(up2.stderr);
  lorem = JSON.parse(up2.stdout).document_id;
});
test.after(async () => {
  await d?.stop();
});

interface Hit {
  page_index: number;
  text: string;
  match_index: number;
  box: number[];
  box_render: number[];
  before: string;
  after: string;
}
const search = async (...args: string[]) => searchIn(review, ...args);
const searchIn = async (doc: string, ...args: string[]) => {
  const r = await d.run(['search', doc, ...args, '--json']);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as {
    matches: Hit[];
    total?: number;
    pages_matched?: number[];
    truncated: boolean;
  };
};
const propose = async (...args: string[]) => {
  const r = await d.run(['propose', review, ...args, '--json']);
  return { ...r, proposal: r.code === 0 || r.stdout ? JSON.parse(r.stdout || 'null') : null };
};

test('propose without --page finds a word that only a later page has', async () => {
  const r = await propose('--find', 'Capabilities', '--replace', 'Capabilitise');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.proposal.page_index, 1);
  assert.is(r.proposal.refusal ?? null, null, r.proposal.refusal);
});

test('apply without --page: the later page is corrected and verified; the text is changed there', async () => {
  const dir = join(d.dir, 'applied');
  const up = await d.run(['upload', REVIEW, '--json']);
  const id = JSON.parse(up.stdout).document_id as string;
  const r = await d.run([
    'apply',
    id,
    '--find',
    'Applications',
    '--replace',
    'Applicatoins',
    '--yes',
    '--json',
  ]);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.is(out.proposal.page_index, 13);
  assert.is(out.verification.passed, true);
  execFileSync('mkdir', ['-p', dir]);
  const file = join(dir, 'out.pdf');
  const ex = await d.run(['export', id, '-o', file]);
  assert.is(ex.code, 0, ex.stderr);
  const page14 = execFileSync('pdftotext', ['-f', '14', '-l', '14', file, '-'], { encoding: 'utf8' });
  assert.match(page14, /Applicatoins/);
  const page1 = execFileSync('pdftotext', ['-f', '1', '-l', '1', file, '-'], { encoding: 'utf8' });
  assert.match(page1, /applications/i, 'page 0 keeps its own word');
  assert.not.match(page1, /Applicatoins/);
});

test('search --ignore-case lists what propose --ignore-case --match N targets, in the same order', async () => {
  const exact = await search('Applications');
  assert.equal(
    exact.matches.map((m) => m.page_index),
    [13],
    'exact and case-sensitive by default',
  );
  const loose = await search('Applications', '--ignore-case');
  assert.ok(loose.matches.length >= 2);
  assert.is(loose.matches[0].page_index, 0);
  assert.is(loose.matches[0].text, 'applications', 'the text as the page has it');
  for (const [n, hit] of loose.matches.entries()) {
    const r = await propose(
      '--find',
      'Applications',
      '--replace',
      'Applicatoins',
      '-i',
      '--match',
      String(n),
    );
    assert.is(r.code, 0, r.stderr);
    assert.is(r.proposal.page_index, hit.page_index, `match ${n}`);
    assert.is(r.proposal.refusal ?? null, null, r.proposal.refusal);
    assert.match(
      r.stderr,
      hit.text === 'Applications' ? /Applications/ : /corrected as the page has it: "applications"/,
    );
    // The pixels that would change start at this hit and stay on its line (300 dpi pixels): the
    // engine corrects exactly the occurrence search listed, not another one on the page.
    const diff = (r.proposal.predicted_diff ?? []).find((p: { identical: boolean }) => !p.identical);
    const [x0, y0, , y1] = hit.box_render;
    assert.ok(diff?.bbox, `match ${n}: a predicted change`);
    assert.ok(
      diff.bbox[0] >= x0 - 4,
      `match ${n}: changes start at the hit (${diff.bbox} vs ${hit.box_render})`,
    );
    assert.ok(diff.bbox[1] >= y0 - 40 && diff.bbox[3] <= y1 + 40, `match ${n}: on the hit's line`);
  }
});

test('--word: a word inside a longer word is not a match, for search and for propose', async () => {
  const inside = await search('organ');
  assert.ok(inside.matches.length >= 1, 'found inside "organism" without --word');
  assert.match(inside.matches[0].after, /^ism/);
  const words = await search('organ', '--word');
  assert.equal(words.matches, []);
  assert.is(words.total, 0);
  const r = await d.run(['propose', review, '--find', 'organ', '--replace', 'organs', '--word']);
  assert.is(r.code, 5);
  assert.match(
    r.stderr,
    /"organ" is not in the text layer of the document \(exact, case-sensitive, whole words\)/,
  );
  assert.match(r.stderr, /try: without --word \(\d+ match(es)? on page/);
});

test('not found where asked: the error names the pages where it is and suggests --page', async () => {
  const r = await d.run(['propose', review, '--find', 'Capabilities', '--replace', 'X', '--page', '0']);
  assert.is(r.code, 5);
  assert.match(r.stderr, /"Capabilities" is not in the text layer of page 0/);
  assert.match(r.stderr, /it is on page 1 \(exact, case-sensitive\)/);
  assert.match(r.stderr, /try: --page 1/);
  const wrongCase = await d.run(['propose', review, '--find', 'capabilities', '--replace', 'X']);
  assert.is(wrongCase.code, 5);
  assert.match(wrongCase.stderr, /try: --ignore-case \(1 match on page 1, e\.g\. "Capabilities"\)/);
  const beyond = await d.run(['propose', review, '--find', 'Capabilities', '--replace', 'X', '--match', '3']);
  assert.is(beyond.code, 5);
  assert.match(beyond.stderr, /has 1 match in the document .*--match 3 asks for match 4/);
});

test('--page with text only the fonts’ codes carry: the engine is still asked, and finds it', async () => {
  // MuPDF reads other letters there than the ToUnicode map pdftotext follows: search (MuPDF's text)
  // does not list "Aylk"; the engine reads the fonts' codes when MuPDF's text has nothing.
  const file = join(d.dir, 'stray-cmap.pdf');
  await writeFile(file, strayToUnicodePdf());
  const up = await d.run(['upload', file, '--json']);
  const id = JSON.parse(up.stdout).document_id as string;
  const nowhere = await d.run(['propose', id, '--find', 'Aylk', '--replace', 'Alyk']);
  assert.is(nowhere.code, 5, 'without --page: search decides, and it is not in the text layer');
  const onPage = await d.run(['propose', id, '--find', 'Aylk', '--replace', 'Alyk', '--page', '0', '--json']);
  assert.is(onPage.code, 0, onPage.stderr);
  assert.is(JSON.parse(onPage.stdout).tier, 1);
  // A page whose font the engine cannot read: the search's error, and the engine's reason with it.
  const cjk = await d.run(['upload', join(CORPUS, 'cjk-90ms-rksj.pdf'), '--json']);
  const cjkId = JSON.parse(cjk.stdout).document_id as string;
  const unreadable = await d.run([
    'propose',
    cjkId,
    '--find',
    '日本語',
    '--replace',
    '日語本',
    '--page',
    '0',
  ]);
  assert.is(unreadable.code, 5);
  assert.match(unreadable.stderr, /"日本語" is not in the text layer of page 0/);
  assert.match(unreadable.stderr, /engine: .*HeiseiMin-W3 cannot be read/);
});

test('fix --ignore-case corrects exactly the matches search -i lists, each as the page has it', async () => {
  const listed = (await search('Applications', '-i')).matches;
  const out = join(d.dir, 'fixed');
  // A key of its own: its own rate-limit allowance (an upload refused 429 mid-body is a broken pipe).
  const env = { DOCFIX_API_KEY: await d.newKey() };
  const r = await d.run(
    [
      'fix',
      REVIEW,
      '-r',
      'Applications=Applicatoins',
      '-i',
      '-o',
      out,
      '--dry-run',
      '--max-cost',
      'low',
      '--json',
    ],
    { env },
  );
  assert.is(r.code, 0, r.stderr + r.stdout);
  const edit = JSON.parse(r.stdout).files[0].edits[0];
  assert.is(edit.ignore_case, true);
  assert.is(edit.found, listed.length);
  // Last first on each page, pages in order: the same hits as search lists.
  const key = (o: { page_index: number; text: string; match_index: number }) =>
    `${o.page_index}/${o.text}/${o.match_index}`;
  assert.equal(edit.occurrences.map(key).sort(), listed.map(key).sort());
  assert.ok(edit.occurrences.every((o: { status: string }) => o.status === 'proposed'));
});

test('search: --pages, --limit, --count, the closing count line and the context', async () => {
  const all = await searchIn(lorem, 'the', '--word', '--count');
  assert.ok(all.total! > 100, `${all.total}`);
  const count = await d.run(['search', lorem, 'the', '--word', '--count']);
  assert.is(count.code, 0, count.stderr);
  assert.is(count.stdout.trim(), String(all.total));
  const inside = await searchIn(lorem, 'the', '--count');
  assert.ok(inside.total! > all.total!, '"the" inside other words too without --word');
  const some = await searchIn(lorem, 'the', '--word', '--pages', '1,3');
  assert.ok(some.matches.length > 0);
  assert.equal([...new Set(some.matches.map((m) => m.page_index))], [1, 3]);
  assert.equal(some.pages_matched, [1, 3]);
  const onOne = await searchIn(lorem, 'the', '--word', '--page', '2');
  assert.ok(onOne.matches.every((m) => m.page_index === 2));
  for (const m of onOne.matches) assert.match(m.before + m.text + m.after, /\bthe\b/);
  const limited = await d.run(['search', lorem, 'the', '--word', '--limit', '3']);
  assert.is(limited.code, 0, limited.stderr);
  const rows = limited.stdout.trim().split('\n');
  assert.is(rows.length, 4, 'a header and three matches');
  assert.match(rows[0], /^MATCH\s+PAGE\s+TEXT\s+BOX \(pt\)\s+CONTEXT$/);
  assert.match(rows[1], /^0\s+0\s+the\s+[\d.]+,[\d.]+,[\d.]+,[\d.]+\s+.*the/);
  assert.match(limited.stderr, /the first 3 matches \(on 1 page\) shown/);
  const full = await d.run(['search', review, 'Capabilities']);
  assert.match(full.stderr, /^1 match on 1 page \(exact, case-sensitive\)$/m);
  const bad = await d.run(['search', lorem, 'the', '--pages', '3-1']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /runs backwards/);
  const beyond = await d.run(['search', lorem, 'the', '--pages', '2-4']);
  assert.is(beyond.code, 2);
  assert.match(beyond.stderr, /page_out_of_range/);
});

test('search that finds nothing says where the text is and which flag finds it', async () => {
  // "applications" is on page 0 only; "Applications" exactly on page 13 only.
  const cased = await d.run(['search', review, 'APPLICATIONS']);
  assert.is(cased.code, 0, cased.stderr);
  assert.is(cased.stdout, '');
  assert.match(cased.stderr, /No match for "APPLICATIONS" \(exact, case-sensitive\)/);
  assert.match(cased.stderr, /try: --ignore-case \(2 matches on pages 0, 13, e\.g\. "applications"\)/);
  const narrowed = await d.run(['search', review, 'Capabilities', '--pages', '5-9']);
  assert.match(narrowed.stderr, /No match for "Capabilities"/);
  assert.match(narrowed.stderr, /it is on page 1 \(exact, case-sensitive\)\n {2}try: --pages 1\n/);
  const inside = await d.run(['search', review, 'organ', '--word']);
  assert.match(
    inside.stderr,
    /No match for "organ" \(exact, case-sensitive, whole words\)\n {2}try: without --word \(\d+ match(es)? on page/,
  );
});

test('--box: the box search prints crops that match; x,y,w,h is refused with a usage error', async () => {
  const hit = (await search('Capabilities')).matches[0];
  const box = hit.box.join(',');
  const png = join(d.dir, 'word.png');
  const crop = await d.run(['crop', review, '--page', String(hit.page_index), '--box', box, '-o', png]);
  assert.is(crop.code, 0, crop.stderr);
  const size = execFileSync('file', [png], { encoding: 'utf8' });
  const [, w, h] = /(\d+) x (\d+)/.exec(size)!;
  // At 300 dpi the crop covers the hit's render box.
  assert.is(Number(w), hit.box_render[2] - hit.box_render[0]);
  assert.is(Number(h), hit.box_render[3] - hit.box_render[1]);
  const old = await d.run(['crop', review, '--page', '1', '--box', '100,200,400,80']);
  assert.is(old.code, 2);
  assert.match(old.stderr, /y1 \(80\) is not below y0 \(200\).*not x,y,width,height/);
  const three = await d.run(['crop', review, '--page', '1', '--box', '1,2,3']);
  assert.is(three.code, 2);
});

test.run();
