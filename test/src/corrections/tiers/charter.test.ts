// Bitstream Charter is bundled (fonts/charter, converted from TeX's Type 1 faces): pdfTeX documents
// set in it (the charter package: KOMA-Script, many LaTeX classes) embed subsets named
// CharterBT-Roman, CharterBT-Italic …, and a letter the subset lacks was refused with
// `glyph_not_available` (Charis SIL, its extension, is 17/1000 em wider: rightly refused). The page
// was made by pdfTeX from charter-line.tex (fixtures/tex-fonts/manifest.json says how).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput } from '../fixtures.ts';
import { popplerProblemsOf } from '../poppler.ts';

const PAGE = fileURLToPath(new URL('../../../../fixtures/tex-fonts/charter-line.pdf', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'docfix-charter-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

interface MatchedFacts {
  matched_font: { face: string; family: string };
}

for (const { find, replace, face, line } of [
  { find: 'wall,', replace: 'way,', face: 'charter-regular', line: 'The fox jumps over the way, the wall.' },
  {
    find: 'the wall.',
    replace: 'the way.',
    face: 'charter-italic',
    line: 'The fox jumps over the wall, the way.',
  },
]) {
  test(`"${find}" → "${replace}": the y the subset lacks is drawn with the bundled ${face}; poppler's text and pixels agree`, async () => {
    const pdf = new Uint8Array(readFileSync(PAGE));
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    assert.is(proposal.visibility_cost, 'low');
    const m = (proposal.measurements as unknown as MatchedFacts).matched_font;
    assert.is(m.family, 'Bitstream Charter');
    assert.is(m.face, face);
    const after = join(dir, `${face}.pdf`);
    writeFileSync(after, output);
    const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
    assert.ok(text.includes(line), text);
    assert.equal(popplerProblemsOf(pdf, output, find, replace, verification.declared_box!), []);
  });
}

test.run();
