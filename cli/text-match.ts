// The one matching rule on the command line: `search`, the `--find` of propose/apply and `fix`
// share its flags (--ignore-case, --word) and find a correction's text through the document's search,
// so a correction targets exactly what `search` lists, numbered the same way. Without --page that is
// the whole document in reading order; when the text is not where asked, the error names the pages
// where it is and what would find it.
import type { Command } from 'commander';
import type { ApiClient } from '../src/api-client.ts';
import { EXIT } from '../src/errors.ts';
import type { SearchHit, SearchOut } from '../src/schemas.ts';
import { CliExit, UsageError } from './context.ts';

export interface MatchFlags {
  ignoreCase: boolean;
  word: boolean;
}

/**
 * The text is not where asked (exit 5): the message names where it is. `absent` when the search
 * found no match at all where asked (not merely fewer than --match asked for).
 */
export class TextNotFound extends CliExit {
  readonly absent: boolean;
  constructor(message: string, absent: boolean) {
    super(EXIT.refused, message);
    this.absent = absent;
  }
}

/** The daemon lists at most this many matches per search (SEARCH_MATCH_CAP). */
export const SEARCH_LIMIT_MAX = 500;

/** Adds --ignore-case and --word to a command. */
export function addMatchFlags(cmd: Command): Command {
  return cmd
    .option('-i, --ignore-case', 'match whatever the case (the text is corrected as the page has it)')
    .option('-w, --word', 'match whole words only (not inside a longer word)');
}

export function matchFlags(o: { ignoreCase?: boolean; word?: boolean }): MatchFlags {
  return { ignoreCase: Boolean(o.ignoreCase), word: Boolean(o.word) };
}

/** The rule in words, for messages: "exact, case-sensitive" and so on. */
export function ruleName(f: MatchFlags): string {
  return `${f.ignoreCase ? 'ignoring case' : 'exact, case-sensitive'}${f.word ? ', whole words' : ''}`;
}

/** Help text shared by the commands that match text. */
export const MATCH_RULE_HELP = `Matching: exact and case-sensitive by default, anywhere in a line (also inside longer words),
as a correction finds its text; --ignore-case and --word change that for search and corrections
alike. Matches never cross a line break. Pages are numbered from 0.`;

export interface SearchQuery {
  pages?: string;
  limit?: number;
  count?: boolean;
  /** How the client retries a busy daemon (default: its usual retries). */
  retry?: true | { retries: number; maxWaitS: number };
}

/** Searches the document with the rule. */
export function searchText(
  client: ApiClient,
  documentId: string,
  find: string,
  flags: MatchFlags,
  extra: SearchQuery = {},
): Promise<SearchOut> {
  return client.call('searchDocument', {
    params: { document_id: documentId },
    query: {
      q: find,
      ...(flags.ignoreCase ? { ignore_case: true } : {}),
      ...(flags.word ? { word: true } : {}),
      ...(extra.pages !== undefined ? { pages: extra.pages } : {}),
      ...(extra.limit !== undefined ? { limit: extra.limit } : {}),
      ...(extra.count ? { count: true } : {}),
    },
    retry: extra.retry ?? true,
  });
}

/** "3, 7, 12" (at most ten, then how many more). */
export function pageList(pages: number[]): string {
  const shown = pages.slice(0, 10).join(', ');
  return pages.length > 10 ? `${shown} and ${pages.length - 10} more` : shown;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 'es'}`;

export interface TextRequest {
  find: string;
  flags: MatchFlags;
  /** Only this page (0-based); default the whole document. */
  page?: number;
  /** Which match, numbered as `search` numbers them (on --page when given), 0 for the first. */
  match: number;
}

/**
 * The hit a correction targets: match number `match` of `find`, in the document (or on `page`), as
 * `search` with the same flags lists it. Its `text` and `match_index` are what the engine needs.
 */
export async function locateText(client: ApiClient, documentId: string, r: TextRequest): Promise<SearchHit> {
  if (r.match >= SEARCH_LIMIT_MAX) {
    throw new UsageError(
      `--match is at most ${SEARCH_LIMIT_MAX - 1}; narrow the search with --page (search numbers a page's matches from 0)`,
    );
  }
  const pages = r.page !== undefined ? String(r.page) : undefined;
  // Listing one more than --match asks: either that match is there, or nothing was cut off and the
  // answer counts every match (total, pages_matched) for the error.
  const found = await searchText(client, documentId, r.find, r.flags, { pages, limit: r.match + 1 });
  const hits = found.matches ?? [];
  const hit = hits[r.match];
  if (hit && hit.match_index !== undefined) return hit;
  if (hit) {
    // An older daemon lists hits without the engine's match_index: only an exact search is safe.
    throw new UsageError('the daemon does not name each match precisely; update it to correct by --find');
  }
  throw await notFound(client, documentId, r, found);
}

