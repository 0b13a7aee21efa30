// Builds the `docfix` program from the command files and maps every failure to an exit code:
// DocfixError → ERRORS[code].exit, ConnectionError → 3, commander usage errors → 2.
import { Command, CommanderError } from 'commander';
import { ERRORS, EXIT } from '../src/errors.ts';
import { ConnectionError } from '../src/connection-error.ts';
import { DocfixError } from '../src/errors.ts';
import type { RefusalAdvice, TierRejection } from '../src/schemas.ts';
import { CliExit, UsageError, addGlobalOptions, c, configureOutput, info, setRawArgs } from './context.ts';
import { exitCodesText } from './exit-codes.ts';
import type { HelpPageRows, HelpRow } from './help-page.ts';
import { refusalLines } from './refusal-text.ts';
import { register as account } from './commands/account.ts';
import { register as auditExport } from './commands/audit-export.ts';
import { register as cert } from './commands/cert.ts';
import { register as certCheck } from './commands/cert-check.ts';
import { register as completion } from './commands/completion.ts';
import { register as config } from './commands/config.ts';
import { register as corrections } from './commands/corrections.ts';
import { register as daemon } from './commands/daemon.ts';
import { register as documents } from './commands/documents.ts';
import { register as edits } from './commands/edits.ts';
import { register as fix } from './commands/fix.ts';
import { register as fonts } from './commands/fonts.ts';
import { register as pages } from './commands/pages.ts';
import { register as review } from './commands/review.ts';

/** Every command file's register, in the order help lists them. */
const COMMANDS: ((program: Command) => void)[] = [
  documents,
  edits,
  corrections,
  pages,
  review,
  fix,
  cert,
  certCheck, // after cert: it adds `check` under `cert`
  account,
  auditExport, // after account: it adds `export` under `audit`
  fonts,
  config,
  daemon,
  completion,
];

export const VERSION = '0.1.0';

/** How `docfix --help` groups the commands, by resource. */
const HELP_GROUPS: Record<string, string[]> = {
  'Documents:': ['upload', 'ls', 'show', 'rm', 'classify', 'search', 'attest'],
  'Corrections:': [
    'review',
    'propose',
    'apply',
    'verify',
    'corrections',
    'undo',
    'redo',
    'manifest',
    'export',
  ],
  'Pages:': ['preview', 'crop', 'ocr', 'preflight'],
  'Batch:': ['fix'],
  'Certificates and audit:': ['cert', 'audit'],
  'Account and service:': ['plans', 'usage', 'jobs', 'health', 'fonts', 'openapi'],
  'Setup:': ['config', 'daemon', 'keys', 'tenants', 'completion', 'help'],
};

/** The whole command tree (also used by completions and tests). */
export function buildProgram(): Command {
  const program = new Command('docfix');
  addGlobalOptions(program)
    .description('Correct text inside PDF files and prove, by pixel comparison, exactly what changed.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError()
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true })
    .addHelpText(
      'after',
      `
Examples:
  $ docfix upload invoice.pdf
  $ docfix apply 3f2a --find Jonh --replace John
  $ docfix fix *.pdf --replace Jonh=John -o fixed/

Environment: DOCFIX_URL, DOCFIX_API_KEY, DOCFIX_PROFILE, DOCFIX_CONFIG_DIR, DOCFIX_TIMEOUT (s), NO_COLOR.
Exit codes: docfix help exit-codes`,
    );
  program.helpCommand(false);
  for (const register of COMMANDS) register(program);
  for (const cmd of program.commands) {
    const group = Object.entries(HELP_GROUPS).find(([, names]) => names.includes(cmd.name()))?.[0];
    if (group) cmd.helpGroup(group);
  }
  program
    .command('help')
    .helpGroup('Setup:')
    .description('Show help for a command, or a topic (exit-codes)')
    .argument('[topic...]', 'a command, or "exit-codes"')
    .action((topic: string[]) => {
      if (topic.length === 1 && topic[0] === 'exit-codes') {
        process.stdout.write(`${exitCodesText()}\n`);
        return;
      }
      let cmd: Command = program;
      for (const name of topic) {
        const next = cmd.commands.find((s) => s.name() === name || s.aliases().includes(name));
        if (!next)
          throw new UsageError(`unknown help topic "${topic.join(' ')}" (try: docfix help exit-codes)`);
        cmd = next;
      }
      cmd.outputHelp();
    });
  applyExitOverride(program);
  return program;
}

