// A font dictionary's facts as tier 4 matches faces by them: the ToUnicode CMap read with the
// specification's syntax, where a hex string may hold white space (fontkit, under PDFKit and
// pdfmake, writes a ligature's text as `<0066 0069>` inside a bfrange array). Read as two strings,
// every later code's text was one off, so the font's widths matched no face: Roboto and DejaVu
// Serif documents got `glyph_not_available` although both faces are bundled.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { faceById } from '../../../src/fonts/catalog.ts';
import { faceAdvance, matchFont } from '../../../src/fonts/font-match.ts';
import { fontFactsFromPdf, readToUnicode } from '../../../src/fonts/pdf-font-facts.ts';

const CMAP_HEAD =
  '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Adobe-Identity-UCS def /CMapType 2 def\n' +
  '1 begincodespacerange <0000><ffff> endcodespacerange\n';
const CMAP_TAIL = 'endcmap CMapName currentdict /CMap defineresource pop end end\n';

function cmapStream(doc: mupdf.PDFDocument, body: string): mupdf.PDFObject {
  return doc.addStream(CMAP_HEAD + body + CMAP_TAIL, {});
}

test('hex strings with white space inside: one string each, in bfrange arrays and bfchar', () => {
  const doc = new mupdf.PDFDocument();
  try {
    const map = readToUnicode(
      cmapStream(
        doc,
        '1 beginbfrange\n<0000> <0004> [<0000> <0066 0069> <006f> <00 69> <006e>]\nendbfrange\n' +
          '2 beginbfchar\n<0005> <0066 0066 0069>\n<0006> <006A>\nendbfchar\n',
      ),
    );
    assert.is(map.get(1), 'fi');
    assert.is(map.get(2), 'o', 'the code after the ligature reads its own letter');
    assert.is(map.get(3), 'i');
    assert.is(map.get(4), 'n');
    assert.is(map.get(5), 'ffi');
    assert.is(map.get(6), 'j');
  } finally {
    doc.destroy();
  }
});

test('a fontkit-style Type 0 font with a ligature early in its ToUnicode matches its bundled face', () => {
  const face = faceById('roboto-regular')!;
  // CIDs in the order a subsetter numbers glyphs as the text uses them, the fi ligature second.
  const text = ['j', 'fi', ...'oinFurlgdxceyatmpOPTINCHERqbQvUMAzkwGV'];
  const widths = text.map((t) => (t === 'fi' ? 500 : faceAdvance(face, t)!));
  const doc = new mupdf.PDFDocument();
  try {
    const toUnicode = cmapStream(
      doc,
      `1 beginbfrange\n<0000> <${text.length.toString(16).padStart(4, '0')}> [<0000> ${text
        .map((t) => `<${[...t].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join(' ')}>`)
        .join(' ')}]\nendbfrange\n`,
    );
    const descendant = doc.addObject({
      Type: doc.newName('Font'),
      Subtype: doc.newName('CIDFontType2'),
      BaseFont: doc.newName('CZZZZZ+Roboto-Regular'),
      CIDSystemInfo: { Registry: 'Adobe', Ordering: 'Identity', Supplement: 0 },
      W: [0, [908, ...widths]],
    });
    const font = doc.addObject({
      Type: doc.newName('Font'),
      Subtype: doc.newName('Type0'),
      BaseFont: doc.newName('CZZZZZ+Roboto-Regular'),
      Encoding: doc.newName('Identity-H'),
      DescendantFonts: [descendant],
      ToUnicode: toUnicode,
    });
    const facts = fontFactsFromPdf(font);
    assert.is(facts.widths.get('o'), faceAdvance(face, 'o'));
    assert.is(facts.widths.get('V'), faceAdvance(face, 'V'));
    const match = matchFont(facts);
    assert.is(match.candidates[0]?.face.id, 'roboto-regular', JSON.stringify(match.rejected.slice(0, 4)));
  } finally {
    doc.destroy();
  }
});

test.run();
