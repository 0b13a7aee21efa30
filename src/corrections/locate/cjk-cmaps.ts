// Predefined CJK CMaps the engine reads without Adobe's CMap files: 90ms-RKSJ-H/V and
// 90msp-RKSJ-H/V, Shift-JIS as Microsoft's code page 932 writes it (old Japanese PDFs name a
// non-embedded HeiseiMin or MS Mincho with them). Their codespace is fixed by the CMap; what each
// code reads as comes from the platform's Shift_JIS decoder (WHATWG Shift_JIS is code page 932).
// Which CID a code selects is not known here, so a font's /W (keyed by CID) cannot be followed:
// fonts with one are left unread (their text stays `text_not_mapped`).
/** A range of codes of one byte length (a CMap's codespacerange). */
export interface CodespaceRange {
  bytes: number;
  lo: number;
  hi: number;
}

export interface PredefinedCMap {
  codespace: CodespaceRange[];
  /** Code → the text it stands for. */
  unicode: Map<number, string>;
  wmode: 0 | 1;
}

// 90ms-RKSJ's codespace: one byte 00–80 and A0–DF (roman and half-width katakana), two bytes
// with a lead byte 81–9F or E0–FC.
const RKSJ_CODESPACE: CodespaceRange[] = [
  { bytes: 1, lo: 0x00, hi: 0x80 },
  { bytes: 2, lo: 0x8140, hi: 0x9ffc },
  { bytes: 1, lo: 0xa0, hi: 0xdf },
  { bytes: 2, lo: 0xe040, hi: 0xfcfc },
];

let rksjUnicode: Map<number, string> | null = null;

function shiftJisTable(): Map<number, string> {
  if (rksjUnicode) return rksjUnicode;
  const table = new Map<number, string>();
  const decoder = new TextDecoder('shift_jis', { fatal: true });
  const put = (code: number, bytes: number[]) => {
    try {
      const s = decoder.decode(Uint8Array.from(bytes));
      if (s && [...s].length === 1 && s !== '\ufffd') table.set(code, s);
    } catch {
      // not a character of code page 932
    }
  };
  for (let b = 0x20; b <= 0x7e; b += 1) put(b, [b]);
  for (let b = 0xa1; b <= 0xdf; b += 1) put(b, [b]);
  for (const [lo, hi] of [
    [0x81, 0x9f],
    [0xe0, 0xfc],
  ]) {
    for (let lead = lo; lead <= hi; lead += 1) {
      for (let trail = 0x40; trail <= 0xfc; trail += 1) {
        if (trail !== 0x7f) put(lead * 256 + trail, [lead, trail]);
      }
    }
  }
  rksjUnicode = table;
  return table;
}

/** The predefined CMap called `name`, if the engine reads it. */
export function predefinedCMap(name: string): PredefinedCMap | null {
  const m = /^90msp?-RKSJ-([HV])$/.exec(name);
  if (!m) return null;
  return { codespace: RKSJ_CODESPACE, unicode: shiftJisTable(), wmode: m[1] === 'V' ? 1 : 0 };
}
