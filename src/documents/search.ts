// Document search through the text layer: every page that carries text is searched; scanned pages
// without a text layer are named in `pages_needing_recognition` instead (OCR is a separate route).
// One structured-text pass per page; characters are read only on pages whose text may contain the query.
import { DocfixError } from '../errors.ts';
import { type mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { SearchHit, SearchOut } from '../schemas.ts';
import { SEARCH_MATCH_CAP, SEARCH_QUERY_MAX } from './limits.ts';
import { findMatches, foldNeedle, mayContain, pageStext, readPageText } from './text-find.ts';

export interface SearchOptions {
  password?: string;
  /** Page kinds from classification; 'scanned' pages are not searched. Classified here when absent. */
  kinds?: string[];
  cap?: number;
}

/** Searches every text-bearing page of an open document. */
export function searchDocument(doc: mupdf.PDFDocument, q: string, options: SearchOptions = {}): SearchOut {
  if (q.length > SEARCH_QUERY_MAX) {
    throw new DocfixError(
      'invalid_request',
      `The search query is longer than ${SEARCH_QUERY_MAX} characters.`,
      {
        problems: [{ field: 'q', problem: `at most ${SEARCH_QUERY_MAX} characters` }],
      },
    );
  }
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
  const count = doc.countPages();
  for (let i = 0; i < count; i++) {
    if (options.kinds?.[i] === 'scanned') {
      out.pages_needing_recognition!.push(i);
      continue;
    }
    if (options.kinds && (out.truncated || wanted === '')) {
      // Nothing more to find: classified text-bearing pages count as searched without reading them.
      out.pages_searched!.push(i);
      continue;
    }
    const page = doc.loadPage(i);
    try {
      const st = pageStext(page);
      try {
        const plain = st.asText();
        if (options.kinds === undefined && plain.trim() === '') {
          // Unclassified page without any text: a scan (or blank) the text layer cannot read.
          out.pages_needing_recognition!.push(i);
          continue;
        }
        out.pages_searched!.push(i);
        if (wanted === '' || out.truncated || !mayContain(plain, wanted)) continue;
        const found = findMatches(readPageText(page, st), wanted, cap - matches.length + 1);
        for (const m of found) {
          if (matches.length >= cap) {
            out.truncated = true;
            break;
          }
          matches.push({ page_index: i, text: m.text, box_render: m.box_render, confidence: 1 });
        }
      } finally {
        st.destroy();
      }
    } finally {
      page.destroy();
    }
  }
  out.matches = matches;
  return out;
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
