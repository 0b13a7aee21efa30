// `docfix fix`: batch mode for CI. For each file: upload, attest, find every occurrence, propose,
// apply within the allowed cost, export and download through the gate to OUTDIR/<name>.pdf (a temp
// name renamed only after the SHA-256 matches the verified one), and report every edit.
// Exit: 0 all verified, 5 some refused or not found, 6 a verification failure, 2 usage, 3 connection.
import { Option, type Command } from 'commander';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import type { ApiClient } from '../../src/api-client.ts';
import { ConnectionError } from '../../src/connection-error.ts';
import { DocfixError, ERRORS, EXIT } from '../../src/errors.ts';
import type { EditRequest, RefusalAdvice } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  dispatch,
  getClient,
  globalOptions,
  intArg,
  print,
  printJson,
  onInterrupt,
  removeOwnTemporaries,
  UsageError,
  withSpinner,
  type GlobalOptions,
} from '../context.ts';
import { parseReplace, readEditsFile, type BatchEdit, type EditsPlan } from '../edits-file.ts';
import { exitCodesHelp } from '../exit-codes.ts';
import { maxCostAdvice, refusalLines } from '../refusal-text.ts';
import { COSTS, withinCost, type Cost } from '../render.ts';
import { checkInputFile, checkUploadSize, LANG_HELP, readPassword, uploadLimit } from '../shared.ts';
import { matchFlags, SEARCH_LIMIT_MAX, searchText, type MatchFlags } from '../text-match.ts';
import { sha256File } from './corrections.ts';

export interface FixOptions {
  globals: GlobalOptions;
  files: string[];
  /** From --replace OLD=NEW. */
  replace: BatchEdit[];
  /** --ignore-case, --word: the rule of every edit that does not set its own. */
  flags: MatchFlags;
  editsFile?: string;
  outDir: string;
  maxCost: Cost;
  /** Files at once (default: the daemon's engine slots). */
  jobs?: number;
  passwordFile?: string;
  dryRun: boolean;
  /** The recognition language of OCR edits that do not name their own (default: the page's own). */
  lang?: string;
}

/** One occurrence of an edit, and what became of it. */
export interface OccurrenceReport {
  page_index: number;
  /** The engine's match_index of `text` on the page (as the search named the match). */
  match_index: number;
  /** The text corrected, as the page has it (differs from `find` in case with ignore_case). */
  text: string;
  status: 'verified' | 'refused' | 'failed' | 'proposed';
  tier: number | null;
  tier_name: string | null;
  visibility_cost: string | null;
  explanation: string | null;
  refusal: string | null;
  advice: RefusalAdvice | null;
  warnings: string[];
  verification_id: string | null;
  passed: boolean | null;
  outside_pixels: number | null;
  failure_reason: string | null;
}

export interface EditReport {
  find: string;
  replace: string;
  page: number | null;
  match: number | null;
  ignore_case: boolean;
  word: boolean;
  method: 'text_layer' | 'ocr';
  found: number;
  /** Not attempted: an earlier edit of the file failed its verification. */
  skipped: boolean;
  occurrences: OccurrenceReport[];
}

export interface FileReport {
  file: string;
  output: string | null;
  document_id: string | null;
  output_sha256: string | null;
  status: 'written' | 'unchanged' | 'refused' | 'failed' | 'error' | 'dry-run';
  error: { code: string; message: string; exit_code: number } | null;
  edits: EditReport[];
}

export interface FixReport {
  exit_code: number;
  max_cost: Cost;
  files: FileReport[];
  summary: {
    files: number;
    written: number;
    verified: number;
    refused: number;
    not_found: number;
    failed: number;
  };
}

