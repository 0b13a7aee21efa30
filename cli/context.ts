// What every command shares: the global options, the API client (with local daemon auto-start),
// and output helpers. Data goes to stdout (`printJson`, tables); messages for people go to stderr;
// colour and progress only on a TTY and never with NO_COLOR or --no-color.
//
// Convention for a command file `cli/commands/<name>.ts`:
//   export function register(program: Command): void
// It declares its flags and help, turns argv into an options object, and hands it to
// `dispatch(name, options, run)`; tests intercept `dispatch` to check argv → options, and run the
// command against a real daemon to check options → output and exit code.
import { InvalidArgumentError, type Command } from 'commander';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlockList } from 'node:net';
import type * as ApiClientModule from '../src/api-client.ts';
import type { ApiClient } from '../src/api-client.ts';
import type { RouteId } from '../src/api-routes.ts';
import { ConnectionError } from '../src/connection-error.ts';
import { DEFAULT_HOST, DEFAULT_PORT, readLocalConfig } from '../src/local-config.ts';
import { DocfixError } from '../src/errors.ts';
import { configureLiveLine, withSpinner } from './spinner.ts';

// ───────────────────────────── global options ─────────────────────────────

export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  json: boolean;
  verbose: boolean;
  color: boolean;
  autostart: boolean;
  profile?: string;
  /** Send an API key over plain HTTP to another machine all the same (--insecure). */
  insecure?: boolean;
}

/** The global options as given to a command (flags, then environment). */
export function globalOptions(command: Command, env: NodeJS.ProcessEnv = process.env): GlobalOptions {
  const o = command.optsWithGlobals<Record<string, unknown>>();
  const url = (o.url as string | undefined) ?? (env.DOCFIX_URL || undefined);
  const apiKey = (o.apiKey as string | undefined) ?? (env.DOCFIX_API_KEY || undefined);
  const profile = (o.profile as string | undefined) ?? (env.DOCFIX_PROFILE || undefined);
  return {
    ...(url ? { url } : {}),
    ...(apiKey ? { apiKey } : {}),
    json: Boolean(o.json),
    verbose: Boolean(o.verbose),
    color: o.color !== false && !('NO_COLOR' in env && env.NO_COLOR !== ''),
    autostart: o.autostart !== false && env.DOCFIX_NO_AUTOSTART !== '1',
    ...(profile ? { profile } : {}),
    ...(o.insecure ? { insecure: true } : {}),
  };
}

/** Adds the global options to the program (main.ts). */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--url <url>', 'address of the docfix API (env: DOCFIX_URL)')
    .option('--api-key <key>', 'API key (env: DOCFIX_API_KEY; prefer the environment over argv)')
    .option('--profile <name>', 'use a configured remote profile (env: DOCFIX_PROFILE)')
    .option('--json', 'print the API objects as one JSON document on stdout')
    .option('--verbose', 'say more on stderr')
    .option('--no-color', 'no colour (also: NO_COLOR)')
    .option('--no-autostart', 'never start a local daemon')
    .option('--insecure', 'send the API key over plain http:// to another machine all the same');
}

// ───────────────────────────── exit codes ─────────────────────────────

/** Ends the CLI with an exit code; the message (if any) was already printed, or is printed by main. */
export class CliExit extends Error {
  override readonly name = 'CliExit';
  readonly exitCode: number;
  readonly silent: boolean;
  constructor(exitCode: number, message = '', silent = message === '') {
    super(message);
    this.exitCode = exitCode;
    this.silent = silent;
  }
}

/** A usage error found after parsing (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

// ───────────────────────────── raw arguments ─────────────────────────────

let raw: string[] = [];
/** The command line as typed (after `node docfix`), for commands that forward it. */
export function setRawArgs(args: string[]): void {
  raw = [...args];
}
export function rawArgs(): string[] {
  return raw;
}

// ───────────────────────────── dispatch (test hook) ─────────────────────────────

type Interceptor = (name: string, options: unknown) => void;
let interceptor: Interceptor | undefined;

/** Tests: capture options instead of running commands (argv → options layer). */
export function interceptRuns(fn: Interceptor | undefined): void {
  interceptor = fn;
}

/** Runs a command's `run` with its options, unless a test intercepts it. */
export async function dispatch<O>(
  name: string,
  options: O,
  run: (options: O) => Promise<void>,
): Promise<void> {
  if (interceptor) {
    interceptor(name, options);
    return;
  }
  configureOutput((options as { globals?: GlobalOptions }).globals);
  await run(options);
}

// ───────────────────────────── the API client ─────────────────────────────

