// What the page's text proves about each font's codes (observedCodes): a ligature glyph that MuPDF
// splits into letters is not the glyph of its first letter.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GlyphIndex, observedCodes } from '../../../../src/corrections/locate/locate.ts';
import type { FontInfo } from '../../../../src/corrections/locate/fonts.ts';
import type { Glyph } from '../../../../src/corrections/locate/text-interpreter.ts';
import type { TextChar, TextLine } from '../../../../src/corrections/locate/page-text.ts';

test('a ligature split into letters does not prove a code for its first letter', () => {
  // LuaTeX's LM Roman: code 125 is the "fi" ligature (ToUnicode "fi"), code 55 the letter f.
  const font = {
    toUnicode: new Map([
      [125, 'fi'],
      [55, 'f'],
    ]),
    encodingUnicode: new Map(),
  } as unknown as FontInfo;
  const glyph = (code: number, x: number) =>
    ({ code, font, origin: [x, 100], lost: false, state: { Tr: 0 } }) as unknown as Glyph;
  const glyphs = [glyph(125, 10), glyph(55, 40)];
  const char = (c: string, x: number) => ({ c, origin: [x, 100], size: 10 }) as unknown as TextChar;
  // MuPDF reports the ligature as "f" on its origin and "i" half-way along it (no glyph there).
  const line = { chars: [char('f', 10), char('i', 13), char('f', 40)] } as unknown as TextLine;
  const observed = observedCodes([line], new GlyphIndex(glyphs)).get(font)!;
  assert.equal([...observed.get('f')!], [[55, 1]]);
  assert.is(observed.get('i'), undefined);
});

test.run();