export function register(program: Command): void {
  program
    .command('fix')
    .description('Batch mode: correct files and write the verified results to a folder (for CI)')
    .argument('<files...>', 'PDF files')
    .option(
      '-r, --replace <OLD=NEW>',
      'replace every occurrence of OLD with NEW (repeatable)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option('--edits <file>', 'a JSON edits file (docs/edits-file.md)')
    .option('-i, --ignore-case', 'match whatever the case (each match corrected as the page has it)')
    .option('-w, --word', 'match whole words only (not inside a longer word)')
    .requiredOption('-o, --out-dir <dir>', 'folder for the corrected files (OUTDIR/<name>.pdf)')
    .addOption(
      new Option('--max-cost <cost>', 'apply only proposals at most this visible')
        .choices([...COSTS])
        .default('none'),
    )
    .addOption(
      new Option('-j, --jobs <n>', "files at once (default: the daemon's engine slots)").argParser(
        intArg('--jobs', 1),
      ),
    )
    .option('--password-file <file>', 'password for protected PDFs (sent only to files that need one)')
    .option('--dry-run', 'propose only: report what would be done, change and write nothing')
    .option('--lang <code>', `OCR edits ("method": "ocr" in --edits) without their own "lang": ${LANG_HELP}`)
    .addHelpText(
      'after',
      `
A file is written only after the export gate released it and its SHA-256 matches the verified one.
Each edit corrects every match \`docfix search\` lists for it, with the same rule: exact and
case-sensitive by default, anywhere in a line (also inside longer words); --ignore-case and --word
(or "ignore_case" and "word" in an edits file) change it. Pages are numbered from 0.

Examples:
  $ docfix fix report.pdf --replace Jonh=John -o fixed/
  $ docfix fix in/*.pdf --edits edits.json -o out/ --max-cost low --json > report.json`,
    )
    // From the exit-code table (cli/exit-codes.ts): every code the run can end with, none typed here.
    .addHelpText('after', () => `\n${fixExitCodesHelp()}`)
    .action(async (files: string[], o: Record<string, unknown>, cmd: Command) => {
      const replace = (o.replace as string[]).map(parseReplace);
      if (replace.length && o.edits) throw new UsageError('give either --replace or --edits, not both');
      if (!replace.length && !o.edits)
        throw new UsageError('nothing to do: give --replace OLD=NEW or --edits FILE');
      const options: FixOptions = {
        globals: globalOptions(cmd),
        files,
        replace,
        flags: matchFlags(o),
        outDir: o.outDir as string,
        maxCost: o.maxCost as Cost,
        dryRun: Boolean(o.dryRun),
        ...(o.edits ? { editsFile: o.edits as string } : {}),
        ...(o.jobs ? { jobs: o.jobs as number } : {}),
        ...(o.passwordFile ? { passwordFile: o.passwordFile as string } : {}),
        ...(o.lang ? { lang: o.lang as string } : {}),
      };
      await dispatch('fix', options, runFix);
    });
}

/** The output path of an input file. */
export function outputPath(outDir: string, file: string): string {
  const name = basename(file, extname(file));
  return join(outDir, `${name}.pdf`);
}

/** Exit codes by severity: the worst one present wins. */
const SEVERITY: number[] = [
  EXIT.auth,
  EXIT.error,
  EXIT.badFile,
  EXIT.limit,
  EXIT.notFound,
  EXIT.conflict,
  EXIT.verification,
  EXIT.refused,
  EXIT.ok,
];

/** `fix --help`'s exit codes: every code a file's outcome can set, bad usage, and an interruption. */
function fixExitCodesHelp(): string {
  return [
    `Exit codes (with several outcomes, the first present of ${SEVERITY.filter((c) => c !== EXIT.ok).join(' ')} wins):`,
    exitCodesHelp([...SEVERITY, EXIT.usage]),
    '  130/143  interrupted by SIGINT/SIGTERM (temporary files removed)',
    'All exit codes: docfix help exit-codes',
  ].join('\n');
}

export function exitCodeOf(files: FileReport[]): number {
  const codes = new Set<number>();
  for (const f of files) {
    if (f.error) codes.add(f.error.exit_code);
    for (const e of f.edits) {
      if (e.found === 0 && !e.skipped) codes.add(EXIT.refused);
      for (const occ of e.occurrences) {
        if (occ.status === 'refused') codes.add(EXIT.refused);
        if (occ.status === 'failed') codes.add(EXIT.verification);
      }
    }
  }
  return SEVERITY.find((code) => codes.has(code)) ?? EXIT.ok;
}

function errorInfo(error: unknown): { code: string; message: string; exit_code: number } {
  if (error instanceof ConnectionError)
    return { code: 'connection', message: error.message, exit_code: EXIT.auth };
  if (error instanceof DocfixError)
    return { code: error.code, message: error.message, exit_code: ERRORS[error.code].exit };
  if (error instanceof UsageError) return { code: 'usage', message: error.message, exit_code: EXIT.usage };
  const err = error as NodeJS.ErrnoException;
  return { code: err?.code ?? 'error', message: err?.message ?? String(error), exit_code: EXIT.error };
}

interface Occurrence {
  page: number;
  /** The engine's match_index of `find` on the page. */
  match: number;
  /** The text as the page has it. */
  find: string;
}

/** The rule of an edit: its own fields, else the command line's flags. */
function ruleOf(edit: BatchEdit, flags: MatchFlags): MatchFlags {
  return { ignoreCase: edit.ignore_case ?? flags.ignoreCase, word: edit.word ?? flags.word };
}

/**
 * Where an edit applies: every match the document's search lists for it (on its page when given,
 * only match `match` of that page when given), last first on each page so the indexes of the
 * earlier ones stay valid while the later ones change.
 */
async function locate(
  client: ApiClient,
  documentId: string,
  edit: BatchEdit,
  flags: MatchFlags,
  lang: string | undefined,
): Promise<Occurrence[]> {
  if (edit.method === 'ocr') {
    const page = edit.page ?? 0;
    if (edit.match !== undefined) return [{ page, match: edit.match, find: edit.find }];
    const r = await client.call('ocrPage', {
      params: { document_id: documentId, page_index: page },
      body: { find: edit.find, ...(lang ? { lang } : {}) },
      retry: RETRY,
    });
    const count = (r.matches ?? []).length;
    return Array.from({ length: count }, (_, k) => ({ page, match: count - 1 - k, find: edit.find }));
  }
  const r = await searchText(client, documentId, edit.find, ruleOf(edit, flags), {
    ...(edit.page !== undefined ? { pages: String(edit.page) } : {}),
    limit: SEARCH_LIMIT_MAX,
    retry: RETRY,
  });
  let hits = r.matches ?? [];
  if (edit.match !== undefined) hits = hits[edit.match] ? [hits[edit.match]] : [];
  const byPage = new Map<number, Occurrence[]>();
  for (const h of hits) {
    const list = byPage.get(h.page_index) ?? [];
    list.push({ page: h.page_index, match: h.match_index ?? 0, find: h.text });
    byPage.set(h.page_index, list);
  }
  return [...byPage.keys()].sort((a, b) => a - b).flatMap((page) => byPage.get(page)!.reverse());
}

const RETRY = { retries: 5, maxWaitS: 60 };

function emptyOccurrence(occ: Occurrence): OccurrenceReport {
  return {
    page_index: occ.page,
    match_index: occ.match,
    text: occ.find,
    status: 'refused',
    tier: null,
    tier_name: null,
    visibility_cost: null,
    explanation: null,
    refusal: null,
    advice: null,
    warnings: [],
    verification_id: null,
    passed: null,
    outside_pixels: null,
    failure_reason: null,
  };
}

async function upload(client: ApiClient, file: string, password: string | undefined) {
  const send = (withPassword: boolean) =>
    client.call('uploadDocument', {
      multipart: { file: { path: file }, ...(withPassword && password !== undefined ? { password } : {}) },
      retry: RETRY,
    });
  try {
    return await send(false);
  } catch (error) {
    const needsPassword =
      error instanceof DocfixError &&
      (error.code === 'password_required' || error.code === 'password_protected');
    if (needsPassword && password !== undefined) return send(true);
    throw error;
  }
}

/** One file fixed: uploaded, its edits made, the corrected document written to OUTDIR. */
async function fixOne(
  client: ApiClient,
  file: string,
  o: FixOptions,
  plan: EditsPlan,
  password: string | undefined,
  limit: number | undefined,
): Promise<FileReport> {
  const report: FileReport = {
    file,
    output: null,
    document_id: null,
    output_sha256: null,
    status: 'unchanged',
    error: null,
    edits: [],
  };
  const edits = [...plan.edits, ...(plan.files[basename(file)] ?? [])];
  try {
    checkUploadSize(file, (await stat(file)).size, limit);
    const doc = await upload(client, file, password);
    report.document_id = doc.document_id;
    const id = doc.document_id;
    const attestation = await client.call('createAttestation', { body: { document_id: id }, retry: RETRY });
    const { applied, failed } = await makeEdits(client, id, attestation.attestation_id, edits, o, report);
    if (o.dryRun) {
      report.status = 'dry-run';
      return report;
    }
    if (failed) {
      report.status = 'failed';
      return report;
    }
    if (applied === 0) {
      report.status = edits.length ? 'refused' : 'unchanged';
      return report;
    }
    const written = await writeCorrected(client, id, file, o.outDir);
    report.output = written.output;
    report.output_sha256 = written.output_sha256;
    report.status = 'written';
  } catch (error) {
    report.error = errorInfo(error);
    report.status = 'error';
  }
  return report;
}

/**
 * Each edit's occurrences proposed and applied, one after another, each reported in `report`; after
 * a verification failure the rest are skipped. Answers how many were applied and whether one failed.
 */
async function makeEdits(
  client: ApiClient,
  id: string,
  attestationId: string,
  edits: BatchEdit[],
  o: FixOptions,
  report: FileReport,
): Promise<{ applied: number; failed: boolean }> {
  let applied = 0;
  let failed = false;
  for (const edit of edits) {
    const er: EditReport = {
      find: edit.find,
      replace: edit.replace,
      page: edit.page ?? null,
      match: edit.match ?? null,
      ignore_case: ruleOf(edit, o.flags).ignoreCase,
      word: ruleOf(edit, o.flags).word,
      method: edit.method,
      found: 0,
      skipped: failed,
      occurrences: [],
    };
    report.edits.push(er);
    if (failed) continue;
    const lang = edit.lang ?? o.lang;
    const occurrences = await locate(client, id, edit, o.flags, lang);
    er.found = occurrences.length;
    for (const occ of occurrences) {
      const request: EditRequest = {
        page_index: occ.page,
        target:
          edit.method === 'ocr'
            ? {
                method: 'ocr',
                find: occ.find,
                match_index: occ.match,
                confirmed: edit.confirmed === true,
                ...(lang ? { lang } : {}),
              }
            : { method: 'text_layer', find: occ.find, match_index: occ.match },
        replacement: edit.replace,
        attestation_id: attestationId,
        font_attempt: edit.font_attempt,
      };
      const r = emptyOccurrence(occ);
      er.occurrences.push(r);
      const outcome = await makeEdit(client, id, request, o, r);
      if (outcome === 'verified') applied++;
      if (outcome === 'failed') {
        failed = true;
        break;
      }
    }
  }
  return { applied, failed };
}

/**
 * One occurrence proposed, and applied when the proposal is within the allowed cost (not on a dry
 * run); `r` is filled with what happened. Answers 'verified', 'failed' (applied, verification
 * failed) or null (not applied: refused, over the cost, or only proposed).
 */
async function makeEdit(
  client: ApiClient,
  id: string,
  request: EditRequest,
  o: FixOptions,
  r: OccurrenceReport,
): Promise<'verified' | 'failed' | null> {
  const p = await client.call('proposeEdit', {
    params: { document_id: id },
    body: request,
    retry: RETRY,
  });
  Object.assign(r, {
    tier: p.tier,
    tier_name: p.tier_name,
    visibility_cost: p.visibility_cost,
    explanation: p.explanation,
    refusal: p.refusal ?? null,
    advice: p.advice ?? null,
    warnings: p.warnings ?? [],
  });
  if (p.refusal) return null;
  if (!withinCost(p.visibility_cost, o.maxCost)) {
    r.advice = maxCostAdvice(p, o.maxCost);
    r.refusal = r.advice.what;
    return null;
  }
  if (o.dryRun) {
    r.status = 'proposed';
    return null;
  }
  try {
    const v = await client.call('applyEdit', {
      params: { document_id: id },
      body: { request, apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token } },
      retry: RETRY,
    });
    r.verification_id = v.verification_id;
    r.passed = v.passed;
    r.outside_pixels = v.pages.reduce((n, pg) => n + pg.outside_pixels, 0);
    r.failure_reason = v.failure_reason;
    r.status = v.passed ? 'verified' : 'failed';
    return v.passed ? 'verified' : 'failed';
  } catch (error) {
    if (error instanceof DocfixError && error.code === 'edit_refused') {
      r.refusal = error.message;
      r.advice = (error.extra.advice as RefusalAdvice | undefined) ?? null;
      return null;
    }
    throw error;
  }
}

