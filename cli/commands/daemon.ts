// `docfix daemon …`, `docfix keys …`, `docfix tenants …`: administered by running bin/docfix-daemon.js
// as a process with inherited stdio and its exit code (the CLI never imports daemon code). The flags
// are declared here for help and completions; the words after the group are forwarded as typed.
import { daemonEnvironment } from '../../src/daemon-environment.ts';
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CliExit, daemonBin, rawArgs, runDaemonCommand } from '../context.ts';

/** The exit code that names how a child ended: its own code, or 128 + the number of its signal. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return number ? 128 + number : 1;
}

/**
 * `docfix daemon serve`: the daemon runs as this process's child, tied to it both ways. SIGINT,
 * SIGTERM and SIGHUP sent to this process are passed on (the daemon stops gracefully); the daemon
 * holds the read end of a pipe whose write end only this process has (fd 3, DOCFIX_PARENT_PIPE), so
 * when this process dies in any way — kill -9 included — the kernel closes it and the daemon stops
 * too instead of running on orphaned. The exit code is the daemon's, or 128 + its signal's number.
 */
function serveInForeground(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [daemonBin, ...args], {
      stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
      // Its own process group: a Ctrl-C on the terminal reaches it once, through us.
      detached: true,
      env: { ...daemonEnvironment(), DOCFIX_PARENT_PIPE: '3' },
    });
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of signals) process.on(signal, forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolve(exitCodeOf(code, signal));
    });
  });
}

/** The words after the first `group` token of the command line, forwarded as typed. */
export function forwardedArgs(args: string[], group: string): string[] {
  const at = args.indexOf(group);
  return at < 0 ? [] : args.slice(at + 1);
}

async function forward(group: string, prefix: string[]): Promise<void> {
  const raw = rawArgs();
  const args = [...prefix, ...forwardedArgs(raw, group)];
  // `docfix --json keys list`: the global flag, typed before the group, still applies.
  if (raw.indexOf('--json') >= 0 && raw.indexOf('--json') < raw.indexOf(group) && !args.includes('--json')) {
    args.push('--json');
  }
  const { code } = await runDaemonCommand(args, { stdio: 'inherit' });
  if (code !== 0) throw new CliExit(code);
}

function leaf(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).allowUnknownOption().allowExcessArguments();
}

export function register(program: Command): void {
  const daemon = program
    .command('daemon')
    .description('Run or manage the local daemon (serve, start, stop, status)')
    .addHelpText(
      'after',
      `
Examples:
  $ docfix daemon serve --port 7341          # foreground, Ctrl-C stops it
  $ docfix daemon start                      # background; prints the URL
  $ DOCFIX_PORT=7400 docfix daemon start     # another port (autostart follows DOCFIX_PORT too)
  $ docfix daemon status --json`,
    );
  const dataDir = '--data-dir <dir>';
  const dataDirHelp = 'data directory (default: $DOCFIX_DATA_DIR or ~/.local/share/docfix)';
  const database = '--database <url>';
  const databaseHelp = "a deployment's PostgreSQL database, postgres://… (default: $DOCFIX_DATABASE_URL)";
  leaf(daemon, 'serve', 'Run the daemon in the foreground until SIGINT/SIGTERM')
    .option('--host <host>', 'address to listen on (default: $DOCFIX_HOST, else 127.0.0.1)')
    .option('--port <port>', 'port, 0: any free port (default: $DOCFIX_PORT, else 7341)')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .option('--blobs <url>', 'revision files in an S3 bucket, s3://BUCKET[/PREFIX] (default: $DOCFIX_BLOBS)')
    .action(async () => {
      const code = await serveInForeground(forwardedArgs(rawArgs(), 'daemon'));
      if (code !== 0) throw new CliExit(code);
    });
  leaf(daemon, 'migrate', "Bring a PostgreSQL database up to this version's schema, then exit")
    .option(database, databaseHelp)
    .action(() => forward('daemon', []));
  leaf(daemon, 'start', 'Start the daemon in the background and wait until it answers')
    .option('--host <host>', 'address to listen on (default: $DOCFIX_HOST, else 127.0.0.1)')
    .option('--port <port>', 'port, 0: any free port (default: $DOCFIX_PORT, else 7341)')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .option('--blobs <url>', 'revision files in an S3 bucket, s3://BUCKET[/PREFIX] (default: $DOCFIX_BLOBS)')
    .action(() => forward('daemon', []));
  leaf(daemon, 'stop', 'Stop the background daemon')
    .option(dataDir, dataDirHelp)
    .action(() => forward('daemon', []));
  leaf(daemon, 'status', 'Say whether the background daemon runs, and where')
    .option(dataDir, dataDirHelp)
    .option('--port <port>', 'port')
    .action(() => forward('daemon', []));

  const keys = program
    .command('keys')
    .description('Create, list and revoke API keys (local administration, not part of /v1)')
    .addHelpText(
      'after',
      `
Examples:
  $ docfix keys create --tenant acme --plan business --json
  $ docfix keys list
  $ docfix keys revoke key_123`,
    );
  leaf(keys, 'create', 'Create an API key for a tenant (prints it once)')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .option('--tenant <name>', 'tenant name (created if new)')
    .option('--plan <plan>', 'plan of a new tenant (default business)')
    .option('--label <text>', 'a note to recognise the key by')
    .action(() => forward('keys', ['keys']));
  leaf(keys, 'list', 'List API keys (never their secrets)')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .action(() => forward('keys', ['keys']));
  leaf(keys, 'revoke', 'Revoke an API key')
    .argument('<key_id>', 'the key id')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .action(() => forward('keys', ['keys']));

  const tenants = program
    .command('tenants')
    .description('List and change tenants: plan, suspension (local administration)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ docfix tenants set acme --plan business\n  $ docfix tenants set acme --suspended true',
    );
  leaf(tenants, 'set', 'Create or change a tenant')
    .argument('<name>', 'tenant name')
    .option('--plan <plan>', 'plan id')
    .option('--suspended <bool>', 'true or false')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .action(() => forward('tenants', ['tenants']));
  leaf(tenants, 'list', 'List tenants')
    .option(dataDir, dataDirHelp)
    .option(database, databaseHelp)
    .action(() => forward('tenants', ['tenants']));
}
