// Interprets a page's content (and the Form XObjects it draws) far enough to know where every
// glyph lands: graphics state (q/Q, cm), text state (Tf, Tc, Tw, Tz, TL, Ts, Tr), text positioning
// (BT/ET, Td, TD, Tm, T*) and text showing (Tj, TJ, ', "). Each glyph records the operator, the
// string operand and the exact bytes that drew it, so an edit can splice the original stream.
import { dictPath, type mupdf } from '../../pdf/mupdf-adapter.ts';
import { ContentSyntaxError, parseContent, type ContentOp, type Operand } from './content-stream.ts';
import { streamBytes } from './pdf-bytes.ts';
import { codeWidth, loadFontInfo, splitCodes, type FontInfo } from './fonts.ts';

export type Mat = [number, number, number, number, number, number];

export const IDENTITY: Mat = [1, 0, 0, 1, 0, 0];

/** m1 then m2 (PDF row-vector convention). */
export function mul(m1: Mat, m2: Mat): Mat {
  return [
    m1[0] * m2[0] + m1[1] * m2[2],
    m1[0] * m2[1] + m1[1] * m2[3],
    m1[2] * m2[0] + m1[3] * m2[2],
    m1[2] * m2[1] + m1[3] * m2[3],
    m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
    m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
  ];
}

export function apply(m: Mat, x: number, y: number): [number, number] {
  return [x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]];
}

/** One decoded content stream the interpreter read: a part of the page's /Contents or a form. */
export interface StreamUnit {
  id: number;
  kind: 'page' | 'form' | 'annotation';
  /** The stream object (page content part or Form XObject). */
  obj: mupdf.PDFObject;
  bytes: Uint8Array;
  ops: ContentOp[];
  /** Page: index in /Contents (0 when a single stream). Form: null. */
  contentsIndex: number | null;
  /** Form: how it was reached — the stream that drew it and the XObject name in its resources. */
  parent: { unit: number; name: string; resources: mupdf.PDFObject } | null;
  /** Resources the stream was interpreted with (its own, or inherited from what drew it). */
  resources: mupdf.PDFObject;
  /** Form: the form has its own /Resources. */
  ownResources: boolean;
  /** Annotation: the annotation dictionary whose normal appearance (/AP /N) this stream is. */
  annot?: mupdf.PDFObject;
}

export interface TextState {
  Tc: number;
  Tw: number;
  Th: number;
  TL: number;
  Tfs: number;
  Trise: number;
  Tr: number;
  fontName: string;
  font: FontInfo | null;
}

export interface Glyph {
  index: number;
  unit: number;
  opIndex: number;
  /** Index of the string in a TJ array; -1 for Tj, ' and ". */
  element: number;
  /** Offset and length of the code inside the decoded string operand. */
  offset: number;
  length: number;
  code: number;
  font: FontInfo;
  fontName: string;
  state: TextState;
  /** Text matrix at the glyph origin and the CTM. */
  tm: Mat;
  ctm: Mat;
  /** Glyph origin in page space as MuPDF reports it (page transform applied). */
  origin: [number, number];
  /** Advance in text space (font size, Tc, Tw and Tz applied). */
  advance: number;
  /** Position unknown (an earlier string in the text object could not be measured). */
  lost: boolean;
}

export interface Interpretation {
  units: StreamUnit[];
  glyphs: Glyph[];
  fonts: Map<string, FontInfo>;
  /** Problems met on the way (unreadable stream, unsupported CMap …). */
  problems: string[];
}

interface GState {
  ctm: Mat;
  text: TextState;
}

