// Which pages draw from which objects: the document's reference graph as its pages reach it, read
// once per document and kept, so that proving the other pages of a long document unchanged costs
// in proportion to the objects a correction rewrote, not to the page count (docs/engine.md,
// "Verification"). A page reaches an object when the object is in its closure: page dictionary,
// contents, resources, annotations and all they reference, back-links (/Parent, /P, …) and
// navigation arrays left out (refsOf). The pages that reach a rewritten object are found by walking
// up from it through the objects that refer to it.
import { closeDocument, type mupdf } from '../../pdf/mupdf-adapter.ts';
import { sha256, sha256Extending } from '../locate/pdf-bytes.ts';

const BACK_LINK =
  /\/(?:Parent|P|Pg|IRT|Popup|StructParent|StructParents|Next|Prev|First|Last|Thumb|Metadata|PieceInfo|B)\s*\d+\s+\d+\s+R/g;
const NAV_ARRAY = /\/(?:Dest|D)\s*\[[^\]]*\]/g;
// A page-tree node is reached from its pages for the attributes they inherit (/Resources,
// /MediaBox, /Rotate …), never for its other pages.
const KIDS = /\/Kids\s*\[[^\]]*\]/g;
const REF = /(\d+)\s+(\d+)\s+R/g;

/** Object numbers an object's text refers to, back-links and navigation arrays left out. */
export function refsOf(text: string): number[] {
  const out: number[] = [];
  const clean = text.replace(BACK_LINK, '').replace(NAV_ARRAY, '');
  for (const m of clean.matchAll(REF)) out.push(Number(m[1]));
  return out;
}

/** An object's references as MuPDF reads it (decrypted, repaired as MuPDF repairs), /Kids left out. */
function readRefs(doc: mupdf.PDFDocument, num: number): number[] {
  return refsOf(doc.newIndirect(num).resolve().toString(true).replace(KIDS, ''));
}

/** The page-tree nodes above a page (its /Parent chain), whose attributes it inherits. */
function ancestorsOf(page: mupdf.PDFObject): number[] {
  const out: number[] = [];
  let node = page.resolve().get('Parent');
  for (let depth = 0; node.isIndirect() && depth < 64; depth += 1) {
    const num = node.asIndirect();
    if (out.includes(num)) break;
    out.push(num);
    node = node.resolve().get('Parent');
  }
  return out;
}

/**
 * The reference graph of a document's pages. Nodes are object numbers; a page held as a direct
 * object (no number of its own) is the node `-1 - pageIndex`.
 */
export class PageReach {
  /** Each page's node, by page index. */
  readonly pageNodes: number[];
  /** Each node's references (objects reached from some page only); see #refs. */
  #refsMap: Map<number, number[]> | null;
  /** An updated graph not yet needed: its base's references and those read again (see updated()). */
  #pending: { base: Map<number, number[]>; changes: Map<number, number[]> } | null = null;
  #referrers: Map<number, number[]> | null = null;
  #pagesOf: Map<number, number[]> | null = null;
  readonly #pageSet: Set<number>;
  /** The page-tree nodes above the pages (their inherited attributes). */
  readonly #tree: Set<number>;

  private constructor(pageNodes: number[], refs: Map<number, number[]> | null, tree: Set<number>) {
    this.pageNodes = pageNodes;
    this.#refsMap = refs;
    this.#pageSet = new Set(pageNodes);
    this.#tree = tree;
  }

