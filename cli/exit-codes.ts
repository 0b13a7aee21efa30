// The CLI's exit codes (src/errors.ts EXIT) with what each means and which error codes lead to it.
// Printed by `docfix help exit-codes`; docs/exit-codes.md holds the same table (a test keeps them equal).
import { ERRORS, ERROR_CODES, EXIT } from '../src/errors.ts';

export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'success; for `docfix fix`: every edit was applied and verified',
  error: 'an unexpected failure (service-side error, a file that could not be written)',
  usage: 'bad usage: unknown command or flag, a missing or malformed argument, an invalid edits file',
  auth: 'authentication or connection: a bad key, a suspended account, no daemon, a remote that times out or answers something other than the docfix API; `cert verify`: no key is trusted for the certificate',
  notFound: 'no such document, job or certificate (or a route the daemon does not serve)',
  refused:
    'a correction was refused, or the text to replace was not found; `docfix fix`: some edits refused or not found',
  verification:
    'a verification failed, or the export gate would not release the document, or a certificate does not verify with the key trusted; `docfix verify ORIGINAL CORRECTED`: the proof does not re-derive from the files, or the corrected file is not a docfix correction (no manifest)',
  limit:
    'a plan or rate limit: too large, too many pages, busy or rate-limited after retries, payment required',
  badFile: 'the file is not a usable PDF (not a PDF, unreadable, no pages, password problems)',
  conflict: 'the document is not in a state for this: nothing to undo/redo/export, a stale proposal',
};

/** Error codes (src/errors.ts) that end with each exit code. */
export function codesByExit(): Map<number, string[]> {
  const by = new Map<number, string[]>();
  for (const code of ERROR_CODES) {
    const exit = ERRORS[code].exit;
    by.set(exit, [...(by.get(exit) ?? []), code]);
  }
  return by;
}

/** The exit-code table as Markdown (docs/exit-codes.md's table and `docfix help exit-codes`). */
export function exitCodesMarkdown(): string {
  const by = codesByExit();
  const rows = (Object.keys(EXIT) as (keyof typeof EXIT)[]).map((name) => {
    const code = EXIT[name];
    const errors = (by.get(code) ?? []).map((e) => `\`${e}\``).join(', ');
    return `| ${code} | ${name} | ${EXIT_MEANINGS[name]} | ${errors} |`;
  });
  return ['| exit | name | meaning | API error codes |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Help lines for the exit codes a command can end with, in order, each with its meaning from the
 * table above (a command's --help; `fix --help` lists every code it can return).
 */
export function exitCodesHelp(codes: readonly number[]): string {
  const names = Object.keys(EXIT) as (keyof typeof EXIT)[];
  return [...new Set(codes)]
    .sort((a, b) => a - b)
    .map((code) => {
      const name = names.find((n) => EXIT[n] === code);
      return `  ${String(code).padStart(2)}  ${name ? EXIT_MEANINGS[name] : ''}`;
    })
    .join('\n');
}

/** The exit-code table for a terminal. */
export function exitCodesText(): string {
  const by = codesByExit();
  const lines = ['docfix exit codes:', ''];
  for (const name of Object.keys(EXIT) as (keyof typeof EXIT)[]) {
    const code = EXIT[name];
    lines.push(`  ${String(code).padStart(2)}  ${name.padEnd(12)} ${EXIT_MEANINGS[name]}`);
    const errors = by.get(code);
    if (errors?.length) lines.push(`${' '.repeat(18)}(${errors.join(', ')})`);
  }
  lines.push(
    '',
    '`docfix fix` exits 0 when every edit was verified, 5 when some were refused or not found,',
    '6 when a verification failed (6 wins over 5), 2 for bad usage and 3 for auth or connection.',
    'Interrupted by SIGINT or SIGTERM: 130 or 143 (temporary files removed).',
  );
  return lines.join('\n');
}
