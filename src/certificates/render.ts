// The certificate PDF: a readable A4 document saying what was certified (title, what was checked,
// hashes, each correction, verification, audit chain head, key id, how to verify offline, the
// disclaimer) with the signed statement and its signature attached as embedded files
// (`statement.json`, the exact signed bytes; `statement.sig`, the raw 64-byte Ed25519 signature).
// Rendering needs no key: the daemon signs, an engine task renders, the daemon seals the result.
import { mupdf } from '../pdf/mupdf-adapter.ts';
import { fromBase64Url, keyFingerprint, sha256Hex, toBase64Url } from './crypto.ts';
import { SIGNATURE_FILENAME, STATEMENT_FILENAME, type CertificateStatement } from './statement.ts';

export interface RenderCertificateInput {
  statement: CertificateStatement;
  /** Exactly the signed bytes (canonical JSON of the statement). */
  statement_bytes: Uint8Array;
  signature: Uint8Array;
  /** Printed in the PDF and nowhere else (≤ 200 characters). */
  name?: string;
  /** Where the public key is published, printed in the instructions (e.g. http://host/.well-known/…). */
  key_url?: string;
}

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const MARGIN = 56;
const BOTTOM = PAGE_H - 64;
const WIDTH = PAGE_W - 2 * MARGIN;

type FontName = 'regular' | 'bold' | 'mono';
type Rgb = [number, number, number];

interface TextOp {
  kind: 'text';
  font: FontName;
  size: number;
  x: number;
  y: number;
  text: string;
  color: Rgb;
}
interface RuleOp {
  kind: 'rule';
  y: number;
}
type Op = TextOp | RuleOp;

const BLACK: Rgb = [0, 0, 0];
const GREY: Rgb = [0.35, 0.35, 0.35];
const ACCENT: Rgb = [0.1, 0.25, 0.5];

class Layout {
  pages: Op[][] = [[]];
  y = MARGIN;
  private fonts: Record<FontName, mupdf.Font>;

  constructor(fonts: Record<FontName, mupdf.Font>) {
    this.fonts = fonts;
  }

  private get ops(): Op[] {
    return this.pages[this.pages.length - 1];
  }

  private room(height: number): void {
    if (this.y + height > BOTTOM) {
      this.pages.push([]);
      this.y = MARGIN;
    }
  }

  width(font: FontName, size: number, text: string): number {
    const f = this.fonts[font];
    let w = 0;
    for (const ch of text) {
      const gid = f.encodeCharacter(ch.codePointAt(0) ?? 32);
      w += (gid > 0 ? f.advanceGlyph(gid) : 0.6) * size;
    }
    return w;
  }

  /** Splits text into lines no wider than `max`; very long words (hashes) break anywhere. */
  wrap(font: FontName, size: number, text: string, max: number): string[] {
    const lines: string[] = [];
    for (const paragraph of text.split('\n')) {
      let line = '';
      for (const word of paragraph.split(/(?<= )/)) {
        if (this.width(font, size, line + word) <= max) {
          line += word;
          continue;
        }
        if (line.trim()) lines.push(line.trimEnd());
        line = '';
        let rest = word;
        while (this.width(font, size, rest) > max) {
          let cut = 1;
          const chars = [...rest];
          while (cut < chars.length && this.width(font, size, chars.slice(0, cut + 1).join('')) <= max) cut++;
          lines.push(chars.slice(0, cut).join(''));
          rest = chars.slice(cut).join('');
        }
        line = rest;
      }
      lines.push(line.trimEnd());
    }
    return lines;
  }

  text(
    text: string,
    opts: { font?: FontName; size?: number; color?: Rgb; indent?: number; gap?: number } = {},
  ): void {
    const font = opts.font ?? 'regular';
    const size = opts.size ?? 10;
    const indent = opts.indent ?? 0;
    const lead = size * 1.35;
    for (const line of this.wrap(font, size, text, WIDTH - indent)) {
      this.room(lead);
      this.y += lead;
      this.ops.push({
        kind: 'text',
        font,
        size,
        x: MARGIN + indent,
        y: this.y,
        text: line,
        color: opts.color ?? BLACK,
      });
    }
    this.y += opts.gap ?? 0;
  }

  /** A label in grey and a value beside it (wrapped under itself). */
  field(label: string, value: string, opts: { mono?: boolean; labelWidth?: number } = {}): void {
    const size = 9.5;
    const labelWidth = opts.labelWidth ?? 120;
    const font: FontName = opts.mono ? 'mono' : 'regular';
    const lead = size * 1.4;
    const lines = this.wrap(font, opts.mono ? 8.5 : size, value, WIDTH - labelWidth);
    this.room(lead * Math.min(lines.length, 3));
    lines.forEach((line, i) => {
      this.room(lead);
      this.y += lead;
      if (i === 0)
        this.ops.push({
          kind: 'text',
          font: 'regular',
          size,
          x: MARGIN,
          y: this.y,
          text: label,
          color: GREY,
        });
      this.ops.push({
        kind: 'text',
        font,
        size: opts.mono ? 8.5 : size,
        x: MARGIN + labelWidth,
        y: this.y,
        text: line,
        color: BLACK,
      });
    });
  }

