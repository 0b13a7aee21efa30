// Preflight of a page: names the words that are known to refuse correction, whatever the
// replacement. Each word (of the region asked for, up to a cap) is put through the engine's own
// proposal with a replacement that reuses only its own glyphs (two letters swapped); a refusal whose
// reason lies in the word itself (invisible text layer, text the engine cannot map to its drawing,
// split drawing, …) names the word. Refusals that depend on the replacement (missing glyphs, width)
// say nothing about the word and are not listed. The check is one-sided: absence from the list is
// no promise that a correction will work.
import { readFileSync } from 'node:fs';
import { classifyPage } from '../documents/classify.ts';
import { loadPageChecked } from '../documents/render.ts';
import { proposeEdit } from '../corrections/engine.ts';
import { readPageText, quadBox, type TextLine } from '../corrections/page-text.ts';
import { openPdf } from '../pdf/mupdf-adapter.ts';
import type { PreflightOut } from '../schemas.ts';

type Box = [number, number, number, number];

export interface PreflightTaskInput {
  path?: string;
  pdf?: Uint8Array;
  password: string;
  page_index: number;
  box_render: Box | null;
  render_dpi: number | null;
}

/** Words checked per call; the rest are counted as skipped (ask for a region to check others). */
export const PREFLIGHT_WORD_CAP = 30;

/** Refusal codes that depend on the replacement asked for, not on the word: never listed. */
const REPLACEMENT_CODES = new Set([
  'glyph_not_available',
  'glyph_not_in_font',
  'replacement_too_wide',
  'does_not_fit',
  'identical_replacement',
  'empty_replacement',
  'match_index_out_of_range',
  'would_not_verify',
]);

interface PageWord {
  text: string;
  matchIndex: number;
  box: Box;
}

/** Words of the lines (split at white space) with the engine's match index for each. */
function wordsOf(lines: TextLine[], dpi: number): PageWord[] {
  const words: PageWord[] = [];
  const s = dpi / 72;
  for (const line of lines) {
    let start = -1;
    const flush = (end: number) => {
      if (start < 0) return;
      const chars = line.chars.slice(start, end);
      const text = chars.map((c) => c.c).join('');
      const boxes = chars.map((c) => quadBox(c.quad));
      words.push({
        text,
        // Occurrences of the word as a substring before this place, in the engine's reading order.
        matchIndex: countBefore(lines, line, start, text),
        box: [
          Math.floor(Math.min(...boxes.map((b) => b[0])) * s),
          Math.floor(Math.min(...boxes.map((b) => b[1])) * s),
          Math.ceil(Math.max(...boxes.map((b) => b[2])) * s),
          Math.ceil(Math.max(...boxes.map((b) => b[3])) * s),
        ],
      });
      start = -1;
    };
    line.chars.forEach((c, i) => {
      if (/\s/u.test(c.c)) flush(i);
      else if (start < 0) start = i;
    });
    flush(line.chars.length);
  }
  return words;
}

function occurrences(chars: string[], needle: string[], limit: number): number {
  let n = 0;
  outer: for (let i = 0; i + needle.length <= limit; i++) {
    for (let k = 0; k < needle.length; k++) if (chars[i + k] !== needle[k]) continue outer;
    n++;
  }
  return n;
}

function countBefore(lines: TextLine[], line: TextLine, start: number, text: string): number {
  const needle = Array.from(text);
  let n = 0;
  for (const l of lines) {
    const chars = l.chars.map((c) => c.c);
    if (l === line) return n + occurrences(chars, needle, start + needle.length - 1);
    n += occurrences(chars, needle, chars.length);
  }
  return n;
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
  let lines: TextLine[];
  let kind: string;
  let pageBox: Box;
  try {
    const page = loadPageChecked(doc, input.page_index);
    try {
      kind = classifyPage(page, input.page_index).info.kind;
      lines = readPageText(page);
      const b = page.getBounds();
      pageBox = [0, 0, Math.ceil((b[2] - b[0]) * (dpi / 72)), Math.ceil((b[3] - b[1]) * (dpi / 72))];
    } finally {
      page.destroy();
    }
  } finally {
    doc.destroy();
  }
  const region = input.box_render ?? pageBox;
  if (kind === 'scanned' || kind === 'scanned_with_text_layer') {
    const layer = kind === 'scanned_with_text_layer';
    return {
      page_index: input.page_index,
      render_dpi: dpi,
      word_source: '',
      checked: 0,
      skipped: 0,
      applicable: true,
      message: 'The page is a scan: every word on it refuses.',
      regions: [
        {
          box_render: region,
          code: layer ? 'invisible_text' : 'scanned_page',
          what: layer
            ? 'The text on this page is an invisible OCR layer over a scanned image.'
            : 'This page is a scanned image without a text layer.',
          why: 'Changing what the page shows would need a pixel patch of the scan (tier 5), which this engine does not have; changing an invisible layer would not change what anyone sees.',
          do: ['Correct the source document and scan it again, or correct a born-digital version.'],
          evidence: { page_kind: kind },
          worth_reporting: false,
        },
      ],
    };
  }
  const words = wordsOf(lines, dpi).filter((w) => overlaps(w.box, region));
  const toCheck = words.slice(0, PREFLIGHT_WORD_CAP);
  const regions: NonNullable<PreflightOut['regions']> = [];
  for (const word of toCheck) {
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
    });
    const code = proposal.advice?.code;
    if (proposal.refusal && code && !REPLACEMENT_CODES.has(code)) {
      regions.push({
        box_render: word.box,
        code,
        what: proposal.advice?.what || proposal.refusal,
        why: proposal.advice?.why ?? '',
        do: proposal.advice?.do ?? [],
        evidence: { word: word.text, match_index: word.matchIndex },
        worth_reporting: proposal.advice?.worth_reporting ?? false,
      });
    }
  }
  return {
    page_index: input.page_index,
    render_dpi: dpi,
    word_source: 'text_layer',
    checked: toCheck.length,
    skipped: words.length - toCheck.length,
    applicable: true,
    message:
      words.length > toCheck.length
        ? `Checked the first ${toCheck.length} of ${words.length} words; ask for a region (box_render) to check others. Words not listed are not promised to work.`
        : 'Words not listed are not promised to work: the check is one-sided.',
    regions,
  };
}
