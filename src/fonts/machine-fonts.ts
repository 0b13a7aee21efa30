// The fonts a machine has, for tier 4 after the bundled catalog (catalog.ts): faces fontconfig lists
// (`fc-list`, unless DOCFIX_SYSTEM_FONTS=0) and faces in the folders DOCFIX_FONT_DIRS names
// (path-separated, read directly: no fontconfig needed). Only single-face, static TrueType and
// OpenType files (glyf or CFF outlines) are taken: the embedding writes those (collections, variable
// fonts, Type 1 and bitmap fonts are skipped). Each face's OS/2 fsType says whether its licence lets a document embed it:
// installable (0), editable or preview & print do; restricted (bit 1 alone) and bitmap-only
// embedding do not — such a face is listed and named in a refusal, never embedded. A face whose
// PostScript name a bundled face has is the bundled one (skipped); the first file of a PostScript
// name wins, DOCFIX_FONT_DIRS before fontconfig.
//
// Discovery runs once per process and settings (tier 4 asks at every correction); a machine without
// fontconfig, or a folder that cannot be read, just has fewer faces: it never fails a correction.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { BUNDLED_FACES, fontBytes } from './catalog.ts';
import type { BundledFace, FontClass, FontStyle } from './catalog.ts';

/** Where a face comes from: the bundle, fontconfig, or a folder of DOCFIX_FONT_DIRS. */
export type FaceOrigin = 'bundled' | 'system' | 'font_dirs';

/** What a face's OS/2 fsType allows: embedding, or why not. */
export type Embedding = 'allowed' | 'restricted' | 'bitmap_only';

/** A face found on the machine (same shape as a bundled face where the matcher reads it). */
export interface MachineFace {
  origin: 'system' | 'font_dirs';
  /** Stable id: origin and PostScript name ("system-junicodetwobeta-regular"). */
  id: string;
  family: string;
  /** The face's own style name ("SemiCondensed Light Italic"). */
  styleName: string;
  style: FontStyle;
  bold: boolean;
  italic: boolean;
  class: FontClass;
  postscriptName: string;
  /** Absolute path of the font file. */
  file: string;
  /** OS/2 fsType (null: the font has no OS/2 table, which is installable). */
  fsType: number | null;
  embedding: Embedding;
  /** fsType bit 8 (no subsetting) clear: the face may be embedded as a subset. */
  subsettable: boolean;
  metricCompatibleWith: string[];
  metricCompatible: false;
  designSize: null;
  slanted: false;
  standsInForScript: null;
}

/** A face tier 4 can draw with: bundled, or found on the machine. */
export type Face = BundledFace | MachineFace;

export interface MachineFontSettings {
  /** Faces fontconfig lists (DOCFIX_SYSTEM_FONTS=0 turns them off). */
  system: boolean;
  /** Folders read directly (DOCFIX_FONT_DIRS). */
  dirs: string[];
}

/** The settings from the environment: DOCFIX_SYSTEM_FONTS (0, false, off, no: off) and DOCFIX_FONT_DIRS. */
export function machineFontSettings(env: NodeJS.ProcessEnv = process.env): MachineFontSettings {
  const off = /^(0|false|off|no)$/i.test((env.DOCFIX_SYSTEM_FONTS ?? '').trim());
  const dirs = (env.DOCFIX_FONT_DIRS ?? '')
    .split(delimiter)
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .map((d) => resolve(d));
  return { system: !off, dirs };
}

/** The file of any face as distributed (a bundled face's is stored Brotli-compressed). */
export function faceBytes(face: Face): Uint8Array {
  return face.origin === 'bundled' ? fontBytes(face) : new Uint8Array(readFileSync(face.file));
}

/** What fsType allows (OpenType OS/2): bits 2 (preview & print) or 3 (editable) outrank bit 1. */
export function embeddingOf(fsType: number | null): Embedding {
  if (fsType === null) return 'allowed';
  if (fsType & 0x0200) return 'bitmap_only';
  const usage = fsType & 0x000f;
  if (usage & 0x0002 && !(usage & 0x000c)) return 'restricted';
  return 'allowed';
}

