// Letters a pixel patch draws from faces (src/corrections/scan/letter-drawing.ts), counted (issue 35):
// every patch compares the offered faces on the word's letters at the reference size, the same for
// every scan, so those drawings are made once per thread and a later patch gets the same pixels;
// a drawing at a scan's own size stays the patch's own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  patchLetterFaces,
  rasteriseLetter,
  referenceDrawings,
  REFERENCE_EM_PX,
} from '../../../../src/corrections/scan/letter-drawing.ts';
import { faceById } from '../../../../src/fonts/catalog.ts';

const LETTERS = [...'periodic'];

test('a second patch draws no reference letter again, and gets what a fresh drawing gives', () => {
  const first = patchLetterFaces();
  assert.ok(first.length >= 4, 'the bundled faces are offered');
  const start = referenceDrawings();
  for (const face of first) for (const ch of LETTERS) face.draw(ch, REFERENCE_EM_PX);
  const made = referenceDrawings() - start;
  // Drawn at most once per face and distinct letter (7 in "periodic"), whatever earlier tests drew.
  assert.ok(made <= first.length * new Set(LETTERS).size, `${made} reference drawings`);
  const second = patchLetterFaces();
  const again = referenceDrawings();
  for (const face of second) for (const ch of LETTERS) face.draw(ch, REFERENCE_EM_PX);
  assert.is(referenceDrawings(), again, 'the second patch draws nothing at the reference size');
  const serif = faceById('liberation-serif-regular')!;
  const kept = second.find((f) => f.id === serif.id)!.draw('d', REFERENCE_EM_PX)!;
  const fresh = rasteriseLetter(serif, 'd', REFERENCE_EM_PX)!;
  assert.equal(
    [kept.width, kept.height, kept.baseline, kept.left],
    [fresh.width, fresh.height, fresh.baseline, fresh.left],
  );
  assert.equal(Array.from(kept.coverage), Array.from(fresh.coverage));
});

test('a letter at a scan’s own size is not a reference drawing, and is drawn at that size', () => {
  const [face] = patchLetterFaces();
  const start = referenceDrawings();
  const small = face.draw('p', 37.5)!;
  const large = face.draw('p', REFERENCE_EM_PX)!;
  assert.ok(referenceDrawings() - start <= 1);
  assert.ok(small.height < large.height / 2, `${small.height} against ${large.height}`);
  assert.is(face.draw('p', 37.5), small, 'kept within the patch');
});

test.run();
