// Is a failure the document's own damage or the service's fault? When a correction task fails with
// something other than a refusal, the file is examined on its own, without the engine: MuPDF had to
// rebuild the cross-reference table, an object does not parse, a page's contents or a font program
// is not a readable stream, a stream claims more bytes than the file holds. Any of these is damage —
// a normal answer (refusal `damaged_document` with how to repair the file). A file that passes every
// check and still made the engine fail is the service's fault (edit_failed, logged with its stack).
import { mupdf, messageOf } from '../pdf/mupdf-adapter.ts';

/** MuPDF's own words for a syntax or format error; a JavaScript fault inside MuPDF.js says nothing useful. */
function reasonOf(error: unknown): string {
  if (error instanceof TypeError || error instanceof ReferenceError || error instanceof RangeError)
    return 'MuPDF cannot read it';
  return messageOf(error);
}

export interface Damage {
  /** One line a person can act on, e.g. "object 12 0 does not parse (expected 'R' keyword)". */
  finding: string;
  /** Further findings, at most a few. */
  more: string[];
}

/** Objects examined one by one at most (a larger file is judged on its page and its xref). */
const MAX_OBJECTS = 50_000;
const MAX_FINDINGS = 5;

/** Examines `pdf` (opened with `password`) for damage, page `pageIndex` first. Null: no damage found. */
export function findDamage(pdf: Uint8Array, password: string, pageIndex: number): Damage | null {
  const findings: string[] = [];
  const note = (finding: string) => {
    if (findings.length < MAX_FINDINGS && !findings.includes(finding)) findings.push(finding);
  };
  let doc: mupdf.PDFDocument | null = null;
  try {
    const opened = mupdf.Document.openDocument(pdf, 'application/pdf');
    doc = opened.asPDF();
    if (!doc) {
      opened.destroy();
      return { finding: 'the file does not open as a PDF', more: [] };
    }
    if (doc.needsPassword() && password !== '') doc.authenticatePassword(password);
    const repairedAtOpen = doc.wasRepaired();
    examinePage(doc, pageIndex, note);
    examineObjects(doc, pdf.byteLength, note);
    // MuPDF repairs lazily, when it first meets a broken object: ask again after the walk.
    if (repairedAtOpen || doc.wasRepaired()) {
      note('its cross-reference table is broken (the file had to be rebuilt by scanning it)');
    }
  } catch (error) {
    note(`it does not open cleanly (${reasonOf(error)})`);
  } finally {
    doc?.destroy();
  }
  if (findings.length === 0) return null;
  return { finding: findings[0], more: findings.slice(1) };
}

function examinePage(doc: mupdf.PDFDocument, pageIndex: number, note: (f: string) => void): void {
  let page: mupdf.PDFObject;
  try {
    if (pageIndex >= doc.countPages()) return;
    page = doc.findPage(pageIndex);
  } catch (error) {
    note(`page ${pageIndex + 1} cannot be found in the page tree (${reasonOf(error)})`);
    return;
  }
  if (!page || !page.isDictionary()) {
    note(`page ${pageIndex + 1} is not a page dictionary`);
    return;
  }
  try {
    const contents = page.get('Contents');
    const parts: mupdf.PDFObject[] = [];
    if (contents.isArray()) for (let i = 0; i < contents.length; i++) parts.push(contents.get(i));
    else if (!contents.isNull()) parts.push(contents);
    for (const part of parts) {
      const where = part.isIndirect() ? `object ${part.asIndirect()} 0` : 'an inline object';
      if (!part.isStream()) {
        note(`the contents of page ${pageIndex + 1} (${where}) are not a stream`);
        continue;
      }
      part.readStream();
    }
  } catch (error) {
    note(`the contents of page ${pageIndex + 1} cannot be read (${reasonOf(error)})`);
  }
  try {
    const fonts = page.get('Resources').get('Font');
    if (fonts.isDictionary()) {
      fonts.forEach((font, key) => {
        const name = String(key);
        if (!font.isDictionary()) {
          note(`font /${name} of page ${pageIndex + 1} is not a font dictionary`);
          return;
        }
        const descriptor =
          font.get('Subtype').isName() && font.get('Subtype').asName() === 'Type0'
            ? font.get('DescendantFonts').get(0).get('FontDescriptor')
            : font.get('FontDescriptor');
        if (!descriptor.isDictionary()) return;
        for (const k of ['FontFile', 'FontFile2', 'FontFile3']) {
          const file = descriptor.get(k);
          if (file.isNull()) continue;
          if (!file.isStream()) note(`the program of font /${name} (${k}) is not a stream`);
          else file.readStream();
        }
      });
    }
  } catch (error) {
    note(`a font of page ${pageIndex + 1} cannot be read (${reasonOf(error)})`);
  }
}

function examineObjects(doc: mupdf.PDFDocument, fileBytes: number, note: (f: string) => void): void {
  const count = Math.min(doc.countObjects(), MAX_OBJECTS);
  for (let num = 1; num < count; num++) {
    const ref = doc.newIndirect(num);
    try {
      const obj = ref.resolve();
      if (!ref.isStream()) continue;
      const length = obj.get('Length');
      if (length.isNumber() && length.asNumber() > fileBytes) {
        note(`object ${num} 0 claims a stream of ${length.asNumber()} bytes in a file of ${fileBytes}`);
      }
      ref.readRawStream();
    } catch (error) {
      note(`object ${num} 0 does not parse (${reasonOf(error)})`);
    }
  }
}

/** The advice of a `damaged_document` refusal (docs/engine.md). */
export function damageAdvice(damage: Damage): {
  code: string;
  what: string;
  why: string;
  do: string[];
  worth_reporting: boolean;
} {
  const rest = damage.more.length ? ` Also: ${damage.more.join('; ')}.` : '';
  return {
    code: 'damaged_document',
    what: `The document is damaged: ${damage.finding}.`,
    why:
      'A correction is made and proven on the file as it is; a damaged file cannot be rewritten ' +
      `so that only the corrected word changes, and what a reader shows of it is a guess.${rest}`,
    do: [
      'Repair the file and upload the repaired copy, e.g. `qpdf --qdf damaged.pdf repaired.pdf` or `mutool clean damaged.pdf repaired.pdf`.',
      'Or open it in the application that made it (or any PDF viewer) and save or print it to a new PDF.',
      'Check the repaired copy reads as you expect before correcting it.',
    ],
    worth_reporting: false,
  };
}
