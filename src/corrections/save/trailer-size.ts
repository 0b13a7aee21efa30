// A trailer whose /Size is below its own cross-reference table (poppler's pdfunite writes /Size 50
// over objects up to 63; qpdf and JHOVE flag the same slip in other writers). The objects are all
// where the table says, but MuPDF takes the table for broken, repairs the file to read it and then
// can only save it rewritten whole (save/repair.ts, cost low). Here the slip is mended in the open
// instead: a cross-reference section with no object of its own is appended after every original
// byte, its trailer the old one with the right /Size and /Prev to the old table. No object changes;
// the correction is then an incremental update on top of it, and the proposal says so.
import { dictGet, intOf, parseValue, skipSpace, valueText } from '../../pdf/object-syntax.ts';
import { closeDocument, openPdf } from '../../pdf/mupdf-adapter.ts';
import { lastStartxref } from '../../pdf/xref-index.ts';

export interface TrailerMend {
  /** The input with the mending section appended (its first bytes are the input's, all of them). */
  pdf: Uint8Array;
  /** The /Size the file's trailer gave and the one its table needs (highest object number + 1). */
  was: number;
  size: number;
}

/** Bytes as latin-1 text (the file's structure is ASCII). */
const latin1 = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).toString('latin1');

/**
 * The newest cross-reference section when it is a table (not a stream): where it starts, the
 * highest object number its subsections name, and its trailer. Only the subsection headers are
 * read (each is followed by `count` lines of 20 bytes). Null when the file ends otherwise.
 */
function newestTable(pdf: Uint8Array): { at: number; highest: number; trailerAt: number } | null {
  // The last startxref (a comment or junk may follow the %%EOF: readers skip it).
  const at = lastStartxref(pdf);
  if (at === null || at <= 0 || at >= pdf.length || latin1(pdf, at, at + 4) !== 'xref') return null;
  let pos = skipSpace(pdf, at + 4);
  let highest = -1;
  for (;;) {
    const header = /^(\d+)[ \t]+(\d+)[ \t]*(?:\r\n|\r|\n)/.exec(latin1(pdf, pos, pos + 40));
    if (!header) break;
    const first = Number(header[1]);
    const count = Number(header[2]);
    if (count > 0) highest = Math.max(highest, first + count - 1);
    pos += header[0].length + 20 * count;
    if (pos > pdf.length) return null;
    pos = skipSpace(pdf, pos);
  }
  if (latin1(pdf, pos, pos + 7) !== 'trailer') return null;
  return { at, highest, trailerAt: pos + 7 };
}

/**
 * The input mended when its newest trailer's /Size is below its table's highest object number + 1
 * and that is all MuPDF repairs it for (the mended file opens without repair); null otherwise.
 */
export function mendTrailerSize(pdf: Uint8Array, password: string): TrailerMend | null {
  const table = newestTable(pdf);
  if (!table) return null;
  let trailer;
  try {
    trailer = parseValue(pdf, table.trailerAt);
  } catch {
    return null;
  }
  if (trailer.kind !== 'dict') return null;
  const was = intOf(dictGet(trailer, '/Size'));
  const size = table.highest + 1;
  // A hybrid file's table is read with its stream (/XRefStm): left to MuPDF's repair.
  if (was === null || was >= size || dictGet(trailer, '/XRefStm')) return null;
  const kept: string[] = [];
  for (const [key, value] of trailer.entries)
    if (key !== '/Size' && key !== '/Prev') kept.push(`${key} ${valueText(pdf, value)}`);
  const lead = pdf[pdf.length - 1] === 0x0a || pdf[pdf.length - 1] === 0x0d ? '' : '\n';
  const offset = pdf.length + lead.length;
  const section =
    `${lead}xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size ${size} ${kept.join(' ')} /Prev ${table.at} >>\n` +
    `startxref\n${offset}\n%%EOF\n`;
  const mended = new Uint8Array(pdf.length + section.length);
  mended.set(pdf);
  mended.set(Buffer.from(section, 'latin1'), pdf.length);
  // Only when MuPDF repairs the input for this slip alone: it reads the mended file as it stands.
  if (!repairedAtOpen(pdf, password) || repairedAtOpen(mended, password) !== false) return null;
  return { pdf: mended, was, size };
}

/** Whether MuPDF repaired the file to open it (null: it does not open). */
function repairedAtOpen(pdf: Uint8Array, password: string): boolean | null {
  try {
    const { doc } = openPdf(pdf, password);
    try {
      return doc.wasRepaired() || !doc.canBeSavedIncrementally();
    } finally {
      closeDocument(doc);
    }
  } catch {
    return null;
  }
}

/** The proposal's words for the mend. */
export function trailerMendWarning(mend: TrailerMend): string {
  return (
    `The file's trailer gives /Size ${mend.was} where its cross-reference table lists objects up to ${mend.size - 1} ` +
    `(a writer's slip; MuPDF would have repaired the file to read it). The update appended after every original ` +
    `byte carries /Size ${mend.size}: no object changes.`
  );
}