export interface Target {
  url: string;
  apiKey?: string;
  /** Where the address came from. */
  source: 'flag' | 'env' | 'profile' | 'local';
}

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
/** The daemon's executable, run as a process (the CLI never imports daemon code). */
export const daemonBin = fileURLToPath(new URL('../bin/docfix-daemon.js', import.meta.url));

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new UsageError(
      `cannot read the API key file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
}

/** Where to send requests: --url/DOCFIX_URL, else a profile, else the local daemon. */
export function resolveTarget(globals: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Target {
  // Read as a plain file: loading conf would cost more than the request (issue 30: start-up).
  const config = readLocalConfig(env);
  const profileName = globals.profile ?? (globals.url ? undefined : config.profile);
  const local = config.local;
  if (globals.url) {
    const sameAsLocal = local && local.url.replace(/\/+$/, '') === globals.url.replace(/\/+$/, '');
    return {
      url: globals.url,
      apiKey: globals.apiKey ?? (sameAsLocal ? local.api_key : undefined),
      source: globals.url === env.DOCFIX_URL ? 'env' : 'flag',
    };
  }
  if (profileName) {
    const profile = config.profiles?.[profileName];
    if (!profile) throw new UsageError(`no profile named ${profileName} (see: docfix config list)`);
    const apiKey =
      globals.apiKey ??
      profile.api_key ??
      (profile.api_key_file ? readKeyFile(profile.api_key_file) : undefined);
    return { url: profile.url, apiKey, source: 'profile' };
  }
  return {
    url: localAddressFromEnv(env) ?? local?.url ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}`,
    apiKey: globals.apiKey ?? local?.api_key,
    source: 'local',
  };
}

/**
 * The local daemon's address when DOCFIX_HOST or DOCFIX_PORT is set: the same variables the daemon
 * listens by (daemon/config.ts), so `DOCFIX_PORT=7400 docfix …` talks to, and autostarts, 7400.
 */
export function localAddressFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const host = env.DOCFIX_HOST || undefined;
  const port = env.DOCFIX_PORT || undefined;
  if (!host && !port) return undefined;
  const name = host ?? DEFAULT_HOST;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port ?? DEFAULT_PORT}`;
}

/**
 * The API client's module (undici, the route table and its schemas), loaded by the first command that
 * talks to a daemon: `docfix help` and `--version` never load it (issue 30: start-up).
 */
function apiClientModule(): Promise<typeof ApiClientModule> {
  return import('../src/api-client.ts');
}

async function answers(url: string): Promise<boolean> {
  const { ApiClient } = await apiClientModule();
  try {
    const client = new ApiClient({ baseUrl: url, timeoutMs: 2000 });
    await client.call('health');
    return true;
  } catch {
    return false;
  }
}

/** Runs `node bin/docfix-daemon.js ARGS`, returning its exit code. */
export function runDaemonCommand(
  args: string[],
  options: { stdio?: 'inherit' | 'pipe' | 'ignore'; forwardSignals?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const stdio = options.stdio ?? 'inherit';
    // With signals forwarded, the child gets its own process group: a Ctrl-C on the terminal reaches
    // it once, through us, rather than twice.
    const child = spawn(process.execPath, [daemonBin, ...args], {
      stdio,
      cwd: packageRoot,
      detached: Boolean(options.forwardSignals),
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    if (options.forwardSignals) {
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
    }
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      // A child ended by a signal: 128 + that signal's number (SIGKILL 137, SIGTERM 143).
      const bySignal = signal ? osConstants.signals[signal] : undefined;
      resolve({ code: code ?? (bySignal ? 128 + bySignal : 1), stdout, stderr });
    });
  });
}

let loopback: BlockList | undefined;
/** 127.0.0.0/8 and ::1 (node:net is loaded on first use, not by `docfix help`). */
function loopbackList(): BlockList {
  if (!loopback) {
    const { BlockList } = process.getBuiltinModule('node:net');
    loopback = new BlockList();
    loopback.addSubnet('127.0.0.0', 8, 'ipv4');
    loopback.addAddress('::1', 'ipv6');
  }
  return loopback;
}

/** Whether a URL's host is this machine (a key sent there over plain HTTP never crosses a network). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  // "Any address": a client connecting to it reaches this machine.
  if (host === '0.0.0.0' || host === '::') return true;
  try {
    const { isIPv6 } = process.getBuiltinModule('node:net');
    return loopbackList().check(host, isIPv6(host) ? 'ipv6' : 'ipv4');
  } catch {
    return false; // a name: it may resolve anywhere
  }
}

/**
 * Refuses, before any connection, to send an API key in clear (http://) to another machine unless
 * --insecure was given: a key is a bearer secret, and anyone on the path could replay it.
 */
export function checkTransport(target: Target, globals: Pick<GlobalOptions, 'insecure'>): void {
  if (!target.apiKey || globals.insecure) return;
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return; // the client reports a malformed address
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return;
  throw new ConnectionError(
    `refusing to send the API key over plain HTTP to ${url.host}: use an https:// address ` +
      '(docs/deploy.md), or --insecure if every network between here and there is trusted',
    target.url,
  );
}

