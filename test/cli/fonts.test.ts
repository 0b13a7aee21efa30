// docfix fonts and a correction drawn with a face of the daemon's machine, end to end against a real
// daemon: `serve --font-dir` names a private folder (and --no-system-fonts) holding a copy of Junicode
// Two Beta Regular and a restricted-licence copy of its Italic; the list shows both and where they
// come from, and `apply` draws a letter the page's subset lacks with the Regular, naming its file.
// The environment names another (empty) folder and fontconfig on: the flags win, in the daemon and in
// its engine threads, which are given the daemon's settings rather than reading the environment.
// Needs fonts-junicode (test/src/fonts/junicode-fixture.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type TestDaemon } from './helpers.ts';
import { junicodeCopy, junicodePdf } from '../src/fonts/junicode-fixture.ts';

let d: TestDaemon;
let fontDir: string;
let emptyDir: string;

test.before(async () => {
  fontDir = junicodeCopy(null);
  junicodeCopy(0x0002, 'Italic', fontDir);
  const systemBefore = process.env.DOCFIX_SYSTEM_FONTS;
  process.env.DOCFIX_SYSTEM_FONTS = '1';
  emptyDir = mkdtempSync(join(tmpdir(), 'docfix-no-fonts-'));
  process.env.DOCFIX_FONT_DIRS = emptyDir;
  try {
    d = await startDaemon(['--font-dir', fontDir, '--no-system-fonts']);
  } finally {
    if (systemBefore === undefined) delete process.env.DOCFIX_SYSTEM_FONTS;
    else process.env.DOCFIX_SYSTEM_FONTS = systemBefore;
    delete process.env.DOCFIX_FONT_DIRS;
  }
});

test.after(async () => {
  await d?.stop();
  if (emptyDir) rmSync(emptyDir, { recursive: true, force: true });
});

test('docfix fonts lists the bundled faces and the folder’s, with what their licence allows', async () => {
  const r = await d.run(['fonts', '--json']);
  assert.is(r.code, 0, r.stderr);
  const listing = JSON.parse(r.stdout) as {
    system_fonts: boolean;
    font_dirs: string[];
    faces: {
      postscript_name: string;
      origin: string;
      file: string;
      embedding: string;
      fs_type: number | null;
    }[];
  };
  assert.is(listing.system_fonts, false);
  assert.equal(listing.font_dirs, [fontDir]);
  assert.is(listing.faces.filter((f) => f.origin === 'bundled').length, 225);
  assert.equal(
    listing.faces
      .filter((f) => f.origin !== 'bundled')
      .map((f) => [f.postscript_name, f.origin, f.file, f.embedding, f.fs_type]),
    [
      // In the folder's file-name order.
      ['JunicodeTwoBeta-Italic', 'font_dirs', join(fontDir, 'Junicode-Italic-copy.otf'), 'restricted', 2],
      ['JunicodeTwoBeta-Regular', 'font_dirs', join(fontDir, 'Junicode-copy.otf'), 'allowed', 0],
    ],
  );
  const human = await d.run(['fonts']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /JunicodeTwoBeta-Italic .*font folder .*no \(restricted\)/);
  assert.match(human.stdout, /LiberationSans-Regular .*bundled .*yes/);
  assert.match(
    human.stderr,
    /225 bundled; 0 from fontconfig \(off: --no-system-fonts or DOCFIX_SYSTEM_FONTS=0\); 2 from font folders \(/,
  );
});

test('a correction drawn with the folder’s face names its file, and verifies', async () => {
  const pdf = join(d.dir, 'junicode.pdf');
  writeFileSync(pdf, junicodePdf());
  const up = await d.run(['upload', pdf, '--json']);
  assert.is(up.code, 0, up.stderr);
  const id = (JSON.parse(up.stdout) as { document_id: string }).document_id;
  const edit = ['--find', 'scribes', '--replace', 'scrőbes'];
  const file = join(fontDir, 'Junicode-copy.otf');
  const human = await d.run(['propose', id, ...edit]);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stderr, file);
  const applied = await d.run(['apply', id, ...edit, '--yes', '--json']);
  assert.is(applied.code, 0, applied.stderr);
  const out = JSON.parse(applied.stdout) as {
    proposal: { tier: number; measurements: { matched_font: { origin: string; file: string } } };
    verification: { passed: boolean };
  };
  assert.is(out.proposal.tier, 4);
  assert.equal(out.proposal.measurements.matched_font.origin, 'font_dirs');
  assert.is(out.proposal.measurements.matched_font.file, file);
  assert.is(out.verification.passed, true);
});

test.run();
