// Glyph names an embedded Type1 or CFF font program really contains: for Type1 the /CharStrings of
// the eexec-encrypted part, for CFF (Type1C) the charset. Tier 2 names the glyph it adds in
// /Differences with one of these, so the name is the program's own, not a guess; refusals quote how
// many glyphs a subset kept. Returns null when the program is of another kind or cannot be read.
import { readCffDict, readCffIndex } from '../../fonts/cff.ts';

/** SIDs 0–228 of the CFF standard strings (the ISOAdobe charset); higher standard SIDs are not needed. */
const STANDARD_STRINGS = (
  '.notdef space exclam quotedbl numbersign dollar percent ampersand quoteright parenleft parenright asterisk plus ' +
  'comma hyphen period slash zero one two three four five six seven eight nine colon semicolon less equal greater ' +
  'question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum ' +
  'underscore quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde ' +
  'exclamdown cent sterling fraction yen florin section currency quotesingle quotedblleft guillemotleft ' +
  'guilsinglleft guilsinglright fi fl endash dagger daggerdbl periodcentered paragraph bullet quotesinglbase ' +
  'quotedblbase quotedblright guillemotright ellipsis perthousand questiondown grave acute circumflex tilde macron ' +
  'breve dotaccent dieresis ring cedilla hungarumlaut ogonek caron emdash AE ordfeminine Lslash Oslash OE ' +
  'ordmasculine ae dotlessi lslash oslash oe germandbls onesuperior logicalnot mu trademark Eth onehalf plusminus ' +
  'Thorn onequarter divide brokenbar degree thorn threequarters twosuperior registered minus eth multiply ' +
  'threesuperior copyright Aacute Acircumflex Adieresis Agrave Aring Atilde Ccedilla Eacute Ecircumflex Edieresis ' +
  'Egrave Iacute Icircumflex Idieresis Igrave Ntilde Oacute Ocircumflex Odieresis Ograve Otilde Scaron Uacute ' +
  'Ucircumflex Udieresis Ugrave Yacute Ydieresis Zcaron aacute acircumflex adieresis agrave aring atilde ccedilla ' +
  'eacute ecircumflex edieresis egrave iacute icircumflex idieresis igrave ntilde oacute ocircumflex odieresis ' +
  'ograve otilde scaron uacute ucircumflex udieresis ugrave yacute ydieresis zcaron'
).split(' ');
const N_STANDARD = 391;

/** Names of the glyphs in a Type1 program (FontFile), from its /CharStrings. */
export function type1GlyphNames(program: Uint8Array): Set<string> | null {
  const text = Buffer.from(program).toString('latin1');
  const eexec = text.indexOf('eexec');
  if (eexec < 0) return null;
  let start = eexec + 5;
  while (
    start < program.length &&
    (program[start] === 0x0d || program[start] === 0x0a || program[start] === 0x20)
  )
    start += 1;
  let bin = program.subarray(start);
  // Some files keep the encrypted part as hex.
  const head = Buffer.from(bin.subarray(0, 4)).toString('latin1');
  if (/^[0-9A-Fa-f]{4}$/.test(head)) {
    const hex = Buffer.from(bin)
      .toString('latin1')
      .replace(/[^0-9A-Fa-f]/g, '');
    bin = new Uint8Array(Buffer.from(hex.slice(0, hex.length - (hex.length % 2)), 'hex'));
  }
  let r = 55665;
  const plain = Buffer.alloc(bin.length);
  for (let i = 0; i < bin.length; i += 1) {
    const c = bin[i];
    plain[i] = c ^ (r >> 8);
    r = ((c + r) * 52845 + 22719) & 0xffff;
  }
  const dec = plain.subarray(4).toString('latin1');
  const at = dec.indexOf('/CharStrings');
  if (at < 0) return null;
  const names = new Set<string>();
  const re = /\/([^\s/[\]{}()<>]+)\s+(\d+)\s+(?:RD|-\|)\s/g;
  re.lastIndex = at + 12;
  for (;;) {
    const m = re.exec(dec);
    if (!m) break;
    names.add(m[1]);
    re.lastIndex = m.index + m[0].length + Number(m[2]);
  }
  return names.size ? names : null;
}

/** Names of the glyphs in a bare CFF program (FontFile3 /Type1C); null for CID-keyed or unreadable. */
export function cffGlyphNames(b: Uint8Array): Set<string> | null {
  const charset = cffGlyphNamesById(b);
  if (!charset) return null;
  const out = new Set<string>(['.notdef']);
  for (const n of charset) if (n) out.add(n);
  return out;
}

/**
 * Glyph name by glyph id of a bare, name-keyed CFF program (null where a name is an expert string);
 * null for CID-keyed or unreadable programs. A CIDFontType0 whose program is name-keyed (MuPDF
 * writes its fonts so) selects glyphs by CID as glyph id: these names say what each code draws.
 */
export function cffGlyphNamesById(b: Uint8Array): (string | null)[] | null {
  return readCffProgram(b)?.charset ?? null;
}

/**
 * The encoding built into a bare CFF program (code → glyph name), which a simple font without
 * /Encoding uses: dvipdfmx's Type1C fonts say nothing else about a code its ToUnicode leaves out
 * (a "ﬁ" ligature). 'standard' for the Standard encoding; null for the Expert one, CID-keyed or
 * unreadable programs.
 */
