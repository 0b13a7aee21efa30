// A refusal as a person can act on it: one headline in plain words, then one `try:` line naming the
// flag or the action that would help. The engine's advice (what, why, do), its guard names and
// numbers and the tiers passed over stay in `--json` (the API objects, unchanged) and `--verbose`.
// Every advice code the engine can give has words here (the Record type and
// test/cli/refusal-text.test.ts hold the list of src/refusal-codes.ts to it); an unknown code gets a
// generic sentence.
import { isRefusalCode, type RefusalCode } from '../src/refusal-codes.ts';
import type { RefusalAdvice, TierRejection } from '../src/schemas.ts';
import { c } from './context.ts';

/** What the CLI knows about a refusal where it prints it. */
export interface RefusalContext {
  advice: RefusalAdvice | null | undefined;
  /** The engine's one line (`proposal.refusal`, or an error's message). */
  refusal?: string | null;
  find?: string;
  replacement?: string;
  page?: number;
  /** How the person named the document (for commands in a try-line). */
  document?: string;
  rejected?: TierRejection[];
  measurements?: Record<string, unknown>;
  fontAlternatives?: number;
  fontAttempt?: number;
  /** The text was found by recognition (--ocr, an edits file's "method": "ocr"). */
  ocr?: boolean;
  /** A proposal over --max-cost: its cost, and the flag's value. */
  cost?: string;
  maxCost?: string;
  /** Printed in the review screen, where keys do what flags do elsewhere. */
  inReview?: boolean;
}

export interface RefusalText {
  /** What went wrong, in a sentence without the engine's vocabulary. */
  headline: string;
  /** The flag or action that would help. */
  tryLine: string;
}

type Words = (x: RefusalContext) => RefusalText;

/** Codes the CLI itself refuses with (fix: a proposal over --max-cost). */
export type CliRefusalCode = 'max_cost';

const q = (text: string | undefined, fallback: string) => (text === undefined ? fallback : `"${text}"`);
const old = (x: RefusalContext) => q(x.find, 'the old text');
const rep = (x: RefusalContext) => q(x.replacement, 'the replacement');
const onPage = (x: RefusalContext) => (x.page === undefined ? '' : ` on page ${x.page}`);
const doc = (x: RefusalContext) => x.document ?? 'DOC';
const otherMatch = (x: RefusalContext) =>
  x.inReview ? 'another match of it (j/k)' : '--match N to correct another occurrence of it';
const lookFirst = (x: RefusalContext) =>
  x.inReview
    ? '⏎ on the match: look at the magnified word, then confirm it'
    : `docfix review ${doc(x)}, or docfix apply on a terminal (both show the word magnified and ask)`;

/** The language a refusal for missing recognition data names (its measurements), if a plain code. */
function recognitionLanguage(x: RefusalContext): string | null {
  const lang = x.measurements?.lang;
  return typeof lang === 'string' && /^[A-Za-z][A-Za-z0-9_]{1,31}$/.test(lang) ? lang : null;
}

/** The names of the guards that failed, from the evidence of a would_not_verify refusal. */
export function failedGuards(x: Pick<RefusalContext, 'advice' | 'rejected'>): string[] {
  const names = new Set<string>();
  for (const r of x.rejected ?? []) {
    const guards = (r.evidence as { guards?: { name?: string; passed?: boolean }[] } | undefined)?.guards;
    for (const g of guards ?? []) if (g.passed === false && g.name) names.add(g.name);
  }
  // The failure reason begins with the guard's name ("text_layer_true: expected …").
  const named = /^([a-z][a-z0-9_]+):/.exec(x.advice?.why ?? '');
  if (names.size === 0 && named) names.add(named[1]);
  return [...names];
}

/** Characters the refusal quotes (“…”), for a headline naming what cannot be drawn. */
function quoted(text: string | null | undefined): string[] {
  return [...(text ?? '').matchAll(/“([^”]{1,8})”/g)].map((m) => m[1]);
}

