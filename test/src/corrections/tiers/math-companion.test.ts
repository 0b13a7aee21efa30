// Letters set in an OpenType math face (a ConTeXt or Word page sets text in Latin Modern Math; a
// formula's upright letters): the face's upright Latin is its text companion's, LM Roman 10, with
// the same widths, so a letter the subset lacks is drawn with LM Roman 10 at cost low. The page
// was made by LuaLaTeX from lm-math-line.tex (fixtures/tex-fonts/manifest.json). Before, the
// name named nothing and the widths the subset carries for its √ (833/1000 em, LM Roman 10's 472)
// refused every stand-in; only a machine with fonts-lmodern drew it from its own Latin Modern
// Math, so machine fonts are turned off here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposeEdit } from '../../../../src/corrections/engine.ts';
import { editInput } from '../fixtures.ts';
import { processFontSettings, useMachineFontSettings } from '../../../../src/fonts/machine-fonts.ts';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/lm-math-line.pdf', import.meta.url));
const before = processFontSettings();
test.before(() => useMachineFontSettings({ system: false, dirs: [] }));
test.after(() => useMachineFontSettings(before));

for (const { find, replace, line } of [
  { find: 'pieśń', replace: 'pyeśń', line: 'Mała pyeśń o kocie: √2 i 𝑎𝑏𝑐.' },
  { find: 'kocie', replace: 'kozie', line: 'Mała pieśń o kozie: √2 i 𝑎𝑏𝑐.' },
]) {
  test(`LatinModernMath-Regular "${find}" → "${replace}": the plain letter is drawn upright with LM Roman 10; poppler's text and pixels agree`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const text = await appliedWithStandIn(pdf, find, replace, { face: 'lm-roman-10-regular' });
    assert.ok(text.includes(line), text);
  });
}

test('a math italic letter the subset lacks is in no text companion: refused, glyph_not_available', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const proposal = await proposeEdit(editInput(pdf, '𝑎𝑏𝑐', '𝑎𝑦𝑐'));
  assert.is(proposal.advice?.code, 'glyph_not_available');
});

test.run();
