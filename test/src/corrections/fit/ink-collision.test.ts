// The ink check (ink-collision.ts): a letter drawn over its neighbour shares ink with it, letters set
// side by side (kerned pairs, an italic f's hook over the next letter's box) share none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf, withDoc } from '../fixtures.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { SHARED_INK_FLOOR_PX, worstSharedInk } from '../../../../src/corrections/fit/ink-collision.ts';
import { interpretPage, type Mat } from '../../../../src/corrections/locate/text-interpreter.ts';

/** The most ink the glyph at `at` shares, and the most any two glyphs of the line share. */
function shared(content: string, at: number): { drawn: number; line: number; pair: string | null } {
  // F1 is Helvetica (makePdf's), F2 Times Italic.
  const pdf = withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const page = doc.findPage(0);
    page
      .get('Resources')
      .get('Font')
      .put('F2', doc.addSimpleFont(new mupdf.Font('Times-Italic'), 'Latin'));
    page.put('Contents', doc.addStream(content, doc.newDictionary()));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
  return withDoc(pdf, (doc) => {
    const page = doc.loadPage(0);
    const origins = interpretPage(page, page.getTransform() as Mat).glyphs.map((g) => g.origin);
    const one = worstSharedInk(page, [origins[at]!], [origins[at]!], 0.12, 12);
    return { drawn: one.worst, line: worstSharedInk(page, origins, [], 0.12, 12).worst, pair: one.pair };
  });
}

test('an “m” drawn over the “o” after it (the TJ number pulls the “o” back 0.15 em and more) is seen', () => {
  for (const back of [150, 300, 600]) {
    const r = shared(`BT /F1 12 Tf 40 100 Td [(Hellm) ${back} (o)] TJ ET`, 4);
    assert.ok(r.drawn > SHARED_INK_FLOOR_PX, `${back}: ${r.drawn}`);
    assert.is(r.pair, '“m” and “o”');
    assert.is(r.line, r.drawn);
  }
});

test('letters set side by side share no ink: Helvetica with kerned capitals, Times Italic with f and j', () => {
  assert.equal(shared('BT /F1 12 Tf 40 100 Td [(Hellmo)] TJ ET', 4), { drawn: 0, line: 0, pair: null });
  // Kerned tight, antialiased edges may meet: a few pixels, under the floor.
  const kerned = shared(
    'BT /F1 12 Tf 40 100 Td [(A) 80 (V) 60 (A) 50 (W) 80 (A) 100 (Y) 60 (T) 80 (o)] TJ ET',
    1,
  );
  assert.ok(kerned.line <= SHARED_INK_FLOOR_PX, String(kerned.line));
  const italic = shared('BT /F2 12 Tf 40 100 Td (offjoint fjord) Tj ET', 1);
  assert.is(italic.line, 0);
});

test.run();
