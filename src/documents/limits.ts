// The bounds of the documents area: what a file may carry before any work starts (image pixels, page
// size, decompression), how much a search answers and how large a crop may be. docs/documents.md
// explains each choice; the daemon and the engine read them from here only.

/** spec Part 8: an image over 100 megapixels is refused (image_too_large), read from its dictionary. */
export const MAX_IMAGE_PIXELS = 100_000_000;

/**
 * page_too_large: the working resolution is 300 dpi and a page is rendered twice per verification.
 * A0 (841 × 1189 mm = 2384 × 3370 pt, 139 MP at 300 dpi) is the largest common sheet, so a side of
 * 50 inches and 140 MP at 300 dpi are the limits.
 */
export const MAX_PAGE_SIDE_PT = 50 * 72;
export const MAX_PAGE_PIXELS_300DPI = 140_000_000;

/** A single decoded (Flate) stream larger than this is treated as a decompression bomb (unreadable_pdf). */
export const MAX_STREAM_INFLATED_BYTES = 256 * 1024 * 1024;

/** Engine time for inspecting an upload before the watchdog stops it (unreadable_pdf). */
export const INSPECT_TIMEOUT_MS = 60_000;
export const RENDER_TIMEOUT_MS = 30_000;
export const SEARCH_TIMEOUT_MS = 60_000;

/** Search answers at most this many matches, then says `truncated`. */
export const SEARCH_MATCH_CAP = 500;
export const SEARCH_QUERY_MAX = 200;

/** Working resolution: boxes in the API are render pixels at this dpi. */
export const RENDER_DPI = 300;
/** preview.png resolution; `thumb` scales the page to THUMB_WIDTH pixels wide. */
export const PREVIEW_DPI = 72;
export const THUMB_WIDTH = 150;

/** spec Part 8: a crop is at most 4 megapixels of output (crop_too_large). */
export const MAX_CROP_PIXELS = 4_000_000;

/**
 * Free (unpaid) tenants: native pixels inside corrections served per document and UTC day. Sixteen
 * megapixels is four maximum-size crops: enough to check every correction of a document closely
 * at 600 dpi, not enough to take the corrected pages away at full resolution.
 */
export const INSPECTION_BUDGET_PIXELS = 16_000_000;

/** filename_hint is a hint only: its basename, at most this many characters. */
export const FILENAME_HINT_MAX = 120;

/** GET /v1/documents: largest page of the list. */
export const LIST_LIMIT_MAX = 200;
