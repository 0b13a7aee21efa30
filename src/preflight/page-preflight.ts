// Preflight of a page: names the words that are known to refuse correction, whatever the
// replacement. Every word of the region asked for (the whole page by default) is put through the
// engine's dry run (dry-run.ts) with a replacement that reuses only its own glyphs (two letters
// swapped); a refusal whose reason lies in the word itself (invisible text layer, text the engine
// cannot map to its drawing, split drawing, …) names the word. Refusals that depend on the
// replacement (missing glyphs, width) say nothing about the word and are not listed. Words the dry
// run cannot settle go through the engine's full proposal, up to a cap (the rest are `skipped`). The
// check is one-sided: absence from the list is no promise that a correction will work.
import { readFileSync } from 'node:fs';
import { classifyPage } from '../documents/classify.ts';
import { loadPageChecked } from '../documents/render.ts';
import { proposeEdit } from '../corrections/engine.ts';
import { readPageText, quadBox, type TextLine } from '../corrections/locate/page-text.ts';
import { openPdf } from '../pdf/mupdf-adapter.ts';
import type { PreflightOut, RefusalAdvice } from '../schemas.ts';
import { PageDryRun } from './dry-run.ts';

type Box = [number, number, number, number];

export interface PreflightTaskInput {
  path?: string;
  pdf?: Uint8Array;
  password: string;
  page_index: number;
  box_render: Box | null;
  render_dpi: number | null;
}

/**
 * Full proposals per call for words the dry run cannot settle (rare: a letter drawn only inside a
 * ligature, a character not at its glyph origin); further such words are counted as skipped.
 */
export const PREFLIGHT_PROPOSAL_CAP = 30;

/** Refusal codes that depend on the replacement asked for, not on the word: never listed. */
export const REPLACEMENT_CODES = new Set([
  'glyph_not_available',
  'glyph_not_in_font',
  'replacement_too_wide',
  'does_not_fit',
  'identical_replacement',
  'empty_replacement',
  'match_index_out_of_range',
  'would_not_verify',
]);

export interface PageWord {
  text: string;
  matchIndex: number;
  box: Box;
}

/** Words of the lines (split at white space) with the engine's match index for each. */
export function pageWords(lines: TextLine[], dpi: number): PageWord[] {
  const found: { line: number; start: number; end: number; text: string }[] = [];
  lines.forEach((line, l) => {
    let start = -1;
    const flush = (end: number) => {
      if (start >= 0) {
        const text = line.chars
          .slice(start, end)
          .map((c) => c.c)
          .join('');
        found.push({ line: l, start, end, text });
      }
      start = -1;
    };
    line.chars.forEach((c, i) => {
      if (/\s/u.test(c.c)) flush(i);
      else if (start < 0) start = i;
    });
    flush(line.chars.length);
  });
  // The engine counts occurrences of `find` as a substring of each line, in reading order.
  const occurrences = new Map<string, string[]>();
  const lineChars = lines.map((l) => l.chars.map((c) => c.c));
  const s = dpi / 72;
  return found.map((w) => {
    let places = occurrences.get(w.text);
    if (!places) {
      places = [];
      const needle = Array.from(w.text);
      lineChars.forEach((chars, l) => {
        outer: for (let i = 0; i + needle.length <= chars.length; i++) {
          for (let k = 0; k < needle.length; k++) if (chars[i + k] !== needle[k]) continue outer;
          places!.push(`${l}:${i}`);
        }
      });
      occurrences.set(w.text, places);
    }
    const boxes = lines[w.line].chars.slice(w.start, w.end).map((c) => quadBox(c.quad));
    return {
      text: w.text,
      matchIndex: places.indexOf(`${w.line}:${w.start}`),
      box: [
        Math.floor(Math.min(...boxes.map((b) => b[0])) * s),
        Math.floor(Math.min(...boxes.map((b) => b[1])) * s),
        Math.ceil(Math.max(...boxes.map((b) => b[2])) * s),
        Math.ceil(Math.max(...boxes.map((b) => b[3])) * s),
      ] as Box,
    };
  });
}

/**
 * A probe replacement drawing only the word's own glyphs: the first two different adjacent letters
 * swapped, or the word doubled when it has no such pair (one character: a CJK ideograph, a digit).
 * Refusals caused by the probe itself (width, fit) are not listed, so its choice cannot add a word.
 */
export function sameGlyphReplacement(word: string): string {
  const chars = Array.from(word);
  for (let i = 0; i + 1 < chars.length; i++) {
    if (chars[i] !== chars[i + 1]) {
      [chars[i], chars[i + 1]] = [chars[i + 1], chars[i]];
      return chars.join('');
    }
  }
  return word + word;
}

function overlaps(a: Box, b: Box): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