/** Interprets the page content, following Form XObjects up to a small depth. */
export function interpretPage(page: mupdf.PDFPage, pageCtm: Mat): Interpretation {
  const pageObj = page.getObject();
  const result: Interpretation = { units: [], glyphs: [], fonts: new Map(), problems: [] };
  const resources = pageObj.getInheritable('Resources');
  // isStream() needs the indirect reference: resolve() would drop the stream.
  const contents = pageObj.get('Contents');
  const parts: mupdf.PDFObject[] = [];
  if (contents.isArray()) for (let i = 0; i < contents.length; i += 1) parts.push(contents.get(i));
  else if (contents.isStream()) parts.push(contents);
  const gs: GState = { ctm: pageCtm, text: freshText() };
  const stack: GState[] = [];
  const pos: TextPosition = { tm: IDENTITY, tlm: IDENTITY, lost: false };
  let carry: Operand[] = [];
  parts.forEach((part, i) => {
    const bytes = streamBytes(part);
    let parsed: { ops: ContentOp[]; trailing: Operand[] };
    try {
      parsed = parseContent(bytes);
    } catch (error) {
      result.problems.push(`content stream ${i}: ${(error as Error).message}`);
      parsed = { ops: [], trailing: [] };
    }
    if (carry.length && parsed.ops.length) {
      parsed.ops[0] = { ...parsed.ops[0], operands: [...carry, ...parsed.ops[0].operands], carried: true };
    }
    carry = parsed.trailing;
    const unit: StreamUnit = {
      id: result.units.length,
      kind: 'page',
      obj: part,
      bytes,
      ops: parsed.ops,
      contentsIndex: contents.isArray() ? i : null,
      parent: null,
      resources,
      ownResources: true,
    };
    result.units.push(unit);
    run(unit, resources, gs, stack, result, 0, pos);
  });
  interpretAppearances(pageObj, pageCtm, result);
  return result;
}

/**
 * The normal appearances (/AP /N) of the page's visible annotations and form fields, each drawn as
 * PDF 32000 12.5.5 says: its /Matrix, then the matrix that maps the transformed /BBox onto /Rect.
 * Appearances chosen by state (check boxes: /N is a dictionary) are not followed.
 */
function interpretAppearances(pageObj: mupdf.PDFObject, pageCtm: Mat, result: Interpretation): void {
  const annots = pageObj.get('Annots');
  if (!annots.isArray()) return;
  for (let i = 0; i < annots.length; i += 1) {
    const annot = annots.get(i);
    if (!annot.isDictionary()) continue;
    const flags = annot.get('F').isNumber() ? annot.get('F').asNumber() : 0;
    if (flags & 0b100011) continue; // invisible, hidden, no view
    // A signature's appearance is the signer's mark: never rewritten (its text stays unmapped).
    if (fieldType(annot) === 'Sig') continue;
    const appearances = annot.get('AP');
    if (!appearances.isDictionary()) continue;
    const ap = appearances.get('N');
    if (!ap.isStream()) continue;
    const rect = numbers(annot.get('Rect'), 4);
    const bbox = numbers(ap.get('BBox'), 4);
    if (!rect || !bbox) continue;
    const matrix = (numbers(ap.get('Matrix'), 6) as Mat | null) ?? IDENTITY;
    let bytes: Uint8Array;
    let ops: ContentOp[];
    try {
      bytes = streamBytes(ap);
      ops = parseContent(bytes).ops;
    } catch (error) {
      result.problems.push(
        `annotation ${i}: ${error instanceof ContentSyntaxError ? error.message : 'unreadable'}`,
      );
      continue;
    }
    // The transformed box, and the matrix A that maps it onto the annotation's rectangle.
    const corners = [
      apply(matrix, bbox[0], bbox[1]),
      apply(matrix, bbox[2], bbox[1]),
      apply(matrix, bbox[0], bbox[3]),
      apply(matrix, bbox[2], bbox[3]),
    ];
    const xs = corners.map((c) => c[0]);
    const ys = corners.map((c) => c[1]);
    const [x0, y0, x1, y1] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    const [rx0, ry0, rx1, ry1] = [
      Math.min(rect[0], rect[2]),
      Math.min(rect[1], rect[3]),
      Math.max(rect[0], rect[2]),
      Math.max(rect[1], rect[3]),
    ];
    if (x1 - x0 <= 0 || y1 - y0 <= 0) continue;
    const sx = (rx1 - rx0) / (x1 - x0);
    const sy = (ry1 - ry0) / (y1 - y0);
    const a: Mat = [sx, 0, 0, sy, rx0 - x0 * sx, ry0 - y0 * sy];
    const resources = ap.get('Resources');
    if (!resources.isDictionary()) continue; // nothing to draw text with
    const unit: StreamUnit = {
      id: result.units.length,
      kind: 'annotation',
      obj: ap,
      bytes,
      ops,
      contentsIndex: null,
      parent: null,
      resources,
      ownResources: true,
      annot,
    };
    result.units.push(unit);
    const gs: GState = { ctm: mul(mul(matrix, a), pageCtm), text: freshText() };
    run(unit, resources, gs, [], result, 1, { tm: IDENTITY, tlm: IDENTITY, lost: false });
  }
}