/** Starts the local daemon in the background when nothing answers at the local address. */
async function ensureLocalDaemon(target: Target, globals: GlobalOptions): Promise<Target> {
  if (await answers(target.url)) return target;
  if (!globals.autostart) {
    throw new ConnectionError(
      `no docfix daemon answers at ${target.url} (start one with: docfix daemon start)`,
      target.url,
    );
  }
  // A saved key is never replaced unasked (a fresh data folder means a new account and key).
  await (await import('./fresh-start.ts')).confirmFreshStart(target.url);
  info(`Starting the local docfix daemon on ${target.url}…`);
  // DOCFIX_HOST/DOCFIX_PORT reach the daemon through the environment; else where it ran before (the
  // config's `local`), else the defaults.
  const local = readLocalConfig().local;
  const args = ['start', '--json'];
  if (local?.url && !localAddressFromEnv()) {
    try {
      const at = new URL(local.url);
      if (at.port) args.push('--port', at.port);
      if (at.hostname) args.push('--host', at.hostname);
    } catch {
      // a malformed address in the config: start on the defaults
    }
  }
  if (local?.data_dir && !process.env.DOCFIX_DATA_DIR) args.push('--data-dir', local.data_dir);
  const result = await withSpinner('Starting the daemon', runDaemonCommand(args, { stdio: 'pipe' }));
  if (result.code !== 0) {
    const why = (result.stderr || result.stdout).trim().split('\n').pop() ?? '';
    throw new ConnectionError(`could not start the local daemon${why ? `: ${why}` : ''}`, target.url);
  }
  const fresh = resolveTarget(globals);
  // `start` says where the daemon runs (it may already have been running elsewhere).
  try {
    const started = JSON.parse(result.stdout) as { url?: string };
    if (started.url) return { ...fresh, url: started.url };
  } catch {
    // not JSON: the configuration's address
  }
  return fresh;
}

/** What the CLI says while it waits more than a second for a route's answer (else "Waiting for …"). */
const WAITING_FOR: Partial<Record<RouteId, string>> = {
  uploadDocument: 'Reading the PDF',
  classifyDocument: 'Classifying',
  proposeEdit: 'Proposing',
  applyEdit: 'Applying and verifying',
  getVerification: 'Verifying',
  undo: 'Undoing',
  redo: 'Redoing',
  exportDocument: 'Exporting',
  downloadDocument: 'Downloading',
  issueCertificate: 'Issuing the certificate',
  certificatePdf: 'Drawing the certificate',
  ocrPage: 'Recognising',
  preflightPage: 'Checking the page',
  searchDocument: 'Searching',
  pagePreview: 'Rendering',
  pageCrop: 'Rendering',
  exportAudit: 'Exporting the audit record',
  verifyAuditChain: 'Recomputing the audit chain',
};

/**
 * Every request of `client` shows a spinner on stderr while the CLI waits on it (after a second, on
 * a terminal, never with --json: cli/spinner.ts). Commands may still wrap a wait with their own label.
 */
function spinWhileWaiting(client: ApiClient, host: string): ApiClient {
  const call = client.call.bind(client);
  client.call = ((route: RouteId, ...rest: never[]) =>
    withSpinner(WAITING_FOR[route] ?? `Waiting for ${host}`, call(route, ...rest))) as ApiClient['call'];
  return client;
}

const clients = new WeakMap<object, Promise<ApiClient>>();

/** The API client for a command (or its global options); starts the local daemon if needed. */
export function getClient(from: Command | GlobalOptions): Promise<ApiClient> {
  const globals = 'optsWithGlobals' in from ? globalOptions(from) : from;
  const cached = clients.get(from);
  if (cached) return cached;
  const made = (async () => {
    let target = resolveTarget(globals);
    checkTransport(target, globals);
    if (target.source === 'local') target = await ensureLocalDaemon(target, globals);
    checkTransport(target, globals);
    if (globals.verbose) info(`Using ${target.url} (${target.source})`);
    const timeoutS = Number(process.env.DOCFIX_TIMEOUT);
    const { ApiClient } = await apiClientModule();
    const client = new ApiClient({
      baseUrl: target.url,
      apiKey: target.apiKey,
      timeoutMs: Number.isFinite(timeoutS) && timeoutS > 0 ? timeoutS * 1000 : undefined,
      userAgent: 'docfix-cli/0.1',
      // 429 and 503 answers did nothing: resend after their Retry-After, a few times.
      defaultRetry: { retries: 4, maxWaitS: 30 },
    });
    return spinWhileWaiting(client, new URL(target.url).host);
  })();
  clients.set(from, made);
  return made;
}

