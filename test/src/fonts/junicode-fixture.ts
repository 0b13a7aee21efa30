// A page set in Junicode Two Beta (Debian fonts-junicode, which docfix does not bundle) whose
// embedded subset lacks “ő”, and copies of the face with another OS/2 fsType in a private folder: the
// fixtures of tier 4's machine fonts (test/src/fonts/machine-fonts.test.ts, test/cli/fonts.test.ts).
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mupdf } from '../../../src/pdf/mupdf-adapter.ts';

export const JUNICODE_DIR = '/usr/share/fonts/opentype/junicode';
const JUNICODE = join(JUNICODE_DIR, 'JunicodeTwoBeta-Regular.otf');
export const PS_NAME = 'JunicodeTwoBeta-Regular';
export const LINE = 'Medieval scribes wrote Aeneid in Latin';

export function junicodeFile(): string {
  if (!existsSync(JUNICODE))
    throw new Error(
      `${JUNICODE} is missing: install the Debian package fonts-junicode (apt-get install -y fonts-junicode)`,
    );
  return JUNICODE;
}

/** A line set in a subset of Junicode Two Beta Regular (as XeTeX embeds it): no glyph for “ő”. */
export function junicodePdf(): Uint8Array {
  const doc = new mupdf.PDFDocument();
  try {
    const font = new mupdf.Font(PS_NAME, new Uint8Array(readFileSync(junicodeFile())));
    const ref = doc.addFont(font);
    const hex = [...LINE].map((ch) =>
      font
        .encodeCharacter(ch.codePointAt(0) ?? 0)
        .toString(16)
        .padStart(4, '0'),
    );
    const resources = doc.newDictionary();
    const fonts = doc.newDictionary();
    fonts.put('F1', ref);
    resources.put('Font', fonts);
    doc.insertPage(
      -1,
      doc.addPage([0, 0, 300, 100], 0, resources, `BT /F1 12 Tf 20 50 Td <${hex.join('')}> Tj ET`),
    );
    doc.subsetFonts();
    return new Uint8Array(doc.saveToBuffer('compress').asUint8Array());
  } finally {
    doc.destroy();
  }
}

// The folders junicodeCopy made, removed when the test file's process ends.
const madeDirs: string[] = [];
process.on('exit', () => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A copy of a Junicode face (`style`: its file's, e.g. Regular) in folder `dir` (default: a fresh
 * one) with OS/2 fsType set to `fsType` (null: unchanged); the folder.
 */
export function junicodeCopy(fsType: number | null, style = 'Regular', dir?: string): string {
  junicodeFile();
  if (dir === undefined) {
    dir = mkdtempSync(join(tmpdir(), 'docfix-fontdir-'));
    madeDirs.push(dir);
  }
  const file = join(dir, style === 'Regular' ? 'Junicode-copy.otf' : `Junicode-${style}-copy.otf`);
  copyFileSync(join(JUNICODE_DIR, `JunicodeTwoBeta-${style}.otf`), file);
  if (fsType !== null) {
    const bytes = readFileSync(file);
    const tables = bytes.readUInt16BE(4);
    let os2 = -1;
    for (let i = 0; i < tables; i += 1)
      if (bytes.toString('latin1', 12 + i * 16, 16 + i * 16) === 'OS/2')
        os2 = bytes.readUInt32BE(20 + i * 16);
    if (os2 < 0) throw new Error(`${file} has no OS/2 table`);
    // The table's checksum is left as it was: font readers (MuPDF, fontconfig) do not check it.
    bytes.writeUInt16BE(fsType, os2 + 8);
    writeFileSync(file, bytes);
  }
  return dir;
}