  heading(text: string): void {
    this.room(40);
    this.y += 12;
    this.text(text, { font: 'bold', size: 12, color: ACCENT });
    this.ops.push({ kind: 'rule', y: this.y + 4 });
    this.y += 6;
  }

  /** Starts a new page unless `height` more points fit on this one (keeps a block together). */
  keep(height: number): void {
    this.room(height);
  }

  space(points: number): void {
    this.y += points;
  }
}

/** Renders the certificate PDF body (not yet sealed). */
export function renderCertificatePdf(input: RenderCertificateInput): Uint8Array {
  const fonts: Record<FontName, mupdf.Font> = {
    regular: new mupdf.Font('Helvetica'),
    bold: new mupdf.Font('Helvetica-Bold'),
    mono: new mupdf.Font('Courier'),
  };
  const s = input.statement;
  const layout = new Layout(fonts);
  const name = (input.name ?? '').slice(0, 200).trim();

  layout.text('docfix verification certificate', { font: 'bold', size: 20, color: ACCENT, gap: 4 });
  if (name) layout.text(name, { font: 'bold', size: 12, gap: 2 });
  layout.field('Certificate', s.certificate_id, { mono: true });
  layout.field('Issued at', s.issued_at);
  layout.field('Corrections', String(s.corrections.length));
  layout.space(4);

  layout.heading('What was checked');
  layout.text(
    `After each correction docfix rendered every changed page before and after at ${s.verification.dpi} dpi ` +
      `with ${s.verification.renderer} and compared every pixel exactly. Each correction below changed pixels ` +
      'only inside the region it declared (0 pixels outside it) and every guard passed (the text is where it ' +
      'was measured to be, the edit kept to its own line, the text layer reads the new text, the file reopens ' +
      'without repair). The verification of the document as it now stands passed, and the audit record ' +
      'recomputed intact when this certificate was issued.',
    { size: 9.5 },
  );

  layout.heading('Documents');
  layout.field('Original SHA-256', s.original_sha256, { mono: true });
  layout.field('Corrected SHA-256', s.corrected_sha256, { mono: true });
  layout.field('Document id', s.document_id, { mono: true });

  layout.heading(`Corrections (${s.corrections.length})`);
  for (const c of s.corrections) {
    layout.keep(10 * 1.35 + 6 * 9.5 * 1.4 + 6);
    const box = c.box_render ? `[${c.box_render.join(', ')}] at ${c.box_dpi} dpi` : 'not recorded';
    layout.text(`#${c.seq}  page ${c.page_index + 1} (index ${c.page_index}), box ${box}`, {
      font: 'bold',
      size: 10,
    });
    layout.field('Before', quote(c.text_before));
    layout.field('After', quote(c.text_after));
    layout.field('Tier', `${c.tier} ${c.tier_name}, visibility cost ${c.visibility_cost}`);
    layout.field('Pixels', `${c.changed_pixels} changed, ${c.outside_pixels} outside the declared region`);
    if (c.repaired_objects?.length)
      layout.field(
        'Repair',
        `the original was damaged and saved repaired; objects changed by the repair, each declared: ${c.repaired_objects
          .map((o) => `${o.num} (${o.reason})`)
          .join('; ')}`,
      );
    layout.field('Verification', c.verification_id, { mono: true });
    layout.space(6);
  }

  layout.heading('Verification of the document as it stands');
  layout.field('Verification id', s.verification.verification_id, { mono: true });
  layout.field('Revision', s.verification.revision_id, { mono: true });
  layout.field('Renderer', `${s.verification.renderer} at ${s.verification.dpi} dpi`);
  layout.field(
    'Result',
    s.verification.passed ? `passed (${s.verification.pages_compared} pages compared)` : 'did not pass',
  );

  layout.heading('Audit record');
  layout.field('Chain head', s.audit.head_hash, { mono: true });
  layout.field('Entries', String(s.audit.entries));

  layout.heading('Signature');
  layout.field('Algorithm', s.algorithm);
  layout.field('Key id', s.key_id, { mono: true });
  // The whole fingerprint (64 hex digits) is what a person compares with the issuer's; it is printed
  // only when the statement carries the key it is computed from.
  const key = s.public_key ? fromBase64Url(s.public_key) : null;
  if (key) layout.field('Key fingerprint', keyFingerprint(key), { mono: true });
  layout.field('Statement SHA-256', sha256Hex(input.statement_bytes), { mono: true });
  layout.field('Signature', toBase64Url(input.signature), { mono: true });
  layout.field(
    'Attached',
    `${STATEMENT_FILENAME} (signed statement, canonical JSON), ${SIGNATURE_FILENAME} (raw signature)`,
  );

  layout.heading('How to verify it, without the service');
  const keyWhere =
    input.key_url ?? 'the /.well-known/docfix-certificate-key address of the service that issued it';
  const steps = [
    `1. Get the public key once from ${keyWhere} and keep it; its key id must be ${s.key_id}.`,
    '2. Run: docfix cert verify THIS_FILE.pdf --key KEY_FILE   (or --key-fingerprint HEX once you have checked ' +
      'the fingerprint with the issuer; add --document CORRECTED.pdf to check that a corrected file is the one ' +
      'certified). It needs no network and no account.',
    `3. By hand: extract ${STATEMENT_FILENAME} and ${SIGNATURE_FILENAME} (pdfdetach -saveall) and check the ` +
      `Ed25519 signature (openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in ${STATEMENT_FILENAME} ` +
      `-sigfile ${SIGNATURE_FILENAME}); the file's last line is a seal over every byte before it.`,
    '4. Or ask the service: GET /v1/certificates/{certificate_id}, or send this file to POST /v1/certificates/verify.',
  ];
  for (const step of steps) layout.text(step, { size: 9.5, gap: 2 });

  layout.heading('What this certificate is not');
  layout.text(s.scope, { size: 9.5 });

  return writePdf(layout.pages, fonts, input);
}