// ───────────────────────────── interrupted runs ─────────────────────────────

const cleanups = new Set<() => void>();
let signalsHooked = false;

/**
 * Registers a synchronous cleanup (removing temporary files) run if the CLI is interrupted
 * (SIGINT, SIGTERM, SIGHUP) before it finishes; the process then exits 128 + the signal number.
 * Answers a function that unregisters it.
 */
export function onInterrupt(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  if (!signalsHooked) {
    signalsHooked = true;
    for (const [signal, number] of [
      ['SIGINT', 2],
      ['SIGTERM', 15],
      ['SIGHUP', 1],
    ] as const) {
      process.once(signal, () => {
        for (const fn of cleanups) {
          try {
            fn();
          } catch {
            // best effort: the others still run
          }
        }
        process.stderr.write(`\ninterrupted (${signal}); temporary files removed\n`);
        process.exit(128 + number);
      });
    }
  }
  return () => cleanups.delete(cleanup);
}

/** A cleanup removing, from `dir`, the temporary files this process made there (their names carry the pid). */
export function removeOwnTemporaries(dir: string): () => void {
  return () => {
    for (const name of readdirSync(dir)) {
      if (name.includes(`docfix-${process.pid}-`) || name.includes(`.part-${process.pid}-`)) {
        rmSync(join(dir, name), { force: true });
      }
    }
  };
}

// ───────────────────────────── output ─────────────────────────────

let colorOn = false;

/** Decides colour and progress for this run from the global options and the terminals. */
export function configureOutput(globals?: GlobalOptions): void {
  const env = process.env;
  const noColor = ('NO_COLOR' in env && env.NO_COLOR !== '') || globals?.color === false;
  colorOn = Boolean(process.stderr.isTTY) && !noColor && env.TERM !== 'dumb';
  // Spinners and progress bars: on a terminal only, and never with --json (cli/spinner.ts).
  configureLiveLine({ enabled: Boolean(process.stderr.isTTY) && !globals?.json, colour: colorOn });
}
configureOutput();

export function isColor(): boolean {
  return colorOn;
}

const paint = (open: number, close: number) => (text: string) =>
  colorOn ? `\x1b[${open}m${text}\x1b[${close}m` : text;
export const c = {
  bold: paint(1, 22),
  dim: paint(2, 22),
  red: paint(31, 39),
  green: paint(32, 39),
  yellow: paint(33, 39),
  cyan: paint(36, 39),
};

const ANSI = /\x1b\[[0-9;]*m/g;

/** The one JSON document on stdout. */
export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** Data for people, on stdout (what a pipe would want): colour only when stdout is a terminal too. */
export function print(line = ''): void {
  process.stdout.write(`${process.stdout.isTTY ? line : line.replace(ANSI, '')}\n`);
}

/** A message for people, on stderr. */
export function info(message: string): void {
  process.stderr.write(`${message}\n`);
}
export function success(message: string): void {
  info(`${c.green('✓')} ${message}`);
}
export function warn(message: string): void {
  info(`${c.yellow('!')} ${message}`);
}
export function failure(message: string): void {
  info(`${c.red('X')} ${message}`);
}

const width = (s: string) => [...s.replace(ANSI, '')].length;

/** A plain table: columns padded, headers in bold on a TTY, to stdout. */
export function table(rows: string[][], headers?: string[]): void {
  const all = headers ? [headers, ...rows] : rows;
  if (all.length === 0) return;
  const cols = Math.max(...all.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, i) => Math.max(...all.map((r) => width(r[i] ?? ''))));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i] - width(cell))))
      .join('  ')
      .trimEnd();
  if (headers) print(c.bold(line(headers)));
  for (const r of rows) print(line(r));
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export { progressBar, withSpinner, type ProgressBar } from './spinner.ts';

// ───────────────────────────── small parsers ─────────────────────────────

/** commander argParser for a non-negative integer. */
export function intArg(name: string, min = 0) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min) {
      throw new InvalidArgumentError(`${name} must be an integer >= ${min}, got "${value}"`);
    }
    return Number(value);
  };
}

export { DocfixError, ConnectionError };