/** Matches looked at to say where else a text is: enough to name pages, never a whole-book read. */
const ELSEWHERE_LIMIT = 50;

/** How many matches on which pages, from a search that may have stopped at its limit. */
function whereFound(found: SearchOut): { matches: string; pages: number[] } {
  if (found.total !== undefined) {
    return { matches: plural(found.total, 'match'), pages: found.pages_matched ?? [] };
  }
  const listed = found.matches ?? [];
  return { matches: `${listed.length}+ matches`, pages: [...new Set(listed.map((m) => m.page_index))] };
}

const onPages = (pages: number[], more: boolean) =>
  `page${pages.length === 1 && !more ? '' : 's'} ${pageList(pages)}${more ? ' and more' : ''}`;

/** Where a search was narrowed to: its pages and the flag that narrowed it (`--page` or `--pages`). */
export interface Narrowed {
  pages: string;
  flag: '--page' | '--pages';
}

/**
 * Where else the text is, under this rule or a looser one: the lines of a not-found error or of a
 * search that found nothing (`try:` lines with the flags that would find it).
 */
export async function elsewhere(
  client: ApiClient,
  documentId: string,
  find: string,
  flags: MatchFlags,
  narrowed?: Narrowed,
): Promise<string[]> {
  const lines: string[] = [];
  const tries: string[] = [];
  if (narrowed) {
    const all = await searchText(client, documentId, find, flags, { limit: ELSEWHERE_LIMIT });
    const { pages } = whereFound(all);
    if (pages.length > 0) {
      lines.push(`it is on ${onPages(pages, all.truncated === true)} (${ruleName(flags)})`);
      tries.push(
        `${narrowed.flag} ${pages[0]}`,
        `leave out ${narrowed.flag} (the whole document is searched)`,
      );
    }
  }
  const looser: [string, MatchFlags][] = [];
  if (!flags.ignoreCase) looser.push(['--ignore-case', { ...flags, ignoreCase: true }]);
  if (flags.word) looser.push(['without --word', { ...flags, word: false }]);
  for (const [what, other] of looser) {
    const found = await searchText(client, documentId, find, other, {
      limit: ELSEWHERE_LIMIT,
      ...(narrowed ? { pages: narrowed.pages } : {}),
    });
    const { matches, pages } = whereFound(found);
    if (pages.length > 0) {
      const first = found.matches?.[0]?.text;
      tries.push(
        `${what} (${matches} on ${onPages(pages, found.truncated === true)}${first && first !== find ? `, e.g. "${first}"` : ''})`,
      );
    }
  }
  for (const t of tries) lines.push(`try: ${t}`);
  return lines;
}

/** The error for a text that is not where asked (exit 5, as a refusal to find it). */
async function notFound(
  client: ApiClient,
  documentId: string,
  r: TextRequest,
  found: SearchOut,
): Promise<TextNotFound> {
  const where = r.page !== undefined ? `page ${r.page}` : 'the document';
  const total = found.total ?? found.matches?.length ?? 0;
  const lines: string[] = [];
  if (total > 0) {
    const pages = found.pages_matched ?? [];
    lines.push(
      `"${r.find}" has ${plural(total, 'match')} in ${where} (${ruleName(r.flags)}, on page${pages.length === 1 ? '' : 's'} ${pageList(pages)}); --match ${r.match} asks for match ${r.match + 1}`,
      `try: --match ${total - 1} for the last (docfix search lists them, numbered from 0)`,
    );
  } else {
    lines.push(`"${r.find}" is not in the text layer of ${where} (${ruleName(r.flags)})`);
    lines.push(
      ...(await elsewhere(
        client,
        documentId,
        r.find,
        r.flags,
        r.page !== undefined ? { pages: String(r.page), flag: '--page' } : undefined,
      )),
    );
    const scanned = found.pages_needing_recognition ?? [];
    if (scanned.length > 0) {
      lines.push(
        `try: --ocr --page ${scanned[0]} (page${scanned.length === 1 ? '' : 's'} ${pageList(scanned)} ${scanned.length === 1 ? 'is' : 'are'} scanned, without a text layer)`,
      );
    }
  }
  return new TextNotFound(lines.join('\n  '), total === 0);
}

/** The line that says which match a correction targets. */
export function targetLine(hit: SearchHit, r: TextRequest): string {
  const which =
    r.page !== undefined ? `match ${r.match} on page ${r.page}` : `match ${r.match} of the document`;
  const asShown = hit.text !== r.find ? `; corrected as the page has it: "${hit.text}"` : '';
  return `"${r.find}" (${ruleName(r.flags)}): ${which}, on page ${hit.page_index}${asShown}`;
}
