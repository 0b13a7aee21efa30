// The bundled faces: present, licensed, loadable by MuPDF, styled as the catalog says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BUNDLED_FACES, faceById, facesOfFamily, fontBytes } from '../../../src/fonts/catalog.ts';
import { loadFace, missingGlyphs } from '../../../src/fonts/font-match.ts';

test('225 faces, ids unique; Latin Modern one family per optical size, all 72 of its faces', () => {
  assert.is(BUNDLED_FACES.length, 225);
  assert.is(new Set(BUNDLED_FACES.map((f) => f.id)).size, 225);
  assert.is(BUNDLED_FACES.filter((f) => f.family.startsWith('LM ')).length, 72);
  assert.equal(
    [...new Set(BUNDLED_FACES.map((f) => f.family))].filter((f) => !f.startsWith('LM ')),
    [
      'Liberation Sans',
      'Liberation Serif',
      'Liberation Mono',
      'Carlito',
      'Caladea',
      'DejaVu Sans',
      'DejaVu Serif',
      'DejaVu Sans Condensed',
      'Roboto',
      'CMU Serif',
      'CMU Typewriter Text',
      'CMU Sans Serif',
      'TeX Gyre Pagella',
      'Linux Libertine O',
      'CMU Typewriter Text Light',
      'TeX Gyre Schola',
      'STIX Two Text',
      'Fira Sans',
      'Fira Sans Light',
      'Fira Sans Book',
      'Old Standard',
      'Accanthis ADF Std No3',
      'FreeSerif',
      'FreeSans',
      'Nanum Myeongjo',
      'Nanum Gothic',
      'Amiri',
      'Noto Serif',
      'Charis SIL',
      'Bitstream Charter',
      'Nowhere Serif',
      'Iwona',
      'Crimson Pro',
      'Crimson Pro ExtraBold',
      'Open Sans',
      'Noto Sans',
      'Lato',
      'Source Sans 3',
      'Source Serif 4',
      'EB Garamond 12',
      'Cantarell',
      'Linux Biolinum O',
      'PT Sans',
      'PT Serif',
      'Gentium Plus',
      'Inter',
      'Droid Sans Fallback',
    ],
  );
  assert.equal(
    facesOfFamily('LM Roman 10').map((f) => f.id),
    ['lm-roman-10-regular', 'lm-roman-10-bold', 'lm-roman-10-italic', 'lm-roman-10-bold-italic'],
  );
  assert.equal(
    BUNDLED_FACES.filter((f) => /^LM Roman \d+$/.test(f.family) && f.style === 'regular').map(
      (f) => f.designSize,
    ),
    [5, 6, 7, 8, 9, 10, 12, 17],
  );
  assert.is(faceById('lm-roman-slanted-10')?.postscriptName, 'LMRomanSlant10-Regular');
  assert.is(faceById('lm-sans-10-italic')?.postscriptName, 'LMSans10-Oblique');
  assert.is(faceById('lm-sans-10-bold-italic')?.postscriptName, 'LMSans10-BoldOblique');
  assert.is(faceById('lm-roman-slanted-10-bold')?.postscriptName, 'LMRomanSlant10-Bold');
  assert.is(faceById('lm-roman-demi-10-bold')?.postscriptName, 'LMRomanDemi10-Regular');
  assert.is(faceById('lm-mono-prop-light-10-bold-italic')?.postscriptName, 'LMMonoPropLt10-BoldOblique');
  assert.is(faceById('fira-sans-light-italic')?.postscriptName, 'FiraSans-LightItalic');
  assert.is(faceById('fira-sans-book-regular')?.postscriptName, 'FiraSans-Book');
  assert.is(faceById('cmu-typewriter-light-italic')?.postscriptName, 'CMUTypewriter-LightOblique');
  assert.is(faceById('texgyre-schola-bold-italic')?.postscriptName, 'TeXGyreSchola-BoldItalic');
  assert.is(faceById('roboto-bold')?.postscriptName, 'Roboto-Bold');
  assert.is(faceById('crimson-pro-extrabold-bold-italic')?.postscriptName, 'CrimsonPro-ExtraBoldItalic');
  assert.is(faceById('open-sans-regular')?.postscriptName, 'OpenSans');
  assert.is(faceById('source-sans-3-bold-italic')?.postscriptName, 'SourceSans3-BoldIt');
  assert.is(faceById('pt-serif-italic')?.postscriptName, 'PTSerif-Italic');
  assert.is(faceById('linux-biolinum-bold')?.postscriptName, 'LinBiolinumOB');
  assert.is(faceById('gentium-plus-regular')?.postscriptName, 'GentiumPlus');
  assert.equal(
    facesOfFamily('EB Garamond 12').map((f) => f.postscriptName),
    ['EBGaramond12-Regular', 'EBGaramond12-Italic'],
  );
  assert.is(faceById('cmu-serif-regular')?.postscriptName, 'CMUSerif-Roman');
  assert.is(faceById('cmu-serif-bold-italic')?.postscriptName, 'CMUSerif-BoldItalic');
  assert.is(faceById('dejavu-sans-condensed-regular')?.postscriptName, 'DejaVuSansCondensed');
  assert.equal(
    facesOfFamily('Carlito').map((f) => f.style),
    ['regular', 'bold', 'italic', 'bold-italic'],
  );
  assert.equal(
    facesOfFamily('DejaVu Sans').map((f) => f.id),
    ['dejavu-sans-regular', 'dejavu-sans-bold'],
  );
  assert.is(faceById('liberation-serif-bold-italic')?.postscriptName, 'LiberationSerif-BoldItalic');
  assert.is(faceById('nope'), undefined);
});

