// The provenance manifest (docs/manifest.md): a small JSON file, versioned schema `docfix.manifest/1`,
// that every corrected revision carries inside itself. It lists the corrections standing in that
// revision, oldest first, with the engine and renderer that made them. The engine builds and embeds
// it while it writes the revision (src/corrections/tasks.ts); the daemon returns it byte for byte
// (GET …/manifest) by reading it back out of the stored file.
//
// Where it lives in the PDF: an embedded file `docfix-manifest.json` (name tree
// /Root/Names/EmbeddedFiles) whose file specification carries /AFRelationship /Supplement and is
// also listed in the catalog's associated files (/Root/AF). Nothing of it is drawn, so no page's
// rendering changes; it is made of ordinary new objects plus a changed catalog, so an incremental
// save keeps it.
import { readFileSync } from 'node:fs';
import { DocfixError } from '../../errors.ts';
import { closeDocument, mupdf, messageOf } from '../../pdf/mupdf-adapter.ts';

export const MANIFEST_SCHEMA = 'docfix.manifest/1';
export const MANIFEST_FILENAME = 'docfix-manifest.json';
export const MANIFEST_MIME = 'application/json';
export const MANIFEST_AF_RELATIONSHIP = 'Supplement';

/** One correction as the manifest records it. Boxes are render pixels at `box_dpi`. */
export interface ManifestCorrection {
  /** Zero-based page index. */
  page: number;
  box_render: number[] | null;
  box_dpi: number;
  text_before: string | null;
  text_after: string | null;
  tier: number;
  tier_name: string;
  visibility_cost: string;
  created_at: string;
  /**
   * A scanned word's correction on a match that needed a person (tier 5): what the engine checked
   * (the crop served to the account, its resolution and time). Absent otherwise.
   */
  confirmation?: Record<string, unknown>;
  /**
   * The file was damaged and saved repaired with this correction: each object the repair changed,
   * the paths it changed and why (save/repair.ts). Absent otherwise.
   */
  repaired_objects?: { num: number; changed: string[]; reason: string }[];
}

/** What the daemon knows about a document when it asks the engine for a new revision. */
export interface ManifestInput {
  document_id: string;
  original_sha256: string;
  /** Corrections standing before this one, oldest first. */
  standing: ManifestCorrection[];
  engine_version: string;
  renderer: string;
  /** Working resolution of verification renders. */
  dpi: number;
}

/** The manifest document, field for field as written (key order is fixed by `buildManifest`). */
export interface Manifest {
  schema: typeof MANIFEST_SCHEMA;
  document_id: string;
  original_sha256: string;
  engine_version: string;
  renderer: string;
  dpi: number;
  corrections: ManifestCorrection[];
}

/** The correction with its fields in the manifest's order and nothing else. */
function normalise(c: ManifestCorrection, where: string): ManifestCorrection {
  const fail = (field: string): never => {
    throw new TypeError(`manifest: ${where}.${field} has the wrong type`);
  };
  if (!Number.isInteger(c.page) || c.page < 0) fail('page');
  if (c.box_render !== null && (!Array.isArray(c.box_render) || !c.box_render.every(Number.isFinite)))
    fail('box_render');
  if (!Number.isInteger(c.box_dpi) || c.box_dpi <= 0) fail('box_dpi');
  if (c.text_before !== null && typeof c.text_before !== 'string') fail('text_before');
  if (c.text_after !== null && typeof c.text_after !== 'string') fail('text_after');
  if (!Number.isInteger(c.tier)) fail('tier');
  if (typeof c.tier_name !== 'string') fail('tier_name');
  if (typeof c.visibility_cost !== 'string') fail('visibility_cost');
  if (typeof c.created_at !== 'string' || Number.isNaN(Date.parse(c.created_at))) fail('created_at');
  if (c.confirmation !== undefined && (typeof c.confirmation !== 'object' || c.confirmation === null))
    fail('confirmation');
  if (
    c.repaired_objects !== undefined &&
    !(
      Array.isArray(c.repaired_objects) &&
      c.repaired_objects.every(
        (o) =>
          Number.isInteger(o?.num) &&
          Array.isArray(o.changed) &&
          o.changed.every((p) => typeof p === 'string') &&
          typeof o.reason === 'string',
      )
    )
  )
    fail('repaired_objects');
  return {
    page: c.page,
    box_render: c.box_render === null ? null : [...c.box_render],
    box_dpi: c.box_dpi,
    text_before: c.text_before,
    text_after: c.text_after,
    tier: c.tier,
    tier_name: c.tier_name,
    visibility_cost: c.visibility_cost,
    created_at: c.created_at,
    ...(c.confirmation ? { confirmation: c.confirmation } : {}),
    ...(c.repaired_objects
      ? {
          repaired_objects: c.repaired_objects.map((o) => ({
            num: o.num,
            changed: [...o.changed],
            reason: o.reason,
          })),
        }
      : {}),
  };
}