/** A widget's field type (/FT, inherited from its parent fields), or '' for other annotations. */
function fieldType(annot: mupdf.PDFObject): string {
  let node = annot;
  for (let depth = 0; depth < 16 && node.isDictionary(); depth += 1) {
    const ft = node.get('FT');
    if (ft.isName()) return ft.asName();
    node = node.get('Parent');
  }
  return '';
}

function numbers(o: mupdf.PDFObject, n: number): number[] | null {
  if (!o.isArray() || o.length < n) return null;
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const v = o.get(i);
    if (!v.isNumber()) return null;
    out.push(v.asNumber());
  }
  return out;
}

function freshText(): TextState {
  return { Tc: 0, Tw: 0, Th: 1, TL: 0, Tfs: 0, Trise: 0, Tr: 0, fontName: '', font: null };
}

const num = (o: Operand | undefined) => (o && o.kind === 'number' ? o.value : 0);

function fontFor(name: string, resources: mupdf.PDFObject, result: Interpretation): FontInfo | null {
  const ref = dictPath(resources, 'Font', name);
  if (!ref) return null;
  const key = ref.isIndirect() ? `obj${ref.asIndirect()}` : `direct:${name}`;
  let info = result.fonts.get(key);
  if (!info) {
    try {
      info = loadFontInfo(ref);
    } catch (error) {
      result.problems.push(`font ${name}: ${(error as Error).message}`);
      return null;
    }
    result.fonts.set(key, info);
  }
  return info;
}

interface TextPosition {
  tm: Mat;
  tlm: Mat;
  lost: boolean;
}

/** One stream being interpreted: its unit, resources and graphics state, and where the text is. */
interface Run {
  unit: StreamUnit;
  resources: mupdf.PDFObject;
  gs: GState;
  stack: GState[];
  result: Interpretation;
  depth: number;
  pos: TextPosition;
}

function run(
  unit: StreamUnit,
  resources: mupdf.PDFObject,
  gs: GState,
  stack: GState[],
  result: Interpretation,
  depth: number,
  pos: TextPosition = { tm: IDENTITY, tlm: IDENTITY, lost: false },
): void {
  // Text position lives in `pos`: a text object may run on into the next part of /Contents.
  const r: Run = { unit, resources, gs, stack, result, depth, pos };
  unit.ops.forEach((op, opIndex) => {
    if (!setState(r, op)) placeAndShow(r, op, opIndex);
  });
}

function setLine(pos: TextPosition, m: Mat): void {
  pos.tlm = m;
  pos.tm = m;
  pos.lost = false;
}

function nextLine(r: Run): void {
  setLine(r.pos, mul([1, 0, 0, 1, 0, -r.gs.text.TL], r.pos.tlm));
}

/** The graphics and text state operators (q, Q, cm, Tf, Tc, Tw, Tz, TL, Ts, Tr): true when `op` is one. */
function setState(r: Run, op: ContentOp): boolean {
  const { gs } = r;
  const a = op.operands;
  switch (op.op) {
    case 'q':
      r.stack.push({ ctm: gs.ctm, text: { ...gs.text } });
      return true;
    case 'Q': {
      const top = r.stack.pop();
      if (top) {
        gs.ctm = top.ctm;
        gs.text = top.text;
      }
      return true;
    }
    case 'cm':
      if (a.length >= 6) gs.ctm = mul(a.slice(0, 6).map(num) as Mat, gs.ctm);
      return true;
    case 'Tf': {
      const name = a[0]?.kind === 'name' ? a[0].value : '';
      gs.text.fontName = name;
      gs.text.font = fontFor(name, r.resources, r.result);
      gs.text.Tfs = num(a[1]);
      return true;
    }
    case 'Tc':
      gs.text.Tc = num(a[0]);
      return true;
    case 'Tw':
      gs.text.Tw = num(a[0]);
      return true;
    case 'Tz':
      gs.text.Th = num(a[0]) / 100;
      return true;
    case 'TL':
      gs.text.TL = num(a[0]);
      return true;
    case 'Ts':
      gs.text.Trise = num(a[0]);
      return true;
    case 'Tr':
      gs.text.Tr = num(a[0]);
      return true;
    default:
      return false;
  }
}

