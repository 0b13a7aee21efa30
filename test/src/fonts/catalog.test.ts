// The bundled faces: present, licensed, loadable by MuPDF, styled as the catalog says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { BUNDLED_FACES, faceById, facesOfFamily } from '../../../src/fonts/catalog.ts';
import { loadFace, missingGlyphs } from '../../../src/fonts/font-match.ts';

test('22 faces in 6 families, ids unique', () => {
  assert.is(BUNDLED_FACES.length, 22);
  assert.is(new Set(BUNDLED_FACES.map((f) => f.id)).size, 22);
  assert.equal(
    [...new Set(BUNDLED_FACES.map((f) => f.family))],
    ['Liberation Sans', 'Liberation Serif', 'Liberation Mono', 'Carlito', 'Caladea', 'DejaVu Sans'],
  );
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

test('every file is there with its licence, under 12 MB in all', () => {
  let total = 0;
  for (const face of BUNDLED_FACES) {
    assert.ok(existsSync(face.file), face.file);
    total += statSync(face.file).size;
    const licence = readFileSync(face.licenceFile, 'utf8');
    assert.match(
      licence,
      face.licence === 'OFL-1.1' ? /SIL OPEN FONT LICENSE Version 1\.1/ : /Bitstream Vera/,
    );
  }
  assert.ok(total < 12 * 1024 * 1024, `${total} bytes`);
  assert.ok(existsSync(new URL('../../../fonts/README.md', import.meta.url)));
});

test('MuPDF loads every face; weight and slant as the catalog says; basic Latin complete', () => {
  for (const face of BUNDLED_FACES) {
    const font = loadFace(face);
    assert.is(font.isBold(), face.bold, face.id);
    assert.is(font.isItalic(), face.italic, face.id);
    if (face.class === 'mono') assert.ok(font.isMono(), face.id);
    assert.equal(
      missingGlyphs(face, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,;:!?()-'),
      [],
      face.id,
    );
    assert.is(loadFace(face), font, 'cached per process');
  }
});

test('metric compatibility is declared for all but DejaVu Sans', () => {
  for (const face of BUNDLED_FACES) {
    assert.is(face.metricCompatible, face.family !== 'DejaVu Sans', face.id);
  }
  assert.ok(faceById('liberation-sans-regular')?.metricCompatibleWith.includes('Helvetica'));
  assert.ok(faceById('carlito-regular')?.metricCompatibleWith.includes('Calibri'));
  assert.ok(faceById('caladea-regular')?.metricCompatibleWith.includes('Cambria'));
});

test.run();
