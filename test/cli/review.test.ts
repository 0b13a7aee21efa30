// `docfix review` in a real terminal: tmux (a private server, a fixed 80×24 window) runs the CLI
// against a real daemon on a free port with its own data and config dirs; keys go in with send-keys,
// the screen comes back with capture-pane. On a text page a real correction is applied, undone,
// redone and exported, and the exported file is read with pdftotext; on a scanned page with an OCR
// layer (scan-ocr-rotate270) a word is pixel-patched, verified and exported, and the file is read with
// pdftotext and native tesseract; on a mixed-raster scan the recognised match is looked at (crop.png)
// before it is confirmed, and the engine's refusal of a letter the page does not show is shown.
// tmux and poppler are required: the test fails without them (CI installs them).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exportBeside, isFileArgument } from '../../cli/commands/review.ts';
import { CORPUS, DOCFIX, ROOT, startDaemon, type TestDaemon } from './helpers.ts';

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const SOCKET = `docfix-review-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A line of the grey ramp with ink on it (dense characters spread along it). */
const INK = /^.*(?:[*#%@].*){6}$/m;

let daemon: TestDaemon;

test.before(async () => {
  assert.ok(has('tmux'), 'tmux is required for the review screen test (apt-get install tmux)');
  assert.ok(has('pdftotext'), 'pdftotext (poppler-utils) is required');
  assert.ok(has('tesseract'), 'native tesseract is required to read the patched scan');
  daemon = await startDaemon();
});

test.after(async () => {
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  await daemon?.stop();
});

async function upload(file: string, password?: string): Promise<string> {
  const args = ['upload', join(CORPUS, file), '--json'];
  if (password) {
    const pw = join(daemon.dir, 'password');
    writeFileSync(pw, password);
    args.push('--password-file', pw);
  }
  const r = await daemon.cli(args);
  assert.is(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { document_id: string }).document_id;
}

/** A terminal running `docfix review ARGS`; the shell says EXIT=n when it ends. */
function openTerminal(name: string, args: string[], logFile: string, size = { columns: 80, rows: 24 }) {
  const env = {
    ...daemon.env,
    NO_COLOR: '1',
    DOCFIX_REVIEW_LOG: logFile,
    DOCFIX_NO_AUTOSTART: '1',
  };
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const command = `cd ${JSON.stringify(ROOT)} && env ${assignments.join(' ')} ${JSON.stringify(process.execPath)} ${JSON.stringify(DOCFIX)} review ${args.map((a) => JSON.stringify(a)).join(' ')}; echo EXIT=$?; sleep 600`;
  tmux('new-session', '-d', '-s', name, '-x', String(size.columns), '-y', String(size.rows), command);
  const screen = () => tmux('capture-pane', '-p', '-t', name);
  return {
    screen,
    resize: (columns: number, rows: number) =>
      tmux('resize-window', '-t', name, '-x', String(columns), '-y', String(rows)),
    keys: (...keys: string[]) => tmux('send-keys', '-t', name, ...keys),
    text: (text: string) => tmux('send-keys', '-t', name, '-l', text),
    async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
      const until = Date.now() + timeoutMs;
      let last = '';
      while (Date.now() < until) {
        last = screen();
        if (pattern.test(last)) return last;
        await sleep(150);
      }
      throw new Error(`the screen never showed ${pattern}:\n${last}`);
    },
  };
}

test('a file or an id; the export path beside the file', () => {
  assert.is(isFileArgument('memo.pdf'), true);
  assert.is(isFileArgument('scans/memo'), true);
  assert.is(isFileArgument(join(CORPUS, 'libreoffice-writer.pdf')), true);
  assert.is(isFileArgument('doc_3f2a9xk'), false);
  assert.is(isFileArgument('3f2a'), false);
  assert.is(exportBeside('memo.pdf'), 'memo-fixed.pdf');
  assert.is(exportBeside('./memo.PDF'), 'memo-fixed.pdf');
  assert.is(exportBeside('/data/in/Q3 report.pdf'), '/data/in/Q3 report-fixed.pdf');
  assert.is(exportBeside('scans/memo'), 'scans/memo-fixed.pdf');
});

test('without a terminal, review exits 2 and names the commands to use', async () => {
  const r = await daemon.cli(['review', 'doc_whatever']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /review needs a terminal/);
  for (const cmd of ['docfix search', 'docfix ocr', 'docfix propose', 'docfix apply', 'docfix export'])
    assert.ok(r.stderr.includes(cmd), cmd);
});

test('a text page: find, look, propose, apply with verification, undo, redo, export (pdftotext)', async () => {
  const id = await upload('libreoffice-writer.pdf');
  const log = join(daemon.dir, 'text.log');
  const out = join(daemon.dir, 'corrected.pdf');
  const t = openTerminal('text', [id, '--find', 'nonumy'], log);
  let screen = await t.waitFor(/Crop of page 0 at 600 dpi \(2×\): "nonumy"/);
  screen = await t.waitFor(/docfix review · libreoffice-writer\.pdf · 1 page/);
  assert.match(screen, /Matches for "nonumy": 2/);
  assert.match(screen, /▸ · p0 {3}text {2}100 {2}0 {2}.*\[nonumy\]/);
  assert.match(screen, /\? keys/, 'the help line');
  await t.waitFor(INK); // the magnified line, in the grey ramp
  t.keys('+');
  await t.waitFor(/at 900 dpi \(3×\)/);
  t.keys('-');
  await t.waitFor(/at 600 dpi \(2×\)/);
  t.keys('Enter');
  await t.waitFor(/Replace "nonumy" with: nonumy█/);
  t.keys('C-u');
  t.text('nonmuy');
  await t.waitFor(/with: nonmuy█/);
  t.keys('Enter');
  screen = await t.waitFor(/● Proposal "nonumy" → "nonmuy" on page 0/);
  assert.match(screen, /tier 1 glyph_reuse · visibility cost none/);
  assert.match(screen, /pixels would change, 0 outside/);
  assert.match(screen, /before: .*\[nonumy\]/);
  assert.match(screen, /after: {2}.*\[nonmuy\]/);
  assert.match(screen, /before:.*after \(predicted\):/);
  t.keys('y');
  screen = await t.waitFor(/✓ Verified at 300 dpi/);
  assert.match(screen, /0 pixels outside the edit/);
  assert.match(screen, /^ {2}✓ #1 page 0: "nonumy" → "nonmuy" · verified, 0 pixels outside/m);
  assert.match(screen, /^Corrections standing: 1/m);
  assert.match(screen, /▸ ✓ p0/);
  t.keys('u');
  screen = await t.waitFor(/Undone: "nonumy" → "nonmuy"/);
  assert.match(screen, /Corrections standing: 0/);
  t.keys('r');
  screen = await t.waitFor(/Redone: "nonumy" → "nonmuy"/);
  assert.match(screen, /Corrections standing: 1/);
  t.keys('?');
  screen = await t.waitFor(/any key closes the help/);
  assert.match(screen, /u r {7}undo the latest correction, redo it/);
  t.keys('x');
  await t.waitFor(/\? keys · q/);
  t.keys('e');
  // A document given by id: its name with -fixed, in the current folder.
  await t.waitFor(/Export to: libreoffice-writer-fixed\.pdf█/);
  t.keys('C-u');
  t.text(out);
  t.keys('Enter');
  screen = await t.waitFor(/✓ Exported .*corrected\.pdf/);
  t.keys('q');
  screen = await t.waitFor(/EXIT=0/);
  // The terminal is given back: the screen's frame is gone, the summary is on the shell's screen.
  assert.match(screen, /1 correction standing on doc_/);
  assert.match(screen, /Exported .*corrected\.pdf/);
  assert.not.match(screen, /docfix review ·/);
  assert.ok(existsSync(out));
  const text = execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' });
  assert.match(text, /sed diam nonmuy eirmod tempor/);
  assert.match(text, /nonumy eirmod tempor invidunt/, 'the second occurrence is untouched');
  assert.is((text.match(/nonmuy/g) ?? []).length, 1);
  const verified = await daemon.cli(['verify', id, '--json']);
  assert.is(verified.code, 0, verified.stderr);
  const v = JSON.parse(verified.stdout) as { passed: boolean; pages: { outside_pixels: number }[] };
  assert.is(v.passed, true);
  assert.ok(v.pages.every((p) => p.outside_pixels === 0));
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  assert.ok(
    calls.indexOf('proposeEdit text_layer') < calls.indexOf('applyEdit text_layer'),
    calls.join(', '),
  );
});

test('a scanned page with a text layer: the pixel patch applied, verified and exported (pdftotext, tesseract)', async () => {
  const id = await upload('scan-ocr-rotate270.pdf');
  const log = join(daemon.dir, 'scan-text.log');
  const out = join(daemon.dir, 'scan-corrected.pdf');
  const t = openTerminal('scantext', [id, '--find', 'tempor'], log);
  let screen = await t.waitFor(/Crop of page 0 at 600 dpi \(2×\): "tempor"/, 120_000);
  assert.match(screen, /Matches for "tempor": 1/);
  await t.waitFor(INK); // the scanned line, magnified
  t.keys('Enter');
  await t.waitFor(/Replace "tempor" with: tempor█/);
  t.keys('C-u');
  t.text('temopr');
  t.keys('Enter');
  screen = await t.waitFor(/● Proposal "tempor" → "temopr" on page 0/, 120_000);
  assert.match(screen, /tier 5 pixel_patch · visibility cost low/);
  t.keys('y');
  screen = await t.waitFor(/✓ Verified at 300 dpi/, 120_000);
  assert.match(screen, /0 pixels outside the edit/);
  assert.match(screen, /✓ #1 page 0: "tempor" → "temopr" · verified, 0 pixels outside/);
  t.keys('e');
  await t.waitFor(/Export to: .*\.pdf█/);
  t.keys('C-u');
  t.text(out);
  t.keys('Enter');
  await t.waitFor(/✓ Exported .*scan-corrected\.pdf/, 60_000);
  t.keys('q');
  screen = await t.waitFor(/EXIT=0/);
  assert.match(screen, /1 correction standing on doc_/);
  // The invisible text layer says the new word; the scan's pixels, read by native tesseract, do too.
  const text = execFileSync('pdftotext', [out, '-'], { encoding: 'utf8' });
  assert.match(text, /temopr/);
  assert.not.match(text, /tempor/);
  const png = join(daemon.dir, 'scan-corrected');
  execFileSync('pdftoppm', ['-r', '300', '-gray', '-png', '-singlefile', out, png]);
  const read = execFileSync('tesseract', [`${png}.png`, '-', '--psm', '3'], { encoding: 'utf8' });
  assert.match(read, /temopr/);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  assert.ok(
    calls.indexOf('proposeEdit text_layer') < calls.indexOf('applyEdit text_layer'),
    calls.join(', '),
  );
});

test('a scanned page: recognised matches, the crop fetched before confirmed: true, the refusal and advice', async () => {
  const id = await upload('scan-jbig2-encrypted.pdf', 'ELXRTQWS');
  const log = join(daemon.dir, 'scan.log');
  const t = openTerminal('scan', [id, '--find', 'This'], log);
  let screen = await t.waitFor(/Crop of page 0 at 600 dpi \(2×\): "This"/, 120_000);
  assert.match(screen, /Matches for "This": \d/);
  assert.match(screen, /▸ [?·] p0 {3}ocr /, 'a recognised match');
  assert.match(screen, /recognised, con/);
  screen = await t.waitFor(
    /(\? needs confirmation|· recognised with confidence \d+): ⏎ to confirm the reading/,
  );
  await t.waitFor(INK); // the crop is drawn
  t.keys('Enter');
  await t.waitFor(/Does the magnified crop read "This"\? y yes · n no/);
  t.keys('y');
  await t.waitFor(/Replace "This" with: This█/);
  t.keys('C-u');
  t.text('T his'); // a patch replaces one word with one word: refused, whatever recognition reads
  t.keys('Enter');
  screen = await t.waitFor(/✗ Refused "This" → "T his" on page 0/, 60_000);
  assert.match(screen, /^ {2}try: \S/m, 'the refusal says what to try');
  assert.not.match(screen, /why:|do: /, "the engine's advice only with --verbose");
  assert.match(screen, /▸ ✔ p0/, 'the reading is marked confirmed');
  assert.match(screen, /! Refused: the try: line says what would help/);
  t.keys('y');
  await t.waitFor(/This correction was refused: the try: line says what would help\./);
  t.keys('C-c'); // Ctrl-C quits too, and gives the terminal back
  screen = await t.waitFor(/EXIT=0/);
  assert.not.match(screen, /docfix review ·/);
  assert.match(screen, /0 corrections standing/);
  const calls = readFileSync(log, 'utf8').trim().split('\n');
  const crop = calls.findIndex((c) => /^pageCrop 0 (\d+)$/.test(c) && Number(c.split(' ')[2]) > 300);
  const confirmed = calls.indexOf('proposeEdit ocr confirmed');
  assert.ok(
    crop >= 0 && confirmed > crop,
    `a crop above 300 dpi comes before confirmed: true: ${calls.join(', ')}`,
  );
  assert.ok(calls.indexOf(`ocrPage 0 find This`) < crop, calls.join(', '));
  assert.ok(!calls.includes('applyEdit ocr confirmed'), 'nothing refused is applied');
});

/** The rows of a captured screen, each no wider than the terminal. */
function rows(screen: string, columns: number): string[] {
  const lines = screen.replace(/\n$/, '').split('\n');
  for (const line of lines) assert.ok([...line].length <= columns, `wider than ${columns}: ${line}`);
  return lines;
}

/** The corrections' heading stands on a row of its own, the corrections right under it, then the rule. */
function assertCorrectionRows(screen: string, columns: number, height: number): void {
  const lines = rows(screen, columns);
  assert.is(lines.length, height, 'the screen fills the terminal and no more');
  const heading = lines.findIndex((l) => /^Corrections standing: 1\s*$/.test(l));
  assert.ok(heading > 1, `the heading on its own row:\n${screen}`);
  assert.match(lines[heading + 1], /^ {2}✓ #1 page 0: "nonumy" → "nonmuy" · verified, 0 pixels outside\s*$/);
  assert.match(lines[heading + 2], /^─{20,}\s*$/);
  for (const line of lines.slice(0, heading)) assert.not.match(line, /Corrections|#1 page/);
}

test('review FILE.pdf: uploads and opens it; the caption reads the new word; the corrections have their own rows; export beside the file', async () => {
  const folder = join(daemon.dir, 'memos');
  mkdirSync(folder);
  const file = join(folder, 'memo.pdf');
  copyFileSync(join(CORPUS, 'libreoffice-writer.pdf'), file);
  const t = openTerminal('file', [file, '--find', 'nonumy'], join(daemon.dir, 'file.log'));
  let screen = await t.waitFor(/Crop of page 0 at 600 dpi \(2×\): "nonumy" at/);
  assert.match(screen, /docfix review · memo\.pdf · 1 page/, 'the uploaded file is open');
  assert.match(screen, /^Corrections standing: 0 · none yet/m);
  t.keys('Enter');
  await t.waitFor(/Replace "nonumy" with: nonumy█/);
  t.keys('C-u');
  t.text('nonmuy');
  t.keys('Enter');
  await t.waitFor(/● Proposal "nonumy" → "nonmuy" on page 0/);
  t.keys('y');
  screen = await t.waitFor(/Crop of page 0 at 600 dpi \(2×\): "nonmuy" \(corrected from "nonumy"\)/);
  assert.match(screen, /▸ ✓ p0 {3}text {2}100 {2}0 {2}.*\[nonmuy\]/, 'the list reads the new word');
  assertCorrectionRows(screen, 80, 24);
  t.resize(120, 40);
  screen = await t.waitFor(/q quit/);
  assertCorrectionRows(screen, 120, 40);
  t.resize(80, 24);
  await t.waitFor(/· \? keys · q\s*$/m);
  t.keys('e');
  screen = await t.waitFor(/Export to: .*\/memos\/memo-fixed\.pdf█/);
  assert.ok(screen.includes(`Export to: ${folder}/memo-fixed.pdf█`), 'beside the file reviewed');
  t.keys('Enter');
  await t.waitFor(/✓ Exported .*memo-fixed\.pdf/);
  t.keys('q');
  screen = await t.waitFor(/EXIT=0/);
  assert.match(screen, /✓ Uploaded memo\.pdf as doc_/);
  assert.match(screen, /1 correction standing on doc_/);
  const text = execFileSync('pdftotext', [join(folder, 'memo-fixed.pdf'), '-'], { encoding: 'utf8' });
  assert.match(text, /sed diam nonmuy eirmod tempor/);
});

test('review with an id that names no document: one line and exit 4, before any screen', async () => {
  const t = openTerminal('missing', ['doc_nosuchdocument0000'], join(daemon.dir, 'missing.log'));
  const screen = await t.waitFor(/EXIT=\d+/);
  assert.match(screen, /EXIT=4/);
  assert.match(screen, /^error: no document "doc_nosuchdocument0000": give a PDF file, or a document id/m);
  assert.not.match(screen, /docfix review ·|corrections standing/);
  const missingFile = openTerminal('nofile', ['nowhere/memo.pdf'], join(daemon.dir, 'nofile.log'));
  const noFile = await missingFile.waitFor(/EXIT=\d+/);
  assert.match(noFile, /EXIT=2/);
  assert.match(noFile, /error: nowhere\/memo\.pdf: no such file/);
});

test.run();