export async function preflightPage(input: PreflightTaskInput): Promise<PreflightOut> {
  const dpi = input.render_dpi ?? 300;
  const bytes = input.pdf ?? new Uint8Array(readFileSync(input.path!));
  const { doc } = openPdf(bytes, input.password);
  let kind: string;
  let pageBox: Box;
  let words: PageWord[] = [];
  const regions: NonNullable<PreflightOut['regions']> = [];
  const undecided: PageWord[] = [];
  const name = (word: PageWord, advice: RefusalAdvice) => {
    if (!REPLACEMENT_CODES.has(advice.code)) {
      regions.push({
        box_render: word.box,
        code: advice.code,
        what: advice.what,
        why: advice.why ?? '',
        do: advice.do ?? [],
        evidence: { word: word.text, match_index: word.matchIndex },
        worth_reporting: advice.worth_reporting ?? false,
      });
    }
  };
  try {
    const page = loadPageChecked(doc, input.page_index);
    try {
      kind = classifyPage(page, input.page_index).info.kind;
      const b = page.getBounds();
      pageBox = [0, 0, Math.ceil((b[2] - b[0]) * (dpi / 72)), Math.ceil((b[3] - b[1]) * (dpi / 72))];
      if (kind !== 'scanned' && kind !== 'scanned_with_text_layer') {
        const lines = readPageText(page);
        const region = input.box_render ?? pageBox;
        words = pageWords(lines, dpi).filter((w) => overlaps(w.box, region));
        let dry: PageDryRun | null = null;
        try {
          dry = new PageDryRun(page, lines);
        } catch {
          undecided.push(...words); // the page's content could not be read: full proposals decide
        }
        try {
          for (const word of dry ? words : []) {
            const answer = dry!.check({
              find: word.text,
              matchIndex: word.matchIndex,
              replacement: sameGlyphReplacement(word.text),
            });
            if (answer.verdict === 'refuses') name(word, answer.advice);
            else if (answer.verdict === 'unknown') undecided.push(word);
          }
        } finally {
          dry?.destroy();
        }
      }
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
  if (kind === 'scanned' || kind === 'scanned_with_text_layer') {
    // A scan's words are corrected in its pixels (tier 5): found by recognition, cloned from the
    // page's own letters. Whether one word can be patched depends on its letters and on a person's
    // look at an uncertain match, so the preflight names no word and says how such a page goes.
    const layer = kind === 'scanned_with_text_layer';
    return {
      page_index: input.page_index,
      render_dpi: dpi,
      word_source: '',
      checked: 0,
      skipped: 0,
      applicable: true,
      message: `The page is a scan${layer ? ' under an invisible OCR layer' : ''}: its words are corrected as pixel patches of the scan (tier 5, cost low for letters the page shows, medium for others), found by recognition (POST …/pages/${input.page_index}/ocr)${layer ? ' or by the layer, which is retyped with them' : ''}; an uncertain match needs a person's look at a magnified crop first.`,
      regions: [],
    };
  }
  // Words the dry run could not settle: the engine's full proposal, up to the cap.
  const proposed = undecided.slice(0, PREFLIGHT_PROPOSAL_CAP);
  let failed = 0;
  for (const word of proposed) {
    const proposal = await proposeEdit({
      pdf: bytes,
      password: input.password,
      request: {
        page_index: input.page_index,
        target: { method: 'text_layer', find: word.text, match_index: word.matchIndex },
        replacement: sameGlyphReplacement(word.text),
        attestation_id: 'preflight',
        font_attempt: 0,
      },
      manifest: {
        document_id: 'preflight',
        original_sha256: '',
        standing: [],
        engine_version: '',
        renderer: '',
        dpi: 300,
      },
    }).catch(() => null); // the engine failed on this word: it stays unchecked (counted as skipped)
    if (!proposal) failed++;
    else if (proposal.refusal && proposal.advice) name(word, proposal.advice);
  }
  regions.sort(
    (a, b) => words.findIndex((w) => w.box === a.box_render) - words.findIndex((w) => w.box === b.box_render),
  );
  const skipped = undecided.length - proposed.length + failed;
  return {
    page_index: input.page_index,
    render_dpi: dpi,
    word_source: 'text_layer',
    checked: words.length - skipped,
    skipped,
    applicable: true,
    message:
      skipped > 0
        ? `Checked ${words.length - skipped} of ${words.length} words; ${skipped} need a full proposal each${failed ? ` (${failed} could not be proposed)` : `, beyond this call's ${PREFLIGHT_PROPOSAL_CAP}: ask for a smaller region (box_render) to check them`}. Words not listed are not promised to work.`
        : 'Words not listed are not promised to work: the check is one-sided.',
    regions,
  };
}
