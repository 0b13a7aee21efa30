// Small PDFs made on the spot for the engine's unit tests: a standard font (Helvetica, WinAnsi, not
// embedded), pages with given content streams, and optionally Form XObjects shared between pages.
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';
import { faceById, fontBytes } from '../../../src/fonts/catalog.ts';
import { takeBytes } from '../../../src/corrections/locate/pdf-bytes.ts';
import type { EditTaskInput } from '../../../src/corrections/engine.ts';

export interface FixturePage {
  content: string;
  /** Form XObjects by resource name: content stream of each (shared by name across pages). */
  forms?: string[];
}

/**
 * Builds a PDF. `forms` maps a form name to its content; a page listing the name in `forms` gets it
 * in its /XObject resources (the same object for every page that lists it).
 */
export function makePdf(pages: FixturePage[], forms: Record<string, string> = {}): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = doc.addSimpleFont(new mupdf.Font('Helvetica'));
    const formRefs = new Map<string, mupdf.PDFObject>();
    for (const [name, content] of Object.entries(forms)) {
      const fres = doc.newDictionary();
      const ff = doc.newDictionary();
      ff.put('F1', font);
      fres.put('Font', ff);
      const dict = formDict(doc, [0, 0, 300, 200]);
      dict.put('Resources', fres);
      formRefs.set(name, doc.addStream(content, dict));
    }
    for (const p of pages) {
      const res = doc.newDictionary();
      const fonts = doc.newDictionary();
      fonts.put('F1', font);
      res.put('Font', fonts);
      if (p.forms?.length) {
        const xo = doc.newDictionary();
        for (const name of p.forms) xo.put(name, formRefs.get(name)!);
        res.put('XObject', xo);
      }
      doc.insertPage(-1, doc.addPage([0, 0, 300, 200], 0, res, p.content));
    }
    return takeBytes(doc.saveToBuffer('compress'));
  } finally {
    doc.destroy();
  }
}

const helvetica = new mupdf.Font('Helvetica');

/** Width of `text` in makePdf's font (Helvetica) at `size` pt, in points. */
export function helveticaWidth(text: string, size = 10): number {
  return [...text].reduce(
    (a, c) => a + helvetica.advanceGlyph(helvetica.encodeCharacter(c.codePointAt(0)!)) * size,
    0,
  );
}

export const testManifest = {
  document_id: 'doc_unit',
  original_sha256: '0'.repeat(64),
  standing: [],
  engine_version: 'test',
  renderer: 'mupdf',
  dpi: 300,
};

export function editInput(
  pdf: Uint8Array,
  find: string,
  replacement: string,
  page = 0,
  matchIndex = 0,
): EditTaskInput {
  return {
    pdf,
    password: '',
    request: {
      page_index: page,
      target: { method: 'text_layer', find, match_index: matchIndex },
      replacement,
      attestation_id: 'att_unit',
    },
    manifest: testManifest,
  };
}

/** Opens bytes, runs `fn` on the document, destroys it. */
export function withDoc<T>(bytes: Uint8Array, fn: (doc: mupdf.PDFDocument) => T): T {
  const doc = new mupdf.PDFDocument(bytes);
  try {
    return fn(doc);
  } finally {
    doc.destroy();
  }
}

/**
 * A page drawing `content` with a non-embedded Times-Roman without /Widths (resource `T`), under
 * `encoding` (none: the font's own, StandardEncoding), as libharu and PDF 2.0 writers leave it.
 */