test('every file is there with its licence, under 32 MB in all', () => {
  let total = 0;
  for (const face of BUNDLED_FACES) {
    assert.ok(existsSync(face.file), face.file);
    total += statSync(face.file).size;
    const licence = readFileSync(face.licenceFile, 'utf8');
    const expected = {
      // (Debian's copyright files break the title: "SIL OPEN FONT LICENSE\n .\n Version 1.1".)
      'OFL-1.1': /SIL OPEN FONT LICENSE\s+(\.\s+)?Version 1\.1/,
      'Bitstream-Vera': /Bitstream Vera/,
      'Bitstream-Charter': /permission under all Bitstream propriety rights/,
      'Adobe-Utopia': /Adobe grants the TeX Users Group a license under its copyrights/,
      'ParaType-Free-Font': /ParaType Ltd grants you the right to use, copy, modify the fonts/,
      GFL: /GUST Font License/,
      'Apache-2.0': /Apache License\s+Version 2\.0/,
      'GPL-2.0-or-later WITH Font-exception-2.0':
        /GNU General Public License[\s\S]*special exception, if you create a document which uses/,
      'GPL-3.0-or-later WITH Font-exception-2.0':
        /GNU General Public License[\s\S]*either version 3[\s\S]*special exception, if you create a document which uses/,
    }[face.licence];
    assert.match(licence, expected, face.id);
  }
  assert.ok(total < 32 * 1024 * 1024, `${total} bytes`);
});

test('Adobe Utopia, modified by its conversion, is bundled without the Utopia name, as its licence asks', () => {
  const faces = BUNDLED_FACES.filter((f) => f.licence === 'Adobe-Utopia');
  assert.is(faces.length, 4);
  for (const face of faces) {
    // Names live in the name table (Latin-1 and UTF-16BE) and the CFF (Latin-1): search both forms.
    const bytes = Buffer.from(fontBytes(face));
    assert.not.match(bytes.toString('latin1'), /utopia/i, face.id);
    for (const name of ['Utopia', 'utopia', 'UTOPIA'])
      assert.is(bytes.indexOf(Buffer.from(name, 'utf16le').swap16()), -1, `${face.id}: ${name} in UTF-16`);
    assert.match(Buffer.from(fontBytes(face)).toString('latin1'), /NowhereSerif-/, face.id);
    assert.match(
      Buffer.from(fontBytes(face)).toString('latin1'),
      /Copyright \(c\) 1989, 1991 Adobe Systems/,
      face.id,
    );
  }
});

