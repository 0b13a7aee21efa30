// The structural guard `objects_untouched`: the proof that a correction changed only what it
// declared. Every object of the input is compared with the output, token for token, as the files
// write them (not as MuPDF parsed them): objects the correction did not declare must be identical,
// and declared ones may differ only at the keys named for their kind (a page's /Contents, the fonts
// and forms of its /Resources, …). Pixel comparisons are the witness; this is the proof.
//
// A damaged file is saved repaired (save/repair.ts): the objects its repair changes are declared as
// `repair` with the exact paths and the reason, and compared with the repaired file MuPDF writes of
// the input alone (`opts.repaired`), so a repaired object may differ from that only where the
// correction itself declared it.
import { readSavedRegion } from '../../pdf/exact-save.ts';
import { decodeName, dictGet, stringBytes, type PdfValue } from '../../pdf/object-syntax.ts';
import type { ObjectIndex, ObjectSource } from '../../pdf/xref-index.ts';
import type { ChangedObject } from '../rewrite/write.ts';

/** A stream rewritten in a copy: its data and encoding. */
const STREAM_PATHS = ['/Length', '/Filter', '/DecodeParms', '/DL', '<stream>'];
/** A form (or an appearance) copied with new data and, possibly, new fonts or forms. */
const FORM_PATHS = ['/Resources/Font', '/Resources/XObject', ...STREAM_PATHS];

/** Keys (paths below the object) each kind of declared object may change. `<stream>` is its data. */
const DECLARED_PATHS: Record<ChangedObject['kind'] | 'catalog' | 'names' | 'name tree', string[]> = {
  // An annotation whose text was corrected: its normal appearance, and the text it holds as values.
  annotation: ['/AP/N', '/Contents', '/RC', '/V'],
  'annotation appearance': FORM_PATHS,
  page: ['/Contents', '/Resources/Font', '/Resources/XObject'],
  resources: ['/Font', '/XObject'],
  'form xobject': FORM_PATHS,
  'content stream': STREAM_PATHS,
  font: ['/Encoding', '/FirstChar', '/LastChar', '/Widths', '/ToUnicode', '/DescendantFonts', '/W'],
  // A Type 3 font given glyph procedures that draw a bundled face (type3-stand-in.ts).
  'type3 font': [
    '/Encoding',
    '/FirstChar',
    '/LastChar',
    '/Widths',
    '/ToUnicode',
    '/CharProcs',
    '/Resources/Font',
  ],
  cmap: STREAM_PATHS,
  // A new image (a tier-5 patch): new objects have no earlier version to compare.
  image: [],
  // The provenance manifest: the catalog's associated files and its embedded-files name tree.
  catalog: ['/Names', '/AF'],
  names: ['/EmbeddedFiles'],
  'name tree': ['/Names', '/Kids', '/Limits'],
};

export interface DeclaredObject {
  num: number;
  /** `repair`: changed by the save's repair of a damaged file, at `paths` only. */
  kind: keyof typeof DECLARED_PATHS | 'repair';
  /** For a new object copied from an existing one: that object's number. */
  from?: number;
  /** A repair: the paths it changes (as `changed` names them), and why. */
  paths?: string[];
  reason?: string;
}

/** An object a repair changes: where, and why ("/Length was 1234, the stream is 1240 bytes"). */
export interface RepairedObject {
  num: number;
  changed: string[];
  reason: string;
}

/** The repaired file MuPDF writes of the input alone: what repaired objects are compared with. */
export interface RepairedFile {
  bytes: Uint8Array;
  index: ObjectIndex;
}

export interface ObjectGuard {
  passed: boolean;
  detail: string;
  compared: number;
  rewritten: { num: number; from: number; kind: string; changed: string[]; repair?: string }[];
  undeclared: { num: number; paths: string[] }[];
}

interface Side {
  index: ObjectIndex;
  bytes: Uint8Array;
}

/** The other side of a dictionary only one side has. */
const NO_ENTRIES: PdfValue = { kind: 'dict', entries: new Map(), start: 0, end: 0 };

/**
 * The text of an encrypted string as the file's reader decrypts it, in the input and in the output:
 * the string at `path` below object `num` (`from` in the input, when the object was copied from
 * another). Null where either side has none.
 */
