// The recognition languages this machine has: the bundled `@tesseract.js-data/<lang>` packages and
// tesseract's own language data wherever the machine keeps it (a folder named by
// DOCFIX_TESSDATA_DIRS, TESSDATA_PREFIX, Debian's `tesseract-ocr-<lang>` folders). Every language is
// read from a local file: nothing is ever downloaded. This module only looks at folders (no
// tesseract.js), so the daemon can list languages without loading the recogniser.
import { createRequire } from 'node:module';
import { readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);

/** Where a language's data was found, in the order a language present in several places is taken. */
export type LanguageSource = 'configured' | 'bundled' | 'tessdata_prefix' | 'system';

export interface LanguageData {
  /** Tesseract's name of the language (`eng`, `rus`, `chi_sim`). */
  code: string;
  source: LanguageSource;
  /** The folder holding the file (handed to tesseract.js as its local `langPath`). */
  folder: string;
  /** The file itself: `<code>.traineddata` or `<code>.traineddata.gz`. */
  file: string;
  gzip: boolean;
}

export interface LanguageFolder {
  folder: string;
  source: LanguageSource;
  exists: boolean;
}

/** Debian's and other distributions' tessdata folders (tesseract 4 and 5, any version folder). */
const SYSTEM_ROOTS = ['/usr/share/tesseract-ocr', '/usr/local/share/tesseract-ocr'];
const SYSTEM_FOLDERS = ['/usr/share/tessdata', '/usr/local/share/tessdata'];

/**
 * Data files that are not languages to read words in: orientation and script detection, and the
 * legacy-engine-only equation model (the recogniser runs the LSTM engine only).
 */
const NOT_LANGUAGES = new Set(['osd', 'equ']);

/** A name tesseract gives a language file: letters, digits and underscores (`chi_sim_vert`). */
export const LANGUAGE_CODE = /^[A-Za-z][A-Za-z0-9_]{1,31}$/;

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folders to look in, in the order of precedence, with where each comes from. */
export function languageFolders(env: NodeJS.ProcessEnv = process.env): LanguageFolder[] {
  const folders: { folder: string; source: LanguageSource }[] = [];
  for (const dir of (env.DOCFIX_TESSDATA_DIRS ?? '').split(delimiter)) {
    if (dir.trim()) folders.push({ folder: resolve(dir.trim()), source: 'configured' });
  }
  const scope = bundledScope();
  if (scope) {
    for (const lang of safeList(scope).sort()) {
      folders.push({ folder: join(scope, lang, '4.0.0'), source: 'bundled' });
    }
  }
  const prefix = env.TESSDATA_PREFIX?.trim();
  if (prefix && isAbsolute(prefix)) {
    // Tesseract 4 and 5 name the tessdata folder itself; tesseract 3 named its parent.
    folders.push({ folder: resolve(prefix), source: 'tessdata_prefix' });
    folders.push({ folder: join(resolve(prefix), 'tessdata'), source: 'tessdata_prefix' });
  }
  for (const root of SYSTEM_ROOTS) {
    // Newest version folder first (5 before 4.00).
    const versions = safeList(root).sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    for (const v of versions) folders.push({ folder: join(root, v, 'tessdata'), source: 'system' });
  }
  for (const folder of SYSTEM_FOLDERS) folders.push({ folder, source: 'system' });
  const seen = new Set<string>();
  return folders
    .filter((f) => !seen.has(f.folder) && seen.add(f.folder))
    .map((f) => ({ ...f, exists: isFolder(f.folder) }));
}

function bundledScope(): string | null {
  try {
    return join(dirname(require.resolve('tesseract.js/package.json')), '..', '@tesseract.js-data');
  } catch {
    return null;
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The language files of one folder: plain `.traineddata` preferred to `.traineddata.gz`. */
function languagesIn(folder: LanguageFolder): LanguageData[] {
  if (!folder.exists) return [];
  const found = new Map<string, LanguageData>();
  for (const name of safeList(folder.folder).sort()) {
    const m = /^(.+)\.traineddata(\.gz)?$/.exec(name);
    if (!m || !LANGUAGE_CODE.test(m[1]) || NOT_LANGUAGES.has(m[1])) continue;
    const file = join(folder.folder, name);
    try {
      if (!statSync(file).isFile() || statSync(file).size === 0) continue;
    } catch {
      continue;
    }
    const gzip = Boolean(m[2]);
    if (found.has(m[1]) && gzip) continue;
    found.set(m[1], { code: m[1], source: folder.source, folder: folder.folder, file, gzip });
  }
  return [...found.values()];
}

/**
 * Every language the machine has, each once, from the first place in the order of precedence:
 * DOCFIX_TESSDATA_DIRS, the bundled packages, TESSDATA_PREFIX, the system's folders. Sorted by code.
 */
export function availableLanguages(env: NodeJS.ProcessEnv = process.env): LanguageData[] {
  const byCode = new Map<string, LanguageData>();
  for (const folder of languageFolders(env)) {
    for (const data of languagesIn(folder)) if (!byCode.has(data.code)) byCode.set(data.code, data);
  }
  return [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** The data of one language, or null when the machine has none for it. */
export function languageData(code: string, env: NodeJS.ProcessEnv = process.env): LanguageData | null {
  if (!LANGUAGE_CODE.test(code)) return null;
  return availableLanguages(env).find((l) => l.code === code) ?? null;
}

/**
 * A second model of `code` on this machine: the first file in the order of precedence after the one
 * `languageData` takes that is another model (its size or packing differs; tesseract's data comes as
 * tessdata_best, tessdata or tessdata_fast, and the bundled packages are not Debian's). Null when the
 * machine has one model of the language. A second reader of a word recognition alone cannot vouch
 * for (tier 5's drawn letters).
 */
export function otherLanguageData(code: string, env: NodeJS.ProcessEnv = process.env): LanguageData | null {
  if (!LANGUAGE_CODE.test(code)) return null;
  // One walk in the order of precedence: the first file found is `languageData`'s.
  let first: { data: LanguageData; size: number } | null = null;
  for (const folder of languageFolders(env)) {
    for (const data of languagesIn(folder)) {
      if (data.code !== code) continue;
      const size = statSync(data.file, { throwIfNoEntry: false })?.size ?? -1;
      if (!first) first = { data, size };
      else if (data.file !== first.data.file && (data.gzip !== first.data.gzip || size !== first.size))
        return data;
    }
  }
  return null;
}

/**
 * What really installs a language's data (for a refusal's advice and `docfix ocr --languages`): the
 * distribution's package, or the file in a folder DOCFIX_TESSDATA_DIRS names.
 */
export function installAdvice(code: string): string {
  const safe = LANGUAGE_CODE.test(code) ? code : 'LANG';
  const debian = safe.toLowerCase().replaceAll('_', '-');
  return `install tesseract's data for "${safe}": on Debian or Ubuntu \`apt-get install tesseract-ocr-${debian}\`, or put ${safe}.traineddata (from github.com/tesseract-ocr/tessdata_fast) in a folder named by DOCFIX_TESSDATA_DIRS (the daemon reads that variable when it starts)`;
}