/** The operators that place and show text (BT, Td, TD, Tm, T*, Tj, ', ", TJ), and forms drawn (Do). */
function placeAndShow(r: Run, op: ContentOp, opIndex: number): void {
  const { gs, pos } = r;
  const a = op.operands;
  switch (op.op) {
    case 'BT':
      setLine(pos, IDENTITY);
      break;
    case 'Td':
      setLine(pos, mul([1, 0, 0, 1, num(a[0]), num(a[1])], pos.tlm));
      break;
    case 'TD':
      gs.text.TL = -num(a[1]);
      setLine(pos, mul([1, 0, 0, 1, num(a[0]), num(a[1])], pos.tlm));
      break;
    case 'Tm':
      setLine(pos, a.slice(0, 6).map(num) as Mat);
      break;
    case 'T*':
      nextLine(r);
      break;
    case 'Tj':
      if (a[0]) show(r, opIndex, a[a.length - 1], -1);
      break;
    case "'":
      nextLine(r);
      if (a[0]) show(r, opIndex, a[a.length - 1], -1);
      break;
    case '"':
      gs.text.Tw = num(a[0]);
      gs.text.Tc = num(a[1]);
      nextLine(r);
      if (a[2]) show(r, opIndex, a[2], -1);
      break;
    case 'TJ':
      showArray(r, opIndex, a[a.length - 1]);
      break;
    case 'Do':
      runForm(r, a[0]?.kind === 'name' ? a[0].value : '');
      break;
    default:
      break;
  }
}

/** A TJ array: its strings shown, its numbers moving the pen. */
function showArray(r: Run, opIndex: number, arr: Operand | undefined): void {
  const { gs, pos } = r;
  if (!arr || arr.kind !== 'array') return;
  arr.items.forEach((item, k) => {
    if (item.kind === 'string') show(r, opIndex, item, k);
    else if (item.kind === 'number') {
      // Vertical writing moves the pen along the column instead.
      const shift = (-item.value / 1000) * gs.text.Tfs;
      pos.tm =
        gs.text.font?.wmode === 1
          ? mul([1, 0, 0, 1, 0, shift], pos.tm)
          : mul([1, 0, 0, 1, shift * gs.text.Th, 0], pos.tm);
    }
  });
}

/** One string shown: a glyph for each of its codes, the pen advanced after each. */
function show(r: Run, opIndex: number, str: Operand, element: number): void {
  const { gs, pos, result, unit } = r;
  if (str.kind !== 'string') return;
  const t = gs.text;
  const font = t.font;
  if (!font) {
    pos.lost = true;
    return;
  }
  const codes = splitCodes(font, str.bytes);
  const vertical = font.wmode === 1 ? verticalMetrics(font) : null;
  if (!codes || (font.wmode !== 0 && !vertical)) {
    if (!codes) result.problems.push(`font ${t.fontName}: codes cannot be split (${font.encodingName})`);
    pos.lost = true;
    return;
  }
  for (const c of codes) {
    // Vertical writing (WMode 1), MuPDF's way: the glyph's origin is the pen moved by the
    // position vector, and the pen advances down the column by DW2's second number.
    let trm: Mat;
    let origin: [number, number];
    let advance: number;
    if (vertical) {
      trm = mul(mul(verticalTsm(t, codeWidth(font, c.code), vertical), pos.tm), gs.ctm);
      // MuPDF's text places a vertical glyph's character at the foot of its em box, (0, −1) in
      // glyph space: where the characters it is matched with stand.
      origin = apply(trm, 0, -1);
      advance = (vertical.w1 / 1000) * t.Tfs + t.Tc;
    } else {
      const space = c.length === 1 && c.code === 32 ? t.Tw : 0;
      advance = (codeWidth(font, c.code) * t.Tfs + t.Tc + space) * t.Th;
      trm = mul(mul([t.Tfs * t.Th, 0, 0, t.Tfs, 0, t.Trise], pos.tm), gs.ctm);
      origin = [trm[4], trm[5]];
    }
    result.glyphs.push({
      index: result.glyphs.length,
      unit: unit.id,
      opIndex,
      element,
      offset: c.offset,
      length: c.length,
      code: c.code,
      font,
      fontName: t.fontName,
      state: { ...t },
      tm: pos.tm,
      ctm: gs.ctm,
      origin,
      advance,
      lost: pos.lost,
    });
    pos.tm = mul(vertical ? [1, 0, 0, 1, 0, advance] : [1, 0, 0, 1, advance, 0], pos.tm);
  }
}

