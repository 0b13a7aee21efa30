// Simple-font encodings and glyph names: enough of the Adobe Glyph List for Latin text, the
// WinAnsi, MacRoman and Standard encodings as code → Unicode, and glyph name ↔ Unicode.

const ASCII_NAMES = (
  'space exclam quotedbl numbersign dollar percent ampersand quotesingle parenleft parenright asterisk plus ' +
  'comma hyphen period slash zero one two three four five six seven eight nine colon semicolon less equal ' +
  'greater question at A B C D E F G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash ' +
  'bracketright asciicircum underscore grave a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft ' +
  'bar braceright asciitilde'
).split(' ');

const WIN_HIGH = (
  'Euro - quotesinglbase florin quotedblbase ellipsis dagger daggerdbl circumflex perthousand Scaron ' +
  'guilsinglleft OE - Zcaron - - quoteleft quoteright quotedblleft quotedblright bullet endash emdash tilde ' +
  'trademark scaron guilsinglright oe - zcaron Ydieresis space exclamdown cent sterling currency yen brokenbar ' +
  'section dieresis copyright ordfeminine guillemotleft logicalnot hyphen registered macron degree plusminus ' +
  'twosuperior threesuperior acute mu paragraph periodcentered cedilla onesuperior ordmasculine guillemotright ' +
  'onequarter onehalf threequarters questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring AE Ccedilla ' +
  'Egrave Eacute Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde Ograve Oacute ' +
  'Ocircumflex Otilde Odieresis multiply Oslash Ugrave Uacute Ucircumflex Udieresis Yacute Thorn germandbls ' +
  'agrave aacute acircumflex atilde adieresis aring ae ccedilla egrave eacute ecircumflex edieresis igrave ' +
  'iacute icircumflex idieresis eth ntilde ograve oacute ocircumflex otilde odieresis divide oslash ugrave ' +
  'uacute ucircumflex udieresis yacute thorn ydieresis'
).split(' ');

const win1252 = new TextDecoder('windows-1252');
const macRoman = new TextDecoder('macintosh');

/** Glyph name → Unicode string. */
const NAME_TO_UNICODE = new Map<string, string>();
/** Unicode → preferred glyph name. */
const UNICODE_TO_NAME = new Map<string, string>();

function addName(name: string, uni: string): void {
  if (!NAME_TO_UNICODE.has(name)) NAME_TO_UNICODE.set(name, uni);
  if (!UNICODE_TO_NAME.has(uni)) UNICODE_TO_NAME.set(uni, name);
}

ASCII_NAMES.forEach((name, i) => addName(name, String.fromCharCode(0x20 + i)));
WIN_HIGH.forEach((name, i) => {
  const code = 0x80 + i;
  if (name === '-' || code === 0xa0 || code === 0xad) return;
  addName(name, win1252.decode(Uint8Array.of(code)));
});
for (const [name, uni] of Object.entries({
  fi: '\ufb01',
  fl: '\ufb02',
  ff: '\ufb00',
  ffi: '\ufb03',
  ffl: '\ufb04',
  dotlessi: '\u0131',
  Lslash: '\u0141',
  lslash: '\u0142',
  fraction: '\u2044',
  quotesingle: "'",
  grave: '`',
  hungarumlaut: '\u02dd',
  ogonek: '\u02db',
  caron: '\u02c7',
  breve: '\u02d8',
  dotaccent: '\u02d9',
  ring: '\u02da',
  minus: '\u2212',
  nbspace: '\u00a0',
  sfthyphen: '\u00ad',
  periodcentered: '\u00b7',
  Omega: '\u03a9',
  mu: '\u00b5',
  dcroat: '\u0111',
  Dcroat: '\u0110',
  endash: '\u2013',
  emdash: '\u2014',
})) {
  addName(name, uni);
}