/**
 * The corrected document exported and downloaded through the gate to a temporary name in OUTDIR,
 * renamed to its final name only when its SHA-256 is the verified one.
 */
async function writeCorrected(
  client: ApiClient,
  id: string,
  file: string,
  outDir: string,
): Promise<{ output: string; output_sha256: string }> {
  const exported = await client.call('exportDocument', { params: { document_id: id }, retry: RETRY });
  const final = outputPath(outDir, file);
  const temp = join(outDir, `.${basename(final)}.docfix-${process.pid}-${Date.now()}.tmp`);
  try {
    await client.download('downloadDocument', { params: { document_id: id }, retry: RETRY }, temp);
    const sha = await sha256File(temp);
    if (sha !== exported.output_sha256) {
      throw new DocfixError(
        'verification_hash_mismatch',
        `downloaded bytes (sha256 ${sha}) are not the verified ones (${exported.output_sha256})`,
      );
    }
    await rename(temp, final);
  } finally {
    await rm(temp, { force: true });
  }
  return { output: final, output_sha256: exported.output_sha256 };
}

/** Runs `work` over `items` with at most `limit` at once, keeping the order of results. */
export async function pool<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  });
  await Promise.all(runners);
  return results;
}

async function checkOutDir(dir: string): Promise<void> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) throw new UsageError(`-o ${dir} is not a directory`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    try {
      await mkdir(dir, { recursive: true });
    } catch (e) {
      throw new UsageError(
        `cannot create the output folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? e}`,
      );
    }
  }
}