function wouldNotVerify(x: RefusalContext): RefusalText {
  const guards = failedGuards(x);
  const nextFont = (x.fontAttempt ?? 0) + 1;
  if (guards.includes('widths_read_alike'))
    return {
      headline: `with ${rep(x)} some PDF viewers would shift the rest of the line (this font's letter widths are fractional)`,
      tryLine: `a replacement whose letters are as wide as those of ${old(x)} (the same letters in another order always fit)`,
    };
  if (guards.includes('recognition_reads_replacement') || guards.includes('patch_confined'))
    return {
      headline: `the patched word would not read as ${rep(x)} in the scan`,
      tryLine: 'a replacement made of letters the scan shows clearly',
    };
  if (guards.includes('line_reads_as_before') || guards.includes('word_spacing_kept'))
    return {
      headline: guards.includes('line_reads_as_before')
        ? `with ${rep(x)} patched in, the words around it would no longer read as they do`
        : `${rep(x)} would change the spacing of its line (the gap before or after it)`,
      tryLine: `a replacement about as wide as ${old(x)}, made of letters the scan shows clearly`,
    };
  if ((x.fontAlternatives ?? 0) > nextFont)
    return {
      headline: `the matched font would change the page in a way the checks do not accept`,
      tryLine: `--font-attempt ${nextFont} (another matched font)`,
    };
  if (guards.includes('text_layer_true'))
    return {
      headline: `after the change, copying or searching the line would not give ${rep(x)}`,
      tryLine: `a replacement about as wide as ${old(x)}`,
    };
  return {
    headline: `the change would alter the page beyond ${old(x)}, so it was not made`,
    tryLine: `a replacement about as wide as ${old(x)}, or ${otherMatch(x)}`,
  };
}

function textNotFound(x: RefusalContext): RefusalText {
  const otherCase = Number(x.measurements?.case_insensitive_hits ?? 0) > 0;
  if (otherCase)
    return {
      headline: `${old(x)} is${onPage(x)} only with other capitals`,
      tryLine: `--ignore-case, or --find with the capitals the page uses`,
    };
  return {
    headline: `${old(x)} is not in the text${x.page === undefined ? '' : ` of page ${x.page}`}`,
    tryLine: x.ocr
      ? `docfix ocr ${doc(x)} --page N --find ${x.find ?? 'TEXT'} to see what recognition reads`
      : `docfix search ${doc(x)} ${x.find === undefined ? 'TEXT' : JSON.stringify(x.find)} to see where it is, then --page N (or --ocr on a scanned page)`,
  };
}

function glyphNotAvailable(x: RefusalContext): RefusalText {
  const nextFont = (x.fontAttempt ?? 0) + 1;
  const chars = quoted(x.refusal ?? x.advice?.what);
  const what = chars.length ? `"${chars.join('", "')}"` : `a character of ${rep(x)}`;
  return {
    headline: `neither the document's font nor a bundled font can draw ${what}`,
    tryLine:
      (x.fontAlternatives ?? 0) > nextFont
        ? `--font-attempt ${nextFont} (another matched font)`
        : 'a replacement made of characters the document already shows',
  };
}

