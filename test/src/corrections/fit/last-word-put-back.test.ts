// A re-spaced line's last word stays where it was: a number before it in its operator puts it back
// (the words before it moved right). Drawn there to a renderer's float precision only — MuPDF places
// glyphs in single precision and caches them by subpixel offset, and gropdf's “cor-” at the end of
// find(1)'s line came out anti-aliased otherwise (277 pixels outside the declared box, refused) —
// so its glyphs are declared with the words that moved (line-respacing.ts), at no shift, and are
// not counted as moved. The page is a justified paragraph in Helvetica, each line in two
// operators as gropdf and word processors place words: “an conditions that ”, then “find might
// encounter” placed afresh with Td.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { editInput, helveticaWidth, makePdf } from '../fixtures.ts';
import { pdftotextOf } from '../poppler.ts';

const first = 'an conditions that ';
const rest = 'find might encounter';

function paragraphPdf(): Uint8Array {
  // Three lines ending at the same x: a justified paragraph, whose right edge stays.
  const content = [100, 88, 76]
    .map(
      (y) =>
        `BT /F1 10 Tf 20 ${y} Td [(${first})] TJ ${helveticaWidth(first).toFixed(3)} 0 Td [(${rest})] TJ ET`,
    )
    .join(' ');
  return makePdf([{ content }]);
}

test('the last word put back by a number is inside the declared box, and is not counted as moved', async () => {
  const pdf = paragraphPdf();
  const { proposal, output, verification } = await applyEdit(editInput(pdf, 'conditions', 'conditoons'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.match(proposal.explanation, "the line's last word stays where it was");
  // The declared box (render pixels, 300 dpi) reaches the end of “encounter”.
  const lineEnd = ((20 + helveticaWidth(first + rest)) * 300) / 72;
  assert.ok(verification.declared_box[2]! >= lineEnd, `${verification.declared_box} vs ${lineEnd}`);
  // What moves is less than the line after the target: “encounter” stays.
  const m = (proposal.measurements as { respaced: { glyphs_moved: number } }).respaced;
  assert.ok(
    m.glyphs_moved < [...(first + rest).replace(/ /g, '')].length - 'encounter'.length,
    String(m.glyphs_moved),
  );
  const text = pdftotextOf(output);
  assert.ok(text.includes('an conditoons that find might encounter'), text);
});

test.run();