export type DecryptedStrings = (from: number, num: number, path: string) => [Uint8Array, Uint8Array] | null;

interface CompareOpts {
  encrypted: boolean;
  /** Decrypts strings whose bytes differ in an encrypted file (`DecryptedStrings`). */
  strings?: DecryptedStrings;
  /** The object being compared (output number, input number): what `strings` looks up. */
  at?: { num: number; from: number };
}

/** Paths where `a` (output) and `b` (input) differ; references followed where one side is direct. */
function differences(
  a: PdfValue,
  b: PdfValue,
  aSide: Side,
  bSide: Side,
  path: string,
  out: string[],
  opts: CompareOpts,
  depth = 0,
): void {
  if (out.length > 50) return;
  if (depth > 24) {
    out.push(`${path} (too deep to compare)`);
    return;
  }
  if (a.kind === 'ref' && b.kind === 'ref') {
    if (a.num !== b.num || a.gen !== b.gen) out.push(path || '/');
    return;
  }
  if (a.kind === 'ref' || b.kind === 'ref') {
    const ra = a.kind === 'ref' ? aSide.index.get(a.num)?.value : a;
    const rb = b.kind === 'ref' ? bSide.index.get(b.num)?.value : b;
    if (!ra || !rb) out.push(path || '/');
    else differences(ra, rb, aSide, bSide, path, out, opts, depth + 1);
    return;
  }
  if (a.kind !== b.kind) {
    out.push(path || '/');
    return;
  }
  switch (a.kind) {
    case 'number':
    case 'keyword':
      if (a.text !== (b as typeof a).text) out.push(path || '/');
      return;
    case 'name':
      if (decodeName(a.text) !== decodeName((b as typeof a).text)) out.push(path || '/');
      return;
    case 'string':
      // Encrypted strings are re-encrypted with a fresh vector when an object is written again, and
      // a string from an object stream (encrypted with its stream, written plain inside it) comes
      // out encrypted on its own: their bytes cannot show they are the same. Decrypted, they must be
      // equal; without the decryption, equal length is all the bytes can show.
      {
        const sa = stringBytes(a.text);
        const sb = stringBytes((b as typeof a).text);
        if (sa.equals(sb)) return;
        if (!opts.encrypted) out.push(path || '/');
        else if (opts.strings && opts.at) {
          const plain = opts.strings(opts.at.from, opts.at.num, path);
          if (!plain || Buffer.compare(Buffer.from(plain[0]), Buffer.from(plain[1])) !== 0)
            out.push(path || '/');
        } else if (sa.length !== sb.length) out.push(path || '/');
      }
      return;
    case 'array': {
      const bb = b as typeof a;
      if (a.items.length !== bb.items.length) out.push(path || '/');
      else
        a.items.forEach((item, i) =>
          differences(item, bb.items[i], aSide, bSide, `${path}/${i}`, out, opts, depth + 1),
        );
      return;
    }
    case 'dict': {
      const bb = b as typeof a;
      const keys = new Set([...a.entries.keys(), ...bb.entries.keys()]);
      for (const key of keys) {
        const va = a.entries.get(key);
        const vb = bb.entries.get(key);
        const oneSided = va ?? vb;
        if (va && vb) differences(va, vb, aSide, bSide, `${path}${key}`, out, opts, depth + 1);
        else if (oneSided?.kind === 'dict' && oneSided.entries.size > 0)
          // A dictionary on one side only (a Type 3 font given its first /Resources) is named by
          // its entries, so a new /Resources holding only /Font is judged as /Resources/Font. An
          // empty one is named itself (it still changes where names are looked up).
          differences(
            va ?? NO_ENTRIES,
            vb ?? NO_ENTRIES,
            aSide,
            bSide,
            `${path}${key}`,
            out,
            opts,
            depth + 1,
          );
        else out.push(`${path}${key}`);
      }
    }
  }
}

