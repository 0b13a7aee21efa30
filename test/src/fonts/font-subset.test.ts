// The TrueType and CFF subsetters (tier 4 embeds only the glyphs it draws): glyph ids stay the whole face's,
// composite glyphs keep their components, the kept glyphs draw pixel for pixel as in the whole face,
// and everything else is gone. Checked by loading the subset back with MuPDF and, independently,
// with FreeType through poppler in the engine and corpus tests.
import { deflateSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as mupdf from 'mupdf';
import { faceById, fontBytes } from '../../../src/fonts/catalog.ts';
import { drawsAlike, subsetOpenType, subsetTrueType } from '../../../src/fonts/font-subset.ts';

function glyphPixels(font: mupdf.Font, gid: number): string {
  const pix = new mupdf.Pixmap(mupdf.ColorSpace.DeviceGray, [0, 0, 120, 120], false);
  pix.clear(255);
  const text = new mupdf.Text();
  text.showGlyph(font, [80, 0, 0, -80, 20, 90], gid, 0, 0);
  const device = new mupdf.DrawDevice(mupdf.Matrix.identity, pix);
  device.fillText(text, mupdf.Matrix.identity, mupdf.ColorSpace.DeviceGray, [0], 1);
  device.close();
  const bytes = Buffer.from(pix.getPixels()).toString('base64');
  pix.destroy();
  return bytes;
}

const inkOf = (pixels: string) => [...Buffer.from(pixels, 'base64')].filter((v) => v < 128).length;

function subsetOf(faceId: string, text: string) {
  const face = faceById(faceId);
  assert.ok(face, faceId);
  const bytes = fontBytes(face);
  const whole = new mupdf.Font('whole', bytes);
  const chars = new Map(
    [...text].map((ch) => [ch.codePointAt(0) ?? 0, whole.encodeCharacter(ch.codePointAt(0) ?? 0)]),
  );
  const subset = subsetTrueType(bytes, chars);
  assert.ok(subset, `${faceId} subsets`);
  return { bytes, whole, chars, subset, font: new mupdf.Font('subset', subset.bytes) };
}

test('a composite glyph keeps its components; kept glyphs draw as in the whole face, others are empty', () => {
  const { bytes, whole, chars, subset, font } = subsetOf('dejavu-sans-regular', 'ü');
  const gid = chars.get(0xfc) as number;
  // ü is built from u and the dieresis in DejaVu Sans: both are kept, with .notdef.
  assert.is(subset.glyphs.length, 4);
  assert.ok(subset.glyphs.includes(0) && subset.glyphs.includes(gid));
  assert.ok(subset.glyphs.includes(whole.encodeCharacter(0x75)), 'u, a component of ü');
  assert.ok(subset.bytes.length < bytes.length / 10, `${subset.bytes.length} of ${bytes.length} bytes`);
  // Same ids: the subset's cmap maps ü to the whole face's id; a character not kept maps to nothing.
  assert.is(font.encodeCharacter(0xfc), gid);
  assert.is(font.encodeCharacter(0x61), 0);
  const kept = glyphPixels(font, gid);
  assert.is(kept, glyphPixels(whole, gid));
  assert.ok(inkOf(kept) > 100, 'ü has ink');
  const a = whole.encodeCharacter(0x61);
  assert.ok(inkOf(glyphPixels(whole, a)) > 100);
  assert.is(inkOf(glyphPixels(font, a)), 0, 'a was dropped');
});

test('the CJK face: a few ideographs out of 3.4 MB, drawn as in the whole face', () => {
  const { bytes, whole, chars, subset, font } = subsetOf('droid-sans-fallback-regular', '龍한あ');
  // Ids stay: loca and hmtx keep an entry per glyph of the face, which compress to almost nothing.
  const packed = deflateSync(subset.bytes).length;
  assert.ok(packed < 20_000, `${packed} bytes compressed (the face: ${deflateSync(bytes).length})`);
  for (const gid of chars.values()) {
    assert.ok(gid > 0);
    assert.is(glyphPixels(font, gid), glyphPixels(whole, gid));
  }
  assert.is(font.encodeCharacter('龍'.codePointAt(0) ?? 0), chars.get('龍'.codePointAt(0) ?? 0));
  assert.is(font.encodeCharacter('雨'.codePointAt(0) ?? 0), 0);
});

test('CFF outlines (Latin Modern): CharStrings cut to the drawn glyphs, ids kept, glyphs drawn alike', () => {
  const lm = faceById('lm-roman-10-regular');
  assert.ok(lm);
  const bytes = fontBytes(lm);
  const whole = new mupdf.Font('whole', bytes);
  const chars = new Map(
    [...'üé'].map((ch) => [ch.codePointAt(0) ?? 0, whole.encodeCharacter(ch.codePointAt(0) ?? 0)]),
  );
  // The TrueType subsetter declines it; the OpenType one takes it.
  assert.is(subsetTrueType(bytes, chars), null);
  const subset = subsetOpenType(bytes, chars);
  assert.ok(subset);
  assert.equal(subset.glyphs, [0, ...[...chars.values()].sort((a, b) => a - b)]);
  const font = new mupdf.Font('subset', subset.bytes);
  for (const gid of chars.values()) {
    assert.is(glyphPixels(font, gid), glyphPixels(whole, gid));
    assert.ok(inkOf(glyphPixels(font, gid)) > 100);
  }
  assert.is(font.encodeCharacter(0xfc), chars.get(0xfc));
  assert.is(inkOf(glyphPixels(font, whole.encodeCharacter(0x61))), 0, 'a was dropped');
  assert.ok(drawsAlike(whole, subset.bytes, subset.glyphs));
  // The check tier 4 relies on sees a glyph the subset emptied.
  assert.not.ok(drawsAlike(whole, subset.bytes, [whole.encodeCharacter(0x61)]));
  const packed = deflateSync(subset.bytes).length;
  assert.ok(packed < deflateSync(bytes).length / 2, `${packed} bytes compressed`);
});

test('fonts it cannot subset are declined (the other outline kind, garbage)', () => {
  const tt = faceById('dejavu-sans-regular');
  assert.ok(tt);
  assert.is(subsetOpenType(fontBytes(tt), new Map([[0x61, 1]])), null);
  assert.is(subsetTrueType(new Uint8Array(40), new Map()), null);
  assert.is(subsetTrueType(Uint8Array.from([0, 1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0]), new Map()), null);
  assert.is(
    subsetOpenType(Uint8Array.from([0x4f, 0x54, 0x54, 0x4f, 0, 1, 0, 0, 0, 0, 0, 0]), new Map()),
    null,
  );
});

test.run();