/**
 * The manifest of a new revision: the corrections standing before it plus `current`, as UTF-8
 * JSON (two-space indent, trailing newline). Same input → same bytes.
 */
export function buildManifest(input: ManifestInput, current: ManifestCorrection): Uint8Array {
  if (typeof input.document_id !== 'string' || input.document_id === '') {
    throw new TypeError('manifest: document_id is required');
  }
  if (typeof input.original_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(input.original_sha256)) {
    throw new TypeError('manifest: original_sha256 must be a lowercase hex SHA-256');
  }
  if (!Number.isInteger(input.dpi) || input.dpi <= 0)
    throw new TypeError('manifest: dpi must be a positive integer');
  const manifest: Manifest = {
    schema: MANIFEST_SCHEMA,
    document_id: input.document_id,
    original_sha256: input.original_sha256,
    engine_version: String(input.engine_version),
    renderer: String(input.renderer),
    dpi: input.dpi,
    corrections: [
      ...input.standing.map((c, i) => normalise(c, `standing[${i}]`)),
      normalise(current, 'current'),
    ],
  };
  return new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
}

/** Reads manifest bytes back into the object (schema checked). */
export function parseManifest(bytes: Uint8Array): Manifest {
  const value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as Partial<Manifest>;
  if (
    !value ||
    typeof value !== 'object' ||
    value.schema !== MANIFEST_SCHEMA ||
    !Array.isArray(value.corrections)
  ) {
    throw new TypeError(`manifest: not a ${MANIFEST_SCHEMA} document`);
  }
  return value as Manifest;
}

/** A PDF text string (MuPDF picks PDFDocEncoding or UTF-16BE). */
function textString(doc: mupdf.PDFDocument, text: string): mupdf.PDFObject {
  return doc.newString(text);
}

function isManifestSpec(spec: mupdf.PDFObject): boolean {
  if (!spec.isDictionary()) return false;
  const uf = spec.get('UF');
  const f = spec.get('F');
  const name = uf.isString() ? uf.asString() : f.isString() ? f.asString() : '';
  return name === MANIFEST_FILENAME;
}

/**
 * Embeds manifest bytes into an open document (before it is saved): replaces an earlier manifest,
 * keeps every other embedded file, draws nothing. Works on encrypted documents (new objects are
 * encrypted by the save like the rest).
 */
