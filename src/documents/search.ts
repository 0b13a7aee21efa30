// Document search through the text layer: every page that carries text is searched; scanned pages
// without a text layer are named in `pages_needing_recognition` instead (OCR is a separate route).
// One structured-text pass per page; characters are read only on pages whose text may contain the query.
// The pages' text is kept per revision (text-index.ts), so a second search reads only those pages.
import { DocfixError } from '../errors.ts';
import { loadPage, type mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { SearchHit, SearchOut } from '../schemas.ts';
import { SEARCH_MATCH_CAP, SEARCH_QUERY_MAX } from './limits.ts';
import { openPdfFile } from './pdf-file.ts';
import {
  findMatches,
  foldNeedle,
  mayMatch,
  pageStext,
  readPageText,
  searchableText,
  type PageText,
} from './text-find.ts';
import { emptyTextIndex, isComplete, loadTextIndex, storeTextIndex, type TextIndex } from './text-index.ts';

export interface SearchOptions {
  password?: string;
  /** Page kinds from classification; 'scanned' pages are not searched. Classified here when absent. */
  kinds?: string[];
  cap?: number;
}

/** Searches every text-bearing page of an open document. */
export function searchDocument(doc: mupdf.PDFDocument, q: string, options: SearchOptions = {}): SearchOut {
  return searchWithIndex(() => doc, doc.countPages(), q, options, null).out;
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
  if (q.length > SEARCH_QUERY_MAX) {
    throw new DocfixError(
      'invalid_request',
      `The search query is longer than ${SEARCH_QUERY_MAX} characters.`,
      {
        problems: [{ field: 'q', problem: `at most ${SEARCH_QUERY_MAX} characters` }],
      },
    );
  }
  const index = known ?? emptyTextIndex(pageCount);
  let added = false;
  const cap = options.cap ?? SEARCH_MATCH_CAP;
  const out: SearchOut = {
    query: q,
    matches: [],
    pages_searched: [],
    pages_needing_recognition: [],
    truncated: false,
  };
  const matches: SearchHit[] = [];
  const wanted = foldNeedle(q);
  const addMatches = (i: number, text: PageText) => {
    const found = findMatches(text, wanted, cap - matches.length + 1);
    for (const m of found) {
      if (matches.length >= cap) {
        out.truncated = true;
        break;
      }
      matches.push({ page_index: i, text: m.text, box_render: m.box_render, confidence: 1 });
    }
  };
  for (let i = 0; i < pageCount; i++) {
    if (options.kinds?.[i] === 'scanned') {
      out.pages_needing_recognition!.push(i);
      continue;
    }
    const indexed = index.pages[i];
    if (indexed === null && options.kinds && (out.truncated || wanted === '') && known !== null) {
      // Nothing more to find: classified text-bearing pages count as searched without reading them.
      out.pages_searched!.push(i);
      continue;
    }
    if (indexed !== null) {
      if (options.kinds === undefined && index.blank[i]) {
        out.pages_needing_recognition!.push(i);
        continue;
      }
      out.pages_searched!.push(i);
      if (wanted === '' || out.truncated || !mayMatch(indexed, wanted)) continue;
      const page = loadPage(openDoc(), i);
      try {
        addMatches(i, readPageText(page));
      } finally {
        page.destroy();
      }
      continue;
    }
    // Not indexed yet: one structured-text pass gives the index entry and, when needed, the matches.
    const page = loadPage(openDoc(), i);
    try {
      const st = pageStext(page);
      try {
        const plain = st.asText();
        index.pages[i] = searchableText(plain);
        index.blank[i] = plain.trim() === '';
        added = true;
        if (options.kinds === undefined && index.blank[i]) {
          // Unclassified page without any text: a scan (or blank) the text layer cannot read.
          out.pages_needing_recognition!.push(i);
          continue;
        }
        out.pages_searched!.push(i);
        if (wanted === '' || out.truncated || !mayMatch(index.pages[i]!, wanted)) continue;
        addMatches(i, readPageText(page, st));
      } finally {
        st.destroy();
      }
    } finally {
      page.destroy();
    }
  }
  out.matches = matches;
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