/** Why a face may not be embedded, naming it (null: it may). */
export function embeddingRefusal(face: Face): string | null {
  if (face.origin === 'bundled' || face.embedding === 'allowed') return null;
  const hex = `0x${(face.fsType ?? 0).toString(16).padStart(4, '0')}`;
  const what =
    face.embedding === 'restricted'
      ? `its licence forbids embedding (OS/2 fsType ${hex}, restricted licence)`
      : `its licence allows only bitmaps to be embedded (OS/2 fsType ${hex})`;
  return `${face.postscriptName} (${face.file}): ${what}`;
}

// ---------------------------------------------------------------------------------------------
// Reading a font file's header: table directory, OS/2 and name tables, by positioned reads

interface FaceHeader {
  family: string;
  styleName: string;
  postscriptName: string;
  weight: number;
  italic: boolean;
  fsType: number | null;
  /** From the OS/2 PANOSE bytes: monospaced, sans or serif; null when PANOSE says nothing. */
  panoseClass: FontClass | null;
}

function readAt(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, offset);
  return buf.subarray(0, n);
}

/** The tables of a single-face, static sfnt (TrueType 0x00010000/'true', OpenType 'OTTO'); else null. */
function tableDirectory(fd: number): Map<string, { offset: number; length: number }> | null {
  const head = readAt(fd, 0, 12);
  if (head.length < 12) return null;
  const tag = head.toString('latin1', 0, 4);
  if (!(head.readUInt32BE(0) === 0x00010000 || tag === 'OTTO' || tag === 'true')) return null;
  const count = head.readUInt16BE(4);
  const dir = readAt(fd, 12, count * 16);
  if (dir.length < count * 16) return null;
  const tables = new Map<string, { offset: number; length: number }>();
  for (let i = 0; i < count; i += 1) {
    const at = i * 16;
    tables.set(dir.toString('latin1', at, at + 4), {
      offset: dir.readUInt32BE(at + 8),
      length: dir.readUInt32BE(at + 12),
    });
  }
  // A variable font (fvar) is skipped: its default instance's widths need not be a document's.
  return (tables.has('glyf') || tables.has('CFF ')) && !tables.has('fvar') ? tables : null;
}

/** Name records: Windows Unicode (English first) or Mac Roman, by name id. */
function readNames(name: Buffer): Map<number, string> {
  const names = new Map<number, string>();
  if (name.length < 6) return names;
  const count = name.readUInt16BE(2);
  const strings = name.readUInt16BE(4);
  const rank = new Map<number, number>();
  for (let i = 0; i < count; i += 1) {
    const at = 6 + i * 12;
    if (at + 12 > name.length) break;
    const platform = name.readUInt16BE(at);
    const encoding = name.readUInt16BE(at + 2);
    const language = name.readUInt16BE(at + 4);
    const id = name.readUInt16BE(at + 6);
    const length = name.readUInt16BE(at + 8);
    const start = strings + name.readUInt16BE(at + 10);
    if (start + length > name.length) continue;
    let value: string | null = null;
    let r = 0;
    if (platform === 3 && (encoding === 1 || encoding === 10)) {
      const bytes = Buffer.from(name.subarray(start, start + length));
      value = bytes.swap16().toString('utf16le');
      r = language === 0x409 ? 3 : 2;
    } else if (platform === 1 && encoding === 0) {
      value = name.toString('latin1', start, start + length);
      r = 1;
    }
    if (value && r > (rank.get(id) ?? 0)) {
      names.set(id, value);
      rank.set(id, r);
    }
  }
  return names;
}

