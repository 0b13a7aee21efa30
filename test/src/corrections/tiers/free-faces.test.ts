// The free faces bundled for themselves on 2026-11-28 (fonts/README.md): Noto Sans, Lato, Source
// Sans 3, Source Serif 4, EB Garamond, Cantarell, Linux Biolinum O, PT Sans, PT Serif, Gentium Plus
// and Inter; on 2026-11-29 GNU FreeFont's FreeSerif and FreeSans (TCPDF's default Unicode faces). A
// document that embeds a subset of one of them, named as producers name it, gets a
// letter its subset lacks drawn with the bundled face (tier 4), on any machine: before they were
// bundled the same edit was refused `glyph_not_available` unless the machine had the face. Each page
// is made here from the face's own file: a subset holding only the letters of its line.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { bundledFacePdf, editInput } from '../fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-free-faces-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** `line` at 14 pt in a subset of bundled face `id`, its font named `baseFont` as a producer names it. */
function facePdf(id: string, baseFont: string, line: string): Uint8Array {
  return bundledFacePdf(
    { name: baseFont.replace(/^[A-Z]{6}\+/, ''), id },
    [0, 0, 420, 120],
    (hex) => `BT /F1 14 Tf 20 60 Td <${hex(line)}> Tj ET`,
    (font, doc) => {
      font.put('BaseFont', doc.newName(baseFont));
      const descendant = font.get('DescendantFonts').get(0);
      descendant.put('BaseFont', doc.newName(baseFont));
      descendant.get('FontDescriptor').put('FontName', doc.newName(baseFont));
    },
  );
}

const LATIN = ['The checks are made yearly', 'checks', 'checkz', 'The checkz are made yearly'] as const;
const CASES: [
  id: string,
  family: string,
  baseFont: string,
  edit: readonly [string, string, string, string],
][] = [
  ['noto-sans-regular', 'Noto Sans', 'ABCDEF+NotoSans-Regular', LATIN],
  ['lato-bold', 'Lato', 'ABCDEF+Lato-Bold', LATIN],
  ['source-sans-3-italic', 'Source Sans 3', 'ABCDEF+SourceSans3-It', LATIN],
  ['source-serif-4-regular', 'Source Serif 4', 'ABCDEF+SourceSerif4-Regular', LATIN],
  ['eb-garamond-regular', 'EB Garamond 12', 'ABCDEF+EBGaramond12-Regular', LATIN],
  ['cantarell-regular', 'Cantarell', 'ABCDEF+Cantarell-Regular', LATIN],
  ['linux-biolinum-regular', 'Linux Biolinum O', 'ABCDEF+LinBiolinumO', LATIN],
  ['pt-sans-regular', 'PT Sans', 'ABCDEF+PTSans-Regular', LATIN],
  [
    'pt-serif-regular',
    'PT Serif',
    'ABCDEF+PTSerif-Regular',
    ['Проверка идёт ежегодно', 'идёт', 'идут', 'Проверка идут ежегодно'],
  ],
  ['gentium-plus-regular', 'Gentium Plus', 'ABCDEF+GentiumPlus', LATIN],
  ['inter-regular', 'Inter', 'ABCDEF+Inter-Regular', LATIN],
  ['free-serif-regular', 'FreeSerif', 'ABCDEF+FreeSerif', LATIN],
  [
    'free-sans-regular',
    'FreeSans',
    'ABCDEF+FreeSans',
    ['Η επιθεώρηση γίνεται ετησίως', 'γίνεται', 'γίνετκι', 'Η επιθεώρηση γίνετκι ετησίως'],
  ],
];

for (const [id, family, baseFont, [line, find, replace, after]] of CASES) {
  test(`${baseFont}: a letter its subset lacks is drawn with the bundled ${family}; verifies, poppler reads it`, async () => {
    const pdf = facePdf(id, baseFont, line);
    const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replace));
    assert.ok(verification.passed, verification.failure_reason ?? '');
    assert.is(proposal.tier_name, 'matched_font');
    const m = proposal.measurements as { matched_font: { face: string; family: string } };
    assert.is(m.matched_font.family, family);
    assert.is(m.matched_font.face, id);
    const file = join(dir, `${id}.pdf`);
    writeFileSync(file, output);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    assert.ok(text.includes(after), text);
  });
}

test.run();