test('every stored file decompresses to the font fonts/README.md lists by SHA-256', () => {
  const readme = readFileSync(new URL('../../../fonts/README.md', import.meta.url), 'utf8');
  const listed = new Map(
    [...readme.matchAll(/^([\w./-]+\.(?:ttf|otf)) ([0-9a-f]{64})$/gm)].map((m) => [m[1], m[2]]),
  );
  assert.is(listed.size, BUNDLED_FACES.length);
  for (const face of BUNDLED_FACES) {
    const name = face.file.replace(/^.*\/fonts\//, '').replace(/\.br$/, '');
    const digest = createHash('sha256').update(fontBytes(face)).digest('hex');
    assert.is(digest, listed.get(name), name);
  }
});

test('MuPDF loads every face; weight and slant as the catalog says; basic Latin complete', () => {
  for (const face of BUNDLED_FACES) {
    const font = loadFace(face);
    // The demi faces (CMB's and CMSSDC's designs) do not flag themselves bold; LM Sans Quotation 8
    // Oblique flags itself bold though it is not.
    const flagsBold = /^lm-(roman-demi|sans-demi-cond)-/.test(face.id)
      ? false
      : face.id === 'lm-sans-quotation-8-italic' || face.bold;
    assert.is(font.isBold(), flagsBold, face.id);
    // LM Roman Slanted is an upright design slanted: the font does not call itself italic.
    assert.is(font.isItalic(), face.italic && !face.slanted, face.id);
    // CMU Typewriter Text Light does not set the fixed-pitch flag its advances have.
    if (face.class === 'mono' && face.family !== 'CMU Typewriter Text Light')
      assert.ok(font.isMono(), face.id);
    if (face.standsInForScript === 'cjk') {
      // Han (simplified and traditional), kana, hangul, CJK punctuation; no Latin letters.
      assert.equal(missingGlyphs(face, '龍雨润白電線接日本語あいうメニュ한국어。「」'), [], face.id);
      assert.equal(missingGlyphs(face, 'Aa'), ['A', 'a'], face.id);
      continue;
    }
    const ascii = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,;:!?()-';
    if (face.family.startsWith('Nanum ')) {
      // Korean faces: hangul and ASCII (Nanum Myeongjo has no accented Latin).
      assert.equal(missingGlyphs(face, `${ascii}한국어가나다`), [], face.id);
      continue;
    }
    assert.equal(missingGlyphs(face, `${ascii}äåáàâéèêëöóôøüúûùñçÉÖÜ`), [], face.id);
    assert.is(loadFace(face), font, 'cached per process');
  }
});

test('metric compatibility is declared for all but DejaVu Sans (Condensed), DejaVu Serif, Roboto and the CJK face', () => {
  for (const face of BUNDLED_FACES) {
    assert.is(
      face.metricCompatible,
      !/^(DejaVu Sans|DejaVu Serif|Roboto|Droid Sans Fallback)/.test(face.family),
      face.id,
    );
    assert.is(face.standsInForScript, face.family === 'Droid Sans Fallback' ? 'cjk' : null, face.id);
  }
  assert.ok(faceById('lm-roman-10-regular')?.metricCompatibleWith.includes('Computer Modern'));
  assert.ok(faceById('liberation-sans-regular')?.metricCompatibleWith.includes('Helvetica'));
  assert.ok(faceById('carlito-regular')?.metricCompatibleWith.includes('Calibri'));
  assert.ok(faceById('caladea-regular')?.metricCompatibleWith.includes('Cambria'));
});

test.run();