/**
 * The top-level help page's rows as commander lays them out (usage, options, the command groups, the
 * examples after), written into cli/help-page-rows.ts by `node scripts/completions.ts` so that
 * `docfix help` prints without loading this tree (cli/help-page.ts).
 */
export function helpPageRows(program: Command): HelpPageRows {
  const help = program.createHelp();
  const sections: [string, HelpRow[]][] = [];
  const options = help.groupItems(
    [...program.options],
    help.visibleOptions(program),
    (o) => o.helpGroupHeading ?? 'Options:',
  );
  for (const [heading, items] of options)
    sections.push([heading, items.map((o) => [help.optionTerm(o), help.optionDescription(o)] as const)]);
  const commands = help.groupItems(
    [...program.commands],
    help.visibleCommands(program),
    (sub) => sub.helpGroup() || 'Commands:',
  );
  for (const [heading, items] of commands)
    sections.push([
      heading,
      items.map((sub) => [help.subcommandTerm(sub), help.subcommandDescription(sub)] as const),
    ]);
  // The examples are added by a listener; what it writes is what follows commander's own page.
  let written = '';
  program.configureOutput({ writeOut: (text) => (written += text), getOutHelpWidth: () => 80 });
  program.outputHelp();
  const after = written.slice(program.helpInformation().length).replace(/\n$/, '');
  return {
    usage: help.commandUsage(program),
    description: help.commandDescription(program),
    sections,
    after,
  };
}

function applyExitOverride(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, `${c.red('error:')} `)) });
  for (const sub of cmd.commands) applyExitOverride(sub);
}

const PASSWORD_HINT = 'give it with --password (prompt), --password - (stdin) or --password-file FILE';
/** What the CLI can add to an error's line. */
const WHAT_TO_DO: Partial<Record<string, string>> = {
  invalid_api_key: 'check DOCFIX_API_KEY, --api-key or the profile (docfix config list)',
  password_required: PASSWORD_HINT,
  password_protected: PASSWORD_HINT,
  password_incorrect: PASSWORD_HINT,
  stale_or_invalid_confirmation: 'propose again',
};

/** Prints an error the way people read it, and answers its exit code. */
export function reportError(error: unknown, verbose = false): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
    if (error.code === 'commander.executeSubCommandAsync') return error.exitCode;
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliExit) {
    if (!error.silent && error.message) info(`${c.red('error:')} ${error.message}`);
    return error.exitCode;
  }
  if (error instanceof UsageError) {
    info(`${c.red('error:')} ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof ConnectionError) {
    info(`${c.red('error:')} ${error.message}`);
    if (verbose && error.cause) info(String((error.cause as Error).stack ?? error.cause));
    return EXIT.auth;
  }
  if (error instanceof DocfixError) {
    const { advice, rejected, hint, problems } = error.extra as {
      advice?: RefusalAdvice | null;
      rejected?: TierRejection[];
      hint?: string;
      problems?: { field: string; problem: string }[];
    };
    if (advice) {
      // A refusal: its headline, what to try, and with --verbose the engine's advice (cli/refusal-text.ts).
      const label = `${c.red(error.code === 'edit_refused' ? 'Refused' : 'error')} ${c.dim(`(${error.code})`)}`;
      for (const line of refusalLines(label, { advice, refusal: error.message, rejected }, { verbose }))
        info(line);
      return ERRORS[error.code].exit;
    }
    // One line names the problem (and what to do when the CLI knows).
    const todo = WHAT_TO_DO[error.code];
    info(`${c.red('error:')} ${error.message} ${c.dim(`(${error.code})`)}${todo ? `; ${todo}` : ''}`);
    if (hint) info(`  hint: ${hint}`);
    if (problems?.length && verbose) for (const p of problems) info(`  ${p.field}: ${p.problem}`);
    return ERRORS[error.code].exit;
  }
  const err = error as NodeJS.ErrnoException;
  info(`${c.red('error:')} ${err?.message ?? String(error)}`);
  if (verbose && err?.stack) info(err.stack);
  return EXIT.error;
}

/** Runs the CLI with `argv` (node, script, ...args) and answers the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const verbose = argv.includes('--verbose');
  if (argv.includes('--no-color')) process.env.NO_COLOR = process.env.NO_COLOR || '1';
  configureOutput();
  setRawArgs(argv.slice(2));
  const program = buildProgram();
  try {
    if (argv.length <= 2) {
      program.outputHelp();
      return EXIT.ok;
    }
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return reportError(error, verbose);
  }
}

/** Entry point of bin/docfix.js. */
export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (docfix openapi | head) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    throw error;
  });
  const code = await runCli(argv);
  process.exitCode = code;
}