export function embedManifest(doc: mupdf.PDFDocument, bytes: Uint8Array): void {
  const now = new Date();
  // The embedded file stream is stored uncompressed: the manifest is small and its bytes then
  // stand in the file as written (readers decode either way).
  const stream = doc.addStream(bytes, {
    Type: doc.newName('EmbeddedFile'),
    Subtype: doc.newName(MANIFEST_MIME),
    Params: { Size: bytes.byteLength, ModDate: textString(doc, pdfDate(now)) },
  });
  const spec = doc.addObject(doc.newDictionary());
  spec.put('Type', doc.newName('Filespec'));
  spec.put('F', textString(doc, MANIFEST_FILENAME));
  spec.put('UF', textString(doc, MANIFEST_FILENAME));
  spec.put('Desc', textString(doc, `docfix provenance manifest (${MANIFEST_SCHEMA})`));
  spec.put('AFRelationship', doc.newName(MANIFEST_AF_RELATIONSHIP));
  const ef = doc.newDictionary();
  ef.put('F', stream);
  ef.put('UF', stream);
  spec.put('EF', ef);

  // Name tree: every other embedded file kept, ours replaced.
  const files = doc.getEmbeddedFiles();
  files[MANIFEST_FILENAME] = spec;
  doc._rewriteEmbeddedFiles(files);

  // Associated files of the catalog (PDF 2.0 / PDF/A-3): drop an earlier manifest, add this one.
  const root = doc.getTrailer().get('Root');
  const oldAf = root.get('AF');
  const af = doc.newArray();
  if (oldAf.isArray()) {
    for (let i = 0; i < oldAf.length; i += 1) {
      const item = oldAf.get(i);
      if (!isManifestSpec(item)) af.push(item);
    }
  }
  af.push(spec);
  root.put('AF', af);
}

function pdfDate(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(
    date.getUTCMinutes(),
  )}${p(date.getUTCSeconds())}Z`;
}

/** The manifest file specification of an open document, or null. */
function findManifestSpec(doc: mupdf.PDFDocument): mupdf.PDFObject | null {
  const files = doc.getEmbeddedFiles();
  const named = files[MANIFEST_FILENAME];
  if (named && named.isDictionary()) return named;
  const af = doc.getTrailer().get('Root').get('AF');
  if (af.isArray()) {
    for (let i = 0; i < af.length; i += 1) {
      const item = af.get(i);
      if (isManifestSpec(item)) return item;
    }
  }
  return null;
}

/** The manifest bytes of an open document exactly as embedded, or null when it carries none. */
export function readManifestFrom(doc: mupdf.PDFDocument): Uint8Array | null {
  const spec = findManifestSpec(doc);
  if (!spec) return null;
  const contents = doc.getEmbeddedFileContents(spec);
  if (!contents) return null;
  return new Uint8Array(contents.asUint8Array());
}

/**
 * The manifest bytes of a PDF file exactly as embedded, or null when it carries none. `password`
 * opens a protected file ('' for none). Errors: unreadable_pdf, password_incorrect.
 */
export function readManifest(pdfBytes: Uint8Array, password: string): Uint8Array | null {
  let doc: mupdf.PDFDocument | null = null;
  try {
    let opened: mupdf.Document;
    try {
      opened = mupdf.Document.openDocument(pdfBytes, 'application/pdf');
    } catch (error) {
      throw new DocfixError(
        'unreadable_pdf',
        `The PDF could not be opened: ${messageOf(error)}.`,
        {},
        { cause: error },
      );
    }
    doc = opened.asPDF();
    if (!doc) {
      opened.destroy();
      throw new DocfixError('unreadable_pdf', 'The file did not open as a PDF.');
    }
    if (doc.needsPassword() && doc.authenticatePassword(password) === 0) {
      throw new DocfixError('password_incorrect', 'The password did not open the document.');
    }
    return readManifestFrom(doc);
  } finally {
    closeDocument(doc);
  }
}

let identity: { engine_version: string; renderer: string } | null = null;

/** `docfix <version>` and `mupdf <version>` as the manifest names them. */
export function engineIdentity(): { engine_version: string; renderer: string } {
  if (identity) return identity;
  const version = (url: URL): string => {
    try {
      return String((JSON.parse(readFileSync(url, 'utf8')) as { version?: unknown }).version ?? 'unknown');
    } catch {
      return 'unknown';
    }
  };
  const own = version(new URL('../../../package.json', import.meta.url));
  let mupdfVersion = 'unknown';
  try {
    mupdfVersion = version(new URL('../package.json', import.meta.resolve('mupdf')));
  } catch {
    // leave unknown
  }
  identity = { engine_version: `docfix ${own}`, renderer: `mupdf ${mupdfVersion}` };
  return identity;
}
