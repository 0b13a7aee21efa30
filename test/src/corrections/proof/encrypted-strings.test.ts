// An encrypted file whose objects sit in object streams: their strings are written plain inside the
// stream (encrypted with it), and an object the correction writes again comes out on its own with
// its strings encrypted. The structural guard compares such strings decrypted: a form field whose
// value is corrected keeps its /T and /DA (seen on an unseen pdf-lib form encrypted by qpdf, where
// every correction of a filled field was refused for “/DA /T” changed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { editInput } from '../fixtures.ts';
import { pdftotextOf } from '../poppler.ts';

const PASSWORD = 'holder';

/** One page, one filled text field (value in its appearance), AES-128, every dictionary in an object stream. */
function encryptedForm(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const fonts = doc.newDictionary();
    fonts.put('Helv', font);
    const res = doc.newDictionary();
    res.put('Font', fonts);
    doc.insertPage(-1, doc.addPage([0, 0, 300, 200], 0, res, 'BT /Helv 10 Tf 20 150 Td (Holder) Tj ET'));
    const page = doc.findPage(0);
    const apDict = doc.newDictionary();
    apDict.put('Subtype', doc.newName('Form'));
    apDict.put('BBox', doc.newArray());
    for (const n of [0, 0, 200, 20]) apDict.get('BBox').push(doc.newReal(n));
    apDict.put('Resources', res);
    const ap = doc.addStream('/Tx BMC BT /Helv 10 Tf 0 g 2 6 Td (Margaret Holloway) Tj ET EMC', apDict);
    const field = doc.addObject(doc.newDictionary());
    field.put('FT', doc.newName('Tx'));
    field.put('T', doc.newString('holder'));
    field.put('V', doc.newString('Margaret Holloway'));
    field.put('DA', doc.newString('/Helv 10 Tf 0 g'));
    const widget = doc.addObject(doc.newDictionary());
    widget.put('Type', doc.newName('Annot'));
    widget.put('Subtype', doc.newName('Widget'));
    widget.put('Rect', doc.newArray());
    for (const n of [20, 110, 220, 130]) widget.get('Rect').push(doc.newReal(n));
    widget.put('AP', doc.newDictionary());
    widget.get('AP').put('N', ap);
    widget.put('Parent', field);
    widget.put('P', page);
    field.put('Kids', doc.newArray());
    field.get('Kids').push(widget);
    page.put('Annots', doc.newArray());
    page.get('Annots').push(widget);
    const form = doc.newDictionary();
    form.put('Fields', doc.newArray());
    form.get('Fields').push(field);
    doc.getTrailer().get('Root').put('AcroForm', form);
    return takeBytes(
      doc.saveToBuffer(`encrypt=aes-128,user-password=${PASSWORD},owner-password=owner,objstms,compress`),
    );
  } finally {
    doc.destroy();
  }
}

test('a field value corrected in an encrypted file keeps its other strings, decrypted', async () => {
  const pdf = encryptedForm();
  const { output, verification } = await applyEdit({
    ...editInput(pdf, 'Holloway', 'Hollowya'),
    password: PASSWORD,
  });
  assert.ok(verification.passed, verification.failure_reason ?? '');
  assert.match(pdftotextOf(output, 0, PASSWORD), /Margaret Hollowya/);
  // qpdf, decrypting: the field has its new value and its name and appearance string as they were.
  const work = mkdtempSync(join(tmpdir(), 'docfix-encrypted-strings-'));
  try {
    writeFileSync(join(work, 'out.pdf'), output);
    const json = JSON.parse(
      execFileSync('qpdf', [`--password=${PASSWORD}`, '--json', '--json-key=qpdf', join(work, 'out.pdf')], {
        encoding: 'utf8',
      }),
    ) as { qpdf: [unknown, Record<string, { value?: Record<string, string> }>] };
    const field = Object.values(json.qpdf[1])
      .map((o) => o.value)
      .find((v) => v?.['/FT'] === '/Tx');
    assert.ok(field, 'the field');
    assert.is(field!['/V'], 'u:Margaret Hollowya');
    assert.is(field!['/T'], 'u:holder');
    assert.is(field!['/DA'], 'u:/Helv 10 Tf 0 g');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