function inheritedResources(page: PdfValue, index: ObjectIndex): PdfValue | null {
  let node: PdfValue | undefined = page;
  for (let depth = 0; node && depth < 32; depth += 1) {
    const res = dictGet(node, '/Resources');
    if (res) return res;
    const parent = dictGet(node, '/Parent');
    node = parent?.kind === 'ref' ? index.get(parent.num)?.value : undefined;
  }
  return null;
}

const allowed = (path: string, declared: string[]) =>
  declared.some((p) => path === p || path.startsWith(`${p}/`));

/**
 * Compares every object of `input` with `output`. `declared` lists the existing objects the
 * correction rewrote and the new objects copied from existing ones; other new objects are free
 * (nothing reaches them except through a declared key).
 */
export function objectsUntouched(
  input: Uint8Array,
  output: Uint8Array,
  inputIndex: ObjectIndex,
  outputIndex: ObjectIndex,
  declared: DeclaredObject[],
  opts: { encrypted: boolean; repaired?: RepairedFile; strings?: DecryptedStrings },
): ObjectGuard {
  const byNum = new Map<number, DeclaredObject>();
  const repairs = new Map<number, DeclaredObject>();
  for (const d of declared) (d.kind === 'repair' ? repairs : byNum).set(d.num, d);
  const result: ObjectGuard = { passed: true, detail: '', compared: 0, rewritten: [], undeclared: [] };
  const inSide = { index: inputIndex, bytes: input };
  const repairedSide = opts.repaired && { index: opts.repaired.index, bytes: opts.repaired.bytes };
  const outSide = { index: outputIndex, bytes: output };
  let region;
  try {
    region = readSavedRegion(input, output);
  } catch (error) {
    return {
      ...result,
      passed: false,
      detail: `the saved file could not be read object by object: ${(error as Error).message}`,
    };
  }
  // Incremental: every input byte is kept as the prefix; only objects written after it are compared.
  // Full rewrite: every object of the input is compared with its number in the output.
  const nums = region.incremental ? region.objects.map((o) => o.num) : inputIndex.numbers();
  if (region.incremental) {
    // New objects copied from an existing one are compared with it.
    for (const d of byNum.values())
      if (d.from !== undefined && !inputIndex.get(d.num) && !nums.includes(d.num)) nums.push(d.num);
  } else for (const d of byNum.values()) if (d.from !== undefined && !nums.includes(d.num)) nums.push(d.num);

  for (const num of nums) {
    const decl = byNum.get(num);
    const repair = repairs.get(num);
    const source = decl?.from !== undefined && !inputIndex.get(num) ? decl.from : num;
    // A repaired object is compared with the repaired file's (exactly what the repair wrote); without
    // that file (a second look at two files), with the input, at the repair's paths as well.
    const side = repairs.has(source) && repairedSide ? repairedSide : inSide;
    const before = side.index.get(source);
    const after = outputIndex.get(num);
    if (!before) {
      noEarlierVersion(result, {
        num,
        after: Boolean(after),
        repair,
        inputIndex,
        repaired: side === repairedSide,
      });
      continue;
    }
    result.compared += 1;
    const paths = pathsChanged(before, after, decl?.kind === 'page', side, outSide, {
      ...opts,
      at: { num, from: source },
    });
    const repairPaths = repair && side === inSide ? (repair.paths ?? []) : [];
    if (paths.length === 0 && !repair) continue;
    const declaredPaths = [
      ...(decl ? DECLARED_PATHS[decl.kind as keyof typeof DECLARED_PATHS] : []),
      ...repairPaths,
    ];
    const bad = paths.filter((p) => !allowed(p, declaredPaths));
    if (bad.length) result.undeclared.push({ num, paths: bad });
    else if (repair) {
      const changed = [...new Set([...(repair.paths ?? []), ...paths])];
      result.rewritten.push({
        num,
        from: decl?.from ?? num,
        kind: decl ? `${decl.kind}, repair` : 'repair',
        changed,
        repair: repair.reason,
      });
    } else result.rewritten.push({ num, from: decl?.from ?? num, kind: decl!.kind, changed: paths });
  }
  trailerKept(result, inSide, outSide, opts);
  result.passed = result.undeclared.length === 0;
  result.detail = detailOf(result, region.incremental);
  return result;
}