function writePdf(
  pages: Op[][],
  fonts: Record<FontName, mupdf.Font>,
  input: RenderCertificateInput,
): Uint8Array {
  const s = input.statement;
  const buffer = new mupdf.Buffer();
  const writer = new mupdf.DocumentWriter(buffer, 'pdf', '');
  const stroke = new mupdf.StrokeState({
    lineWidth: 0.6,
    lineCap: 'Butt',
    lineJoin: 'Miter',
    miterLimit: 10,
  });
  const rgb = mupdf.ColorSpace.DeviceRGB;
  try {
    pages.forEach((ops, index) => {
      const device = writer.beginPage([0, 0, PAGE_W, PAGE_H]);
      const footer: TextOp = {
        kind: 'text',
        font: 'regular',
        size: 8,
        x: MARGIN,
        y: PAGE_H - 36,
        text: `docfix certificate ${s.certificate_id}  ·  page ${index + 1} of ${pages.length}  ·  not a notarisation, legal attestation or invoice`,
        color: GREY,
      };
      for (const op of [...ops, footer]) {
        if (op.kind === 'rule') {
          const path = new mupdf.Path();
          path.moveTo(MARGIN, op.y);
          path.lineTo(PAGE_W - MARGIN, op.y);
          device.strokePath(path, stroke, mupdf.Matrix.identity, rgb, [0.7, 0.7, 0.75], 1);
          path.destroy();
          continue;
        }
        const text = new mupdf.Text();
        text.showString(fonts[op.font], [op.size, 0, 0, -op.size, op.x, op.y], op.text);
        device.fillText(text, mupdf.Matrix.identity, rgb, op.color, 1);
        text.destroy();
      }
      writer.endPage();
      device.destroy();
    });
    writer.close();
  } finally {
    writer.destroy();
    stroke.destroy();
  }
  const doc = new mupdf.PDFDocument(buffer.asUint8Array());
  buffer.destroy();
  try {
    const when = new Date(s.issued_at);
    const date = Number.isNaN(when.getTime()) ? new Date(0) : when;
    doc.setMetaData('info:Title', `docfix verification certificate ${s.certificate_id}`);
    doc.setMetaData('info:Producer', 'docfix');
    doc.insertEmbeddedFile(
      STATEMENT_FILENAME,
      doc.addEmbeddedFile(STATEMENT_FILENAME, 'application/json', input.statement_bytes, date, date),
    );
    doc.insertEmbeddedFile(
      SIGNATURE_FILENAME,
      doc.addEmbeddedFile(SIGNATURE_FILENAME, 'application/octet-stream', input.signature, date, date),
    );
    doc.subsetFonts();
    const out = doc.saveToBuffer('compress,garbage');
    try {
      return new Uint8Array(out.asUint8Array());
    } finally {
      out.destroy();
    }
  } finally {
    doc.destroy();
    for (const font of Object.values(fonts)) font.destroy();
  }
}

function quote(text: string | null): string {
  return text === null ? '(not recorded)' : `“${text}”`;
}
