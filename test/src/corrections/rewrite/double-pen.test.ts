// A compensated correction leaves a double-precision reader's pen (poppler's) on the same double
// after the word, so no later glyph moves by an ulp onto another quarter pixel (double-pen.ts). The
// line below, at 100 pt in 10 pt Helvetica, has its “x” at a quarter-pixel edge of poppler's 150 dpi
// render: “comes” → “comet” written with the plain number (222) after the “t” put it a quarter pixel
// left, a change outside the word that pdftoppm shows and MuPDF (in single precision) does not.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { popplerReal } from '../../../../src/corrections/rewrite/double-pen.ts';
import { editInput, makePdf, withDoc } from '../fixtures.ts';
import { popplerCheck } from '../poppler.ts';

const LINE = 'comes a again where nobody the into fox';
const pdf = makePdf([{ content: `BT /F1 10 Tf 1 0 0 1 100 100 Tm (${LINE}) Tj ET` }]);

test('poppler reads a decimal digit by digit, not as the nearest double', () => {
  assert.is(popplerReal('0.3'), 0.1 * 3);
  assert.is.not(popplerReal('0.3'), 0.3);
  assert.is(popplerReal('-222'), -222);
  assert.is(popplerReal('100'), 100);
});

test('a compensated word leaves every later glyph where poppler drew it', async () => {
  const applied = await applyEdit(editInput(pdf, 'comes', 'comet'));
  assert.ok(applied.verification.passed, applied.verification.failure_reason ?? '');
  assert.is(applied.proposal.tier, 1);
  const content = withDoc(applied.output, (doc) =>
    doc.loadPage(0).getObject().get('Contents').readStream().asString(),
  );
  // The number after the new “t”: −222 thousandths (the “t” is 222 narrower than the “s”), written
  // with the digits poppler needs.
  const number = /\(comet\)\s*(-?[\d.]+)/.exec(content)?.[1];
  assert.ok(number, content.slice(0, 300));
  assert.ok(Math.abs(Number(number) + 222) < 1e-6, number);
  assert.is.not(number, '-222', 'the plain number leaves poppler’s pen an ulp off');
  // pdftoppm (Splash) sees nothing changed outside the word, not even a glyph on another quarter pixel.
  const work = mkdtempSync(join(tmpdir(), 'docfix-double-pen-'));
  try {
    writeFileSync(join(work, 'a.pdf'), pdf);
    writeFileSync(join(work, 'b.pdf'), applied.output);
    const seen = popplerCheck(
      join(work, 'a.pdf'),
      join(work, 'b.pdf'),
      0,
      '',
      'comes',
      'comet',
      applied.verification.declared_box,
      work,
    );
    assert.equal(seen.problems, []);
    assert.is(seen.splashBucketFlip, null);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
