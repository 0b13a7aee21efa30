// Engine tasks of the documents area (inspect on upload, classify, search, preview, crop). Each reads
// the PDF from a path in the data dir (bytes never cross the worker boundary) and answers plain data;
// search, preview and crop read only the parts of the stored revision they need (pdf-file.ts).
import { readFileSync } from 'node:fs';
import {
  classifyPages,
  inspectPdf,
  type InspectedPages,
  type InspectResult,
  startInspect,
} from './inspect.ts';
import { type CropPicture, type CropRequest, type Picture, renderCrop, renderPreview } from './render.ts';
import { openPdfFile } from './pdf-file.ts';
import { searchFile } from './search.ts';
import { type mupdf, openPdf } from '../pdf/mupdf-adapter.ts';
import type { SearchOut } from '../schemas.ts';

export interface InspectTaskInput {
  path: string;
  password: string;
  max_pages?: number;
  /** Write the pages' text index here (an upload without a password: its first search is then light). */
  index_path?: string;
}

/** The first step of an upload's inspection, which a long document splits over `parts` threads. */
export interface InspectStartTaskInput extends InspectTaskInput {
  parts: number;
}

/** One range of a split inspection: pages `[from, to)`, with their text-index entries when `index`. */
export interface InspectPagesTaskInput {
  path: string;
  password: string;
  from: number;
  to: number;
  index: boolean;
}

export interface SearchTaskInput {
  path: string;
  password: string;
  q: string;
  kinds?: string[];
  ignore_case?: boolean;
  word?: boolean;
  /** Only these pages (0-based). */
  pages?: number[];
  limit?: number;
  count?: boolean;
}

export interface PreviewTaskInput {
  path: string;
  password: string;
  page_index: number;
  thumb: boolean;
}

export interface CropTaskInput extends CropRequest {
  path: string;
  password: string;
}

function readPdf(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

function inspectOptions(input: InspectTaskInput) {
  return {
    password: input.password,
    maxPages: input.max_pages,
    ...(input.index_path ? { indexPath: input.index_path } : {}),
  };
}

/** Runs `use` on the stored revision at `path`, read as MuPDF needs it (a page, not the whole file). */
function withStoredPdf<T>(path: string, password: string, use: (doc: mupdf.PDFDocument) => T): T {
  const doc = openPdfFile(path, password);
  try {
    return use(doc);
  } finally {
    doc.destroy();
  }
}

export const documentTasks = {
  'documents.inspect': (input: InspectTaskInput): InspectResult =>
    inspectPdf(readPdf(input.path), inspectOptions(input)),
  'documents.inspect-start': (input: InspectStartTaskInput) =>
    startInspect(readPdf(input.path), inspectOptions(input), input.parts),
  // Read whole, as the start step reads it: classifying reads most of the file anyway, and MuPDF
  // reading it through a file-backed stream cost a third more here.
  'documents.inspect-pages': (input: InspectPagesTaskInput): InspectedPages => {
    const { doc } = openPdf(readPdf(input.path), input.password);
    try {
      return classifyPages(doc, input.from, input.to, input.index);
    } finally {
      doc.destroy();
    }
  },
  'documents.search': (input: SearchTaskInput): SearchOut =>
    searchFile(input.path, input.q, {
      password: input.password,
      kinds: input.kinds,
      rule: { ignoreCase: input.ignore_case ?? false, word: input.word ?? false },
      ...(input.pages ? { pages: input.pages } : {}),
      ...(input.limit ? { cap: input.limit } : {}),
      count: input.count ?? false,
    }),
  'documents.preview': (input: PreviewTaskInput): Picture =>
    withStoredPdf(input.path, input.password, (doc) => renderPreview(doc, input.page_index, input.thumb)),
  'documents.crop': (input: CropTaskInput): CropPicture => {
    const { path, password, ...req } = input;
    return withStoredPdf(path, password, (doc) => renderCrop(doc, req));
  },
};
