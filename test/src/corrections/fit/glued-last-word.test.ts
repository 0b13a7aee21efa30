// A line's last word that goes on in a glyph which cannot move (another size: texinfo's roman
// parenthesis, a size smaller, closes a slanted argument — "void map (d d Mapper f)" in Octave's
// liboctave manual) stays where it is with that glyph: before, the word moved with the re-spaced line
// and left the parenthesis behind (a narrower word: the text layer read "f )" and the correction was
// refused) or was pushed onto it (a wider word, this test). The page
// is one line in Helvetica 10 with the closing parenthesis in Helvetica 9, placed afresh right after
// the last word, as pdfTeX places it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput, helveticaWidth, makePdf } from '../fixtures.ts';
import { pdftotextOf } from '../poppler.ts';

const words = 'void map (d d Mapper ';

function linePdf(): Uint8Array {
  return makePdf([
    {
      content:
        `BT /F1 10 Tf 20 100 Td [(${words.replace('(', '\\(')})] TJ ${helveticaWidth(words).toFixed(3)} 0 Td [(f)] TJ ` +
        `/F1 9 Tf ${helveticaWidth('f').toFixed(3)} 0 Td [(\\))] TJ ET`,
    },
  ]);
}

test('a last word glued to a glyph that cannot move stays with it; the words before make the room', async () => {
  const { proposal, output, verification } = await applyEdit(editInput(linePdf(), 'Mapper', 'Mappes'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  const m = (proposal.measurements as { respaced: { last_word_move_pt: number; word_gaps_pt: unknown[] } })
    .respaced;
  // Before, "f" was moved right into the room the engine thought it had, onto its parenthesis.
  assert.is(m.last_word_move_pt, 0);
  assert.equal(m.word_gaps_pt, []);
  const text = pdftotextOf(output);
  assert.ok(text.includes('void map (d d Mappes f)'), text);
});

test.run();