export function cffBuiltinEncoding(b: Uint8Array): Map<number, string> | 'standard' | null {
  const program = readCffProgram(b);
  if (!program) return null;
  const at = program.encodingAt;
  if (at === 0) return 'standard';
  if (at === 1 || at >= b.length) return null;
  const out = new Map<number, string>();
  const format = b[at] & 0x7f;
  let p = at + 1;
  let gid = 1;
  const give = (code: number) => {
    const name = program.charset[gid];
    if (name) out.set(code, name);
    gid += 1;
  };
  if (format === 0) {
    const nCodes = b[p];
    for (let k = 0; k < nCodes; k += 1) give(b[p + 1 + k]);
    p += 1 + nCodes;
  } else if (format === 1) {
    const nRanges = b[p];
    for (let r = 0; r < nRanges; r += 1) {
      const first = b[p + 1 + r * 2];
      const left = b[p + 2 + r * 2];
      for (let k = 0; k <= left; k += 1) give(first + k);
    }
    p += 1 + nRanges * 2;
  } else return null;
  if (b[at] & 0x80) {
    // Supplements: more codes for glyphs already encoded, by the glyph's string id.
    const nSups = b[p];
    for (let k = 0; k < nSups; k += 1) {
      const q = p + 1 + k * 3;
      const name = program.sidName((b[q + 1] << 8) | b[q + 2]);
      if (name) out.set(b[q], name);
    }
  }
  return out;
}

/**
 * The encoding in a Type1 program's clear-text part (`dup 12 /fi put` …): code → glyph name;
 * 'standard' for `/Encoding StandardEncoding def`; null when there is none.
 */
export function type1BuiltinEncoding(program: Uint8Array): Map<number, string> | 'standard' | null {
  const text = Buffer.from(program.subarray(0, Math.min(program.length, 65536))).toString('latin1');
  const eexec = text.indexOf('eexec');
  const clear = eexec < 0 ? text : text.slice(0, eexec);
  const at = clear.indexOf('/Encoding');
  if (at < 0) return null;
  if (/^\/Encoding\s+StandardEncoding\s+def/.test(clear.slice(at))) return 'standard';
  const out = new Map<number, string>();
  const re = /dup\s+(\d+)\s*\/([^\s/[\]{}()<>]+)\s+put/g;
  re.lastIndex = at;
  for (let m = re.exec(clear); m; m = re.exec(clear)) {
    const code = Number(m[1]);
    if (code < 256) out.set(code, m[2]);
  }
  return out.size ? out : null;
}

interface CffProgram {
  /** Glyph name by glyph id (null where the string is an expert one). */
  charset: (string | null)[];
  sidName: (sid: number) => string | null;
  /** Top DICT's Encoding operand: 0 Standard, 1 Expert, else the offset of the encoding. */
  encodingAt: number;
}

/** The charset and encoding of a bare, name-keyed CFF program; null for CID-keyed or unreadable. */
function readCffProgram(b: Uint8Array): CffProgram | null {
  if (b.length < 4 || b[0] !== 1) return null;
  const hdrSize = b[2];
  const names = readCffIndex(b, hdrSize);
  const top = names && readCffIndex(b, names.end);
  const strings = top && readCffIndex(b, top.end);
  if (!top || !strings || !top.items.length) return null;
  const dict = new Map(readCffDict(top.items[0]).map((e) => [e.op, e.operands]));
  if (dict.has(1230)) return null; // ROS: CID-keyed, glyphs have CIDs, not names
  const charStringsAt = dict.get(17)?.[0];
  if (charStringsAt === undefined) return null;
  const charStrings = readCffIndex(b, charStringsAt);
  if (!charStrings) return null;
  const nGlyphs = charStrings.items.length;
  const sidName = (sid: number): string | null => {
    if (sid < STANDARD_STRINGS.length) return STANDARD_STRINGS[sid];
    if (sid < N_STANDARD) return null; // expert strings: not needed for Latin text
    const k = sid - N_STANDARD;
    return k < strings.items.length ? Buffer.from(strings.items[k]).toString('latin1') : null;
  };
  const charset: (string | null)[] = ['.notdef'];
  const encodingAt = dict.get(16)?.[0] ?? 0;
  const charsetAt = dict.get(15)?.[0] ?? 0;
  if (charsetAt === 0) {
    // ISOAdobe: glyph i is SID i.
    for (let g = 1; g < nGlyphs && g < STANDARD_STRINGS.length; g += 1) charset.push(STANDARD_STRINGS[g]);
    return { charset, sidName, encodingAt };
  }
  if (charsetAt < 3) return null; // Expert charsets
  const format = b[charsetAt];
  let p = charsetAt + 1;
  if (format === 0) {
    while (charset.length < nGlyphs) {
      charset.push(sidName((b[p] << 8) | b[p + 1]));
      p += 2;
    }
  } else if (format === 1 || format === 2) {
    while (charset.length < nGlyphs && p < b.length) {
      const first = (b[p] << 8) | b[p + 1];
      const left = format === 1 ? b[p + 2] : (b[p + 2] << 8) | b[p + 3];
      p += format === 1 ? 3 : 4;
      for (let k = 0; k <= left && charset.length < nGlyphs; k += 1) charset.push(sidName(first + k));
    }
  } else return null;
  return { charset, sidName, encodingAt };
}
