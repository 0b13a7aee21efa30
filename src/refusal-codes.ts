// Every code a refusal's advice can carry (`advice.code` of a proposal, of an `edit_refused` error),
// and the codes of the tiers passed over (`rejected[].code`). The engine raises them
// (src/corrections/); the CLI gives each advice code a plain headline and a `try:` line
// (cli/refusal-text.ts). test/src/refusal-codes.test.ts reads the engine's sources and fails on a
// code missing here, so a new one cannot go unexplained. The meaning of each: docs/engine.md.

export const REFUSAL_CODES = [
  'method_not_available',
  'not_a_scan',
  'confirmation_needed',
  'crop_not_served',
  'pixels_disagree',
  'drawn_over_scan',
  'patch_faint_scan',
  'patch_low_contrast',
  'patch_unsegmented',
  'letter_not_on_page',
  'letter_style_mismatch',
  'patch_one_word',
  'patch_too_wide',
  'ocr_language_unavailable',
  'empty_replacement',
  'identical_replacement',
  'text_not_found',
  'match_index_out_of_range',
  'target_spans_lines',
  'text_not_mapped',
  'partial_ligature',
  'split_drawing',
  'invisible_text',
  'degenerate_text',
  'glyph_not_available',
  'replacement_too_wide',
  'gap_inside_word',
  'font_attempt_out_of_range',
  'would_not_verify',
  'annotation_text',
  'vertical_text',
  'damaged_document',
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** Why a tier was passed over (inside `rejected`; a refusal's own code may be one of these too). */
export const TIER_REJECTION_CODES = [
  'glyph_not_in_font',
  'glyph_not_in_program',
  'glyph_not_provable',
  'not_available',
  'no_sibling',
  'no_matched_font',
  'glyph_not_in_matched_font',
  'font_attempt_out_of_range',
  'type3_not_extended',
  'does_not_fit',
  'gap_inside_word',
  'would_not_verify',
  'not_a_scan',
] as const;

export function isRefusalCode(code: string): code is RefusalCode {
  return (REFUSAL_CODES as readonly string[]).includes(code);
}
