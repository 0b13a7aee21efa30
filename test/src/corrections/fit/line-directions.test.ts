// Every line direction (issue 33 item 3): a word on a line whose text matrix is rotated (90°, 180°,
// 270°, 30°), skewed (fake italics), on a rotated page, turned by the CTM or by a form's /Matrix,
// is located, fitted and rewritten in the line's own frame. Each correction verifies, poppler's
// pdftotext shows the new word and not the old one, and poppler's render differs from the original
// only inside the declared box; a word made wider is re-spaced along the line as on an upright one,
// and one that would run into the next word is refused with the same code as on an upright line.
// The pages are made here: one line of Helvetica (standard 14, WinAnsi) 12 pt on a 400 pt page.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEdit, proposeEdit } from '../../../../src/corrections/engine.ts';
import { takeBytes } from '../../../../src/corrections/locate/pdf-bytes.ts';
import { mupdf } from '../../../../src/pdf/mupdf-adapter.ts';
import { editInput, formDict, justifiedParagraphPdf } from '../fixtures.ts';
import { compare, POPPLER_DPI, pdftoppm } from '../poppler.ts';

const dir = mkdtempSync(join(tmpdir(), 'docfix-line-directions-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const LINE = 'the quick brown fox jumps';

/** The matrix that turns by `deg` (counter-clockwise) and shears text space's y axis by `shear`. */
function turn(deg: number, shear = 0): number[] {
  const r = (deg * Math.PI) / 180;
  const [c, s] = [Math.cos(r), Math.sin(r)];
  return [c, s, shear * c - s, shear * s + c].map((v) => Number(v.toFixed(6)));
}
const tm = (deg: number, x: number, y: number, shear = 0) => `${turn(deg, shear).join(' ')} ${x} ${y} Tm`;

interface Case {
  name: string;
  /** What the case exercises. */
  what: string;
  content: string;
  rotate?: 0 | 90 | 180 | 270;
  /** A form X1 (the line at 20 20 in it) drawn with this /Matrix. */
  formMatrix?: number[];
  /** The baseline's angle as the page is seen, and the shear of its glyphs (line_frame). */
  angle: number;
  shear?: number;
}

const line = (m: string) => `BT /F1 12 Tf ${m} (${LINE}) Tj ET`;
const CASES: Case[] = [
  { name: '0°', what: 'an upright line (the reference)', content: line(tm(0, 50, 200)), angle: 0 },
  { name: '90°', what: 'the text matrix turned a quarter', content: line(tm(90, 200, 50)), angle: 90 },
  { name: '180°', what: 'the text matrix upside down', content: line(tm(180, 350, 200)), angle: 180 },
  {
    name: '270°',
    what: 'the text matrix turned three quarters',
    content: line(tm(270, 200, 350)),
    angle: -90,
  },
  { name: '30°', what: 'an arbitrary angle in the text matrix', content: line(tm(30, 60, 100)), angle: 30 },
  {
    name: 'skewed',
    what: 'a shear in the text matrix (fake italics, 0.3)',
    content: line(tm(0, 50, 200, 0.3)),
    angle: 0,
    shear: 16.699,
  },
  {
    name: '/Rotate 90',
    what: 'an upright text matrix on a page shown turned (/Rotate 90)',
    content: line(tm(0, 50, 200)),
    rotate: 90,
    angle: -90,
  },
  {
    name: '30° on /Rotate 270',
    what: 'a turned text matrix on a turned page',
    content: line(tm(30, 60, 100)),
    rotate: 270,
    angle: 120,
  },
  {
    name: '45° by the CTM',
    what: 'the CTM turned (cm), the text matrix upright',
    content: `q ${turn(45).join(' ')} 150 50 cm BT /F1 12 Tf 0 0 Td (${LINE}) Tj ET Q`,
    angle: 45,
  },
  {
    name: '30° in a form',
    what: 'a Form XObject whose /Matrix turns it',
    content: 'q /X1 Do Q',
    formMatrix: [...turn(30), 100, 50],
    angle: 30,
  },
];

/** A one-page PDF of `c`: 400 × 400 pt, Helvetica as F1 on the page and in the form. */
function pdfOf(c: Case): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const fontsOf = () => {
      const res = doc.newDictionary();
      const fonts = doc.newDictionary();
      fonts.put('F1', font);
      res.put('Font', fonts);
      return res;
    };
    const res = fontsOf();
    if (c.formMatrix) {
      const dict = formDict(doc, [0, 0, 400, 400]);
      const matrix = doc.newArray();
      for (const v of c.formMatrix) matrix.push(v);
      dict.put('Matrix', matrix);
      dict.put('Resources', fontsOf());
      const xobjects = doc.newDictionary();
      xobjects.put('X1', doc.addStream(line('20 20 Td'), dict));
      res.put('XObject', xobjects);
    }
    doc.insertPage(-1, doc.addPage([0, 0, 400, 400], c.rotate ?? 0, res, c.content));
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

/**
 * poppler's text, whitespace removed: `pdftotext -raw` reads a slanted line in drawing order, but
 * at 45° it still breaks it after every glyph (one character a line), so words are compared without
 * the breaks.
 */
function popplerText(path: string): string {
  const raw = execFileSync('pdftotext', ['-raw', path, '-'], { encoding: 'utf8' });
  return raw.replace(/\s+/g, '');
}

/** poppler's renders of before and after: changed pixels, and how many lie outside the declared box. */
function popplerPixels(before: string, after: string, declared: number[]) {
  const scale = POPPLER_DPI / 300;
  const pad = 2; // poppler's own rounding and antialiasing, as the fidelity harness allows
  const box: [number, number, number, number] = [
    Math.floor(declared[0]! * scale) - pad,
    Math.floor(declared[1]! * scale) - pad,
    Math.ceil(declared[2]! * scale) + pad,
    Math.ceil(declared[3]! * scale) + pad,
  ];
  const a = pdftoppm(before, 0, '', `${before}-r`);
  const b = pdftoppm(after, 0, '', `${after}-r`);
  return compare(a, b, box);
}

/** Applies `find` → `replacement` on the case's page and checks it as poppler sees it. */
async function corrected(c: Case, find: string, replacement: string) {
  const pdf = pdfOf(c);
  const { proposal, output, verification } = await applyEdit(editInput(pdf, find, replacement));
  assert.ok(verification.passed, `${c.name}: ${verification.failure_reason}`);
  const slug = `${c.name.replace(/\W+/g, '_')}-${find}`;
  const before = join(dir, `${slug}-a.pdf`);
  const after = join(dir, `${slug}-b.pdf`);
  writeFileSync(before, pdf);
  writeFileSync(after, output);
  const text = popplerText(after);
  assert.ok(text.includes(replacement), `${c.name}: pdftotext has no “${replacement}”: ${text}`);
  assert.not.ok(text.includes(find), `${c.name}: pdftotext still has “${find}”: ${text}`);
  const { changed, outside } = popplerPixels(before, after, verification.declared_box);
  assert.ok(changed > 0, `${c.name}: poppler sees no change`);
  assert.is(outside, 0, `${c.name}: ${outside} of ${changed} changed pixels outside the declared box`);
  return { proposal, verification };
}

for (const c of CASES) {
  test(`${c.name} (${c.what}): one letter of a word changed verifies, in the line's frame`, async () => {
    const { proposal, verification } = await corrected(c, 'brown', 'crown');
    assert.is(proposal.visibility_cost, 'none');
    const measurements = proposal.measurements as Record<string, unknown> | undefined;
    const frame = measurements?.line_frame as
      { angle_deg: number; shear_deg: number; target_quad_pt: number[]; target_box_pt: number[] } | undefined;
    if (c.angle === 0 && !c.shear) assert.is(frame, undefined);
    else {
      assert.ok(frame, `${c.name}: no line_frame`);
      // Angles are read modulo a turn (180° and -180° are one direction).
      const off = ((((frame.angle_deg - c.angle) % 360) + 540) % 360) - 180;
      assert.ok(Math.abs(off) < 0.01, `${c.name}: angle ${frame.angle_deg}`);
      assert.ok(Math.abs(frame.shear_deg - (c.shear ?? 0)) < 0.01, `${c.name}: shear ${frame.shear_deg}`);
      // The declared box (render pixels) holds the page-space box of the changed quad.
      const [x0, y0, x1, y1] = frame.target_box_pt.map((v) => (v * 300) / 72);
      const d = verification.declared_box;
      assert.ok(
        d[0]! <= x0! && d[1]! <= y0! && d[2]! >= x1! && d[3]! >= y1!,
        `${c.name}: ${d} vs ${frame.target_box_pt}`,
      );
    }
    const own = verification.guards.find((g) => g.name === 'edit_on_own_line')!;
    assert.ok(own.passed, own.detail);
    // A slanted line's band is taken in its own frame (proof/line-band.ts).
    if (c.angle % 90 !== 0) assert.match(own.detail, /slanted line's band/);
  });

  test(`${c.name}: a wider word re-spaces the line along its baseline`, async () => {
    const { proposal } = await corrected(c, 'quick', 'quack');
    assert.is(proposal.visibility_cost, 'low');
    const measurements = proposal.measurements as Record<string, unknown> | undefined;
    assert.match(String(measurements?.fit_rule), /line re-spaced/);
  });
}

test('a letter the font lacks is drawn by a matched face in the turned or sheared line’s own text matrix', async () => {
  // Helvetica (WinAnsi) has no “Ω”: tier 4 draws it between two Tf in the same text object, so the
  // operator's Tm (rotation, shear) places it as it places the letters around it.
  for (const c of CASES.filter((k) => ['90°', '30°', 'skewed', '30° in a form'].includes(k.name))) {
    const { proposal } = await corrected(c, 'brown', 'brΩwn');
    assert.is(proposal.tier, 4, c.name);
  }
});

test('a word that would run into the next one is refused alike on an upright and a turned line', async () => {
  const measured: Record<string, unknown>[] = [];
  for (const c of CASES) {
    const proposal = await proposeEdit(editInput(pdfOf(c), 'fox', 'foxes'));
    assert.is(proposal.visibility_cost, 'refused', c.name);
    assert.is(proposal.advice?.code, 'replacement_too_wide', c.name);
    const rejected = proposal.rejected?.find((r) => r.code === 'does_not_fit');
    assert.ok(rejected, `${c.name}: no does_not_fit`);
    measured.push(rejected.evidence as Record<string, unknown>);
  }
  // Measured in each line's frame, the overflow and the gap to the next word are the upright line's.
  for (const m of measured) {
    assert.is(m.overflow_pt, measured[0]!.overflow_pt);
    assert.is(m.gap_to_next_pt, measured[0]!.gap_to_next_pt);
  }
});

/**
 * `pdf` (one page) drawn through `matrix` (a cm around the page's content) on a 300 × 300 pt page:
 * the same text, turned, its streams and fonts as they were.
 */
function turnedPage(pdf: Uint8Array, matrix: number[]): Uint8Array {
  const doc = new mupdf.PDFDocument(pdf);
  try {
    const page = doc.findPage(0);
    const contents = page.get('Contents');
    const content = contents.readStream().asString();
    contents.writeStream(`q ${matrix.join(' ')} cm\n${content}\nQ`);
    const box = doc.newArray();
    for (const v of [0, 0, 300, 300]) box.push(v);
    page.put('MediaBox', box);
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

test("a turned paragraph's last line grows up to its column's edge, read along the lines as on an upright one", async () => {
  // justifiedParagraphPdf: LM Roman 10 at 10 pt, three lines justified to 110 pt and a last line
  // “with pixels alone.”; “alone” → “amone” is 5.56 pt wider, more than 0.25 em past the line's end
  // and the gaps before it give, so only the column's edge (33.55 pt on) makes room.
  for (const [name, matrix] of [
    ['90°', [0, 1, -1, 0, 250, 20]],
    ['30°', [...turn(30), 100, 20]],
  ] as const) {
    const pdf = turnedPage(justifiedParagraphPdf(), [...matrix]);
    const { proposal, verification } = await applyEdit(editInput(pdf, 'alone', 'amone'));
    assert.ok(verification.passed, `${name}: ${verification.failure_reason}`);
    const m = proposal.measurements as { fit_rule: string; allowed_overflow_pt: number };
    assert.match(m.fit_rule, /right edge of the line's column/, name);
    assert.ok(Math.abs(m.allowed_overflow_pt - 33.55) < 0.01, `${name}: ${m.allowed_overflow_pt}`);
    // A last line that starts elsewhere has no column edge to grow to, turned or not.
    const centred = justifiedParagraphPdf([
      'Correct the name in this',
      'and prove it with pixels',
      'so every reader trusts it',
      ' with pixels alone.',
    ]);
    const refused = await proposeEdit(editInput(turnedPage(centred, [...matrix]), 'alone', 'amone'));
    assert.is(refused.advice?.code, 'replacement_too_wide', name);
  }
});

test.run();