export function standardTimesPdf(content: string, encoding?: string): Uint8Array {
  const base = makePdf([{ content: 'BT ET' }]);
  return withDoc(base, (doc) => {
    const font = doc.newDictionary();
    font.put('Type', doc.newName('Font'));
    font.put('Subtype', doc.newName('Type1'));
    font.put('BaseFont', doc.newName('Times-Roman'));
    if (encoding) font.put('Encoding', doc.newName(encoding));
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('T', doc.addObject(font));
    page.put('Contents', doc.addStream(content, doc.newDictionary()));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
}

/** The page's text as MuPDF extracts it. */
export function pageText(bytes: Uint8Array, page = 0): string {
  return withDoc(bytes, (doc) => {
    const st = doc.loadPage(page).toStructuredText('preserve-whitespace');
    try {
      return st.asText();
    } finally {
      st.destroy();
    }
  });
}

/** The glyph ids `font` draws `text` with, as 4-digit hex (Identity-H codes), one per character. */
function glyphHex(font: mupdf.Font, text: string): string[] {
  return [...text].map((ch) =>
    font
      .encodeCharacter(ch.codePointAt(0) ?? 0)
      .toString(16)
      .padStart(4, '0'),
  );
}

/** A bundled face's font file by catalog id (fonts/ stores them Brotli-compressed). */
export function bundledFont(id: string): Uint8Array {
  const face = faceById(id);
  if (!face) throw new Error(`no bundled face ${id}`);
  return fontBytes(face);
}

/**
 * A one-page PDF whose text is drawn in a bundled face added as MuPDF adds a font (Type0, two-byte
 * codes) and subset: `content` gets the hex of a text's codes and answers the page's content stream
 * (font F1); `adjust` may change the font dictionary before the save.
 */
export function bundledFacePdf(
  face: { name: string; id: string },
  mediaBox: [number, number, number, number],
  content: (hex: (text: string) => string) => string,
  adjust?: (font: mupdf.PDFObject, doc: mupdf.PDFDocument) => void,
): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font(face.name, bundledFont(face.id));
    const ref = doc.addFont(font);
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    const hex = (t: string) =>
      [...t].map((c) => font.encodeCharacter(c.codePointAt(0)!).toString(16).padStart(4, '0')).join('');
    doc.insertPage(-1, doc.addPage(mediaBox, 0, resources, content(hex)));
    doc.subsetFonts();
    adjust?.(ref.resolve(), doc);
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/**
 * A page of Russian set in a subset of CMU Serif Roman (Computer Modern with Cyrillic), as XeTeX or
 * LuaTeX embed it: a Type0/Identity-H font whose program keeps only the glyphs drawn. `baseFont`
 * renames it (e.g. "SFRM1000", as pdfTeX names a cm-super font) to exercise the matcher's TeX names;
 * `face` sets the page in another bundled file (Linux Libertine O, as XeTeX names it LinLibertineO),
 * `line` sets other text (the subset then holds its characters only).
 */
export function cyrillicCmPdf(
  baseFont = 'CMUSerif-Roman',
  face = 'cmu-serif-regular',
  line = 'Привет, мир: Computer Modern',
): Uint8Array {
  return oneLinePdf(face, `ABCDEF+${baseFont}`, line, 12, Math.round);
}

/**
 * A page with `line` at `size` pt in a subset of bundled face `face` renamed `tagged`, its W listing
 * the glyphs drawn only, as a TeX engine writes it, each as `width` gives it from the face's
 * advance (thousandths of an em).
 */
function oneLinePdf(
  face: string,
  tagged: string,
  line: string,
  size: number,
  width: (advance: number) => number,
): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font(tagged.slice(7), bundledFont(face));
    const ref = doc.addFont(font);
    const hex = glyphHex(font, line);
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    resources.put('Font', fonts);
    const body = `BT /F1 ${size} Tf 20 50 Td <${hex.join('')}> Tj ET`;
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, resources, body));
    doc.subsetFonts();
    const widths = doc.newArray();
    for (const gid of [...new Set(hex)].map((h) => parseInt(h, 16)).sort((a, b) => a - b)) {
      const w = width(font.advanceGlyph(gid) * 1000);
      const one = doc.newArray();
      one.push(Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
      widths.push(doc.newInteger(gid));
      widths.push(one);
    }
    ref.resolve().get('DescendantFonts').get(0).put('W', widths);
    tagFont(doc, ref, tagged);
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/** Names a Type 0 font added by MuPDF as a TeX engine's subset: BaseFont (both) and FontName. */
function tagFont(doc: mupdf.PDFDocument, ref: mupdf.PDFObject, tagged: string): void {
  const dict = ref.resolve();
  dict.put('BaseFont', doc.newName(tagged));
  const descendant = dict.get('DescendantFonts').get(0);
  descendant.put('BaseFont', doc.newName(tagged));
  descendant.get('FontDescriptor').put('FontName', doc.newName(tagged));
}

/**
 * A line of Chinese set as xeCJK sets it: the ideographs in a CJK font (a subset of Droid Sans
 * Fallback named `ABCDEF+FandolSong-Regular`), the Latin word between them in a Latin font at the
 * same size (a subset of CMU Serif, `GHIJKL+CMUSerif-Roman`); `latin: false` leaves the Latin
 * out, so the page has no font for it; `code: true` adds more Latin on the line in a monospaced
 * font (`MNOPQR+CMUTypewriter-Regular`), as a manual's inline code; `math: true` adds more in a
 * math font (`STUVWX+NewCMMath-Book`, CMU Serif Italic's outlines), as formulas set in the text;
 * `label: true` starts the line with a word in a bold Latin font (`YZABCD+CMUSerif-Bold`), as a
 * list's label, and names the CJK font as a regular face (`ABCDEF+NotoSerifCJKsc-Regular`).
 * Exercises tier 4's companion font (script-companion.ts).
 */
export function cjkWithLatinPdf({
  latin = true,
  code = false,
  math = false,
  label = false,
} = {}): Uint8Array {
  const cjkName = label ? 'NotoSerifCJKsc' : 'FandolSong';
  const cjk = {
    face: 'droid-sans-fallback-regular',
    name: cjkName,
    key: 'C1',
    tagged: `ABCDEF+${cjkName}-Regular`,
  };
  // The Latin runs asked for: prose, inline code, a formula (New CM Math named, CMU Italic drawn).
  const runs = [
    [latin, 'CMUSerif-Roman', 'cmu-serif-regular', 'R1', 'GHIJKL', ' LaTeX '],
    [code, 'CMUTypewriter-Regular', 'cmu-typewriter-regular', 'T1', 'MNOPQR', ' documentclass '],
    [math, 'NewCMMath-Book', 'cmu-serif-italic', 'M1', 'STUVWX', ' xyzabcdefgh '],
  ] as const;
  const bold = { face: 'cmu-serif-bold', name: 'CMUSerif-Bold', key: 'B1', tagged: 'YZABCD+CMUSerif-Bold' };
  return mixedLinePdf([
    ...(label ? [{ ...bold, text: 'Remarks: ' }] : []),
    { ...cjk, text: '我们用' },
    ...runs
      .filter(([wanted]) => wanted)
      .map(([, name, face, key, tag, text]) => ({ face, name, key, tagged: `${tag}+${name}`, text })),
    { ...cjk, text: '排版文档' },
  ]);
}

/**
 * One line at 10 pt of runs, each in a subset of bundled face `face` (one font object per `key`),
 * named `tagged` as a TeX engine names its subsets.
 */
function mixedLinePdf(
  runs: { face: string; name: string; key: string; tagged: string; text: string }[],
): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const fonts = doc.newDictionary();
    const refs: [mupdf.PDFObject, string][] = [];
    const added = new Map<string, mupdf.Font>();
    let body = 'BT 20 50 Td';
    for (const { face, name, key, tagged, text } of runs) {
      let font = added.get(key);
      if (!font) {
        font = new mupdf.Font(name, bundledFont(face));
        added.set(key, font);
        const ref = doc.addFont(font);
        fonts.put(key, ref);
        refs.push([ref, tagged]);
      }
      body += ` /${key} 10 Tf <${glyphHex(font, text).join('')}> Tj`;
    }
    body += ' ET';
    const resources = doc.newDictionary();
    resources.put('Font', fonts);
    doc.insertPage(-1, doc.addPage([0, 0, 300, 100], 0, resources, body));
    doc.subsetFonts();
    for (const [ref, tagged] of refs) tagFont(doc, ref, tagged);
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/**
 * A paragraph as pdfTeX sets it: lines of words in a subset of LM Roman 10 named `ABCDEF+CMR10` at
 * 10 pt, each line a TJ array whose word gaps are numbers (no space glyphs), all but the last
 * justified to 110 pt (gaps of 0.39–0.47 em). Exercises re-spacing by the gaps before a line's last word.
 */
export function justifiedParagraphPdf(
  lines = [
    'Correct the name in this',
    'and prove it with pixels',
    'so every reader trusts it',
    'with pixels alone.',
  ],
): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font('CMR10', bundledFont('lm-roman-10-regular'));
    const ref = doc.addFont(font);
    const em = (word: string) =>
      [...word].reduce((s, ch) => s + font.advanceGlyph(font.encodeCharacter(ch.codePointAt(0) ?? 0)), 0);
    let body = 'BT /F1 10 Tf 12 TL 20 80 Td';
    lines.forEach((line, i) => {
      const words = line.split(' ');
      const text = words.reduce((s, w) => s + em(w) * 10, 0);
      const gap = i < lines.length - 1 ? (110 - text) / (words.length - 1) : 3.33;
      const items = words.map((w) => `<${glyphHex(font, w).join('')}>`).join(` ${-Math.round(gap * 100)} `);
      body += `${i ? ' T*' : ''} [${items}] TJ`;
    });
    body += ' ET';
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    resources.put('Font', fonts);
    doc.insertPage(-1, doc.addPage([0, 0, 240, 100], 0, resources, body));
    doc.subsetFonts();
    tagFont(doc, ref, 'ABCDEF+CMR10');
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

/**
 * A line of Russian as LaTeX sets it in the OT2 encoding: the Cyrillic words in a font of Cyrillic
 * letters only (a subset of CMU Serif named `ABCDEF+cmcyr10`), a Latin word between them in the
 * Latin font at the same size (a subset of LM Roman 10 named `GHIJKL+CMR10`, or with `italic` of
 * LM Roman 10 Italic named `GHIJKL+CMTI10`). Exercises tier 4's companion font beside an alphabet.
 */
export function cyrillicWithLatinPdf(italic = false): Uint8Array {
  const cyrillic = { face: 'cmu-serif-regular', name: 'cmcyr10', key: 'C1', tagged: 'ABCDEF+cmcyr10' };
  const latin = italic
    ? { face: 'lm-roman-10-italic', name: 'CMTI10', key: 'R1', tagged: 'GHIJKL+CMTI10' }
    : { face: 'lm-roman-10-regular', name: 'CMR10', key: 'R1', tagged: 'GHIJKL+CMR10' };
  return mixedLinePdf([
    { ...cyrillic, text: 'Привет, ' },
    { ...latin, text: 'LaTeX' },
    { ...cyrillic, text: ' мир' },
  ]);
}

/**
 * A heading as pdfTeX sets cm-super at 14.4 pt (`SFRM1440`), whose widths are LM Roman 12's at
 * 97.24 % (measured on a TeX Live document): drawn here with a subset of LM Roman 12 whose W gives
 * those widths. Latin Modern has no 14.4 pt design: tier 4 draws with LM Roman 12 at that scale.
 */
export function cmSuper1440Pdf(): Uint8Array {
  return oneLinePdf(
    'lm-roman-12-regular',
    'ABCDEF+SFRM1440',
    'Computer Modern',
    14.4,
    (w) => Math.round(w * 0.9724 * 10) / 10,
  );
}

/**
 * A Type 3 font dictionary (not yet added): FontMatrix [scale 0 0 scale 0 0], each glyph's code,
 * name (Differences and CharProcs), width and drawing.
 */
export function type3Font(
  doc: mupdf.PDFDocument,
  scale: number,
  bbox: number[],
  glyphs: { code: number; name: string; width: number; draw: string }[],
): mupdf.PDFObject {
  const font = doc.newDictionary();
  font.put('Type', doc.newName('Font'));
  font.put('Subtype', doc.newName('Type3'));
  const fm = doc.newArray();
  for (const v of [scale, 0, 0, scale, 0, 0]) fm.push(doc.newReal(v));
  font.put('FontMatrix', fm);
  const box = doc.newArray();
  for (const v of bbox) box.push(doc.newInteger(v));
  font.put('FontBBox', box);
  const codes = glyphs.map((g) => g.code);
  const first = Math.min(...codes);
  const last = Math.max(...codes);
  font.put('FirstChar', doc.newInteger(first));
  font.put('LastChar', doc.newInteger(last));
  const widths = doc.newArray();
  for (let c = first; c <= last; c += 1) {
    const w = glyphs.find((g) => g.code === c)?.width ?? 0;
    widths.push(Number.isInteger(w) ? doc.newInteger(w) : doc.newReal(w));
  }
  font.put('Widths', widths);
  const enc = doc.newDictionary();
  const diffs = doc.newArray();
  const procs = doc.newDictionary();
  for (const g of glyphs) {
    diffs.push(doc.newInteger(g.code));
    diffs.push(doc.newName(g.name));
    procs.put(g.name, doc.addStream(`${g.width} 0 d0 ${g.draw}`, doc.newDictionary()));
  }
  enc.put('Differences', diffs);
  font.put('Encoding', enc);
  font.put('CharProcs', procs);
  return font;
}

/**
 * A line drawn as arabi writes its Arabic fonts: the ToUnicode map gives Arabic presentation forms,
 * then, after `endcmap` and `%%EOF`, a stray `bfrange` maps the same codes to ASCII. MuPDF stops
 * reading at `endcmap` (ﺎﻴﻠﻜ), poppler reads on (“Aylk”). A Type 3 font: each glyph draws a different
 * shape, all 0.6 em.
 */
export function strayToUnicodePdf(): Uint8Array {
  return withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const glyphs: [number, string, string, string][] = [
      [0x41, 'aleffinal', 'FE8E', '250 0 100 700 re f'],
      [0x6b, 'kafmedial', 'FEDC', '0 0 600 150 re f 450 150 150 400 re f'],
      [0x6c, 'lammedial', 'FEE0', '0 0 600 150 re f 0 150 150 550 re f'],
      [0x79, 'yehmedial', 'FEF4', '0 0 600 150 re f 200 -200 80 80 re f 350 -200 80 80 re f'],
    ];
    const font = type3Font(
      doc,
      0.001,
      [0, -200, 600, 700],
      glyphs.map(([code, name, , draw]) => ({ code, name, width: 600, draw })),
    );
    const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '/CMapName /TeX-LAE-0 def /CMapType 2 def',
      '1 begincodespacerange <00> <FF> endcodespacerange',
      `${glyphs.length} beginbfchar`,
      ...glyphs.map(([code, , u]) => `<${hex(code)}> <${u}>`),
      'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
      '%%EndResource',
      '%%EOF',
      '2 beginbfrange <41> <41> <0041> <61> <7E> <0061> endbfrange',
    ].join('\n');
    font.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('T3', doc.addObject(font));
    page.put(
      'Contents',
      doc.addStream(
        'BT /T3 16 Tf 20 100 Td (Aylk) Tj ET BT /F1 12 Tf 20 60 Td (Sample) Tj ET',
        doc.newDictionary(),
      ),
    );
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
}

