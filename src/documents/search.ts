// Document search through the text layer: every page that carries text is searched; scanned pages
// without a text layer are named in `pages_needing_recognition` instead (OCR is a separate route).
// Matches follow the one matching rule (text-find.ts lineMatches: exact by default, within a line),
// over the page's text as the correction engine reads it (src/corrections/page-text.ts), so every hit
// is a target a correction can take: its page, its text as on the page and the engine's match_index.
// The pages' text is kept per revision in folded form (text-index.ts): pages whose text cannot hold
// the query are not read again, and on a page that may match only the lines holding the query are
// read character by character.
import { readLinesWhere, type TextLine } from '../corrections/locate/page-text.ts';
import { DocfixError } from '../errors.ts';
import { loadPage, type mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { SearchHit, SearchOut } from '../schemas.ts';
import { SEARCH_MATCH_CAP, SEARCH_QUERY_MAX } from './limits.ts';
import { openPdfFile } from './pdf-file.ts';
import {
  EXACT_RULE,
  hasAnnotations,
  lineMatches,
  mayMatch,
  pageStext,
  searchableText,
  toBoxRender,
  unionQuads,
  type LineMatch,
  type MatchRule,
  type Quad,
} from './text-find.ts';
import { emptyTextIndex, isComplete, loadTextIndex, storeTextIndex, type TextIndex } from './text-index.ts';

export interface SearchOptions {
  password?: string;
  /** Page kinds from classification; 'scanned' pages are not searched. Classified here when absent. */
  kinds?: string[];
  /** At most this many matches are listed (default SEARCH_MATCH_CAP), then `truncated`. */
  cap?: number;
  /** The matching rule (default exact, case-sensitive, anywhere). */
  rule?: MatchRule;
  /** Only these pages (0-based indexes); default every page. */
  pages?: number[];
  /** Count every match on the pages searched, beyond the cap too (`total`, `pages_matched`). */
  count?: boolean;
}

/**
 * Pages this thread's searches read (counted for tests, never timed): `indexed` to add them to a
 * text index, `matched` character by character because their indexed text may hold the query.
 */
export const pagesRead = { indexed: 0, matched: 0 };

/**
 * Pages a thread searches at the least when an indexed search of a long document is split over
 * several (joinSearchParts): below it the extra thread's opening of the file and reading of the
 * index cost more than the pages it takes over.
 */
export const SEARCH_PART_MIN_PAGES = 48;

/** Characters of the line kept on each side of a hit (`before`, `after`). */
const CONTEXT_CHARS = 80;

/** Searches every text-bearing page of an open document. */
export function searchDocument(doc: mupdf.PDFDocument, q: string, options: SearchOptions = {}): SearchOut {
  return searchWithIndex(() => doc, doc.countPages(), q, options, null).out;
}

function checkQuery(q: string): void {
  if (q.length > SEARCH_QUERY_MAX) {
    throw new DocfixError(
      'invalid_request',
      `The search query is longer than ${SEARCH_QUERY_MAX} characters.`,
      { problems: [{ field: 'q', problem: `at most ${SEARCH_QUERY_MAX} characters` }] },
    );
  }
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const lower = (c: string) => c.toLowerCase();

/** A hit as the API answers it, from a match in the engine's lines of page `pageIndex`. */
function hitOf(pageIndex: number, line: TextLine, m: LineMatch): SearchHit {
  const length = Array.from(m.text).length;
  const chars = line.chars.slice(m.start, m.start + length);
  const visible = chars.filter((ch) => ch.c.trim() !== '');
  const bbox = unionQuads((visible.length > 0 ? visible : chars).map((ch) => ch.quad as Quad));
  const text = (from: number, to: number) =>
    line.chars
      .slice(Math.max(0, from), Math.max(0, to))
      .map((ch) => ch.c)
      .join('');
  return {
    page_index: pageIndex,
    text: m.text,
    box_render: toBoxRender(bbox),
    confidence: 1,
    match_index: m.occurrence,
    box: bbox.map(round2),
    before: text(m.start - CONTEXT_CHARS, m.start),
    after: text(m.start + length, m.start + length + CONTEXT_CHARS),
  };
}

/** What a search collects while it walks the pages. */
class Collector {
  readonly matches: SearchHit[] = [];
  readonly pagesMatched: number[] = [];
  total = 0;
  truncated = false;
  readonly q: string;
  readonly cap: number;
  readonly rule: MatchRule;
  readonly count: boolean;
  private readonly lowerQuery: string;

  constructor(q: string, options: SearchOptions) {
    this.q = q;
    this.lowerQuery = Array.from(q, lower).join('');
    this.cap = options.cap ?? SEARCH_MATCH_CAP;
    this.rule = options.rule ?? EXACT_RULE;
    this.count = options.count ?? false;
  }

  /**
   * The line could hold a match: its characters, each lower-cased on its own under ignoreCase as
   * lineMatches compares them, contain the query's.
   */
  readonly holdsQuery = (chars: readonly string[]): boolean =>
    this.rule.ignoreCase
      ? chars.map(lower).join('').includes(this.lowerQuery)
      : chars.join('').includes(this.q);

  /** Nothing more to find: the query is empty, or the listing is full and nobody asked to count. */
  get done(): boolean {
    return this.q === '' || (this.truncated && !this.count);
  }

  /**
   * Reads the page as the engine does and takes its matches. Characters are read only for the lines
   * whose text holds the query in the rule's case (whole word or not): a line with a match holds it
   * so, and so does every line with an exact occurrence of a match's text, which match_index counts.
   */
  addPage(pageIndex: number, page: mupdf.Page, st?: mupdf.StructuredText): void {
    pagesRead.matched++;
    const lines = readLinesWhere(page, this.holdsQuery, st);
    const found = lineMatches(
      lines.map((l) => l.chars.map((ch) => ch.c)),
      this.q,
      this.rule,
    );
    if (found.length === 0) return;
    this.total += found.length;
    this.pagesMatched.push(pageIndex);
    for (const m of found) {
      if (this.matches.length >= this.cap) {
        this.truncated = true;
        break;
      }
      this.matches.push(hitOf(pageIndex, lines[m.line], m));
    }
  }
}

/**
 * Searches with the revision's text index when there is one: pages whose indexed text cannot hold the
 * query are not opened at all, and the document itself is opened only when some page may hold it.
 * Pages the index has not read yet are read here and added to it; the index comes back with them.
 */
export function searchWithIndex(
  openDoc: () => mupdf.PDFDocument,
  pageCount: number,
  q: string,
  options: SearchOptions,
  known: TextIndex | null,
): { out: SearchOut; index: TextIndex; added: boolean } {
  checkQuery(q);
  const index = known ?? emptyTextIndex(pageCount);
  let added = false;
  const found = new Collector(q, options);
  const searched: number[] = [];
  const needRecognition: number[] = [];
  const selected = options.pages ? new Set(options.pages) : null;
  for (let i = 0; i < pageCount; i++) {
    if (selected && !selected.has(i)) continue;
    if (options.kinds?.[i] === 'scanned') {
      needRecognition.push(i);
      continue;
    }
    const indexed = index.pages[i];
    if (indexed === null && options.kinds && found.done && known !== null) {
      // Nothing more to find: classified text-bearing pages count as searched without reading them.
      searched.push(i);
      continue;
    }
    if (indexed !== null) {
      if (options.kinds === undefined && index.blank[i]) {
        needRecognition.push(i);
        continue;
      }
      searched.push(i);
      if (found.done || !mayMatch(indexed, q)) continue;
      const page = loadPage(openDoc(), i);
      try {
        found.addPage(i, page);
      } finally {
        page.destroy();
      }
      continue;
    }
    // Not indexed yet: one structured-text pass gives the index entry; the page is read for matches
    // only when it may hold one.
    const page = loadPage(openDoc(), i);
    let st: mupdf.StructuredText | null = null;
    try {
      st = pageStext(page);
      pagesRead.indexed++;
      const plain = st.asText();
      index.pages[i] = searchableText(plain);
      index.blank[i] = plain.trim() === '';
      added = true;
      if (options.kinds === undefined && index.blank[i]) {
        // Unclassified page without any text: a scan (or blank) the text layer cannot read.
        needRecognition.push(i);
        continue;
      }
      searched.push(i);
      if (found.done || !mayMatch(index.pages[i]!, q)) continue;
      // The index's pass is the one the matches are read from where it is the page's own: pageStext
      // records an annotated page with its annotations, which the engine's lines read after it.
      found.addPage(i, page, hasAnnotations(page) ? undefined : st);
    } finally {
      st?.destroy();
      page.destroy();
    }
  }
  const out: SearchOut = {
    query: q,
    matches: found.matches,
    pages_searched: searched,
    pages_needing_recognition: needRecognition,
    truncated: found.truncated,
  };
  if (!found.truncated || found.count) {
    out.total = found.total;
    out.pages_matched = found.pagesMatched;
  }
  return { out, index, added };
}

/** Opens bytes and searches them (engine task body). */
export function searchPdf(bytes: Uint8Array, q: string, options: SearchOptions = {}): SearchOut {
  const opened = openPdf(bytes, options.password ?? '');
  try {
    return searchDocument(opened.doc, q, options);
  } finally {
    opened.doc.destroy();
  }
}

/**
 * Searches the revision blob at `path` through its text index (text-index.ts): the first search of
 * a revision reads every page and keeps the index; later ones open only the pages that may match.
 * The file is read as MuPDF needs it (pdf-file.ts), never whole.
 */
export function searchFile(path: string, q: string, options: SearchOptions = {}): SearchOut {
  const password = options.password ?? '';
  const persisted = password === '';
  const known = loadTextIndex(path, persisted);
  let doc: mupdf.PDFDocument | null = null;
  const openDoc = () => (doc ??= openPdfFile(path, password));
  try {
    const pageCount = known ? known.pages.length : openDoc().countPages();
    const result = searchWithIndex(openDoc, pageCount, q, options, known);
    if (result.added) storeTextIndex(path, result.index, persisted && isComplete(result.index));
    return result.out;
  } finally {
    (doc as mupdf.PDFDocument | null)?.destroy();
  }
}

/**
 * One search answered from searches of consecutive page ranges (the ranges in page order, each with
 * the same query, rule, cap and count): the answer one search over all of them gives. A listing
 * holds the first `cap` matches in page order and is truncated when there were more; the totals are
 * known when nothing was truncated or every range counted.
 */
export function joinSearchParts(
  parts: SearchOut[],
  options: { cap?: number; count?: boolean } = {},
): SearchOut {
  const cap = options.cap ?? SEARCH_MATCH_CAP;
  const all = parts.flatMap((p) => p.matches ?? []);
  const truncated = all.length > cap || parts.some((p) => p.truncated);
  const out: SearchOut = {
    query: parts[0]?.query ?? '',
    matches: all.slice(0, cap),
    pages_searched: parts.flatMap((p) => p.pages_searched ?? []),
    pages_needing_recognition: parts.flatMap((p) => p.pages_needing_recognition ?? []),
    truncated,
  };
  if (!truncated || options.count) {
    out.total = parts.reduce((sum, p) => sum + (p.total ?? 0), 0);
    out.pages_matched = parts.flatMap((p) => p.pages_matched ?? []);
  }
  return out;
}