export async function runFix(o: FixOptions): Promise<void> {
  const plan: EditsPlan = o.editsFile ? await readEditsFile(o.editsFile) : { edits: o.replace, files: {} };
  // Every input is checked before anything is sent: a bad one stops the run with nothing written.
  const seen = new Map<string, string>();
  for (const file of o.files) {
    await checkInputFile(file);
    const out = resolve(outputPath(o.outDir, file));
    if (out === resolve(file)) throw new UsageError(`${file} would be overwritten: choose another -o folder`);
    const other = seen.get(out);
    if (other) throw new UsageError(`${other} and ${file} would both be written to ${out}`);
    seen.set(out, file);
  }
  const password = o.passwordFile ? await readPassword({ kind: 'file', path: o.passwordFile }) : undefined;
  if (!o.dryRun) await checkOutDir(o.outDir);

  const client = await getClient(o.globals);
  // Interrupted, nothing partial stays: the temporary downloads in OUTDIR are removed.
  const unhook = o.dryRun ? () => false : onInterrupt(removeOwnTemporaries(o.outDir));
  try {
    await fixAll(client, o, plan, password);
  } finally {
    unhook();
  }
}

async function fixAll(
  client: ApiClient,
  o: FixOptions,
  plan: EditsPlan,
  password: string | undefined,
): Promise<void> {
  let jobs = o.jobs;
  if (!jobs) {
    try {
      jobs = (await client.call('health')).engine_slots || 2;
    } catch (error) {
      if (error instanceof ConnectionError) throw error;
      jobs = 2;
    }
  }
  const limit = await uploadLimit(client);
  let lost: ConnectionError | undefined;
  let done = 0;
  const work = pool(o.files, jobs, async (file) => {
    if (lost) {
      const skipped: FileReport = {
        file,
        output: null,
        document_id: null,
        output_sha256: null,
        status: 'error',
        error: errorInfo(lost),
        edits: [],
      };
      return skipped;
    }
    const r = await fixOne(client, file, o, plan, password, limit);
    if (r.error?.code === 'connection' && !lost) lost = new ConnectionError(r.error.message, client.baseUrl);
    done++;
    if (process.stderr.isTTY)
      process.stderr.write(`\r\x1b[2K${c.dim(`${done}/${o.files.length} ${basename(file)}: ${r.status}`)}\n`);
    return r;
  });
  const files = await withSpinner(`Fixing ${o.files.length} file(s), ${jobs} at a time`, work);

  const all = files.flatMap((f) => f.edits);
  const occ = all.flatMap((e) => e.occurrences);
  const report: FixReport = {
    exit_code: exitCodeOf(files),
    max_cost: o.maxCost,
    files,
    summary: {
      files: files.length,
      written: files.filter((f) => f.status === 'written').length,
      verified: occ.filter((x) => x.status === 'verified').length,
      refused: occ.filter((x) => x.status === 'refused').length,
      not_found: all.filter((e) => e.found === 0 && !e.skipped).length,
      failed: occ.filter((x) => x.status === 'failed').length,
    },
  };
  if (o.globals.json) printJson(report);
  else printReport(report, o.globals.verbose);
  if (report.exit_code !== EXIT.ok) throw new CliExit(report.exit_code);
}