export const REFUSAL_WORDS: Record<RefusalCode | CliRefusalCode, Words> = {
  method_not_available: () => ({
    headline: 'this kind of target is not supported',
    tryLine: '--find with the text as docfix search shows it (add --ocr on a scanned page)',
  }),
  not_a_scan: (x) => ({
    headline: `${old(x)} is drawn with a font, not part of a scanned image`,
    tryLine: 'the same command without --ocr',
  }),
  confirmation_needed: (x) => ({
    headline: `a person has to look at the recognised word ${old(x)} before it is corrected`,
    tryLine: lookFirst(x),
  }),
  crop_not_served: (x) => ({
    headline: `the confirmation of ${old(x)} came before anyone was shown the word magnified`,
    tryLine: lookFirst(x),
  }),
  pixels_disagree: (x) => ({
    headline: `the scan shows another word where the hidden text says ${old(x)}`,
    tryLine: `--ocr with the word as the scan shows it (docfix ocr ${doc(x)} --page N --find WORD)`,
  }),
  drawn_over_scan: (x) => ({
    headline: `something drawn over the scan at ${old(x)} (a stamp, a line) would be hidden by a patch`,
    tryLine: otherMatch(x),
  }),
  patch_faint_scan: (x) => ({
    headline: `the scan is too faint at ${old(x)} to build the new word surely`,
    tryLine: `${otherMatch(x)}, or a sharper scan`,
  }),
  patch_low_contrast: (x) => ({
    headline: `the scan has too little contrast at ${old(x)} to build the new word surely`,
    tryLine: `${otherMatch(x)}, or a sharper scan`,
  }),
  patch_unsegmented: (x) => ({
    headline: `the letters of ${old(x)} cannot be told apart in the scan`,
    tryLine: otherMatch(x),
  }),
  letter_not_on_page: (x) => ({
    headline: `the scan never shows a letter that ${rep(x)} needs`,
    tryLine: 'a replacement made of letters the page shows',
  }),
  letter_style_mismatch: (x) => ({
    headline: `a letter ${rep(x)} needs would be drawn heavier, lighter, taller or shorter than the scan's own`,
    tryLine: 'a replacement made of letters the page already shows',
  }),
  patch_one_word: () => ({
    headline: 'a scanned word is replaced by one word, without spaces',
    tryLine: 'one word at a time: a replacement without spaces',
  }),
  patch_too_wide: (x) => ({
    headline: `${rep(x)} would be too wide for the place of ${old(x)} in the scan`,
    tryLine: 'a shorter replacement',
  }),
  ocr_language_unavailable: (x) => {
    const lang = recognitionLanguage(x);
    return {
      headline: `there is no recognition data for ${lang ? `the language "${lang}"` : "this page's language"} on the daemon's machine`,
      tryLine: `apt-get install tesseract-ocr-${lang ? lang.toLowerCase().replaceAll('_', '-') : 'LANG'} (or LANG.traineddata in a folder DOCFIX_TESSDATA_DIRS names), or --lang with one docfix ocr --languages lists`,
    };
  },
  empty_replacement: () => ({
    headline: 'the replacement is empty: docfix replaces text, it does not delete it',
    tryLine: 'a replacement of at least one character',
  }),
  identical_replacement: () => ({
    headline: 'the replacement is the same as the text',
    tryLine: '--replace with different text',
  }),
  text_not_found: textNotFound,
  match_index_out_of_range: (x) => {
    const n = Number(x.measurements?.occurrences ?? 0);
    return {
      headline: `${old(x)} occurs ${n > 0 ? `${n} time${n === 1 ? '' : 's'}` : 'fewer times'}${onPage(x)}`,
      tryLine: n > 1 ? `--match 0 to ${n - 1}` : '--match 0',
    };
  },
  target_spans_lines: (x) => ({
    headline: `${old(x)} runs across a line break`,
    tryLine: "one correction per line: --find each line's part",
  }),
  text_not_mapped: (x) => ({
    headline: `docfix cannot tie the letters of ${old(x)} to what the page draws`,
    tryLine: `a shorter --find (only the letters that change), or ${otherMatch(x)}`,
  }),
  partial_ligature: () => ({
    headline: 'the change would split a joined letter pair (like "fi") that also draws letters outside it',
    tryLine: '--find and --replace with the whole word',
  }),
  split_drawing: (x) => ({
    headline: `the page draws ${old(x)} in pieces (several fonts or drawing commands)`,
    tryLine: 'a shorter --find: only the letters that change',
  }),
  invisible_text: (x) => ({
    headline: `${old(x)} is invisible text: changing it would change nothing anyone sees`,
    tryLine: '--ocr to correct the word in the scanned image instead',
  }),
  degenerate_text: (x) => ({
    headline: `${old(x)} is drawn at zero size, so nothing can be measured`,
    tryLine: otherMatch(x),
  }),
  glyph_not_available: glyphNotAvailable,
  replacement_too_wide: (x) => ({
    headline: `${rep(x)} is too wide: the line has no room for it`,
    tryLine: `a shorter replacement, about as wide as ${old(x)}`,
  }),
  gap_inside_word: (x) => ({
    headline: `${rep(x)} is narrower than ${old(x)} and would leave a gap that reads as a space`,
    tryLine: `--find and --replace with the whole word, or a replacement about as wide as ${old(x)}`,
  }),
  font_attempt_out_of_range: (x) => {
    const n = x.fontAlternatives ?? 0;
    return {
      headline: `there is no matched font number ${x.fontAttempt ?? '?'}`,
      tryLine: n > 1 ? `--font-attempt 0 to ${n - 1}` : '--font-attempt 0',
    };
  },
  would_not_verify: wouldNotVerify,
  annotation_text: (x) => ({
    headline: `${old(x)} belongs to an annotation or a form field, not to the page's text`,
    tryLine: 'change the field in a PDF form editor; docfix corrects page text',
  }),
  vertical_text: () => ({
    headline: 'in vertical writing docfix only swaps letters the font already draws',
    tryLine: 'a replacement of as many characters, each one the column already shows',
  }),
  damaged_document: () => ({
    headline: 'the file is damaged',
    tryLine: 'repair it (qpdf in.pdf fixed.pdf, or mutool clean in.pdf fixed.pdf) and upload fixed.pdf',
  }),
  max_cost: (x) => ({
    headline: `the correction would show (visibility cost ${x.cost ?? 'low'}), more than --max-cost ${x.maxCost ?? 'allows'}`,
    tryLine: `--max-cost ${x.cost ?? 'low'}`,
  }),
};

