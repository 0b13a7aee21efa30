// `docfix audit export [-o FILE]`: the whole audit record as NDJSON (docs/audit-export.md) — each
// entry as stored, then one line with the chain verdict. Business plan. The verdict is also said on
// stderr; a broken chain exits 6 after the file is written.
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { EXIT } from '../../src/errors.ts';
import type { AuditChainOut } from '../../src/schemas.ts';
import {
  CliExit,
  dispatch,
  failure,
  getClient,
  globalOptions,
  printJson,
  success,
  UsageError,
  type GlobalOptions,
} from '../context.ts';

export interface AuditExportOptions {
  globals: GlobalOptions;
  /** A file, or "-" for stdout. */
  output: string;
  force: boolean;
}

/** Adds `export` under the `audit` command (made here if no other command file made it first). */
export function register(program: Command): void {
  const audit =
    program.commands.find((cmd) => cmd.name() === 'audit') ??
    program.command('audit').description("The account's audit record");
  audit
    .command('export')
    .description(
      'Export the whole audit record as NDJSON with the chain verdict as its last line (Business plan)',
    )
    .option('-o, --output <file>', 'where to write it ("-" for stdout)', '-')
    .option('-f, --force', 'overwrite an existing file')
    .addHelpText(
      'after',
      '\nFormat: docs/audit-export.md. Exit 6 when the chain does not recompute.\n\nExamples:\n  $ docfix audit export -o audit.ndjson\n  $ docfix audit export | tail -n 1',
    )
    .action(async (o: { output: string; force?: boolean }, cmd: Command) => {
      const options: AuditExportOptions = {
        globals: globalOptions(cmd),
        output: o.output,
        force: Boolean(o.force),
      };
      await dispatch('audit export', options, runAuditExport);
    });
}

interface VerdictLine {
  format: string;
  entries: number;
  verdict: AuditChainOut;
}

export function verdictOf(ndjson: string): VerdictLine | null {
  const last = ndjson.trimEnd().split('\n').at(-1);
  if (!last) return null;
  try {
    const parsed = JSON.parse(last) as Partial<VerdictLine>;
    return parsed.format && parsed.verdict ? (parsed as VerdictLine) : null;
  } catch {
    return null;
  }
}

export async function runAuditExport(o: AuditExportOptions): Promise<void> {
  if (o.output !== '-' && !o.force && existsSync(o.output)) {
    throw new UsageError(`${o.output} exists (use --force to overwrite)`);
  }
  const client = await getClient(o.globals);
  const bytes = await client.call('exportAudit');
  if (o.output === '-') process.stdout.write(bytes);
  else await writeFile(o.output, bytes);
  const verdict = verdictOf(new TextDecoder().decode(bytes));
  if (o.globals.json && o.output !== '-')
    printJson({ file: o.output, bytes: bytes.length, ...(verdict ?? {}) });
  if (!verdict) throw new CliExit(EXIT.error, 'the export carries no verdict line');
  const where = o.output === '-' ? '' : ` to ${o.output}`;
  if (verdict.verdict.intact) {
    success(
      `Exported ${verdict.entries} audit entries${where}; the chain recomputes intact (head ${verdict.verdict.head_hash ?? '-'})`,
    );
  } else {
    failure(
      `Exported ${verdict.entries} audit entries${where}; the chain breaks at entry ${verdict.verdict.first_broken_seq}: ${verdict.verdict.reason ?? ''}`,
    );
    throw new CliExit(EXIT.verification);
  }
}
