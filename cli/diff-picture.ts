// `docfix verify DOC --diff-png FILE`: a picture of what the latest correction changed, for a person
// to look at. Built here from routes the API already serves (no route of its own): the audit record
// names the revision the correction started from, the page previews of that revision and of the
// head are compared with pixelmatch, and the picture shows the page faded, every changed pixel in
// red (magenta where it lies outside the declared box) and the declared box outlined in blue.
//
// This is a picture, not the proof: the verification itself compares every pixel at the working
// resolution (300 dpi) in the engine; the preview is low resolution. pixelmatch runs here with
// `threshold: 0` and `includeAA: true` so that no differing preview pixel is left out (its defaults
// would skip anti-aliased ones, and with them real single-pixel changes).
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { ApiClient } from '../src/api-client.ts';
import type { DocumentOut, VerificationOut } from '../src/schemas.ts';

const RED = [255, 0, 0] as const;
const MAGENTA = [255, 0, 255] as const;
const BLUE = [0, 102, 255] as const;

export interface DiffPicture {
  png: PNG;
  /** Preview pixels that differ. */
  changed: number;
  /** Of those, the ones outside the declared box. */
  outside: number;
}

function paint(png: PNG, x: number, y: number, [r, g, b]: readonly number[]): void {
  if (x < 0 || y < 0 || x >= png.width || y >= png.height) return;
  const i = (y * png.width + x) * 4;
  png.data[i] = r;
  png.data[i + 1] = g;
  png.data[i + 2] = b;
  png.data[i + 3] = 255;
}

/**
 * The picture of two same-sized page images: `box` is the declared box in render pixels
 * ([x0, y0, x1, y1] at the verification's dpi), `scale` turns those into preview pixels.
 */
export function diffPicture(before: PNG, after: PNG, box: number[] | null, scale: number): DiffPicture {
  if (before.width !== after.width || before.height !== after.height)
    throw new Error(
      `the page images differ in size (${before.width}×${before.height} and ${after.width}×${after.height})`,
    );
  const { width, height } = before;
  const png = new PNG({ width, height });
  const changed = pixelmatch(before.data, after.data, png.data, width, height, {
    threshold: 0,
    includeAA: true,
    alpha: 0.2,
    diffColor: [...RED],
  });
  // The box in preview pixels, widened to whole pixels: a changed pixel touching it is inside.
  const b = box
    ? [
        Math.floor(box[0] * scale),
        Math.floor(box[1] * scale),
        Math.ceil(box[2] * scale),
        Math.ceil(box[3] * scale),
      ]
    : null;
  const inside = (x: number, y: number) => b !== null && x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
  let outside = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (before.data.readUInt32BE(i) === after.data.readUInt32BE(i) || inside(x, y)) continue;
      outside++;
      paint(png, x, y, MAGENTA);
    }
  if (b) {
    // A two-pixel outline just outside the box, so it covers none of the pixels inside.
    for (let t = 1; t <= 2; t++) {
      for (let x = b[0] - t; x < b[2] + t; x++) {
        paint(png, x, b[1] - t, BLUE);
        paint(png, x, b[3] - 1 + t, BLUE);
      }
      for (let y = b[1] - t; y < b[3] + t; y++) {
        paint(png, b[0] - t, y, BLUE);
        paint(png, b[2] - 1 + t, y, BLUE);
      }
    }
  }
  return { png, changed, outside };
}

/** The revision the head's correction was applied to, from the audit record of the document. */
export async function parentRevision(
  client: ApiClient,
  documentId: string,
  revisionId: string,
): Promise<string> {
  const entries = await client.call('listAudit', { query: { subject_id: documentId, limit: 500 } });
  for (const entry of entries) {
    const payload = entry.payload as { revision_id?: unknown; parent_revision_id?: unknown };
    if (
      entry.action === 'correction.apply' &&
      payload.revision_id === revisionId &&
      typeof payload.parent_revision_id === 'string'
    )
      return payload.parent_revision_id;
  }
  throw new Error(
    `the audit record of ${documentId} does not say which revision ${revisionId} was made from; no picture`,
  );
}

/** Where the picture of a page goes: FILE itself for one page, FILE-pN.png for several. */
export function pictureFile(file: string, pageIndex: number, pages: number): string {
  if (pages === 1) return file;
  const ext = extname(file);
  return `${ext ? file.slice(0, -ext.length) : file}-p${pageIndex}${ext || '.png'}`;
}

export interface WrittenPicture {
  page_index: number;
  file: string;
  changed_pixels: number;
  outside_pixels: number;
}

/** Writes the picture of every page the verification found changed; answers what it wrote. */
export async function writeDiffPictures(
  client: ApiClient,
  document: DocumentOut,
  v: VerificationOut,
  file: string,
): Promise<WrittenPicture[]> {
  const pages = v.pages.filter((p) => !p.identical || p.changed_pixels > 0);
  if (pages.length === 0) return [];
  const id = document.document_id;
  const parent = await parentRevision(client, id, v.revision_id);
  const written: WrittenPicture[] = [];
  for (const page of pages) {
    const preview = async (revision: string) =>
      PNG.sync.read(
        Buffer.from(
          await client.call('pagePreview', {
            params: { document_id: id, page_index: page.page_index },
            query: { revision },
            retry: true,
          }),
        ),
      );
    const before = await preview(parent);
    const after = await preview(v.revision_id);
    // Preview pixels per render pixel: the page's width at the verification's dpi against the image.
    const info = document.pages?.find((p) => p.index === page.page_index);
    const widthPt = info ? (info.rotation % 180 === 0 ? info.width_pt : info.height_pt) : 0;
    const scale = widthPt > 0 ? after.width / ((widthPt * v.dpi) / 72) : 72 / v.dpi;
    const picture = diffPicture(before, after, page.declared_box, scale);
    const out = pictureFile(file, page.page_index, pages.length);
    await writeFile(out, PNG.sync.write(picture.png));
    written.push({
      page_index: page.page_index,
      file: out,
      changed_pixels: picture.changed,
      outside_pixels: picture.outside,
    });
  }
  return written;
}
