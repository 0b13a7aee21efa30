// Tasks derived from the corpus pages themselves (issue #5, "proof on real documents"), and a runner
// that puts each through the engine and cross-checks every verified correction with poppler.
//
// Per file (text-layer pages only: pages the manifest lists as image-only or scan-like are skipped;
// at most the first 3 such pages are read), deterministic from a seed made of the file name:
//   - `same`: two words of 4+ letters with two adjacent different letters swapped (the page already
//     draws every character of the replacement in that word's line);
//   - `absent`: one word with one letter replaced by an accented form of it found nowhere in the
//     document (e → é, u → ü, o → ö, n → ñ, c → ç …: about the same width), to force tiers 2–4.
// At most 3 tasks a file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPdf } from '../../../src/pdf/mupdf-adapter.ts';
import { readPageText } from '../../../src/corrections/locate/page-text.ts';
import { applyEdit, proposeEdit, type EditTaskInput } from '../../../src/corrections/engine.ts';
import { DocfixError } from '../../../src/errors.ts';
import { popplerCheck } from './poppler.ts';
import { CORPUS_PDF, corpusBytes, corpusFiles, type CorpusFile } from '../../../fixtures/corpus-manifest.ts';

export interface DerivedTask {
  file: string;
  password: string;
  page: number;
  find: string;
  replace: string;
  kind: 'same' | 'absent';
}

export interface DerivedResult extends DerivedTask {
  /** `tier N` or `refused: code`. */
  result: string;
  tier: number;
  cost: string;
  code: string | null;
  poppler_problems: string[];
  /** pdftoppm alone saw pixels outside (a Splash bucket flip; pdftocairo agrees with the engine). */
  splash_bucket_flip: string | null;
  advice_ok: boolean;
}

/** Accented forms of a letter, about as wide as the letter itself in text fonts. */
const ACCENTED: Record<string, string[]> = {
  a: ['ä', 'å', 'á', 'à', 'â'],
  e: ['é', 'è', 'ê', 'ë'],
  o: ['ö', 'ó', 'ô', 'ø'],
  u: ['ü', 'ú', 'û', 'ù'],
  n: ['ñ'],
  c: ['ç'],
};
const MAX_PAGES = 3;
const MAX_TASKS = 3;

