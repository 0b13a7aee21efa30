// The batch edits file of `docfix fix --edits FILE` (docs/edits-file.md, docs/edits.schema.json),
// and `--replace OLD=NEW`. Both become a list of BatchEdit; a file may add edits for one input file.
import { readFile } from 'node:fs/promises';
import { UsageError } from './context.ts';

export interface BatchEdit {
  find: string;
  replace: string;
  /** Only this page (0-based); default every text page. */
  page?: number;
  /** Only this match on the page, numbered as `docfix search --page` numbers them (needs `page`). */
  match?: number;
  /** The matching rule (as search's --ignore-case, --word); unset: the command line's flags. */
  ignore_case?: boolean;
  word?: boolean;
  method: 'text_layer' | 'ocr';
  font_attempt: number;
  /** OCR: a person looked at a served crop of this match (the engine checks the crop was served). */
  confirmed?: boolean;
  /** OCR: the recognition language (unset: --lang, else the page's own). */
  lang?: string;
}

export interface EditsPlan {
  /** Edits for every file. */
  edits: BatchEdit[];
  /** Extra edits by input file base name. */
  files: Record<string, BatchEdit[]>;
}

/** `OLD=NEW` (a literal `=` in OLD is written `\=`). */
export function parseReplace(value: string): BatchEdit {
  const at = value.search(/(?<!\\)=/);
  if (at <= 0) throw new UsageError(`--replace takes OLD=NEW, got "${value}"`);
  const find = value.slice(0, at).replaceAll('\\=', '=');
  const replace = value.slice(at + 1);
  if (find.length > 200) throw new UsageError('--replace: the text to find is at most 200 characters');
  return { find, replace, method: 'text_layer', font_attempt: 0 };
}

const EDIT_KEYS = new Set([
  'find',
  'replace',
  'page',
  'match',
  'ignore_case',
  'word',
  'method',
  'font_attempt',
  'confirmed',
  'lang',
]);

function isInt(v: unknown, min = 0): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min;
}

/** Checks one edit of the file, naming the place of each problem. */
function parseEdit(raw: unknown, where: string, problems: string[]): BatchEdit | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${where}: an edit is an object {"find", "replace", …}`);
    return undefined;
  }
  const e = raw as Record<string, unknown>;
  const before = problems.length;
  for (const key of Object.keys(e)) if (!EDIT_KEYS.has(key)) problems.push(`${where}.${key}: unknown field`);
  if (typeof e.find !== 'string' || e.find.length === 0 || e.find.length > 200)
    problems.push(`${where}.find: a non-empty string of at most 200 characters is required`);
  if (typeof e.replace !== 'string' || e.replace.length > 400)
    problems.push(`${where}.replace: a string of at most 400 characters is required`);
  if (e.page !== undefined && !isInt(e.page)) problems.push(`${where}.page: an integer >= 0`);
  if (e.match !== undefined && !isInt(e.match)) problems.push(`${where}.match: an integer >= 0`);
  if (e.match !== undefined && e.page === undefined) problems.push(`${where}.match: needs "page"`);
  if (e.method !== undefined && e.method !== 'text_layer' && e.method !== 'ocr')
    problems.push(`${where}.method: "text_layer" or "ocr"`);
  if (e.method === 'ocr' && e.page === undefined)
    problems.push(`${where}.page: required with "method": "ocr"`);
  if (e.font_attempt !== undefined && !isInt(e.font_attempt))
    problems.push(`${where}.font_attempt: an integer >= 0`);
  for (const key of ['confirmed', 'ignore_case', 'word'])
    if (e[key] !== undefined && typeof e[key] !== 'boolean') problems.push(`${where}.${key}: true or false`);
  if (e.method === 'ocr' && (e.ignore_case !== undefined || e.word !== undefined))
    problems.push(`${where}: "ignore_case" and "word" match the text layer, not with "method": "ocr"`);
  if (e.lang !== undefined && (typeof e.lang !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{1,31}$/.test(e.lang)))
    problems.push(`${where}.lang: a recognition language such as "rus" (docfix ocr --languages)`);
  if (e.lang !== undefined && e.method !== 'ocr')
    problems.push(`${where}.lang: only for "method": "ocr" (the recognition language)`);
  if (e.confirmed === true && (e.method !== 'ocr' || e.match === undefined))
    problems.push(`${where}.confirmed: only for "method": "ocr" with "page" and "match"`);
  if (problems.length > before) return undefined;
  return {
    find: e.find as string,
    replace: e.replace as string,
    ...(e.page !== undefined ? { page: e.page as number } : {}),
    ...(e.match !== undefined ? { match: e.match as number } : {}),
    ...(e.ignore_case !== undefined ? { ignore_case: e.ignore_case as boolean } : {}),
    ...(e.word !== undefined ? { word: e.word as boolean } : {}),
    method: (e.method as BatchEdit['method'] | undefined) ?? 'text_layer',
    font_attempt: (e.font_attempt as number | undefined) ?? 0,
    ...(e.confirmed === true ? { confirmed: true } : {}),
    ...(typeof e.lang === 'string' ? { lang: e.lang } : {}),
  };
}

/** Checks an edits document (already parsed JSON); throws a UsageError listing every problem. */
export function parseEditsDocument(data: unknown, source = 'edits file'): EditsPlan {
  const problems: string[] = [];
  const doc = (Array.isArray(data) ? { version: 1, edits: data } : data) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object')
    throw new UsageError(`${source}: a JSON object {"version": 1, "edits": […]}`);
  for (const key of Object.keys(doc))
    if (!['$schema', 'version', 'edits', 'files'].includes(key)) problems.push(`${key}: unknown field`);
  if (doc.version !== undefined && doc.version !== 1) problems.push('version: must be 1');
  const plan: EditsPlan = { edits: [], files: {} };
  if (doc.edits !== undefined && !Array.isArray(doc.edits)) problems.push('edits: an array');
  for (const [i, raw] of ((doc.edits as unknown[]) ?? []).entries()) {
    const edit = parseEdit(raw, `edits[${i}]`, problems);
    if (edit) plan.edits.push(edit);
  }
  if (doc.files !== undefined) {
    if (!doc.files || typeof doc.files !== 'object' || Array.isArray(doc.files)) {
      problems.push('files: an object mapping a file name to its edits');
    } else {
      for (const [name, list] of Object.entries(doc.files as Record<string, unknown>)) {
        if (!Array.isArray(list)) {
          problems.push(`files.${name}: an array of edits`);
          continue;
        }
        plan.files[name] = [];
        for (const [i, raw] of list.entries()) {
          const edit = parseEdit(raw, `files.${name}[${i}]`, problems);
          if (edit) plan.files[name].push(edit);
        }
      }
    }
  }
  if (problems.length) throw new UsageError(`${source} is not valid: ${problems.join('; ')}`);
  if (plan.edits.length === 0 && Object.values(plan.files).every((l) => l.length === 0))
    throw new UsageError(`${source} has no edits`);
  return plan;
}

export async function readEditsFile(path: string): Promise<EditsPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `${path}: no such edits file`
        : code === 'EISDIR'
          ? `${path} is a directory`
          : `${path}: ${code}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
  return parseEditsDocument(data, path);
}