  /** The references, an update's merged into its base's the first time they are needed. */
  get #refs(): Map<number, number[]> {
    if (!this.#refsMap) {
      const { base, changes } = this.#pending!;
      const refs = new Map(base);
      for (const [num, out] of changes) refs.set(num, out);
      this.#refsMap = refs;
      this.#pending = null;
    }
    return this.#refsMap;
  }

  /** Reads the graph of every page of `doc`: each object a page reaches is read once. */
  static read(doc: mupdf.PDFDocument): PageReach {
    const refs = new Map<number, number[]>();
    const pageNodes: number[] = [];
    const tree = new Set<number>();
    const count = doc.countPages();
    for (let i = 0; i < count; i += 1) {
      const page = doc.findPage(i);
      if (page.isIndirect()) {
        pageNodes.push(page.asIndirect());
        continue;
      }
      pageNodes.push(-1 - i);
      const above = ancestorsOf(page);
      for (const n of above) tree.add(n);
      refs.set(-1 - i, [...refsOf(page.toString(true).replace(KIDS, '')), ...above]);
    }
    const reach = new PageReach(pageNodes, refs, tree);
    reach.#readFrom(
      doc,
      pageNodes.flatMap((n) => (n < 0 ? (refs.get(n) ?? []) : [n])),
      refs,
      (n) => refs.has(n),
    );
    return reach;
  }

  /** One object's references; a page's include the tree nodes it inherits from. */
  #readOne(doc: mupdf.PDFDocument, num: number): number[] {
    try {
      const out = readRefs(doc, num);
      if (this.#pageSet.has(num)) {
        const above = ancestorsOf(doc.newIndirect(num));
        for (const n of above) this.#tree.add(n);
        out.push(...above);
      }
      return out;
    } catch {
      return []; // an object MuPDF cannot read draws nothing and refers to nothing
    }
  }

  /** Reads into `into` the objects reached from `start` not `known` yet (an explicit stack: no depth limit). */
  #readFrom(
    doc: mupdf.PDFDocument,
    start: number[],
    into: Map<number, number[]>,
    known: (num: number) => boolean,
  ): void {
    const stack = [...start];
    while (stack.length) {
      const num = stack.pop()!;
      if (into.has(num)) continue;
      const out = this.#readOne(doc, num);
      into.set(num, out);
      for (const n of out) if (!known(n)) stack.push(n);
    }
  }

  /**
   * The graph of the same pages after an update that wrote `written` again (or anew), read from the
   * updated document `doc`: those objects' references are read again, and what they newly reach,
   * and nothing else until the graph is used. Null when the update wrote a page-tree node (the
   * pages may have moved) or changed the page count: the next correction reads the graph again.
   */
  updated(doc: mupdf.PDFDocument, written: Iterable<number>): PageReach | null {
    const base = this.#refs;
    const again = [...written];
    if (doc.countPages() !== this.pageNodes.length || again.some((n) => this.#tree.has(n))) return null;
    const next = new PageReach(this.pageNodes, null, new Set(this.#tree));
    const changes = new Map<number, number[]>();
    const rewritten = new Set(again);
    next.#readFrom(
      doc,
      again.filter((n) => base.has(n)),
      changes,
      (n) => changes.has(n) || (base.has(n) && !rewritten.has(n)),
    );
    next.#pending = { base, changes };
    return next;
  }

  /** Objects that refer to each object, read once from the references. */
  #up(): Map<number, number[]> {
    if (this.#referrers) return this.#referrers;
    const up = new Map<number, number[]>();
    for (const [from, tos] of this.#refs)
      for (const to of tos) {
        const list = up.get(to);
        if (list) list.push(from);
        else up.set(to, [from]);
      }
    this.#referrers = up;
    return up;
  }

  /** Page indices by node (a page object listed twice in the tree draws on both). */
  #pages(): Map<number, number[]> {
    if (this.#pagesOf) return this.#pagesOf;
    const pages = new Map<number, number[]>();
    this.pageNodes.forEach((node, i) => {
      const list = pages.get(node);
      if (list) list.push(i);
      else pages.set(node, [i]);
    });
    this.#pagesOf = pages;
    return pages;
  }

  /**
   * Indices of the pages whose closure reaches any of `objects` (a page whose own dictionary is one
   * of them included): the objects' referrers walked upwards, so the work is what lies above them.
   */
  pagesReaching(objects: Iterable<number>): number[] {
    const up = this.#up();
    const pages = this.#pages();
    const seen = new Set<number>();
    const stack = [...objects];
    const found = new Set<number>();
    while (stack.length) {
      const num = stack.pop()!;
      if (seen.has(num)) continue;
      seen.add(num);
      for (const i of pages.get(num) ?? []) found.add(i);
      for (const from of up.get(num) ?? []) if (!seen.has(from)) stack.push(from);
    }
    return [...found].sort((a, b) => a - b);
  }
}

/**
 * Graphs of the last few documents, by the SHA-256 of their bytes: those read page by page (`read`,
 * a long document's cost) apart from those updated from them for a correction's output (`updated`,
 * the next revision if it is applied; a few objects read). Each is bounded on its own, so the
 * outputs of proposals on other documents never push out a graph that was read.
 */
const read = new Map<string, PageReach>();
const updated = new Map<string, PageReach>();
const KEPT_READ = 3;
const KEPT_UPDATED = 4;

function remember(known: Map<string, PageReach>, key: string, reach: PageReach, kept: number): void {
  known.delete(key);
  known.set(key, reach);
  while (known.size > kept) known.delete(known.keys().next().value!);
}

const knownGraph = (key: string) => read.get(key) ?? updated.get(key);

/**
 * The graph of the document whose bytes are `bytes`: kept from an earlier correction on them, or read
 * through `open` (a copy of them opened as the engine opens it, closed again here).
 */
export function pageReachOf(
  bytes: Uint8Array,
  open: () => mupdf.PDFDocument,
): { reach: PageReach; kept: boolean } {
  const key = sha256(bytes);
  const kept = knownGraph(key);
  if (kept) {
    // A revision corrected again is an input now: its graph is kept as one read.
    updated.delete(key);
    remember(read, key, kept, KEPT_READ);
    return { reach: kept, kept: true };
  }
  const doc = open();
  try {
    const reach = PageReach.read(doc);
    remember(read, key, reach, KEPT_READ);
    return { reach, kept: false };
  } finally {
    closeDocument(doc);
  }
}

/**
 * Keeps the graph of `output`, an update of a document whose graph is `reach` that wrote the objects
 * `written`, so that the next correction on it (the next revision) does not read every page again.
 * `extended`: the bytes `output` appends to, whose hash state the output's hash goes on from (a long
 * file's bytes are not read again to name its next revision).
 */
export function keepUpdatedReach(
  reach: PageReach,
  output: Uint8Array,
  doc: mupdf.PDFDocument,
  written: Iterable<number>,
  extended: Uint8Array,
): void {
  const key = sha256Extending(output, extended);
  if (knownGraph(key)) return;
  const next = reach.updated(doc, written);
  if (next) remember(updated, key, next, KEPT_UPDATED);
}

/** The kept graph of `bytes`, when one is kept. */
export function keptReach(bytes: Uint8Array): PageReach | undefined {
  return knownGraph(sha256(bytes));
}
