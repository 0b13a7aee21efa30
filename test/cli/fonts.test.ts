// docfix fonts and a correction drawn with a face of the daemon's machine, end to end against a real
// daemon: DOCFIX_FONT_DIRS names a private folder (fontconfig off) holding a copy of Junicode Two
// Beta Regular and a restricted-licence copy of its Italic; the list shows both and where they come
// from, and `apply` draws a letter the page's subset lacks with the Regular, naming its file.
// Needs fonts-junicode (test/src/fonts/junicode-fixture.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type TestDaemon } from './helpers.ts';
import { junicodeCopy, junicodePdf } from '../src/fonts/junicode-fixture.ts';

let d: TestDaemon;
let fontDir: string;

test.before(async () => {
  fontDir = junicodeCopy(null);
  junicodeCopy(0x0002, 'Italic', fontDir);
  // The daemon (and its engine threads) read these from the environment it starts with.
  process.env.DOCFIX_SYSTEM_FONTS = '0';
  process.env.DOCFIX_FONT_DIRS = fontDir;
  d = await startDaemon();
});

test.after(async () => {
  await d?.stop();
  delete process.env.DOCFIX_FONT_DIRS;
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
  assert.is(listing.faces.filter((f) => f.origin === 'bundled').length, 168);
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
  assert.match(human.stdout, /JunicodeTwoBeta-Italic .*DOCFIX_FONT_DIRS .*no \(restricted\)/);
  assert.match(human.stdout, /LiberationSans-Regular .*bundled .*yes/);
  assert.match(
    human.stderr,
    /168 bundled; 0 from fontconfig \(off: DOCFIX_SYSTEM_FONTS=0\); 2 from DOCFIX_FONT_DIRS/,
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
