// Named clones across TeX Gyre and URW base35: a document font's name reaches the machine face of
// the same design under the other family's name (machineNameRank 2), and no other. The faces are
// the real URW base35 files of Debian's fonts-urw-base35, read as a DOCFIX_FONT_DIRS folder with
// fontconfig off; without the package the test fails saying so.
import { existsSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { machineFaces, machineNameRank, type MachineFace } from '../../../src/fonts/machine-fonts.ts';

const URW = '/usr/share/fonts/opentype/urw-base35';

function urwFaces(): readonly MachineFace[] {
  if (!existsSync(`${URW}/URWBookman-Light.otf`))
    throw new Error(`URW base35 is not installed (${URW}): apt-get install fonts-urw-base35`);
  return machineFaces({ system: false, dirs: [URW] });
}

/** The PostScript names of the URW faces `name` reaches, each with its rank. */
function reached(name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const face of urwFaces()) {
    const rank = machineNameRank(face, name);
    if (rank !== null) out[face.postscriptName] = rank;
  }
  return out;
}

const bookman = {
  'URWBookman-Light': 2,
  'URWBookman-LightItalic': 2,
  'URWBookman-Demi': 2,
  'URWBookman-DemiItalic': 2,
};
const gothic = {
  'URWGothic-Book': 2,
  'URWGothic-BookOblique': 2,
  'URWGothic-Demi': 2,
  'URWGothic-DemiOblique': 2,
};

test('TeX Gyre Bonum, Adventor and Chorus reach URW Bookman, URW Gothic and Z003 as named clones', () => {
  assert.equal(reached('TeXGyreBonum-Regular'), bookman);
  assert.equal(reached('TeXGyreBonum-BoldItalic'), bookman);
  assert.equal(reached('TeXGyreAdventor-Bold'), gothic);
  assert.equal(reached('TeXGyreChorus-MediumItalic'), { 'Z003-MediumItalic': 2 });
});

test("the ITC originals' and URW's older names reach them too; the face's own name still ranks 0", () => {
  assert.equal(reached('Bookman-Demi'), bookman);
  assert.equal(reached('URWBookmanL-Ligh'), bookman);
  assert.equal(reached('AvantGarde-Book'), gothic);
  assert.equal(reached('ZapfChancery-MediumItalic'), { 'Z003-MediumItalic': 2 });
  assert.is(reached('URWBookman-Light')['URWBookman-Light'], 0);
});

test('other designs reach none of them: Bookman Old Style, TeX Gyre Bonum Math, TeX Gyre Termes', () => {
  assert.equal(reached('BookmanOldStyle'), {});
  assert.equal(reached('TeXGyreBonumMath-Regular'), {});
  // Termes is Times: the bundled Liberation Serif stands in for it, no machine face by clone.
  assert.equal(reached('TeXGyreTermes-Regular'), {});
});

const nimbusMono = {
  'NimbusMonoPS-Regular': 2,
  'NimbusMonoPS-Italic': 2,
  'NimbusMonoPS-Bold': 2,
  'NimbusMonoPS-BoldItalic': 2,
};

test("GNU FreeMono reaches URW Nimbus Mono PS (its Latin is Nimbus Mono's), its style words unhyphenated", () => {
  assert.equal(reached('FreeMono'), nimbusMono);
  assert.equal(reached('FreeMonoBoldOblique'), nimbusMono);
});

test("GNU FreeSerif and FreeSans reach no Nimbus face: they were re-spaced, their widths are not URW's", () => {
  assert.equal(reached('FreeSerif'), {});
  assert.equal(reached('FreeSansBold'), {});
});

test.run();