/** PANOSE (Latin text): proportion 9 is monospaced; serif styles 11–13 are sans, 2–10 serif. */
function panoseClass(panose: Buffer): FontClass | null {
  if (panose[0] !== 2) return null;
  if (panose[3] === 9) return 'mono';
  if (panose[1] >= 11 && panose[1] <= 13) return 'sans';
  if (panose[1] >= 2 && panose[1] <= 10) return 'serif';
  return null;
}

/** The header of a font file, or null when it is not a single-face TrueType/OpenType font. */
export function readFaceHeader(file: string): FaceHeader | null {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    const tables = tableDirectory(fd);
    if (!tables) return null;
    const os2Entry = tables.get('OS/2');
    const os2 = os2Entry ? readAt(fd, os2Entry.offset, Math.min(os2Entry.length, 78)) : null;
    const nameEntry = tables.get('name');
    const names = nameEntry ? readNames(readAt(fd, nameEntry.offset, nameEntry.length)) : new Map();
    const postscriptName = names.get(6);
    const family = names.get(16) ?? names.get(1);
    if (!postscriptName || !family) return null;
    const styleName = names.get(17) ?? names.get(2) ?? 'Regular';
    const fsSelection = os2 && os2.length >= 64 ? os2.readUInt16BE(62) : 0;
    return {
      family,
      styleName,
      postscriptName,
      weight: os2 && os2.length >= 6 ? os2.readUInt16BE(4) : /bold/i.test(styleName) ? 700 : 400,
      italic: (fsSelection & 1) !== 0 || /italic|oblique/i.test(styleName),
      fsType: os2 && os2.length >= 10 ? os2.readUInt16BE(8) : null,
      panoseClass: os2 && os2.length >= 42 ? panoseClass(os2.subarray(32, 42)) : null,
    };
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// Discovery

/** What fontconfig says of a face; the file is read for fsType and PANOSE. */
const FC_FORMAT =
  '%{file}|%{index}|%{postscriptname}|%{family[0]}|%{style[0]}|%{weight}|%{slant}|%{spacing}\\n';

interface Listed {
  file: string;
  header: FaceHeader;
  /** fontconfig's spacing 100: monospaced. */
  mono: boolean;
}

/** Faces fontconfig lists (its names and weight, the file's fsType); none without fontconfig. */
function fontconfigFaces(): Listed[] {
  let out: string;
  try {
    out = execFileSync('fc-list', ['--format', FC_FORMAT], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 15_000,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  const listed: Listed[] = [];
  for (const line of out.split('\n')) {
    const [file, index, psName, family, style, weight, slant, spacing] = line.split('|');
    if (!file || index !== '0' || !/\.(ttf|otf)$/i.test(file)) continue;
    const header = readFaceHeader(file);
    if (!header) continue;
    // fontconfig's weights: 80 regular, 100 medium, 180 semibold, 200 bold (OS/2: 400 … 700).
    const fcWeight = Number(weight);
    listed.push({
      file,
      mono: spacing === '100',
      header: {
        ...header,
        postscriptName: psName || header.postscriptName,
        family: family || header.family,
        styleName: style || header.styleName,
        weight: Number.isFinite(fcWeight) && weight !== '' ? (fcWeight >= 180 ? 700 : 400) : header.weight,
        italic: slant !== undefined && slant !== '' ? Number(slant) > 0 : header.italic,
      },
    });
  }
  return listed;
}

/** Font files under a folder (its sub-folders too, 8 deep), in name order; none if unreadable. */
function folderFiles(dir: string, depth = 0): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const name of entries) {
    const path = join(dir, name);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDir) {
      if (depth < 8) files.push(...folderFiles(path, depth + 1));
    } else if (/\.(ttf|otf)$/i.test(name)) files.push(path);
  }
  return files;
}

