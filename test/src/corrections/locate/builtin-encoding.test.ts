// A simple font without /Encoding draws each code by the encoding built into its program (PDF
// 9.6.6.2). dvipdfmx's Type1C fonts (glpk-doc, 2010) have a ToUnicode that leaves the "ﬁ" code out:
// the engine knew nothing of that code, cut "specifies" at the ligature (old text "ies") and the
// correction was refused (`would_not_verify`: the line read "specifieis"). Here the page is made:
// Old Standard's CFF program (Standard encoding built in, "fi" at 0xAE) embedded bare as FontFile3
// /Type1C, no /Encoding, a ToUnicode for every code drawn but the ligature's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { codeUnicode, loadFontInfo } from '../../../../src/corrections/locate/fonts.ts';
import { cffBuiltinEncoding } from '../../../../src/corrections/locate/glyph-names.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { bundledFont, editInput, withDoc } from '../fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-builtin-encoding-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const FI = 0xae; // "fi" in the Standard encoding

/** The bare CFF program of an OpenType (CFF) face: its 'CFF ' table. */
function cffTable(otf: Uint8Array): Uint8Array {
  const view = new DataView(otf.buffer, otf.byteOffset, otf.byteLength);
  for (let i = 0; i < view.getUint16(4); i += 1) {
    const at = 12 + i * 16;
    if (String.fromCharCode(...otf.subarray(at, at + 4)) === 'CFF ')
      return otf.slice(view.getUint32(at + 8), view.getUint32(at + 8) + view.getUint32(at + 12));
  }
  throw new Error('no CFF table');
}

/** A page with `text` (the ligature written "ﬁ") in Old Standard as a bare Type1C font. */
function type1cPdf(text: string): Uint8Array {
  const face = bundledFont('old-standard-regular');
  const whole = new mupdf.Font('OldStandard-Regular', face);
  const cff = cffTable(face);
  const codes = [...text].map((c) => (c === 'ﬁ' ? FI : c.charCodeAt(0)));
  const doc = new mupdf.PDFDocument();
  try {
    const widths = doc.newArray();
    for (let code = 32; code <= 255; code += 1) {
      const ch = code === FI ? 0xfb01 : code;
      const gid = whole.encodeCharacter(ch);
      widths.push(gid > 0 && codes.includes(code) ? Math.round(whole.advanceGlyph(gid) * 1000) : 0);
    }
    const ffDict = doc.newDictionary();
    ffDict.put('Subtype', doc.newName('Type1C'));
    const descriptor = doc.newDictionary();
    descriptor.put('Type', doc.newName('FontDescriptor'));
    descriptor.put('FontName', doc.newName('ABCDEF+OldStandard-Regular'));
    descriptor.put('Flags', 32);
    const bbox = doc.newArray();
    for (const v of [-200, -300, 1200, 900]) bbox.push(v);
    descriptor.put('FontBBox', bbox);
    for (const [k, v] of [
      ['ItalicAngle', 0],
      ['Ascent', 900],
      ['Descent', -300],
      ['CapHeight', 700],
      ['StemV', 80],
    ] as const)
      descriptor.put(k, v);
    descriptor.put('FontFile3', doc.addStream(cff, ffDict));
    // ToUnicode for every code drawn except the ligature's, as dvipdfmx wrote it.
    const drawn = [...new Set(codes.filter((c) => c !== FI))].sort((a, b) => a - b);
    const cmap =
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /A def /CMapType 2 def\n' +
      '1 begincodespacerange <00> <FF> endcodespacerange\n' +
      `${drawn.length} beginbfchar\n` +
      drawn
        .map((c) => `<${c.toString(16).padStart(2, '0')}> <${c.toString(16).padStart(4, '0')}>`)
        .join('\n') +
      '\nendbfchar endcmap CMapName currentdict /CMap defineresource pop end end';
    const font = doc.newDictionary();
    font.put('Type', doc.newName('Font'));
    font.put('Subtype', doc.newName('Type1'));
    font.put('BaseFont', doc.newName('ABCDEF+OldStandard-Regular'));
    font.put('FirstChar', 32);
    font.put('LastChar', 255);
    font.put('Widths', widths);
    font.put('FontDescriptor', doc.addObject(descriptor));
    font.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    const fonts = doc.newDictionary();
    fonts.put('F1', doc.addObject(font));
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    const hex = codes.map((c) => c.toString(16).padStart(2, '0')).join('');
    doc.insertPage(-1, doc.addPage([0, 0, 400, 120], 0, resources, `BT /F1 14 Tf 20 60 Td <${hex}> Tj ET`));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

const line = 'It speciﬁes an upper bound';

test("the CFF program's own encoding names a code the ToUnicode leaves out", () => {
  const pdf = type1cPdf(line);
  withDoc(pdf, (doc) => {
    const fontDict = doc.loadPage(0).getObject().get('Resources').get('Font').get('F1');
    const info = loadFontInfo(fontDict);
    assert.is(info.toUnicode?.get(FI), undefined, 'premise: the ToUnicode leaves the ligature out');
    assert.is(codeUnicode(info, FI), 'ﬁ');
    assert.is(codeUnicode(info, 0x73), 's');
  });
  assert.is(cffBuiltinEncoding(cffTable(bundledFont('old-standard-regular'))), 'standard');
});

test('a swap right after the ligature verifies at cost none and poppler reads it', async () => {
  const pdf = type1cPdf(line);
  const { proposal, output, verification } = await applyEdit(editInput(pdf, 'specifies', 'specifeis'));
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.is(proposal.visibility_cost, 'none');
  assert.is((proposal.measurements as { old_text: string }).old_text, 'fies'); // the whole ligature, not cut at it
  const after = join(dir, 'after.pdf');
  writeFileSync(after, output);
  const text = execFileSync('pdftotext', [after, '-'], { encoding: 'utf8' });
  assert.ok(text.includes('specifeis') && !text.includes('specifies'), text);
});

test.run();
