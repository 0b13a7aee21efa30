// Seeded damage for real PDFs (test/daemon/fuzz.test.ts): truncations, byte flips, a deleted
// `endobj` or `endstream`, a broken cross-reference table or startxref, a huge /Length. The same seed
// gives the same mutant, so a failure names the seed that reproduces it.

export type MutationKind =
  'truncate' | 'flip' | 'delete_endobj' | 'delete_endstream' | 'bad_xref' | 'bad_startxref' | 'huge_length';

export const MUTATION_KINDS: MutationKind[] = [
  'truncate',
  'flip',
  'delete_endobj',
  'delete_endstream',
  'bad_xref',
  'bad_startxref',
  'huge_length',
];

export { seededRandom } from '../../fixtures/seeded-random.ts';

function occurrences(bytes: Uint8Array, needle: string): number[] {
  const text = Buffer.from(bytes).toString('latin1');
  const at: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

function splice(bytes: Uint8Array, at: number, remove: number, insert: string): Uint8Array {
  return Buffer.concat([
    Buffer.from(bytes.subarray(0, at)),
    Buffer.from(insert, 'latin1'),
    Buffer.from(bytes.subarray(at + remove)),
  ]);
}

/** One mutant of `bytes`; `kind` falls back to a byte flip when the file has nothing to break. */
export function mutate(
  bytes: Uint8Array,
  kind: MutationKind,
  random: () => number,
): { bytes: Uint8Array; kind: MutationKind; note: string } {
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
  switch (kind) {
    case 'truncate': {
      // Keep the header: past 1 KiB, up to the last byte.
      const at = 1024 + Math.floor(random() * Math.max(1, bytes.length - 1024));
      return { bytes: bytes.slice(0, Math.min(at, bytes.length - 1)), kind, note: `cut at ${at}` };
    }
    case 'delete_endobj':
    case 'delete_endstream': {
      const word = kind === 'delete_endobj' ? 'endobj' : 'endstream';
      const found = occurrences(bytes, word);
      if (found.length === 0) break;
      const at = pick(found);
      return { bytes: splice(bytes, at, word.length, ''), kind, note: `${word} at ${at} deleted` };
    }
    case 'bad_xref': {
      // Shift the offsets of a few entries of a classic xref table (`0000001234 00000 n`).
      const text = Buffer.from(bytes).toString('latin1');
      const entries = [...text.matchAll(/(\d{10}) (\d{5}) n/g)].map((m) => m.index);
      if (entries.length === 0) break;
      let out = bytes;
      const n = 1 + Math.floor(random() * Math.min(4, entries.length));
      for (let i = 0; i < n; i++) {
        const at = pick(entries);
        out = splice(out, at, 10, String(Math.floor(random() * bytes.length)).padStart(10, '0'));
      }
      return { bytes: out, kind, note: `${n} xref entries moved` };
    }
    case 'bad_startxref': {
      const found = occurrences(bytes, 'startxref');
      if (found.length === 0) break;
      const at = found[found.length - 1] + 'startxref'.length;
      const text = Buffer.from(bytes.subarray(at, at + 40)).toString('latin1');
      const digits = /\s*(\d+)/.exec(text);
      if (!digits) break;
      const start = at + digits[0].length - digits[1].length;
      const value = String(Math.floor(random() * bytes.length));
      return { bytes: splice(bytes, start, digits[1].length, value), kind, note: `startxref → ${value}` };
    }
    case 'huge_length': {
      const text = Buffer.from(bytes).toString('latin1');
      const lengths = [...text.matchAll(/\/Length (\d+)(?! \d+ R)/g)];
      if (lengths.length === 0) break;
      const m = pick(lengths);
      const start = m.index + '/Length '.length;
      return {
        bytes: splice(bytes, start, m[1].length, '2147483647'),
        kind,
        note: `/Length ${m[1]} → 2147483647 at ${start}`,
      };
    }
    case 'flip':
      break;
  }
  const out = Uint8Array.from(bytes);
  const n = 1 + Math.floor(random() * 8);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(random() * out.length);
    out[at] ^= 1 << Math.floor(random() * 8);
  }
  return { bytes: out, kind: 'flip', note: `${n} bits flipped${kind === 'flip' ? '' : ` (no ${kind})`}` };
}
