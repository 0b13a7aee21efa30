// A TrueType font without /Encoding: an embedded program (Text::PDF writes them so) is looked up by
// the code as a character of its Unicode cmap, and MuPDF and poppler extract code 0xF1 as "ñ"; the
// engine read it with StandardEncoding (Type 1's default), where 0xF1 is "æ": “Español” was not
// found, and an “æ” taken from the page's own codes drew and extracted as “ñ” (refused at the
// proof). A font that is not embedded is read with StandardEncoding, as MuPDF and poppler read it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { buildPdf } from '../../../../fixtures/make-hostile.ts';
import { baseEncodingUnicode } from '../../../../src/corrections/locate/encodings.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, pageText } from '../fixtures.ts';
import { pdftotextOf } from '../poppler.ts';

const LIBERATION = fileURLToPath(
  new URL('../../../../fonts/liberation-sans/LiberationSans-Regular.ttf.br', import.meta.url),
);

/** One line in Liberation Sans as a simple TrueType font without /Encoding, embedded or by name. */
function trueTypePdf(embedded: boolean): Uint8Array {
  const program = brotliDecompressSync(readFileSync(LIBERATION));
  // The program's own advances (per 1000) of the codes 32–255 as its Unicode cmap finds them.
  const font = new mupdf.Font('LiberationSans', program);
  const widths = Array.from({ length: 224 }, (_, i) => {
    const u = baseEncodingUnicode('WinAnsiEncoding', 32 + i);
    return Math.round(font.advanceGlyph(u ? font.encodeCharacter(u.codePointAt(0)!) : 0) * 1000);
  }).join(' ');
  const file = embedded ? ' /FontFile2 7 0 R' : '';
  return buildPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    {
      dict: '<< >>',
      stream: new Uint8Array(
        Buffer.from('BT /F1 14 Tf 20 100 Td (Espa\\361ol y Fran\\347ais nesta vez) Tj ET', 'latin1'),
      ),
    },
    `<< /Type /Font /Subtype /TrueType /BaseFont /LiberationSans /FirstChar 32 /LastChar 255 /Widths [${widths}] /FontDescriptor 6 0 R >>`,
    `<< /Type /FontDescriptor /FontName /LiberationSans /Flags 32 /FontBBox [-203 -303 1050 910] /ItalicAngle 0 /Ascent 905 /Descent -212 /CapHeight 688 /StemV 80${file} >>`,
    { dict: `<< /Length1 ${program.length} >>`, stream: new Uint8Array(program) },
  ]);
}

test('embedded, no /Encoding: the codes read as MuPDF and poppler extract them; a letter the page lacks is added, not taken from 0xF1', async () => {
  const pdf = trueTypePdf(true);
  assert.ok(pageText(pdf).includes('Español y Français'), pageText(pdf));
  assert.ok(pdftotextOf(pdf).includes('Español y Français'), pdftotextOf(pdf));
  const r = await applyEdit(editInput(pdf, 'nesta', 'næsta'));
  assert.ok(r.verification.passed, r.verification.failure_reason ?? '');
  assert.ok(pdftotextOf(r.output).includes('Español y Français næsta vez'), pdftotextOf(r.output));
});

test('not embedded, no /Encoding: read with StandardEncoding, as MuPDF and poppler read it', async () => {
  const pdf = trueTypePdf(false);
  assert.ok(pageText(pdf).includes('Espaæol'), pageText(pdf));
  const p = await proposeEdit(editInput(pdf, 'Espaæol', 'Epsaæol'));
  assert.is(p.refusal, null, p.refusal ?? '');
});

test.run();