/**
 * A line in a Type 3 font as TeX's bitmap fonts are embedded: no name, glyphs named after their
 * codes (/a72), every one of the 256 codes named (as dvipdfm does) but only the line's letters given
 * a procedure, widths those of LM Roman 10 (cmr10's). Each procedure draws `drawAs`'s glyph, or a
 * box (`boxes`).
 */
export function type3TexPdf(drawAs: string | 'boxes', line: string, scale = 0.001): Uint8Array {
  const widthsOf = new mupdf.Font('LMRoman10', bundledFont('lm-roman-10-regular'));
  // Glyph units per thousandth of an em; pk widths are written in tenths of a pixel.
  const k = 0.001 / scale;
  return withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const drawing = drawAs === 'boxes' ? null : new mupdf.Font(drawAs, bundledFont(drawAs));
    const letters = [...new Set(line)].filter((ch) => /[A-Za-z]/.test(ch));
    const glyphs = [...letters, ' '].map((ch) => {
      const em = widthsOf.advanceGlyph(widthsOf.encodeCharacter(ch.codePointAt(0) ?? 0)) * 1000;
      const width = k === 1 ? Math.round(em) : Math.round(em * k * 10) / 10;
      const gid = drawing?.encodeCharacter(ch.codePointAt(0) ?? 0) ?? 0;
      const draw =
        ch === ' '
          ? ''
          : drawing
            ? `BT /F ${1000 * k} Tf <${gid.toString(16).padStart(4, '0')}> Tj ET`
            : `${40 * k} 0 ${width - 80 * k} ${680 * k} re f`;
      return { code: ch.charCodeAt(0), name: `a${ch.charCodeAt(0)}`, width, draw };
    });
    const font = type3Font(
      doc,
      scale,
      [-100, -250, 1100, 900].map((v) => Math.round(v * k)),
      glyphs,
    );
    // Every code named, as dvipdfm writes a bitmap font's encoding (most have no procedure).
    const diffs = doc.newArray();
    diffs.push(doc.newInteger(0));
    for (let c = 0; c < 256; c += 1) diffs.push(doc.newName(`a${c}`));
    font.get('Encoding').put('Differences', diffs);
    const res = doc.newDictionary();
    const fonts = doc.newDictionary();
    if (drawing) fonts.put('F', doc.addFont(drawing));
    res.put('Font', fonts);
    font.put('Resources', res);
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('T3', doc.addObject(font));
    const text = line.replace(/[()\\]/g, '\\$&');
    page.put('Contents', doc.addStream(`BT /T3 10 Tf 40 100 Td (${text}) Tj ET`, doc.newDictionary()));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
}

