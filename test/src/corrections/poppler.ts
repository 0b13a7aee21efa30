// poppler, an independent reader, as the tests' cross-check of a correction, held to the fidelity
// harness's standard: pdftotext for the text; pdftoppm (Splash) at 150 dpi, colour, whole page,
// every changed pixel inside the declared box widened by 2 px. pdftocairo is only a diagnostic.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';

export const POPPLER_DPI = 150;

export function pdftotext(path: string, page: number, password: string): string {
  const pw = password ? ['-upw', password] : [];
  return execFileSync('pdftotext', [...pw, '-f', String(page + 1), '-l', String(page + 1), path, '-'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** pdftotext of a page of PDF bytes (written to a private folder, removed after). */
export function pdftotextOf(bytes: Uint8Array, page = 0, password = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-pdftotext-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), bytes);
    return pdftotext(join(dir, 'in.pdf'), page, password);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface Ppm {
  width: number;
  height: number;
  data: Buffer;
  offset: number;
}

export function pdftoppm(path: string, page: number, password: string, out: string): Ppm {
  const pw = password ? ['-upw', password] : [];
  execFileSync(
    'pdftoppm',
    [
      ...pw,
      '-r',
      String(POPPLER_DPI),
      '-f',
      String(page + 1),
      '-l',
      String(page + 1),
      '-singlefile',
      path,
      out,
    ],
    { stdio: 'ignore' },
  );
  const data = readFileSync(`${out}.ppm`);
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(data.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('unexpected PPM header');
  return { width: Number(header[1]), height: Number(header[2]), data, offset: header[0].length };
}

/** poppler's Cairo backend, as RGB in the same shape (used to tell Splash glyph-cache effects apart). */
export function pdftocairo(path: string, page: number, password: string, out: string): Ppm {
  const pw = password ? ['-upw', password] : [];
  execFileSync(
    'pdftocairo',
    [
      '-png',
      ...pw,
      '-r',
      String(POPPLER_DPI),
      '-f',
      String(page + 1),
      '-l',
      String(page + 1),
      '-singlefile',
      path,
      out,
    ],
    { stdio: 'ignore' },
  );
  const png = PNG.sync.read(readFileSync(`${out}.png`));
  const rgb = Buffer.alloc(png.width * png.height * 3);
  for (let i = 0, j = 0; i < png.data.length; i += 4, j += 3) {
    rgb[j] = png.data[i];
    rgb[j + 1] = png.data[i + 1];
    rgb[j + 2] = png.data[i + 2];
  }
  return { width: png.width, height: png.height, data: rgb, offset: 0 };
}

/** Changed pixels of two renders, and how many fall outside `box` (inclusive-exclusive). */
export function compare(
  a: Ppm,
  b: Ppm,
  box: [number, number, number, number],
): { changed: number; outside: number } {
  const [x0, y0, x1, y1] = box;
  let changed = 0;
  let outside = 0;
  for (let y = 0; y < a.height; y += 1) {
    const ra = a.offset + y * a.width * 3;
    const rb = b.offset + y * b.width * 3;
    if (a.data.compare(b.data, rb, rb + b.width * 3, ra, ra + a.width * 3) === 0) continue;
    for (let x = 0; x < a.width; x += 1) {
      const i = ra + x * 3;
      const j = rb + x * 3;
      if (a.data[i] === b.data[j] && a.data[i + 1] === b.data[j + 1] && a.data[i + 2] === b.data[j + 2])
        continue;
      changed += 1;
      if (x < x0 || x >= x1 || y < y0 || y >= y1) outside += 1;
    }
  }
  return { changed, outside };
}

const SCALE = POPPLER_DPI / 300;
/** Slack around the scaled declared box for poppler's own rounding and antialiasing. */
const POPPLER_PAD = 2;

/** poppler's view of the page before, shared by the tasks on one page (the last 4 pages kept). */
const beforeCache = new Map<string, { text?: string; ppm?: Ppm; cairo?: Ppm }>();
function beforeOf(path: string, page: number, password: string) {
  const key = `${path}\u0000${page}\u0000${password}`;
  let entry = beforeCache.get(key);
  if (!entry) {
    entry = {};
    beforeCache.set(key, entry);
    if (beforeCache.size > 4) beforeCache.delete(beforeCache.keys().next().value!);
  }
  return entry;
}

/** Occurrences, after NFKC (poppler may extract a ligature glyph as “ﬁ”). */
const count = (hay: string, needle: string) =>
  hay.normalize('NFKC').split(needle.normalize('NFKC')).length - 1;

/**
 * poppler's view of a correction of `find` into `replace` on `page`: pdftotext shows the new text
 * once more and the old once less, and the renders of before and after differ only inside the
 * declared box (300 dpi render pixels, scaled to poppler's 72 dpi and padded by 2 px).
 */
export function popplerCheck(
  path: string,
  outPath: string,
  page: number,
  password: string,
  find: string,
  replace: string,
  declaredBox: number[],
  work: string,
): { problems: string[]; note: string; splashBucketFlip: string | null } {
  // poppler's text: the new word once more, the old once less.
  const cached = beforeOf(path, page, password);
  const before = (cached.text ??= pdftotext(path, page, password));
  const after = pdftotext(outPath, page, password);
  const problems: string[] = [];
  if (!replace.includes(find) && count(after, find) !== count(before, find) - 1) {
    problems.push(`pdftotext: “${find}” ${count(before, find)} → ${count(after, find)}`);
  }
  if (!find.includes(replace) && count(after, replace) !== count(before, replace) + 1) {
    problems.push(`pdftotext: “${replace}” ${count(before, replace)} → ${count(after, replace)}`);
  }

  // poppler's pixels: every difference inside the declared box (scaled to 150 dpi).
  let note = '';
  let splashBucketFlip: string | null = null;
  const a = (cached.ppm ??= pdftoppm(path, page, password, join(work, 'before')));
  const b = pdftoppm(outPath, page, password, join(work, 'after'));
  if (a.width !== b.width || a.height !== b.height) problems.push('pdftoppm: page size changed');
  else {
    const [bx0, by0, bx1, by1] = declaredBox;
    const box: [number, number, number, number] = [
      Math.floor(bx0 * SCALE) - POPPLER_PAD,
      Math.floor(by0 * SCALE) - POPPLER_PAD,
      Math.ceil(bx1 * SCALE) + POPPLER_PAD,
      Math.ceil(by1 * SCALE) + POPPLER_PAD,
    ];
    const { changed, outside } = compare(a, b, box);
    if (changed === 0) problems.push('poppler: nothing changed');
    if (outside > 0) {
      // Splash draws each glyph from a bitmap made for its quarter-pixel bucket. A glyph whose exact
      // position sits on a bucket edge flips bucket when the advances before it are summed in another
      // order (a letter swap moves the same widths around): the glyph moves by 1e-13 pt and its
      // antialiased edge changes. Cairo draws it where it is; if Cairo sees nothing outside, the
      // disagreement is that flip, counted apart (docs/engine.md, "Known gaps").
      const ca = (cached.cairo ??= pdftocairo(path, page, password, join(work, 'cbefore')));
      const cb = pdftocairo(outPath, page, password, join(work, 'cafter'));
      const c = compare(ca, cb, box);
      note = ` (pdftocairo: ${c.outside} of ${c.changed} outside)`;
      if (c.outside === 0)
        splashBucketFlip = `pdftoppm: ${outside} of ${changed} changed pixels outside the declared box${note}`;
      else problems.push(`poppler: ${outside} of ${changed} changed pixels outside the declared box${note}`);
    }
  }
  return { problems, note, splashBucketFlip };
}

/**
 * poppler's problems with a correction of page 0 (popplerCheck), the files written under `work` as
 * `<name>-a.pdf` and `<name>-b.pdf`.
 */
export function popplerProblemsIn(
  work: string,
  name: string,
  pdf: Uint8Array,
  output: Uint8Array,
  find: string,
  replace: string,
  box: number[],
): string[] {
  const before = join(work, `${name}-a.pdf`);
  const after = join(work, `${name}-b.pdf`);
  writeFileSync(before, pdf);
  writeFileSync(after, output);
  return popplerCheck(before, after, 0, '', find, replace, box, work).problems;
}

/** The same, the two files in a private folder removed after. */
export function popplerProblemsOf(
  pdf: Uint8Array,
  output: Uint8Array,
  find: string,
  replace: string,
  box: number[],
): string[] {
  const work = mkdtempSync(join(tmpdir(), 'docfix-poppler-'));
  try {
    return popplerProblemsIn(work, 'page', pdf, output, find, replace, box);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
