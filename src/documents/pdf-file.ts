// Opening a stored revision by its path without reading it whole: MuPDF reads the parts it needs
// through a file-backed stream (a positioned read of the file for each block it asks for), so a task
// that needs a few pages of a 30 MB revision costs neither a 30 MB read into JavaScript nor a 30 MB
// copy into MuPDF's WASM heap (a heap that never shrinks). For revisions already stored, which opened
// at upload; files from a request go through openPdf (src/pdf/mupdf-adapter.ts) and its checks.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DocfixError } from '../errors.ts';
import { mupdf, openPdfSource } from '../pdf/mupdf-adapter.ts';

/** Opens the PDF at `path` (read as needed). The caller destroys the document; that closes the file. */
export function openPdfFile(path: string, password = ''): mupdf.PDFDocument {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  let closed = false;
  const stream = new mupdf.Stream({
    fileSize: () => size,
    read: (memory, offset, length, position) =>
      position >= size ? 0 : readSync(fd, memory, offset, Math.min(length, size - position), position),
    close: () => {
      if (!closed) closeSync(fd);
      closed = true;
    },
  });
  let doc: mupdf.PDFDocument;
  try {
    doc = openPdfSource(stream);
  } catch (error) {
    if (!closed) closeSync(fd);
    closed = true;
    throw error;
  } finally {
    stream.destroy(); // the document keeps its own reference to the stream
  }
  if (doc.needsPassword() && doc.authenticatePassword(password) === 0) {
    doc.destroy();
    throw new DocfixError(
      password === '' ? 'password_required' : 'password_incorrect',
      password === ''
        ? 'This document will not open without its password.'
        : 'The password did not open the document.',
    );
  }
  return doc;
}
