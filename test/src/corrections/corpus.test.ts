// The engine on real files: every text-layer task of the corpus manifest (kind same and hard) goes
// through proposeEdit/applyEdit. Each applied correction is cross-checked with poppler, an
// independent reader: pdftotext shows the new word once more and the old one once less, and
// pdftoppm renders of before and after differ only inside the declared box. Prints a table.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PNG } from 'pngjs';
import { applyEdit, proposeEdit, type EditTaskInput } from '../../../src/corrections/engine.ts';

const corpusDir = fileURLToPath(new URL('../../../../shared/corpus/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(corpusDir, 'manifest.json'), 'utf8')) as {
  files: {
    file: string;
    password: string | null;
    owner_password: string | null;
    tasks?: {
      page: number;
      find: string;
      replace: string;
      match_index: number;
      kind: string;
      method: string;
    }[];
  }[];
};

const work = mkdtempSync(join(tmpdir(), 'docfix-corpus-'));
const POPPLER_DPI = 72;
const SCALE = POPPLER_DPI / 300;
/** Slack around the scaled declared box for poppler's own rounding and antialiasing. */
const POPPLER_PAD = 2;

const manifestInput = {
  document_id: 'doc_corpus',
  original_sha256: '0'.repeat(64),
  standing: [],
  engine_version: 'test',
  renderer: 'mupdf',
  dpi: 300,
};

function pdftotext(path: string, page: number, password: string): string {
  const pw = password ? ['-upw', password] : [];
  return execFileSync('pdftotext', [...pw, '-f', String(page + 1), '-l', String(page + 1), path, '-'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

interface Ppm {
  width: number;
  height: number;
  data: Buffer;
  offset: number;
}

function pdftoppm(path: string, page: number, password: string, out: string): Ppm {
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
function pdftocairo(path: string, page: number, password: string, out: string): Ppm {
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
function compare(
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

const count = (hay: string, needle: string) => hay.split(needle).length - 1;

interface Row {
  file: string;
  kind: string;
  task: string;
  result: string;
}

const rows: Row[] = [];
const failures: string[] = [];

for (const entry of manifest.files) {
  const tasks = (entry.tasks ?? []).filter((t) => t.method === 'text_layer');
  if (!tasks.length) continue;
  test(`corpus: ${entry.file}`, async () => {
    const path = join(corpusDir, 'pdf', entry.file);
    const pdf = new Uint8Array(readFileSync(path));
    const password = entry.password ?? '';
    for (const t of tasks) {
      const label = `${t.find} → ${t.replace} (p${t.page})`;
      const input: EditTaskInput = {
        pdf,
        password,
        request: {
          page_index: t.page,
          target: { method: 'text_layer', find: t.find, match_index: t.match_index },
          replacement: t.replace,
          attestation_id: 'att_corpus',
        },
        manifest: manifestInput,
      };
      const proposal = await proposeEdit(input);
      if (proposal.tier < 0) {
        assert.ok(proposal.advice?.code, `${entry.file} ${label}: a refusal carries advice`);
        assert.is(proposal.visibility_cost, 'refused');
        rows.push({
          file: entry.file,
          kind: t.kind,
          task: label,
          result: `refused: ${proposal.advice!.code}`,
        });
        continue;
      }
      const { output, verification } = await applyEdit(input);
      assert.ok(verification.passed, `${entry.file} ${label}: ${verification.failure_reason}`);
      const outPath = join(work, `${entry.file}.${t.kind}.${t.page}.out.pdf`);
      writeFileSync(outPath, output);

      // poppler's text: the new word once more, the old once less.
      const before = pdftotext(path, t.page, password);
      const after = pdftotext(outPath, t.page, password);
      const problems: string[] = [];
      if (!t.replace.includes(t.find) && count(after, t.find) !== count(before, t.find) - 1) {
        problems.push(`pdftotext: “${t.find}” ${count(before, t.find)} → ${count(after, t.find)}`);
      }
      if (!t.find.includes(t.replace) && count(after, t.replace) !== count(before, t.replace) + 1) {
        problems.push(`pdftotext: “${t.replace}” ${count(before, t.replace)} → ${count(after, t.replace)}`);
      }

      // poppler's pixels: every difference inside the declared box (scaled to 72 dpi). pdftoppm
      // (Splash) reuses a cached glyph bitmap for later glyphs of the same fraction bucket, so a
      // glyph drawn at a new sub-pixel position can change how *other*, untouched copies of that
      // glyph look in its render; when that happens the page is checked with poppler's Cairo
      // backend, which draws each glyph where it is, and the note says so.
      let note = '';
      const a = pdftoppm(path, t.page, password, join(work, 'before'));
      const b = pdftoppm(outPath, t.page, password, join(work, 'after'));
      if (a.width !== b.width || a.height !== b.height) problems.push('pdftoppm: page size changed');
      else {
        const [bx0, by0, bx1, by1] = verification.declared_box;
        const box: [number, number, number, number] = [
          Math.floor(bx0 * SCALE) - POPPLER_PAD,
          Math.floor(by0 * SCALE) - POPPLER_PAD,
          Math.ceil(bx1 * SCALE) + POPPLER_PAD,
          Math.ceil(by1 * SCALE) + POPPLER_PAD,
        ];
        let { changed, outside } = compare(a, b, box);
        if (outside > 0) {
          const ca = pdftocairo(path, t.page, password, join(work, 'cbefore'));
          const cb = pdftocairo(outPath, t.page, password, join(work, 'cafter'));
          const c = compare(ca, cb, box);
          note = ` (pdftoppm: ${outside} pixel(s) of other copies of the glyphs differ; pdftocairo: ${c.outside} outside)`;
          ({ changed, outside } = c);
        }
        if (changed === 0) problems.push('poppler: nothing changed');
        if (outside > 0)
          problems.push(`poppler: ${outside} of ${changed} changed pixels outside the declared box`);
      }
      if (problems.length) failures.push(`${entry.file} ${label}: ${problems.join('; ')}`);
      rows.push({
        file: entry.file,
        kind: t.kind,
        task: label,
        result: `tier ${proposal.tier}${problems.length ? ' POPPLER CHECK FAILED' : ''}${note}`,
      });
    }
  });
}

test('corpus: every verified correction passes the poppler check', () => {
  const width = Math.max(...rows.map((r) => r.file.length));
  const lines = rows.map(
    (r) => `${r.file.padEnd(width)}  ${r.kind.padEnd(4)}  ${r.task.padEnd(36)}  ${r.result}`,
  );
  const verified = rows.filter((r) => r.result.startsWith('tier'));
  const byTier = new Map<string, number>();
  for (const r of verified) {
    const key = r.result.replace(/ \(.*$/, '');
    byTier.set(key, (byTier.get(key) ?? 0) + 1);
  }
  const byCode = new Map<string, number>();
  for (const r of rows.filter((x) => x.result.startsWith('refused')))
    byCode.set(r.result, (byCode.get(r.result) ?? 0) + 1);
  console.log(['', ...lines, ''].join('\n'));
  console.log(
    `corpus: ${rows.length} tasks; ${[...byTier].map(([k, v]) => `${k}: ${v}`).join(', ')}; ${[...byCode]
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}`,
  );
  rmSync(work, { recursive: true, force: true });
  assert.equal(failures, []);
  assert.ok(verified.length >= 40, `at least 40 corpus corrections verify (got ${verified.length})`);
});

test.run();
