// The structural guard's trailer check (object-guard.ts, trailerKept) on a file whose trailer holds
// /Info as a direct dictionary, as Ruby Origami writes it: the same dictionary kept is no change (a
// correction verifies, and poppler reads it), a changed one is named `trailer/Info`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit } from '../../../../src/corrections/engine.ts';
import { objectsUntouched } from '../../../../src/corrections/proof/object-guard.ts';
import { ObjectIndex } from '../../../../src/pdf/xref-index.ts';
import { editInput } from '../fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-trailer-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** A one-page PDF 1.0 written as Origami does: Helvetica not embedded, /Info direct in the trailer. */
function directInfoPdf(): Uint8Array {
  const text = 'BT /F1 12 Tf 72 700 Td (The note is kept here) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 612 792 ] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
  ];
  let body = '%PDF-1.0\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) body += `${String(o).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Root 1 0 R /Info << /Title (ln\\(1\\)) >> /Size ${objects.length + 1} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(body, 'latin1'));
}

/** `pdf` with an empty update whose trailer writes `info` as /Info. */
function withTrailerInfo(pdf: Uint8Array, info: string): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const at = pdf.length;
  const update = `xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Root 1 0 R /Info ${info} /Size 6 /Prev ${prev} >>\nstartxref\n${at}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([Buffer.from(pdf), Buffer.from(update, 'latin1')]));
}

test('a correction of a file with a direct /Info verifies, the dictionary kept as it was', async () => {
  const pdf = directInfoPdf();
  const result = await applyEdit(editInput(pdf, 'note', 'noet'));
  assert.ok(result.verification.passed, result.verification.failure_reason ?? '');
  const tail = Buffer.from(result.output.subarray(pdf.length)).toString('latin1');
  assert.match(tail, /\/Info\s*<<\s*\/Title\s*\(ln\\\(1\\\)\)\s*>>/);
  const file = join(dir, 'out.pdf');
  writeFileSync(file, result.output);
  assert.match(execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }), 'The noet is kept here');
});

test('a direct /Info changed by an update is named; kept, it is not', () => {
  const pdf = directInfoPdf();
  const inputIndex = new ObjectIndex(pdf, () => null);
  const guard = (output: Uint8Array) =>
    objectsUntouched(pdf, output, inputIndex, new ObjectIndex(output, () => null), [], { encrypted: false });
  const kept = guard(withTrailerInfo(pdf, '<< /Title (ln\\(1\\)) >>'));
  assert.ok(kept.passed, kept.detail);
  const changed = guard(withTrailerInfo(pdf, '<< /Title (other) >>'));
  assert.not.ok(changed.passed);
  assert.match(changed.detail, 'trailer/Info');
  const dropped = guard(withTrailerInfo(pdf, '<< >>'));
  assert.not.ok(dropped.passed);
});

test.run();
