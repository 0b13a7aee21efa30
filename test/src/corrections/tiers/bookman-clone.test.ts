// A named clone from the machine's fonts: pdfLaTeX's tgbonum sets text in TeX Gyre Bonum, which is
// URW Bookman's design with its widths (ITC Bookman's clone in URW base35, Debian's
// fonts-urw-base35, which ghostscript depends on). A letter the embedded subset lacks was refused
// (`glyph_not_available`) when Bonum itself was not installed: machine faces stood in only for a
// font naming them. Now URW Bookman Light draws the regular's letter and Demi the bold's. The page
// was made by pdfTeX from bonum-line.tex (fixtures/tex-fonts/manifest.json says how); the faces are
// read from a private folder with fontconfig off, so an installed TeX Gyre cannot answer instead.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposeEdit } from '../../../../src/corrections/engine.ts';
import { processFontSettings, useMachineFontSettings } from '../../../../src/fonts/machine-fonts.ts';
import { editInput } from '../fixtures.ts';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/bonum-line.pdf', import.meta.url));
const URW = '/usr/share/fonts/opentype/urw-base35';
const FACES = ['URWBookman-Light.otf', 'URWBookman-Demi.otf'];

const before = processFontSettings();
let dir = '';

test.before(() => {
  const absent = FACES.filter((f) => !existsSync(join(URW, f)));
  if (absent.length)
    throw new Error(
      `URW Bookman is not installed (${absent.map((f) => join(URW, f)).join(', ')}): apt-get install fonts-urw-base35`,
    );
  dir = mkdtempSync(join(tmpdir(), 'docfix-bookman-'));
  for (const f of FACES) copyFileSync(join(URW, f), join(dir, f));
  useMachineFontSettings({ system: false, dirs: [dir] });
});
test.after(() => {
  useMachineFontSettings(before);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('"bear" → "wear" in TeX Gyre Bonum Regular: the w is drawn with URW Bookman Light; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const text = await appliedWithStandIn(pdf, 'bear', 'wear', {
    face: 'dirs-urwbookman-light',
    family: 'URW Bookman',
  });
  assert.ok(text.includes('a wear sits at home, 1234 5678.'), text);
});

test('"home." → "whom." in TeX Gyre Bonum Bold: the w is drawn with URW Bookman Demi; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const text = await appliedWithStandIn(pdf, 'home.', 'whom.', {
    face: 'dirs-urwbookman-demi',
    family: 'URW Bookman',
  });
  assert.ok(text.includes('lazy dog at whom.'), text);
});

test('the proposal names the file drawn with and says it is a named clone', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const proposal = await proposeEdit(editInput(pdf, 'bear', 'wear'));
  const m = (proposal.measurements as unknown as { matched_font: Record<string, unknown> }).matched_font;
  assert.is(m.file, join(dir, 'URWBookman-Light.otf'));
  assert.is(m.named_clone, true);
  assert.ok(
    (proposal.warnings ?? []).some((w) => w.includes('URWBookman-Light.otf') && w.includes('a named clone')),
    (proposal.warnings ?? []).join('\n'),
  );
});

test.run();