/** mulberry32, seeded by the file name: the same tasks on every run. */
function rng(seedText: string): () => number {
  let a = 0;
  for (const ch of seedText) a = (Math.imul(a, 31) + ch.charCodeAt(0)) | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives up to 3 tasks for one corpus file. */
export function deriveTasks(entry: CorpusFile): DerivedTask[] {
  if (!entry.pages_with_text_layer) return [];
  const skip = new Set([...(entry.image_only_pages ?? []), ...(entry.scan_like_pages ?? [])]);
  const password = entry.password ?? '';
  const bytes = corpusBytes(entry.file);
  let opened;
  try {
    opened = openPdf(bytes, password);
  } catch {
    return [];
  }
  const doc = opened.doc;
  const random = rng(entry.file);
  try {
    const pageCount = doc.countPages();
    const docChars = new Set<string>();
    const words: { page: number; word: string; line: string }[] = [];
    let eligible = 0;
    for (let p = 0; p < pageCount; p += 1) {
      // Words of the page's own content (annotations and form fields are not where tasks come from).
      const lines = readPageText(doc.loadPage(p), false, false);
      for (const l of lines) for (const c of l.chars) docChars.add(c.c);
      if (skip.has(p) || eligible >= MAX_PAGES) continue;
      eligible += 1;
      for (const l of lines) {
        for (const m of l.text.matchAll(/\p{Ll}{4,}/gu)) words.push({ page: p, word: m[0], line: l.text });
      }
    }
    if (!words.length) return [];
    const tasks: DerivedTask[] = [];
    const used = new Set<string>();
    const pick = () => words[Math.floor(random() * words.length)];
    for (let tries = 0; tries < 40 && tasks.filter((t) => t.kind === 'same').length < 2; tries += 1) {
      const w = pick();
      if (used.has(w.word)) continue;
      const letters = Array.from(w.word);
      const i = 1 + Math.floor(random() * (letters.length - 2));
      const j = i < letters.length - 1 && letters[i] !== letters[i + 1] ? i + 1 : i - 1;
      if (letters[i] === letters[j]) continue;
      [letters[i], letters[j]] = [letters[j], letters[i]];
      used.add(w.word);
      tasks.push({
        file: entry.file,
        password,
        page: w.page,
        find: w.word,
        replace: letters.join(''),
        kind: 'same',
      });
    }
    // An accented form of one of the word's letters (about the same width), absent from the document.
    const variants = (c: string) => (ACCENTED[c] ?? []).filter((v) => !docChars.has(v));
    for (let tries = 0; tries < 60 && tasks.length < MAX_TASKS; tries += 1) {
      const w = pick();
      if (used.has(w.word)) continue;
      const letters = Array.from(w.word);
      const places = letters.map((c, i) => (i > 0 && variants(c).length ? i : -1)).filter((i) => i >= 0);
      if (!places.length) continue;
      const i = places[Math.floor(random() * places.length)];
      const options = variants(letters[i]);
      letters[i] = options[Math.floor(random() * options.length)];
      used.add(w.word);
      tasks.push({
        file: entry.file,
        password,
        page: w.page,
        find: w.word,
        replace: letters.join(''),
        kind: 'absent',
      });
    }
    return tasks.slice(0, MAX_TASKS);
  } finally {
    doc.destroy();
  }
}

const manifestInput = {
  document_id: 'doc_derived',
  original_sha256: '0'.repeat(64),
  standing: [],
  engine_version: 'test',
  renderer: 'mupdf',
  dpi: 300,
};

/** Runs one task through propose and apply; every verified correction is checked with poppler. */
export async function runTask(t: DerivedTask, work: string): Promise<DerivedResult> {
  const path = join(CORPUS_PDF, t.file);
  const pdf = new Uint8Array(readFileSync(path));
  const input: EditTaskInput = {
    pdf,
    password: t.password,
    request: {
      page_index: t.page,
      target: { method: 'text_layer', find: t.find, match_index: 0 },
      replacement: t.replace,
      attestation_id: 'att_derived',
    },
    manifest: manifestInput,
  };
  const base = {
    ...t,
    poppler_problems: [] as string[],
    splash_bucket_flip: null as string | null,
    advice_ok: true,
  };
  const proposal = await proposeEdit(input);
  if (proposal.tier < 0) {
    const code = proposal.advice?.code ?? null;
    return {
      ...base,
      result: `refused: ${code}`,
      tier: -1,
      cost: 'refused',
      code,
      advice_ok: !!code && !!proposal.advice?.what && (proposal.advice?.do.length ?? 0) > 0,
    };
  }
  let applied;
  try {
    applied = await applyEdit(input);
  } catch (error) {
    if (error instanceof DocfixError && error.code === 'edit_refused') {
      const advice = (error.extra as { advice?: { code?: string; do?: string[] } }).advice;
      return {
        ...base,
        result: `refused at apply: ${advice?.code}`,
        tier: -1,
        cost: 'refused',
        code: advice?.code ?? null,
        advice_ok: !!advice?.code && (advice.do?.length ?? 0) > 0,
      };
    }
    throw error;
  }
  const outPath = join(work, `${t.file}.${t.kind}.${t.page}.${t.find}.pdf`);
  writeFileSync(outPath, applied.output);
  const problems: string[] = [];
  if (!applied.verification.passed) problems.push(`not verified: ${applied.verification.failure_reason}`);
  const check = popplerCheck(
    path,
    outPath,
    t.page,
    t.password,
    t.find,
    t.replace,
    applied.verification.declared_box,
    work,
  );
  problems.push(...check.problems);
  rmSync(outPath, { force: true });
  return {
    ...base,
    result: `tier ${proposal.tier}${problems.length ? ' POPPLER CHECK FAILED' : ''}`,
    tier: proposal.tier,
    cost: proposal.visibility_cost,
    code: null,
    poppler_problems: problems,
    splash_bucket_flip: check.splashBucketFlip,
  };
}

/** Every derived task of the corpus, run; `onResult` sees each as it ends. */
export async function runDerived(onResult?: (r: DerivedResult) => void): Promise<DerivedResult[]> {
  const work = mkdtempSync(join(tmpdir(), 'docfix-derived-'));
  const results: DerivedResult[] = [];
  try {
    for (const entry of corpusFiles()) {
      for (const t of deriveTasks(entry)) {
        const r = await runTask(t, work);
        results.push(r);
        onResult?.(r);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}

/** Per-file table and the summary percentages. */
export function summarize(results: DerivedResult[]): { table: string; summary: Record<string, unknown> } {
  const files = [...new Set(results.map((r) => r.file))];
  const width = Math.max(4, ...files.map((f) => f.length));
  const lines = [`${'file'.padEnd(width)}  tasks  verified by tier      refused by code`];
  for (const f of files) {
    const rs = results.filter((r) => r.file === f);
    const tiers = new Map<number, number>();
    const codes = new Map<string, number>();
    for (const r of rs) {
      if (r.tier > 0) tiers.set(r.tier, (tiers.get(r.tier) ?? 0) + 1);
      else codes.set(r.code ?? '?', (codes.get(r.code ?? '?') ?? 0) + 1);
    }
    lines.push(
      `${f.padEnd(width)}  ${String(rs.length).padStart(5)}  ${[...tiers]
        .map(([k, v]) => `t${k}:${v}`)
        .join(' ')
        .padEnd(20)}  ${[...codes].map(([k, v]) => `${k}:${v}`).join(' ')}`,
    );
  }
  const same = results.filter((r) => r.kind === 'same');
  const absent = results.filter((r) => r.kind === 'absent');
  const pct = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 10 : 0);
  const sameNone = same.filter((r) => r.tier > 0 && r.cost === 'none').length;
  const absentOk = absent.filter((r) => r.tier > 0 && (r.cost === 'none' || r.cost === 'low')).length;
  const summary = {
    tasks: results.length,
    same_tasks: same.length,
    same_verified_cost_none: sameNone,
    same_pct: pct(sameNone, same.length),
    absent_tasks: absent.length,
    absent_verified_low_or_better: absentOk,
    absent_pct: pct(absentOk, absent.length),
    absent_by_tier: Object.fromEntries(
      [1, 2, 3, 4].map((k) => [`tier${k}`, absent.filter((r) => r.tier === k).length]),
    ),
    poppler_failures: results.filter((r) => r.poppler_problems.length).length,
    splash_bucket_flips: results.filter((r) => r.splash_bucket_flip).length,
    refusals_without_advice: results.filter((r) => r.tier < 0 && !r.advice_ok).length,
  };
  return { table: lines.join('\n'), summary };
}
