// Stores bundled font files the way the catalog reads them: each TTF/OTF under fonts/ becomes
// `<name>.br` (Brotli, quality 11, about half the size; the font bytes are unchanged once
// decompressed), and prints the SHA-256 block of fonts/README.md over the decompressed fonts.
//
//   node scripts/pack-fonts.ts fonts/stix-two/STIXTwoText-Regular.otf …   pack these (and remove them)
//   node scripts/pack-fonts.ts                                             print the SHA-256 block only
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

const FONTS = new URL('../fonts/', import.meta.url).pathname;

for (const path of process.argv.slice(2)) {
  if (!/\.(ttf|otf)$/.test(path)) throw new Error(`${path}: not a .ttf or .otf file`);
  const raw = readFileSync(path);
  const packed = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  if (!brotliDecompressSync(packed).equals(raw)) throw new Error(`${path}: round trip differs`);
  writeFileSync(`${path}.br`, packed);
  rmSync(path);
  console.error(`${path}: ${raw.length} → ${packed.length} bytes`);
}

const lines: string[] = [];
const walk = (dir: string) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.br')) {
      const font = brotliDecompressSync(readFileSync(path));
      const digest = createHash('sha256').update(font).digest('hex');
      lines.push(`${relative(FONTS, path).replace(/\.br$/, '')} ${digest}`);
    }
  }
};
walk(FONTS);
console.log(lines.join('\n'));