/** Unicode for a glyph name (AGL subset, uniXXXX, uXXXX[XX], suffixes and `_` ligatures). */
export function glyphNameToUnicode(name: string): string | undefined {
  const known = NAME_TO_UNICODE.get(name);
  if (known !== undefined) return known;
  const base = name.split('.')[0];
  if (base !== name && base) return glyphNameToUnicode(base);
  if (name.includes('_')) {
    const parts = name.split('_').map(glyphNameToUnicode);
    return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
  }
  let m = /^uni((?:[0-9A-F]{4})+)$/.exec(name);
  if (m) {
    let s = '';
    for (let i = 0; i < m[1].length; i += 4) s += String.fromCharCode(parseInt(m[1].slice(i, i + 4), 16));
    return s;
  }
  m = /^u([0-9A-F]{4,6})$/.exec(name);
  if (m) return String.fromCodePoint(parseInt(m[1], 16));
  return undefined;
}

/** A glyph name for a Unicode character: the AGL name when known, else uniXXXX. */
export function unicodeToGlyphName(uni: string): string {
  const known = UNICODE_TO_NAME.get(uni);
  if (known) return known;
  const cp = uni.codePointAt(0) ?? 0;
  return cp > 0xffff
    ? `u${cp.toString(16).toUpperCase()}`
    : `uni${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

const STANDARD_HIGH: Record<number, string> = {
  0x27: '\u2019',
  0x60: '\u2018',
  0xa1: '¡',
  0xa2: '¢',
  0xa3: '£',
  0xa4: '⁄',
  0xa5: '¥',
  0xa6: 'ƒ',
  0xa7: '§',
  0xa8: '¤',
  0xa9: "'",
  0xaa: '“',
  0xab: '«',
  0xac: '‹',
  0xad: '›',
  0xae: 'ﬁ',
  0xaf: 'ﬂ',
  0xb1: '–',
  0xb2: '†',
  0xb3: '‡',
  0xb4: '·',
  0xb6: '¶',
  0xb7: '•',
  0xb8: '‚',
  0xb9: '„',
  0xba: '”',
  0xbb: '»',
  0xbc: '…',
  0xbd: '‰',
  0xbf: '¿',
  0xc1: '`',
  0xc2: '´',
  0xc3: 'ˆ',
  0xc4: '˜',
  0xc5: '¯',
  0xc6: '˘',
  0xc7: '˙',
  0xc8: '¨',
  0xca: '˚',
  0xcb: '¸',
  0xcd: '˝',
  0xce: '˛',
  0xcf: 'ˇ',
  0xd0: '—',
  0xe1: 'Æ',
  0xe3: 'ª',
  0xe8: 'Ł',
  0xe9: 'Ø',
  0xea: 'Œ',
  0xeb: 'º',
  0xf1: 'æ',
  0xf5: 'ı',
  0xf8: 'ł',
  0xf9: 'ø',
  0xfa: 'œ',
  0xfb: 'ß',
};

export type BaseEncoding = 'WinAnsiEncoding' | 'MacRomanEncoding' | 'StandardEncoding' | 'MacExpertEncoding';

/** Unicode of `code` in a base encoding (undefined where the encoding has no glyph). */
export function baseEncodingUnicode(encoding: BaseEncoding, code: number): string | undefined {
  if (encoding === 'WinAnsiEncoding') {
    if (code < 0x20 || code === 0x7f) return undefined;
    if (code >= 0x80 && code <= 0x9f && WIN_HIGH[code - 0x80] === '-') return undefined;
    return win1252.decode(Uint8Array.of(code));
  }
  if (encoding === 'MacRomanEncoding') {
    if (code < 0x20 || code === 0x7f) return undefined;
    return macRoman.decode(Uint8Array.of(code));
  }
  if (encoding === 'StandardEncoding') {
    if (code in STANDARD_HIGH) return STANDARD_HIGH[code];
    if (code >= 0x20 && code < 0x7f) return String.fromCharCode(code);
    return undefined;
  }
  return undefined;
}

/** Glyph name of `code` in a base encoding. */
export function baseEncodingName(encoding: BaseEncoding, code: number): string | undefined {
  const uni = baseEncodingUnicode(encoding, code);
  return uni === undefined ? undefined : unicodeToGlyphName(uni);
}
