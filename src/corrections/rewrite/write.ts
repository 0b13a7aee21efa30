// Writing a planned edit into the document, copy-on-write: changed content streams and forms become
// new objects, resources dictionaries that must point at them are copied for this page, and the
// page dictionary is the only existing object that changes. Nothing another page draws is touched.
import { deflateSync } from 'node:zlib';
import type { mupdf } from '../../pdf/mupdf-adapter.ts';
import { spliceBytes } from '../locate/content-stream.ts';
import type { StreamEdit } from './rewrite.ts';
import type { StreamUnit } from '../locate/text-interpreter.ts';

export interface ChangedObject {
  /** Object number in the output (new objects included). */
  num: number;
  kind:
    | 'content stream'
    | 'form xobject'
    | 'annotation appearance'
    | 'annotation'
    | 'font'
    | 'type3 font'
    | 'resources'
    | 'page'
    | 'cmap'
    | 'image';
  /** Object this one replaces for this page (0 when none). */
  replaces: number;
  bytes_before: number;
  bytes_after: number;
}

/** Resource entries to point elsewhere, per resources owner (unit id, or -1 for the page). */
export type ResourceOverrides = Map<
  number,
  { XObject: Map<string, mupdf.PDFObject>; Font: Map<string, mupdf.PDFObject> }
>;

const SKIP_STREAM_KEYS = new Set(['Length', 'Filter', 'DecodeParms', 'DL']);

function newFlateStream(doc: mupdf.PDFDocument, bytes: Uint8Array, dict: mupdf.PDFObject): mupdf.PDFObject {
  dict.put('Filter', doc.newName('FlateDecode'));
  return doc.addRawStream(deflateSync(bytes, { level: 6 }), dict);
}

/** A shallow copy of a dictionary (values shared), without the keys in `skip`. */
export function copyDict(
  doc: mupdf.PDFDocument,
  src: mupdf.PDFObject,
  skip: Set<string> = new Set(),
): mupdf.PDFObject {
  const out = doc.newDictionary();
  src.forEach((value, key) => {
    if (!skip.has(String(key))) out.put(String(key), value);
  });
  return out;
}

function overriddenResources(
  doc: mupdf.PDFDocument,
  base: mupdf.PDFObject,
  o: { XObject: Map<string, mupdf.PDFObject>; Font: Map<string, mupdf.PDFObject> },
): mupdf.PDFObject {
  const res = copyDict(doc, base);
  for (const cat of ['XObject', 'Font'] as const) {
    if (!o[cat].size) continue;
    const sub = base.get(cat);
    const copy = sub.isDictionary() ? copyDict(doc, sub) : doc.newDictionary();
    for (const [name, ref] of o[cat]) copy.put(name, ref);
    res.put(cat, copy);
  }
  return res;
}

const objNum = (o: mupdf.PDFObject) => (o.isIndirect() ? o.asIndirect() : 0);