function occurrenceLine(r: OccurrenceReport): string {
  const where = `page ${r.page_index} "${r.text}" #${r.match_index}`;
  const tier = r.tier_name ? `tier ${r.tier} ${r.tier_name}, cost ${r.visibility_cost}` : '';
  switch (r.status) {
    case 'verified':
      return `${c.green('✓')} ${where}: ${tier}, verified (${r.outside_pixels ?? 0} px outside)`;
    case 'proposed':
      return `${c.cyan('~')} ${where}: ${tier}, would apply (dry run)`;
    case 'failed':
      return `${c.red('X')} ${where}: ${tier}, verification FAILED: ${r.failure_reason ?? ''}`;
    default:
      return `${c.red('X')} ${where}: refused: ${r.refusal ?? 'no reason given'}`;
  }
}

/** A refused occurrence: the headline and try-line (cli/refusal-text.ts); --verbose adds the engine's advice. */
function refusedLines(e: EditReport, r: OccurrenceReport, maxCost: Cost, verbose: boolean): string[] {
  const label = `${c.red('X')} page ${r.page_index} #${r.match_index} refused`;
  const context = {
    advice: r.advice,
    refusal: r.refusal,
    find: e.find,
    replacement: e.replace,
    page: r.page_index,
    ocr: e.method === 'ocr',
    ...(r.visibility_cost ? { cost: r.visibility_cost } : {}),
    maxCost,
  };
  return refusalLines(label, context, { verbose, indent: '      ' });
}

