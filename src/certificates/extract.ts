// Reads the parts of a certificate file without trusting it: the seal line at its end, and the
// attached statement.json and statement.sig. Used by the offline verifier (in-process) and by the
// daemon's public verify route (inside an engine slot, since the file comes from anyone).
import { mupdf, messageOf } from '../pdf/mupdf-adapter.ts';
import { readSealLine } from './statement.ts';
import { SIGNATURE_FILENAME, STATEMENT_FILENAME } from './statement.ts';

/** Larger attachments are not a statement docfix wrote; they are ignored rather than read. */
const MAX_STATEMENT_BYTES = 1 << 20;

export interface CertificateParts {
  /** The seal line at the very end of the file, when present in the expected form. */
  seal: { certificate_id: string; key_id: string; seal: string } | null;
  /** Exactly the bytes of the attached statement.json, or null. */
  statement_bytes: Uint8Array | null;
  /** The raw attached statement.sig, or null. */
  signature: Uint8Array | null;
  /** Why the PDF could not be read (null when it opened). */
  problem: string | null;
}

export function extractCertificateParts(file: Uint8Array): CertificateParts {
  const line = readSealLine(file);
  const parts: CertificateParts = {
    seal: line ? { certificate_id: line.certificate_id, key_id: line.key_id, seal: line.seal } : null,
    statement_bytes: null,
    signature: null,
    problem: null,
  };
  let doc: mupdf.PDFDocument | null = null;
  try {
    const opened = mupdf.Document.openDocument(file, 'application/pdf');
    doc = opened.asPDF();
    if (!doc) {
      opened.destroy();
      parts.problem = 'the file is not a PDF';
      return parts;
    }
    const files = doc.getEmbeddedFiles();
    parts.statement_bytes = attachment(doc, files[STATEMENT_FILENAME]);
    parts.signature = attachment(doc, files[SIGNATURE_FILENAME]);
  } catch (error) {
    parts.problem = `the PDF could not be read: ${messageOf(error)}`;
  } finally {
    doc?.destroy();
  }
  return parts;
}

function attachment(doc: mupdf.PDFDocument, spec: mupdf.PDFObject | undefined): Uint8Array | null {
  if (!spec) return null;
  const contents = doc.getEmbeddedFileContents(spec);
  if (!contents) return null;
  try {
    const bytes = contents.asUint8Array();
    return bytes.length > MAX_STATEMENT_BYTES ? null : new Uint8Array(bytes);
  } finally {
    contents.destroy();
  }
}
