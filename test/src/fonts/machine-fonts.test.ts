// Tier 4 past the bundle: a page set in Junicode Two Beta (Debian fonts-junicode, which docfix does
// not bundle), its embedded subset lacking “ő”. The machine's copy of the face draws it — found by
// fontconfig, or in a private DOCFIX_FONT_DIRS folder with fontconfig off; a copy whose OS/2 fsType
// says restricted licence is refused by name; with machine fonts off the old refusal stands.
// Needs fonts-junicode (apt-get install -y fonts-junicode): the tests fail saying so without it.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../src/corrections/engine.ts';
import {
  embeddingOf,
  machineFaces,
  machineFontSettings,
  readFaceHeader,
} from '../../../src/fonts/machine-fonts.ts';
import { editInput } from '../corrections/fixtures.ts';
import { popplerProblemsOf } from '../corrections/poppler.ts';
import { junicodeCopy, junicodeFile, junicodePdf, PS_NAME } from './junicode-fixture.ts';

/** Runs `fn` with DOCFIX_SYSTEM_FONTS and DOCFIX_FONT_DIRS set as given, restored after. */
async function withFontEnv<T>(system: boolean, dirs: string, fn: () => Promise<T>): Promise<T> {
  const saved = { system: process.env.DOCFIX_SYSTEM_FONTS, dirs: process.env.DOCFIX_FONT_DIRS };
  process.env.DOCFIX_SYSTEM_FONTS = system ? '1' : '0';
  process.env.DOCFIX_FONT_DIRS = dirs;
  try {
    return await fn();
  } finally {
    for (const [key, value] of [
      ['DOCFIX_SYSTEM_FONTS', saved.system],
      ['DOCFIX_FONT_DIRS', saved.dirs],
    ] as const)
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  }
}

interface MatchedFacts {
  matched_font: { face: string; origin?: string; file?: string; subset_glyphs: number | null };
}

/** The correction made and verified, and poppler's text showing it. */
async function assertVerifiedWith(origin: string, file: string) {
  const pdf = junicodePdf();
  const r = await applyEdit(editInput(pdf, 'scribes', 'scrőbes'));
  assert.is(r.proposal.tier, 4);
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  const m = (r.proposal.measurements as unknown as MatchedFacts).matched_font;
  assert.is(m.origin, origin);
  assert.is(m.file, file);
  assert.ok(
    (r.proposal.warnings ?? []).some((w) => w.includes(file)),
    'the warning names the file',
  );
  assert.equal(popplerProblemsOf(pdf, r.output, 'scribes', 'scrőbes', r.verification.declared_box!), []);
  return m;
}

test('fsType: installable, editable and preview & print embed; restricted and bitmap-only do not', () => {
  assert.is(embeddingOf(null), 'allowed');
  assert.is(embeddingOf(0x0000), 'allowed');
  assert.is(embeddingOf(0x0004), 'allowed');
  assert.is(embeddingOf(0x0008), 'allowed');
  assert.is(embeddingOf(0x0006), 'allowed', 'preview & print outranks restricted');
  assert.is(embeddingOf(0x0002), 'restricted');
  assert.is(embeddingOf(0x0204), 'bitmap_only');
  const header = readFaceHeader(junicodeFile());
  assert.is(header?.postscriptName, PS_NAME);
  assert.is(header?.fsType, 0);
  assert.is(readFaceHeader('/etc/hostname'), null, 'not a font');
});

test('settings: DOCFIX_SYSTEM_FONTS=0 turns fontconfig off; DOCFIX_FONT_DIRS is path-separated', () => {
  assert.equal(machineFontSettings({ DOCFIX_SYSTEM_FONTS: '0', DOCFIX_FONT_DIRS: '/a:/b' }), {
    system: false,
    dirs: ['/a', '/b'],
  });
  assert.equal(machineFontSettings({}), { system: true, dirs: [] });
  // A folder that does not exist just adds nothing.
  assert.equal(machineFaces({ system: false, dirs: ['/nonexistent/fonts'] }), []);
});

test('fontconfig finds the Debian package’s face: the correction verifies and names its file', async () => {
  await withFontEnv(true, '', async () => {
    const face = machineFaces().find((f) => f.postscriptName === PS_NAME);
    assert.ok(face, 'fc-list lists Junicode Two Beta');
    assert.is(face.origin, 'system');
    const m = await assertVerifiedWith('system', junicodeFile());
    assert.is(m.face, 'system-junicodetwobeta-regular');
    assert.ok(m.subset_glyphs !== null && m.subset_glyphs > 0, 'embedded as a subset');
  });
});

test('a DOCFIX_FONT_DIRS folder with fontconfig off: the face there draws the letter', async () => {
  const dir = junicodeCopy(null);
  try {
    await withFontEnv(false, dir, async () => {
      assert.equal(
        machineFaces().map((f) => [f.origin, f.postscriptName]),
        [['font_dirs', PS_NAME]],
      );
      await assertVerifiedWith('font_dirs', join(dir, 'Junicode-copy.otf'));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a face whose fsType forbids subsetting is embedded whole', async () => {
  const dir = junicodeCopy(0x0100);
  try {
    await withFontEnv(false, dir, async () => {
      const m = await assertVerifiedWith('font_dirs', join(dir, 'Junicode-copy.otf'));
      assert.is(m.subset_glyphs, null);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a restricted-licence face is refused with its name; machine fonts off give the old refusal', async () => {
  const dir = junicodeCopy(0x0002);
  try {
    const restricted = await withFontEnv(false, dir, () =>
      proposeEdit(editInput(junicodePdf(), 'scribes', 'scrőbes')),
    );
    assert.is(restricted.advice?.code, 'glyph_not_available');
    const why = restricted.advice?.why ?? '';
    assert.match(why, PS_NAME);
    assert.match(why, join(dir, 'Junicode-copy.otf'));
    assert.match(why, 'fsType 0x0002');
    assert.ok(restricted.advice?.do.some((d) => d.includes(PS_NAME) && /embedding/.test(d)));

    const off = await withFontEnv(false, '', () =>
      proposeEdit(editInput(junicodePdf(), 'scribes', 'scrőbes')),
    );
    assert.is(off.advice?.code, 'glyph_not_available');
    assert.match(off.advice?.what ?? '', 'no bundled font matches it');
    // The way to the letter: the face itself, on this machine.
    assert.ok(
      off.advice?.do.some((d) => d.includes(PS_NAME) && d.includes('DOCFIX_FONT_DIRS')),
      off.advice?.do.join(' | '),
    );
    assert.not.match(off.advice?.why ?? '', 'fsType');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
