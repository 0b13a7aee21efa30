// TeX font families made from Computer Modern's sources with other letters added: the CS fonts
// (Czech, Slovak), the PL fonts (Polish), vntex (Vietnamese) and CB Greek. Their Latin keeps CM's
// widths, so Latin Modern or CMU Serif (which has CB's Greek) is the same design, and a letter the
// page's subset lacks is drawn with it. The one-line pages were made by pdfTeX from the .tex beside
// each (fixtures/tex-fonts/manifest.json says how).
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

const TEX_FONTS = fileURLToPath(new URL('../../../../fixtures/tex-fonts/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'docfix-tex-families-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

interface MatchedFacts {
  matched_font: { face: string; family: string };
}

for (const { file, font, find, replace, family, line } of [
  {
    file: 'cs-line.pdf',
    font: 'csr10',
    find: 'lesa',
    replace: 'lesů',
    family: 'LM Roman 10',
    line: 'Starý mlýn stojí u lesů.',
  },
  {
    file: 'pl-line.pdf',
    font: 'PLRoman10-Regular',
    find: 'leży',
    replace: 'leżał',
    family: 'LM Roman 10',
    line: 'Kot leżał na oknie.',
  },
  {
    file: 'vn-line.pdf',
    font: 'VNR10',
    find: 'bạn',
    replace: 'bận',
    family: 'LM Roman 10',
    line: 'Xin chào các bận.',
  },
  {
    file: 'gr-line.pdf',
    font: 'grmn1000',
    find: 'όλους',
    replace: 'όλων',
    family: 'CMU Serif',
    line: 'Καλημέρα σε όλων.',
  },
]) {
  test(`${font}: a letter its subset lacks is drawn with ${family} at cost low; poppler reads it, nothing else moves`, async () => {
    const pdf = new Uint8Array(readFileSync(join(TEX_FONTS, file)));
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    assert.is(proposal.visibility_cost, 'low');
    const m = (proposal.measurements as unknown as MatchedFacts).matched_font;
    assert.is(m.family, family);
    const after = join(dir, file);
    writeFileSync(after, output);
    const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
    assert.ok(text.includes(line), text);
    assert.equal(popplerProblemsOf(pdf, output, find, replace, verification.declared_box!), []);
  });
}

test.run();