function printReport(report: FixReport, verbose: boolean): void {
  for (const f of report.files) {
    const head =
      f.status === 'written'
        ? `${c.bold(f.file)} → ${f.output}`
        : `${c.bold(f.file)}: ${f.status === 'dry-run' ? 'dry run, nothing written' : 'not written'}`;
    print(head);
    if (f.error) print(`  ${c.red('X')} ${f.error.message} (${f.error.code})`);
    for (const e of f.edits) {
      const label = `"${e.find}" → "${e.replace}"${e.page !== null ? ` (page ${e.page})` : ''}`;
      if (e.skipped) {
        print(`  ${c.dim('-')} ${label}: skipped (an earlier edit failed its verification)`);
        continue;
      }
      if (e.found === 0) {
        print(`  ${c.red('X')} ${label}: not found`);
        continue;
      }
      print(`  ${label}: found ${e.found}`);
      for (const r of e.occurrences) {
        if (r.status === 'refused')
          for (const [i, line] of refusedLines(e, r, report.max_cost, verbose).entries())
            print(i ? line : `    ${line}`);
        else print(`    ${occurrenceLine(r)}`);
        for (const w of r.warnings) print(`      ${c.yellow('!')} ${w}`);
      }
    }
    if (f.output_sha256) print(c.dim(`  sha256 ${f.output_sha256}`));
  }
  const s = report.summary;
  print(
    `${s.files} file(s), ${s.written} written; ${s.verified} verified, ${s.refused} refused, ${s.not_found} not found, ${s.failed} failed`,
  );
}
