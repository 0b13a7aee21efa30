// Which of the machine's faces tier 5 offers for letters a scan never shows, and that a page set in
// one of them gets its missing letter from it: URW's Courier clone (Nimbus Mono PS) for a typewriter
// page, Nimbus Sans Narrow for a narrow sans page (Ghostscript's and mutool's Helvetica-Narrow),
// URW Gothic for an Avant Garde page.
// The faces come from Debian's fonts-urw-base35 (.ci/run installs it), copied into a private folder
// read as DOCFIX_FONT_DIRS would be (no fontconfig, nothing else of the machine).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { patchWord } from '../../../../src/corrections/scan/pixel-patch.ts';
import { patchLetterFaces } from '../../../../src/corrections/scan/letter-drawing.ts';
import type { LetterFace } from '../../../../src/corrections/scan/scan-raster.ts';
import { wordRaster } from './word-raster.ts';

const URW = '/usr/share/fonts/opentype/urw-base35';
const FILES = [
  'NimbusSans-Regular.otf',
  'NimbusSansNarrow-Regular.otf',
  'NimbusSansNarrow-Oblique.otf',
  'NimbusMonoPS-Regular.otf',
  'NimbusRoman-Regular.otf',
  'URWGothic-Book.otf',
];
let dir = '';
let faces: LetterFace[] = [];

test.before(() => {
  const absent = FILES.filter((f) => !existsSync(join(URW, f)));
  if (absent.length)
    throw new Error(`URW base35 is not installed (${absent.join(', ')}): apt-get install fonts-urw-base35`);
  dir = mkdtempSync(join(tmpdir(), 'docfix-letter-faces-'));
  for (const f of FILES) copyFileSync(join(URW, f), join(dir, f));
  faces = patchLetterFaces({ system: false, dirs: [dir] });
});
test.after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A grey raster of `word` drawn by `face` at 60 px per em, letters 4 px apart. */
const pageOf = (face: LetterFace, word: string) =>
  wordRaster(
    [...word].map((c) => face.draw(c, 60)!),
    4,
  );

function drawnFace(pageFace: string, word: string, replacement: string): string {
  const face = faces.find((f) => f.id === pageFace);
  assert.ok(face, `${pageFace} among ${faces.map((f) => f.id).join(', ')}`);
  const page = pageOf(face!, word);
  const r = patchWord({
    raster: page.raster,
    words: [],
    target: { text: word, box: page.box, confidence: 95 },
    replacement,
    letterFaces: faces,
  });
  assert.ok(!('refused' in r), 'refused' in r ? r.refused : '');
  if ('refused' in r) return '';
  assert.is(r.method, 'drawn');
  return String(r.measurements.drawn_face);
}

test('the machine faces offered: upright Nimbus Sans, Sans Narrow, Mono PS and Roman; no oblique', () => {
  const ids = faces.map((f) => f.id).filter((id) => id.startsWith('dirs-'));
  for (const id of [
    'dirs-nimbussans-regular',
    'dirs-nimbussansnarrow-regular',
    'dirs-nimbusmonops-regular',
    'dirs-nimbusroman-regular',
    'dirs-urwgothic-book',
  ])
    assert.ok(ids.includes(id), `${id} among ${ids.join(', ')}`);
  assert.not.ok(
    ids.some((id) => /oblique/.test(id)),
    ids.join(', '),
  );
});

test('a narrow sans page gets its missing letter from Nimbus Sans Narrow, not Nimbus Sans', () => {
  // (Before narrow faces were offered, the “û” of a mutool Helvetica-Narrow page was drawn by Nimbus
  // Sans, a fifth wider, and native tesseract read the word as another.)
  assert.is(
    drawnFace('dirs-nimbussansnarrow-regular', 'suivantes', 'sûivantes'),
    'dirs-nimbussansnarrow-regular',
  );
  assert.is(drawnFace('dirs-nimbussans-regular', 'suivantes', 'sûivantes'), 'dirs-nimbussans-regular');
});

test('an Avant Garde page gets its missing letter from URW Gothic', () => {
  // (Nimbus Sans drew it before: its letters shared about half their ink with the page's.)
  assert.is(drawnFace('dirs-urwgothic-book', 'profondeur', 'profondûur'), 'dirs-urwgothic-book');
});

test('a Courier page gets its missing letter from Nimbus Mono PS', () => {
  assert.is(drawnFace('dirs-nimbusmonops-regular', 'ignored', 'ignorzd'), 'dirs-nimbusmonops-regular');
  // A Times page keeps a Times face (Nimbus Roman or Liberation Serif, its metric twin), not a fixed-pitch one.
  assert.match(
    drawnFace('dirs-nimbusroman-regular', 'ignored', 'ignorzd'),
    /^(dirs-nimbusroman|liberation-serif)-regular$/,
  );
});

test.run();