/** Applies stream edits and resource overrides to `page`; returns the objects written. */
export function writeEdits(
  doc: mupdf.PDFDocument,
  page: mupdf.PDFPage,
  units: StreamUnit[],
  edits: Map<number, StreamEdit[]>,
  overrides: ResourceOverrides,
): ChangedObject[] {
  const changed: ChangedObject[] = [];
  const pageObj = page.getObject();
  const newBytes = new Map<number, Uint8Array>();
  for (const [unitId, list] of edits) newBytes.set(unitId, spliceBytes(units[unitId].bytes, list));

  // Forms that must be copied: edited ones, ones whose resources change, and their ancestors.
  const dirty = new Set<number>();
  const mark = (id: number) => {
    let u: StreamUnit | undefined = units[id];
    while (u && (u.kind === 'form' || u.kind === 'annotation') && !dirty.has(u.id)) {
      dirty.add(u.id);
      u = u.parent ? units[u.parent.unit] : undefined;
    }
  };
  for (const id of newBytes.keys()) mark(id);
  for (const id of overrides.keys()) if (id >= 0) mark(id);

  const ensure = (owner: number) => {
    let o = overrides.get(owner);
    if (!o) overrides.set(owner, (o = { XObject: new Map(), Font: new Map() }));
    return o;
  };
  // Deepest first, so a parent sees its children's copies.
  const forms = [...dirty].sort((a, b) => b - a);
  for (const id of forms) {
    const u = units[id];
    const bytes = newBytes.get(id) ?? u.bytes;
    const dict = copyDict(doc, u.obj, SKIP_STREAM_KEYS);
    const o = overrides.get(id);
    if (o) dict.put('Resources', overriddenResources(doc, u.resources, o));
    const ref = newFlateStream(doc, bytes, dict);
    changed.push({
      num: objNum(ref),
      kind: 'form xobject',
      replaces: objNum(u.obj),
      bytes_before: u.bytes.length,
      bytes_after: bytes.length,
    });
    if (u.kind === 'annotation') {
      // An annotation's normal appearance: the copy becomes /AP /N of the annotation (its other
      // appearances, down and rollover, are kept as they are).
      changed[changed.length - 1].kind = 'annotation appearance';
      const annot = u.annot!;
      const ap = copyDict(doc, annot.get('AP'));
      ap.put('N', ref);
      annot.put('AP', ap);
      changed.push({
        num: objNum(annot),
        kind: 'annotation',
        replaces: objNum(annot),
        bytes_before: 0,
        bytes_after: 0,
      });
      continue;
    }
    const parent = units[u.parent!.unit];
    // The parent draws the form by name from the resources it was interpreted with.
    const owner = parent.kind === 'page' ? -1 : parent.id;
    ensure(owner).XObject.set(u.parent!.name, ref);
  }

  // Page content parts.
  const pageUnits = units.filter((u) => u.kind === 'page');
  let contentsChanged = false;
  const parts = pageUnits.map((u) => {
    const bytes = newBytes.get(u.id);
    if (!bytes) return u.obj;
    contentsChanged = true;
    const ref = newFlateStream(doc, bytes, doc.newDictionary());
    changed.push({
      num: objNum(ref),
      kind: 'content stream',
      replaces: objNum(u.obj),
      bytes_before: u.bytes.length,
      bytes_after: bytes.length,
    });
    return ref;
  });
  if (contentsChanged) {
    if (pageUnits.length === 1 && pageUnits[0].contentsIndex === null) pageObj.put('Contents', parts[0]);
    else {
      const arr = doc.newArray();
      for (const p of parts) arr.push(p);
      pageObj.put('Contents', arr);
    }
  }
  const pageOverride = overrides.get(-1);
  if (pageOverride && (pageOverride.XObject.size || pageOverride.Font.size)) {
    const base = pageObj.getInheritable('Resources');
    pageObj.put('Resources', overriddenResources(doc, base, pageOverride));
  }
  changed.push({
    num: objNum(pageObj),
    kind: 'page',
    replaces: objNum(pageObj),
    bytes_before: 0,
    bytes_after: 0,
  });
  return changed;
}

/**
 * Draws `drawing` over the page, after everything the page draws: the page's own contents are
 * wrapped in q … Q (so a graphics state they leave behind cannot move the drawing) and the
 * drawing's XObjects are added to the page's resources under fresh names. Returns the objects
 * written; the page dictionary is the only existing object that changes.
 */
export function appendPageDrawing(
  doc: mupdf.PDFDocument,
  page: mupdf.PDFPage,
  drawing: Uint8Array,
  xobjects: Map<string, mupdf.PDFObject>,
): ChangedObject[] {
  const pageObj = page.getObject();
  const changed: ChangedObject[] = [];
  const contents = pageObj.get('Contents');
  const parts: mupdf.PDFObject[] = [];
  if (contents.isArray()) for (let i = 0; i < contents.length; i++) parts.push(contents.get(i));
  else if (!contents.isNull()) parts.push(contents);
  const open = newFlateStream(doc, new TextEncoder().encode('q\n'), doc.newDictionary());
  const restore = new TextEncoder().encode('\nQ\n');
  const closing = new Uint8Array(restore.length + drawing.length);
  closing.set(restore);
  closing.set(drawing, restore.length);
  const close = newFlateStream(doc, closing, doc.newDictionary());
  const arr = doc.newArray();
  arr.push(open);
  for (const p of parts) arr.push(p);
  arr.push(close);
  pageObj.put('Contents', arr);
  for (const ref of [open, close])
    changed.push({ num: objNum(ref), kind: 'content stream', replaces: 0, bytes_before: 0, bytes_after: 0 });
  const base = pageObj.getInheritable('Resources');
  pageObj.put(
    'Resources',
    overriddenResources(doc, base.isDictionary() ? base : doc.newDictionary(), {
      XObject: xobjects,
      Font: new Map(),
    }),
  );
  changed.push({
    num: objNum(pageObj),
    kind: 'page',
    replaces: objNum(pageObj),
    bytes_before: 0,
    bytes_after: 0,
  });
  return changed;
}