function folderFaces(dirs: string[]): Listed[] {
  const listed: Listed[] = [];
  for (const dir of dirs) {
    for (const file of folderFiles(dir)) {
      const header = readFaceHeader(file);
      if (header) listed.push({ file, header, mono: false });
    }
  }
  return listed;
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');

function machineFace(origin: MachineFace['origin'], { file, header, mono }: Listed): MachineFace {
  const bold = header.weight >= 600;
  const italic = header.italic;
  const style: FontStyle = bold ? (italic ? 'bold-italic' : 'bold') : italic ? 'italic' : 'regular';
  const words = `${header.family} ${header.postscriptName}`;
  const cls: FontClass =
    mono || header.panoseClass === 'mono' || /mono|typewriter|courier|code/i.test(words)
      ? 'mono'
      : (header.panoseClass ?? (/sans|gothic|grotesk/i.test(words) ? 'sans' : 'serif'));
  const embedding = embeddingOf(header.fsType);
  return {
    origin,
    id: `${origin === 'system' ? 'system' : 'dirs'}-${slug(header.postscriptName)}`,
    family: header.family,
    styleName: header.styleName,
    style,
    bold,
    italic,
    class: cls,
    postscriptName: header.postscriptName,
    file,
    fsType: header.fsType,
    embedding,
    subsettable: ((header.fsType ?? 0) & 0x0100) === 0,
    metricCompatibleWith: [],
    metricCompatible: false,
    designSize: null,
    slanted: false,
    standsInForScript: null,
  };
}

const discovered = new Map<string, readonly MachineFace[]>();

/**
 * The settings this process was started with, when they are not the environment's: the daemon's
 * engine threads get the daemon's own (`daemon serve --font-dir`, `--no-system-fonts`).
 */
let started: MachineFontSettings | null = null;

/** Makes `settings` this process's default for `machineFaces()` (an engine thread at start). */
export function useMachineFontSettings(settings: MachineFontSettings): void {
  started = settings;
}

/** This process's settings: those it was started with, else the environment's. */
export function processFontSettings(): MachineFontSettings {
  return started ?? machineFontSettings();
}

/**
 * The machine's faces under `settings` (default: the process's, else the environment's): DOCFIX_FONT_DIRS's first,
 * then fontconfig's; one face per PostScript name, none a bundled face has. Cached per process.
 */
export function machineFaces(settings: MachineFontSettings = processFontSettings()): readonly MachineFace[] {
  const key = JSON.stringify(settings);
  const known = discovered.get(key);
  if (known) return known;
  const taken = new Set(BUNDLED_FACES.map((f) => f.postscriptName));
  const faces: MachineFace[] = [];
  const add = (origin: MachineFace['origin'], listed: Listed[]) => {
    for (const l of listed) {
      if (taken.has(l.header.postscriptName)) continue;
      taken.add(l.header.postscriptName);
      faces.push(machineFace(origin, l));
    }
  };
  add('font_dirs', folderFaces(settings.dirs));
  if (settings.system) add('system', fontconfigFaces());
  discovered.set(key, faces);
  return faces;
}

/** Normalised name without separators, a trailing regular-style word, or MT/PS suffixes. */
function nameKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/(mt|ps)$/, '')
    .replace(/(regular|roman|book|normal)$/, '');
}

/**
 * Named clones across TeX Gyre and URW base35 (and the Adobe/ITC originals both copy): the same
 * design with the same advance widths under another name, so a document set in one is drawn with
 * the other when only that is installed (a pdfLaTeX page in TeX Gyre Bonum on a machine with
 * ghostscript's URW Bookman). Family keys as `nameKey` gives them. Times, Helvetica, Courier,
 * Palatino and Century Schoolbook are not here: bundled faces stand in for all their names
 * (font-match.ts NAME_FAMILIES); the Nimbus Mono group is here for GNU FreeMono, so that after the
 * bundled Liberation Mono the machine's URW face of the same design draws what it lacks. Weights go
 * by the faces' own flags: TeX Gyre's Regular/Bold are URW Bookman's Light/Demi and URW Gothic's
 * Book/Demi, each the lighter or bolder of its family.
 */
