// GNU FreeMono on a Ghostscript page: its Latin is URW's Nimbus Mono (FreeFont's AUTHORS), every
// advance Courier's, so the bundled Liberation Mono stands in by name for a letter the subset lacks
// (before, FreeMono was no name tier 4 knew: both lines were reached by their widths alone, and the
// bold line's w was drawn with Liberation Mono Regular — verified, but in the wrong weight). The page
// was made by ghostscript from freemono-line.ps (fixtures/freefont/README.md); the machine's fonts
// are off, so an installed FreeMono cannot answer instead.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processFontSettings, useMachineFontSettings } from '../../../../src/fonts/machine-fonts.ts';
import { appliedWithStandIn } from '../stand-in.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/freefont/freemono-line.pdf', import.meta.url));

const before = processFontSettings();
test.before(() => useMachineFontSettings({ system: false, dirs: [] }));
test.after(() => useMachineFontSettings(before));

test('"bear" → "wear" in FreeMono: the w is drawn with Liberation Mono Regular; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const text = await appliedWithStandIn(pdf, 'bear', 'wear', { face: 'liberation-mono-regular' });
  assert.ok(text.includes('a wear sits at home, 1234 5678.'), text);
});

test('"home." → "whom." in FreeMonoBold: the w is drawn with Liberation Mono Bold; poppler agrees', async () => {
  const pdf = new Uint8Array(readFileSync(PAGE));
  const text = await appliedWithStandIn(pdf, 'home.', 'whom.', { face: 'liberation-mono-bold' });
  assert.ok(text.includes('the lazy dog at whom.'), text);
});

test.run();
