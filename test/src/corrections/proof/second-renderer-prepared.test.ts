// PDFium's renders prepared ahead (prepareSecondRenderer, second-renderer.ts: tier 5 renders them
// while recognition runs): the guard judges exactly as without them, and a prepared render is the
// render of those very bytes — one prepared for other output bytes is never compared in their place.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import {
  prepareSecondRenderer,
  secondRendererGuard,
} from '../../../../src/corrections/proof/second-renderer.ts';
import type { VerifyOutput } from '../../../../src/corrections/proof/verify.ts';

/** One line of Helvetica at (72, y) on a letter page. */
function line(text: string, y = 700): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'), 'Latin');
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', font);
    resources.put('Font', fonts);
    const content = `BT /F1 12 Tf 72 ${y} Td (${text}) Tj ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 612, 792], 0, resources, content));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/** A verification that passed, declaring the line's region (300 dpi pixels) as the change. */
function passed(): VerifyOutput {
  return {
    passed: true,
    failure_reason: null,
    declared_box: [250, 300, 1500, 420],
    guards: [],
  } as unknown as VerifyOutput;
}

const guardOf = (v: VerifyOutput) =>
  v.guards[0] as unknown as { passed: boolean; detail: string; outside_pixels: number };

test('prepared renders give the same verdict as renders made by the guard', async () => {
  const input = line('The periodic review');
  const output = line('The peridoic review');
  const plain = passed();
  await secondRendererGuard(input, output, '', 0, plain);
  const prepared = passed();
  await prepareSecondRenderer(input, output, '', 0);
  await secondRendererGuard(input, output, '', 0, prepared);
  assert.ok(guardOf(plain).passed, guardOf(plain).detail);
  assert.equal(guardOf(prepared), guardOf(plain));
});

test('a render prepared for other bytes is not compared in place of the output’s own', async () => {
  const input = line('The periodic review');
  const inside = line('The peridoic review');
  // The same edit, and the whole line moved 100 pt down the page: far outside the declared box.
  const moved = line('The peridoic review', 600);
  await prepareSecondRenderer(input, inside, '', 0);
  const v = passed();
  await secondRendererGuard(input, moved, '', 0, v);
  assert.not.ok(guardOf(v).passed, guardOf(v).detail);
  assert.ok(guardOf(v).outside_pixels > 0);
  assert.not.ok(v.passed);
});

test.run();
