// `docfix verify ORIGINAL.pdf CORRECTED.pdf`: the proof of every correction re-derived from the two
// files alone (src/verify/rederive.ts) — no client, no daemon, no key — and how it is printed, also
// for `cert verify --original`. The verdict and its checks go to stderr, the per-page and
// per-correction figures to stdout; --json prints the whole re-derivation as one document.
// Exit 0 only when every check holds; 6 (verification) when a check fails and when the corrected
// file carries no docfix manifest (not a docfix correction: every change in it is undeclared).
import { EXIT } from '../src/errors.ts';
import type { Rederivation, RenderComparison } from '../src/verify/rederive.ts';
import { c, CliExit, failure, info, print, printJson, success, table, withSpinner } from './context.ts';
import type { GlobalOptions } from './context.ts';
import { readInputFile, readPassword, type PasswordSource } from './shared.ts';

export interface VerifyFilesOptions {
  globals: GlobalOptions;
  original: string;
  corrected: string;
  password?: PasswordSource;
}

/** Reads both files and re-derives the proof (the engine is loaded only here, never at start-up). */
export async function rederiveFiles(
  originalPath: string,
  correctedPath: string,
  password = '',
): Promise<Rederivation> {
  const original = await readInputFile(originalPath, 'original');
  const corrected = await readInputFile(correctedPath, 'corrected');
  const { rederiveProof } = await import('../src/verify/rederive.ts');
  return withSpinner('Re-deriving the proof', rederiveProof(original, corrected, { password }));
}

export async function runVerifyFiles(o: VerifyFilesOptions): Promise<void> {
  const password = (await readPassword(o.password)) ?? '';
  const result = await rederiveFiles(o.original, o.corrected, password);
  if (o.globals.json) printJson(result);
  else printRederivation(result, o.corrected);
  if (!result.passed) throw new CliExit(EXIT.verification);
}

const px = (n: number) => String(n);
const boxText = (b: number[] | null) => (b ? `[${b.join(',')}]` : '-');

/** The verdict and every check (stderr), then pages, corrections and what is undeclared (stdout). */
export function printRederivation(r: Rederivation, correctedName: string): void {
  const n = r.manifest?.corrections.length ?? 0;
  if (r.verdict === 'proven')
    success(
      `Proven from the files alone: the ${n} correction${n === 1 ? '' : 's'} in ${correctedName} changed only what ${n === 1 ? 'it declares' : 'they declare'}`,
    );
  else if (r.verdict === 'not_docfix')
    failure(
      `Not a docfix correction: ${correctedName} carries no manifest, so every change below is undeclared`,
    );
  else failure(`Not proven: ${r.failures.length} check${r.failures.length === 1 ? '' : 's'} failed`);
  for (const check of r.checks)
    info(`  ${check.passed ? c.green('✓') : c.red('X')} ${check.name.padEnd(14)} ${check.detail}`);
  info(
    c.dim(
      `  ${r.renderers.mupdf} and ${r.renderers.pdfium} at ${r.dpi} dpi; a declared region is a manifest box and ${r.declared_margin_px} px around it`,
    ),
  );
  printPages(r);
  printCorrections(r);
  printUndeclared(r);
}

function renderCells(cmp: RenderComparison | null): string[] {
  if (!cmp) return ['-', '-'];
  return [px(cmp.changed_pixels), cmp.passed ? px(cmp.counted_outside) : c.red(px(cmp.counted_outside))];
}

function printPages(r: Rederivation): void {
  print();
  table(
    r.pages.map((p) => [
      String(p.page_index),
      ...renderCells(p.mupdf),
      ...renderCells(p.pdfium),
      p.objects.declared.join(',') || '-',
      p.objects.undeclared.length ? c.red(p.objects.undeclared.join(',')) : '-',
      p.only_in ? c.red(`only in the ${p.only_in} file`) : p.passed ? c.green('ok') : c.red('fails'),
    ]),
    ['PAGE', 'MUPDF CHANGED', 'OUTSIDE', 'PDFIUM CHANGED', 'OUTSIDE', 'OBJECTS DECLARED', 'UNDECLARED', ''],
  );
  for (const p of r.pages) {
    for (const cmp of [p.mupdf, p.pdfium]) {
      if (!cmp || cmp.passed) continue;
      const shown = cmp.regions.slice(0, 8).map((b) => boxText(b));
      print(
        `page ${p.page_index} ${cmp.renderer}: ${cmp.counted_outside} pixel(s) changed outside the declared boxes, ${cmp.region_count} region(s): ${shown.join(' ')}${cmp.region_count > shown.length ? ' …' : ''}`,
      );
    }
  }
}

function printCorrections(r: Rederivation): void {
  if (!r.corrections.length) return;
  print();
  for (const k of r.corrections) {
    const mark = k.passed ? c.green('✓') : c.red('X');
    print(
      `#${k.index} page ${k.page} ${boxText(k.box)}@${r.dpi}: ${JSON.stringify(k.text_before)} → ${JSON.stringify(k.text_after)}  ${mark} ${k.detail}`,
    );
  }
}

function printUndeclared(r: Rederivation): void {
  const list = r.objects.changed_undeclared;
  if (!list.length) return;
  print();
  print(`${list.length} object(s) changed that nothing declares:`);
  for (const u of list.slice(0, 20))
    print(`  ${u.num ? `object ${u.num}` : 'trailer'}: ${u.paths.slice(0, 6).join(' ')}`);
  if (list.length > 20) print(c.dim(`  … ${list.length - 20} more (--json lists them all)`));
}
