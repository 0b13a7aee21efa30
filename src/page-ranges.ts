// Page selections as people type them: "3-7,10" (0-based page indexes, ranges inclusive). One syntax
// for the search route's `pages` parameter and the CLI's `--pages`, so both read a selection alike.
// Kept apart from the engine so the CLI can check a selection without loading MuPDF.

/** No document has this many pages (the plans allow far fewer): a longer range is a mistake. */
export const PAGE_RANGE_SPAN_MAX = 100_000;

/** The syntax, for the route's schema and for messages. */
export const PAGE_RANGES_PATTERN = '^\\s*\\d+(\\s*-\\s*\\d+)?(\\s*,\\s*\\d+(\\s*-\\s*\\d+)?)*\\s*$';
/** A selection longer than this is refused (it would list more pages than any document has). */
export const PAGE_RANGES_MAX_LENGTH = 1000;

/**
 * The page indexes a selection names, ascending and without repeats; a problem (for a usage error
 * or an invalid_request) when the text is not a selection or a range runs backwards.
 */
export function parsePageRanges(text: string): { pages: number[] } | { problem: string } {
  if (text.length > PAGE_RANGES_MAX_LENGTH || !new RegExp(PAGE_RANGES_PATTERN, 'u').test(text)) {
    return { problem: `page indexes and ranges such as "3-7,10" (0 is the first page), got "${text}"` };
  }
  const pages = new Set<number>();
  for (const part of text.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    if (to < from) return { problem: `the range "${part.trim()}" runs backwards` };
    // A range is bounded by the document later; here only by a page count no PDF reaches.
    if (to - from >= PAGE_RANGE_SPAN_MAX) return { problem: `the range "${part.trim()}" is too long` };
    for (let p = from; p <= to; p++) pages.add(p);
  }
  return { pages: [...pages].sort((a, b) => a - b) };
}