/**
 * A line in a Type 3 font as Skia (Chrome's printing) writes one: glyph space with y pointing down
 * (FontMatrix 0.001 0 0 -0.001 0 0), each procedure drawing `face`'s glyph turned over, widths the
 * face's, a ToUnicode map, and the face named only by the descriptor's FontName (`AAAAAA+` and
 * `psName`); no BaseFont.
 */
export function skiaType3Pdf(face: string, psName: string, line: string): Uint8Array {
  return withDoc(makePdf([{ content: 'BT ET' }]), (doc) => {
    const drawing = new mupdf.Font(psName, bundledFont(face));
    const chars = [...new Set(line)];
    const glyphs = chars.map((ch, i) => {
      const gid = drawing.encodeCharacter(ch.codePointAt(0) ?? 0);
      const width = Math.round(drawing.advanceGlyph(gid) * 1000);
      const draw =
        ch === ' ' ? '' : `BT 1 0 0 -1 0 0 Tm /F 1000 Tf <${gid.toString(16).padStart(4, '0')}> Tj ET`;
      return { code: i + 1, name: `g${i + 1}`, width, draw };
    });
    const font = type3Font(doc, 0.001, [-200, 300, 1200, -900], glyphs);
    const fm = doc.newArray();
    for (const v of [0.001, 0, 0, -0.001, 0, 0]) fm.push(doc.newReal(v));
    font.put('FontMatrix', fm);
    const descriptor = doc.newDictionary();
    descriptor.put('Type', doc.newName('FontDescriptor'));
    descriptor.put('FontName', doc.newName(`AAAAAA+${psName}`));
    descriptor.put('Flags', doc.newInteger(32));
    descriptor.put('ItalicAngle', doc.newInteger(0));
    font.put('FontDescriptor', doc.addObject(descriptor));
    const hex = (n: number, len: number) => n.toString(16).toUpperCase().padStart(len, '0');
    const cmap = [
      '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
      '/CMapName /Skia-T3 def /CMapType 2 def',
      '1 begincodespacerange <00> <FF> endcodespacerange',
      `${glyphs.length} beginbfchar`,
      ...chars.map((ch, i) => `<${hex(i + 1, 2)}> <${hex(ch.codePointAt(0) ?? 0, 4)}>`),
      'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
    ].join('\n');
    font.put('ToUnicode', doc.addStream(cmap, doc.newDictionary()));
    const res = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F', doc.addFont(drawing));
    res.put('Font', fonts);
    font.put('Resources', res);
    const page = doc.findPage(0);
    page.get('Resources').get('Font').put('T3', doc.addObject(font));
    const codes = [...line].map((ch) => hex(chars.indexOf(ch) + 1, 2)).join('');
    page.put('Contents', doc.addStream(`BT /T3 14 Tf 40 100 Td <${codes}> Tj ET`, doc.newDictionary()));
    return new Uint8Array(doc.saveToBuffer('').asUint8Array());
  });
}

/** A ToUnicode CMap for two-byte codes: `entries` are bfchar pairs, `<code> <utf-16 hex>` each. */
export function identityToUnicode(entries: string[]): string {
  return [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    `${entries.length} beginbfchar`,
    ...entries,
    'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
}

/** A Form XObject's dictionary with its bounding box; the caller adds /Resources, /Matrix as needed. */
export function formDict(doc: mupdf.PDFDocument, bbox: number[]): mupdf.PDFObject {
  const dict = doc.newDictionary();
  dict.put('Type', doc.newName('XObject'));
  dict.put('Subtype', doc.newName('Form'));
  const box = doc.newArray();
  for (const v of bbox) box.push(v);
  dict.put('BBox', box);
  return dict;
}