/** Where the output's object differs from the one it is compared with (its paths; `<stream>`: its data). */
function pathsChanged(
  before: ObjectSource,
  after: ObjectSource | null,
  isPage: boolean,
  side: Side,
  outSide: Side,
  opts: CompareOpts,
): string[] {
  const paths: string[] = [];
  let was = before.value;
  const holdsResources = after?.value.kind === 'dict' && after.value.entries.has('/Resources');
  if (isPage && was.kind === 'dict' && !was.entries.has('/Resources') && holdsResources) {
    // A page that inherited its resources now holds a copy: compare it with what it inherited.
    // One that still inherits them (only its /Contents changed) is compared as it is.
    const inherited = inheritedResources(was, side.index);
    if (inherited) was = { ...was, entries: new Map([...was.entries, ['/Resources', inherited]]) };
  }
  if (!after) return ['(missing from the output)'];
  differences(after.value, was, outSide, { ...side, bytes: before.bytes }, '', paths, opts);
  if (after.stream && before.stream) {
    const da = after.bytes.subarray(after.stream.start, after.stream.end);
    const db = before.bytes.subarray(before.stream.start, before.stream.end);
    if (Buffer.compare(Buffer.from(da), Buffer.from(db)) !== 0) paths.push('<stream>');
  } else if (Boolean(after.stream) !== Boolean(before.stream)) paths.push('<stream>');
  return paths;
}

/** An object with no earlier version to compare: new, unreadable in the input, or dropped by the repair. */
function noEarlierVersion(
  result: ObjectGuard,
  o: { num: number; after: boolean; repair?: DeclaredObject; inputIndex: ObjectIndex; repaired: boolean },
): void {
  const { num, repair } = o;
  const asRepaired = () =>
    result.rewritten.push({
      num,
      from: num,
      kind: 'repair',
      changed: repair?.paths ?? [],
      repair: repair?.reason,
    });
  if (o.repaired) {
    // The repair dropped an object it could not read: the correction's save must drop it too.
    if (o.after) result.undeclared.push({ num, paths: ['(in the output, not in the repaired file)'] });
    else asRepaired();
    return;
  }
  // An object the input has but that cannot be read here is not assumed unchanged; a new object is
  // reached only through a declared key.
  if (repair) asRepaired();
  else if (o.inputIndex.inUse(num)) result.undeclared.push({ num, paths: ['(unreadable in the input)'] });
}

/**
 * The trailer's /Root, /Encrypt and /Info as the input has them: the same reference, or (a direct
 * dictionary, as some producers write /Info) the same value token for token.
 */
function trailerKept(result: ObjectGuard, inSide: Side, outSide: Side, opts: CompareOpts): void {
  const tIn = inSide.index.trailer;
  const tOut = outSide.index.trailer;
  for (const key of ['/Root', '/Encrypt', '/Info']) {
    const a = dictGet(tOut ?? undefined, key);
    const b = dictGet(tIn ?? undefined, key);
    let same = !a && !b;
    if (a?.kind === 'ref' && b?.kind === 'ref') same = a.num === b.num && a.gen === b.gen;
    else if (a && b && a.kind !== 'ref' && b.kind !== 'ref') {
      const changed: string[] = [];
      differences(a, b, outSide, inSide, '', changed, opts);
      same = changed.length === 0;
    }
    if (!same && tIn && tOut) result.undeclared.push({ num: 0, paths: [`trailer${key}`] });
  }
}

function detailOf(result: ObjectGuard, incremental: boolean): string {
  return result.passed
    ? `${result.compared} object(s) compared token for token${incremental ? ' after the unchanged original bytes' : ' in a full rewrite'}; ${
        result.rewritten.length
          ? `changed only where declared: ${result.rewritten.map((r) => `${r.num}${r.from !== r.num ? ` (copy of ${r.from})` : ''} ${r.changed.slice(0, 6).join(' ')}`).join('; ')}`
          : 'none changed'
      }`
    : `objects changed where the correction declared nothing: ${result.undeclared
        .slice(0, 5)
        .map((u) => `${u.num ? `object ${u.num}` : 'trailer'} ${u.paths.slice(0, 4).join(' ')}`)
        .join('; ')}`;
}