/** A form XObject drawn by Do: interpreted as a unit of its own, nested up to 8 deep. */
function runForm(r: Run, name: string): void {
  const { gs, resources, result, unit, depth } = r;
  const xobj = dictPath(resources, 'XObject', name);
  if (!xobj?.isStream()) return;
  if (xobj.get('Subtype').asName() !== 'Form') return;
  if (depth >= 8) {
    result.problems.push(`form ${name}: nested too deep`);
    return;
  }
  let bytes: Uint8Array;
  let parsed: ContentOp[];
  try {
    bytes = streamBytes(xobj);
    parsed = parseContent(bytes).ops;
  } catch (error) {
    result.problems.push(
      `form ${name}: ${error instanceof ContentSyntaxError ? error.message : 'unreadable'}`,
    );
    return;
  }
  const res = xobj.get('Resources');
  const child: StreamUnit = {
    id: result.units.length,
    kind: 'form',
    obj: xobj,
    bytes,
    ops: parsed,
    contentsIndex: null,
    parent: { unit: unit.id, name, resources },
    resources: res.isDictionary() ? res : resources,
    ownResources: res.isDictionary(),
  };
  result.units.push(child);
  const m = xobj.get('Matrix');
  const matrix: Mat = m.isArray() ? ([0, 1, 2, 3, 4, 5].map((i) => m.get(i).asNumber()) as Mat) : IDENTITY;
  const saved: GState = { ctm: gs.ctm, text: { ...gs.text } };
  const inner: GState = { ctm: mul(matrix, gs.ctm), text: { ...gs.text } };
  run(child, child.resources, inner, [], result, depth + 1);
  gs.ctm = saved.ctm;
  gs.text = saved.text;
}

/**
 * Vertical metrics of a WMode 1 font: DW2 ([vy w1], default [880 −1000]), or null when the font
 * gives per-glyph /W2 entries (not followed: such text stays unmapped and is refused).
 */
const verticalCache = new WeakMap<FontInfo, { vy: number; w1: number } | null>();

export function verticalMetrics(font: FontInfo): { vy: number; w1: number } | null {
  if (!verticalCache.has(font)) verticalCache.set(font, readVerticalMetrics(font));
  return verticalCache.get(font)!;
}

function readVerticalMetrics(font: FontInfo): { vy: number; w1: number } | null {
  const desc = font.dict.get('DescendantFonts');
  const cid = desc.isArray() ? desc.get(0) : null;
  if (!cid || !cid.isDictionary()) return { vy: 880, w1: -1000 };
  const w2 = cid.get('W2');
  if (w2.isArray() && w2.length > 0) return null;
  const dw2 = cid.get('DW2');
  if (dw2.isArray() && dw2.length >= 2 && dw2.get(0).isNumber() && dw2.get(1).isNumber())
    return { vy: dw2.get(0).asNumber(), w1: dw2.get(1).asNumber() };
  return { vy: 880, w1: -1000 };
}

/**
 * The em box (page points) a vertical glyph draws in when it shows `code`: its width across, one em
 * down the column from the pen (glyph space x 0…w0, y vy−1…vy). MuPDF's text puts vertical
 * characters' quads an em lower, at their feet; the engine declares and checks these boxes instead.
 */
export function verticalEmBox(
  g: Glyph,
  code: number,
  font: FontInfo = g.font,
): [number, number, number, number] | null {
  const vm = verticalMetrics(font);
  if (!vm) return null;
  const w0 = codeWidth(font, code);
  const trm = mul(mul(verticalTsm(g.state, w0, vm), g.tm), g.ctm);
  const corners = [
    apply(trm, 0, vm.vy / 1000 - 1),
    apply(trm, w0, vm.vy / 1000 - 1),
    apply(trm, 0, vm.vy / 1000),
    apply(trm, w0, vm.vy / 1000),
  ];
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Text-space matrix of a vertical glyph of width `w0` (em): its origin is the pen minus (w0/2, vy). */
function verticalTsm(t: TextState, w0: number, vm: { vy: number }): Mat {
  return [t.Tfs * t.Th, 0, 0, t.Tfs, (-w0 / 2) * Math.abs(t.Tfs), t.Trise - (vm.vy / 1000) * t.Tfs];
}
