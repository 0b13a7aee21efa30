// A page recognised in two halves at once (src/ocr/recognizer.ts, pageHalves): the cut between the
// halves goes through paper only, following the gap between two lines of a skewed scan (the corpus's
// turned CCITT page, scan-ocr-rotate270.pdf), so every letter lies whole in one half and no ink is
// lost or doubled; a page with a picture across its middle third is not cut. The words read from the
// halves are the page's: native tesseract, reading the same pixels whole, finds them at the same
// places, on the same lines, and mostly reads them alike (its model is Debian's, not the bundled one).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageRecognitionImage } from '../../../src/ocr/page-ocr.ts';
import { closeRecognisers, pageHalves, recogniseWords } from '../../../src/ocr/recognizer.ts';

const SCAN = join(import.meta.dirname, '../../../fixtures/corpus/pdf/scan-ocr-rotate270.pdf');
const dir = mkdtempSync(join(tmpdir(), 'docfix-halves-'));
test.after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await closeRecognisers();
});

interface Grey {
  width: number;
  height: number;
  at: (x: number, y: number) => number;
}

function grey(pgm: Uint8Array): Grey {
  const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(new TextDecoder().decode(pgm.subarray(0, 40)));
  if (!m) throw new Error('not a PGM');
  const [width, height, offset] = [Number(m[1]), Number(m[2]), m[0].length];
  return { width, height, at: (x, y) => pgm[offset + y * width + x] };
}

const page = pageRecognitionImage(new Uint8Array(readFileSync(SCAN)), '', 0, 300);

test('the skewed scan is cut along a gap between lines: every dark pixel in one half, no letter cut', () => {
  const halves = pageHalves(page.pgm);
  assert.ok(halves, 'cut');
  const whole = grey(page.pgm);
  const [top, bottom] = halves.map((h) => ({ ...grey(h.image), y: h.y }));
  // The cut is not a straight row: the scan is turned a little, the lines run across rows.
  assert.ok(bottom.y < top.height - 16 - 8, `halves overlap by rows: ${bottom.y} < ${top.height - 16}`);
  const side = (x: number, y: number) => {
    const inTop = y < top.height && top.at(x, y) < 128;
    const inBottom = y >= bottom.y && bottom.at(x, y - bottom.y) < 128;
    return inTop && inBottom ? 'both' : inTop ? 'top' : inBottom ? 'bottom' : 'none';
  };
  let dark = 0;
  for (let y = 0; y < whole.height; y++) {
    for (let x = 0; x < whole.width; x++) {
      const s = side(x, y);
      if (whole.at(x, y) >= 128) {
        assert.is(s, 'none', `paper at ${x},${y} stays paper`);
        continue;
      }
      dark++;
      assert.ok(s === 'top' || s === 'bottom', `ink at ${x},${y} is in one half (${s})`);
      // No stroke crosses the cut: a dark neighbour is on the same side.
      for (const [dx, dy] of [
        [1, 0],
        [0, 1],
        [1, 1],
        [-1, 1],
      ]) {
        const nx = x + dx;
        const ny = y + dy;
        if (nx < 0 || nx >= whole.width || ny >= whole.height || whole.at(nx, ny) >= 128) continue;
        assert.is(side(nx, ny), s, `ink at ${x},${y} and ${nx},${ny} together`);
      }
    }
  }
  assert.ok(dark > 10000, `${dark} dark pixels`);
});

test('a page with a picture across its middle third is read whole', () => {
  const whole = grey(page.pgm);
  const pgm = new Uint8Array(page.pgm);
  const offset = pgm.length - whole.width * whole.height;
  const from = Math.floor(whole.height / 3);
  pgm.fill(40, offset + from * whole.width, offset + Math.ceil((2 * whole.height) / 3) * whole.width);
  assert.is(pageHalves(pgm), null);
  // Too small to be worth two recognitions.
  const small = new Uint8Array([
    ...new TextEncoder().encode('P5\n400 300\n255\n'),
    ...new Uint8Array(400 * 300).fill(255),
  ]);
  assert.is(pageHalves(small), null);
});

test('the words read from the two halves are where native tesseract reads them on the whole page, line by line', async () => {
  const words = await recogniseWords(page.pgm, 'eng', true, page.dpi);
  const file = join(dir, 'page.pgm');
  writeFileSync(file, page.pgm);
  const tsv = execFileSync('tesseract', [file, '-', '--dpi', String(page.dpi), '-l', 'eng', 'tsv'], {
    encoding: 'utf8',
    env: { ...process.env, OMP_THREAD_LIMIT: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const native = tsv
    .split('\n')
    .map((row) => row.split('\t'))
    .filter((c) => c.length >= 12 && c[0] === '5' && c[11].trim())
    .map((c) => {
      const [left, top, width, height] = c.slice(6, 10).map(Number);
      return {
        text: c[11].trim(),
        box: [left, top, left + width, top + height],
        line: `${c[2]}.${c[3]}.${c[4]}`,
      };
    });
  const overlap = (a: number[], b: number[]) => {
    const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
    const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
    const inter = Math.max(0, w) * Math.max(0, h);
    const area = (r: number[]) => (r[2] - r[0]) * (r[3] - r[1]);
    return inter / (area(a) + area(b) - inter);
  };
  const pairs = words.map((w) => ({ w, n: native.find((n) => overlap(n.box, w.box) > 0.5) }));
  const found = pairs.filter((p) => p.n);
  assert.ok(words.length > 100, `${words.length} words`);
  assert.ok(
    found.length >= 0.95 * words.length,
    `${found.length} of ${words.length} found by native tesseract`,
  );
  // Debian's model is not the bundled one: most words, not all, are read alike.
  const fold = (t: string) => t.toLowerCase().replace(/[.,;:]$/, '');
  const alike = found.filter((p) => fold(p.n!.text) === fold(p.w.text));
  assert.ok(alike.length >= 0.85 * found.length, `${alike.length} of ${found.length} read alike`);
  // Words native tesseract puts on one line are on one line here, and lines of both halves are numbered apart.
  for (let i = 1; i < found.length; i++) {
    const [a, b] = [found[i - 1], found[i]];
    assert.is(a.n!.line === b.n!.line, a.w.line === b.w.line, `“${a.w.text}” and “${b.w.text}”`);
    assert.ok(
      b.w.line >= a.w.line,
      `lines numbered from the top: “${a.w.text}” ${a.w.line}, “${b.w.text}” ${b.w.line}`,
    );
  }
});

test.run();