const CLONE_FAMILIES: readonly (readonly string[])[] = [
  // ITC Bookman
  ['texgyrebonum', 'urwbookman', 'urwbookmanl', 'bookman', 'itcbookman'],
  // ITC Avant Garde Gothic
  ['texgyreadventor', 'urwgothic', 'urwgothicl', 'avantgarde', 'itcavantgarde', 'itcavantgardegothic'],
  // ITC Zapf Chancery
  ['texgyrechorus', 'z003', 'urwchanceryl', 'zapfchancery', 'itczapfchancery'],
  // URW Nimbus Mono: GNU FreeMono is its Latin unchanged (FreeFont's AUTHORS: Basic Latin, Latin-1
  // and Latin Extended-A by URW++; every advance equal to Nimbus Mono PS's). FreeSerif and FreeSans
  // are not here: re-spaced since, their widths are not Nimbus Roman's or Sans's.
  ['freemono', 'nimbusmono', 'nimbusmonl', 'texgyrecursor'],
];

/** The clone group a family key belongs to, if any. */
function cloneGroup(familyKey: string): readonly string[] | undefined {
  return CLONE_FAMILIES.find((g) => g.includes(familyKey));
}

/**
 * How a document font's name (without subset tag) names a machine face: 0 by its PostScript name
 * (or family and style), 1 by its family (the PostScript name's part before the hyphen, or the
 * family name), 2 by a named clone's family (CLONE_FAMILIES), null not at all. Machine faces
 * stand in only for a font that names them.
 */
export function machineNameRank(face: MachineFace, name: string): 0 | 1 | 2 | null {
  const key = nameKey(name);
  if (key === '') return null;
  if (key === nameKey(face.postscriptName) || key === nameKey(`${face.family}${face.styleName}`)) return 0;
  const docFamily = nameKey(name.replace(/[-,_][^-,_]*$/, ''));
  const faceFamilies = [nameKey(face.postscriptName.replace(/-[^-]*$/, '')), nameKey(face.family)];
  if (faceFamilies.includes(key) || faceFamilies.includes(docFamily)) return 1;
  // GNU FreeFont writes the style without a hyphen (FreeMonoBoldOblique): the family is what precedes it.
  const bare = docFamily.replace(/(bold|italic|oblique)+$/, '');
  const group = cloneGroup(docFamily) ?? cloneGroup(key) ?? cloneGroup(bare);
  if (group && faceFamilies.some((f) => group.includes(f))) return 2;
  return null;
}

/** Whether `machineNameRank` found the face only as a named clone of the document's family. */
export const CLONE_RANK = 2;

/** One face as `GET /v1/fonts` lists it. */
export interface FaceListing {
  id: string;
  family: string;
  style: string;
  postscript_name: string;
  origin: FaceOrigin;
  file: string;
  embedding: Embedding;
  /** OS/2 fsType of a machine face (null: bundled, or no OS/2 table). */
  fs_type: number | null;
}

/** Every face tier 4 may draw with under `settings`: the bundle first, then the machine's. */
export function faceListing(settings: MachineFontSettings = machineFontSettings()): {
  system_fonts: boolean;
  font_dirs: string[];
  faces: FaceListing[];
} {
  const bundled = BUNDLED_FACES.map((f): FaceListing => ({
    id: f.id,
    family: f.family,
    style: f.style,
    postscript_name: f.postscriptName,
    origin: 'bundled',
    file: f.file,
    embedding: 'allowed',
    fs_type: null,
  }));
  const machine = machineFaces(settings).map((f): FaceListing => ({
    id: f.id,
    family: f.family,
    style: f.styleName,
    postscript_name: f.postscriptName,
    origin: f.origin,
    file: f.file,
    embedding: f.embedding,
    fs_type: f.fsType,
  }));
  return { system_fonts: settings.system, font_dirs: settings.dirs, faces: [...bundled, ...machine] };
}