/** The advice of the CLI's own refusal of a proposal over --max-cost (fix's report carries it). */
export function maxCostAdvice(
  p: { visibility_cost: string; tier_name: string },
  maxCost: string,
): RefusalAdvice {
  return {
    code: 'max_cost',
    what: `visibility cost ${p.visibility_cost} is over --max-cost ${maxCost}`,
    why: `the best tier (${p.tier_name}) would show`,
    do: [`allow it with --max-cost ${p.visibility_cost}`],
    worth_reporting: false,
  };
}

/** The headline and try-line of a refusal; a code without words gets a generic sentence. */
export function refusalText(x: RefusalContext): RefusalText {
  const code = x.advice?.code ?? '';
  const words = isRefusalCode(code) || code === 'max_cost' ? REFUSAL_WORDS[code] : undefined;
  if (words) return words(x);
  return {
    headline: 'this correction cannot be made safely',
    tryLine: 'another replacement or another occurrence (--match N); --verbose shows why',
  };
}

/** A headline as a sentence of its own (the screen prints it under the refused edit). */
export const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The engine's own account: advice what/why/do, whether it is worth reporting, the tiers passed over. */
export function refusalDetails(x: RefusalContext, indent = '  '): string[] {
  const lines: string[] = [];
  const a = x.advice;
  if (a?.code) lines.push(`${indent}${c.dim('code:')}  ${a.code}`);
  if (a?.what) lines.push(`${indent}${c.dim('what:')}  ${a.what}`);
  if (a?.why) lines.push(`${indent}${c.dim('why:')}   ${a.why}`);
  for (const step of a?.do ?? []) lines.push(`${indent}${c.dim('do:')}    ${step}`);
  if (a?.worth_reporting)
    lines.push(`${indent}${c.dim('The engine marks this refusal as worth reporting (a gap in docfix).')}`);
  if (x.rejected?.length) {
    lines.push(c.dim(`${indent}tiers passed over:`));
    for (const r of x.rejected)
      lines.push(c.dim(`${indent}  ${r.tier} ${r.tier_name}: ${r.reason} (${r.code})`));
  }
  return lines;
}

/**
 * A refusal for people: `label: headline`, `try: …`, and with --verbose the engine's details.
 * `label` says what was refused (e.g. `Refused "Jonh" → "J" on page 0`).
 */
export function refusalLines(
  label: string,
  x: RefusalContext,
  options: { verbose?: boolean; indent?: string } = {},
): string[] {
  const indent = options.indent ?? '  ';
  const words = refusalText(x);
  const lines = [`${label}: ${words.headline}`, `${indent}${c.cyan('try:')} ${words.tryLine}`];
  if (options.verbose) lines.push(...refusalDetails(x, indent));
  return lines;
}
