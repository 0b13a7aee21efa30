// CLI tests run the real thing: a daemon process on a temporary data dir (port 0), a key made with
// `keys create`, and `node bin/docfix.js …` as a child process with DOCFIX_URL/DOCFIX_API_KEY and a
// temporary DOCFIX_CONFIG_DIR. One daemon per test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { interceptRuns } from '../../cli/context.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DOCFIX = join(ROOT, 'bin/docfix.js');
export const DAEMON = join(ROOT, 'bin/docfix-daemon.js');
export const CORPUS = join(ROOT, 'fixtures/corpus/pdf');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without FORCE_COLOR (set by test runners) and without empty overrides. */
function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env))
    if (v !== undefined && v !== '' && k !== 'FORCE_COLOR') out[k] = v;
  return out;
}

/** Runs a node script with args; resolves with its exit code and output. */
export function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv({ ...process.env, NO_COLOR: '1', ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `docfix ARGS` through cli/main.ts's runCli in this process, with `env` over the environment
 * (an empty value removes a variable), stdout and stderr captured. Runs one at a time.
 */
export function runInProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const run = async (): Promise<RunResult> => {
    const { runCli } = await import('../../cli/main.ts');
    const saved = { ...process.env };
    for (const [k, v] of Object.entries({ NO_COLOR: '1', ...env })) {
      if (v === undefined || v === '') delete process.env[k];
      else process.env[k] = v;
    }
    delete process.env.FORCE_COLOR;
    let stdout = '';
    let stderr = '';
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stderr.write;
    try {
      const code = await runCli(['node', 'docfix', ...args]);
      return { code, stdout, stderr };
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      process.exitCode = undefined;
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  };
  const next = queue.then(run, run);
  queue = next.catch(() => undefined);
  return next;
}

export interface TestDaemon {
  url: string;
  apiKey: string;
  dir: string;
  dataDir: string;
  configDir: string;
  /** The environment a CLI run needs to talk to this daemon. */
  env: NodeJS.ProcessEnv;
  process: ChildProcess;
  /** Runs the CLI against this daemon as a child process (bin/docfix.js). */
  cli(
    args: string[],
    options?: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string },
  ): Promise<RunResult>;
  /** Runs the CLI against this daemon in this process (runCli), output captured: much faster. */
  run(args: string[], options?: { env?: NodeJS.ProcessEnv }): Promise<RunResult>;
  /** Another key of the same tenant: its own rate-limit allowance (120 a minute, bursts of 30). */
  newKey(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Waits for a daemon process's ready line (`docfix daemon listening on URL`, on stdout or stderr)
 * and answers the URL; rejects with what it printed when it exits first or the time runs out.
 */
export function readyUrl(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  let log = '';
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not start:\n${log}`)), timeoutMs);
    const onData = (d: Buffer) => {
      log += d.toString();
      const m = /^docfix daemon listening on (\S+)$/m.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the daemon exited (${code}):\n${log}`)));
  });
}

/** Starts `docfix-daemon serve --port 0` on a temporary data dir and creates a business key. */
/**
 * The environment of a CLI that starts its own daemon (`daemon start`, autostart) with data and
 * configuration under `dir`, and no address or key from the machine's.
 */
export function ownDaemonEnv(dir: string): NodeJS.ProcessEnv {
  return {
    DOCFIX_DATA_DIR: join(dir, 'data'),
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_URL: '',
    DOCFIX_API_KEY: '',
    DOCFIX_HOST: '',
  };
}

/** A daemon on a free port with a private data dir; `serveArgs` go to `serve` after those. */
export async function startDaemon(serveArgs: string[] = []): Promise<TestDaemon> {
  const dir = await mkdtemp(join(tmpdir(), 'docfix-cli-'));
  const dataDir = join(dir, 'data');
  const configDir = join(dir, 'config');
  const baseEnv = { DOCFIX_CONFIG_DIR: configDir, DOCFIX_DATA_DIR: dataDir };
  const child = spawn(
    process.execPath,
    [DAEMON, 'serve', '--port', '0', '--data-dir', dataDir, ...serveArgs],
    {
      cwd: ROOT,
      env: { ...process.env, ...baseEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const url = await readyUrl(child);
  const newKey = async () => {
    const made = await runNode(
      DAEMON,
      ['keys', 'create', '--data-dir', dataDir, '--tenant', 'cli-tests', '--plan', 'business', '--json'],
      baseEnv,
    );
    if (made.code !== 0) throw new Error(`keys create failed: ${made.stderr}`);
    return (JSON.parse(made.stdout) as { api_key: string }).api_key;
  };
  const apiKey = await newKey();
  const env = { ...baseEnv, DOCFIX_URL: url, DOCFIX_API_KEY: apiKey };
  const daemon: TestDaemon = {
    url,
    apiKey,
    dir,
    dataDir,
    configDir,
    env,
    process: child,
    cli: (args, options = {}) =>
      runNode(DOCFIX, args, { ...env, ...options.env }, { input: options.input, cwd: options.cwd }),
    run: (args, options = {}) => runInProcess(args, { ...env, ...options.env }),
    newKey,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  return daemon;
}

/** Whether the daemon serves a route (routes land progressively). */
export async function serves(url: string, apiKey: string, method: string, path: string): Promise<boolean> {
  const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${apiKey}` } });
  const text = await res.text();
  return !(res.status === 404 && /no route/i.test(text));
}

/** What a command line would run: the command's name and options, captured before anything runs. */
export async function parsedRun(
  program: () => Command,
  args: string[],
): Promise<{ name: string; options: Record<string, unknown> }> {
  let captured: { name: string; options: Record<string, unknown> } | undefined;
  interceptRuns((name, options) => {
    captured = { name, options: options as Record<string, unknown> };
  });
  try {
    await program().parseAsync(['node', 'docfix', ...args]);
  } finally {
    interceptRuns(undefined);
  }
  if (!captured) throw new Error(`nothing ran for ${args.join(' ')}`);
  return captured;
}
