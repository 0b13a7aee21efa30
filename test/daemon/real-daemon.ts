// A real daemon process for tests that need one (fuzzing, kill -9, the data-dir lock): runs
// bin/docfix-daemon.js serve on a free port with private data and config folders, so nothing
// depends on the default port, the user's configuration or a daemon already running.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DAEMON_BIN = fileURLToPath(new URL('../../bin/docfix-daemon.js', import.meta.url));

export interface RealDaemon {
  child: ChildProcess;
  url: string;
  apiKey: string;
  dataDir: string;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait. */
  kill9(): Promise<void>;
}

export function daemonEnv(configDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DOCFIX_CONFIG_DIR: configDir,
    DOCFIX_RATE_PER_MINUTE: '1000000',
    DOCFIX_RATE_BURST: '1000000',
    DOCFIX_ENGINE_SLOTS: '2',
    ...extra,
  };
  delete env.DOCFIX_URL;
  delete env.DOCFIX_API_KEY;
  delete env.DOCFIX_DATA_DIR;
  delete env.DOCFIX_PORT;
  return env;
}

/** Starts `docfix-daemon serve --port 0` on `dataDir`; resolves once it prints its ready line. */
export async function startDaemon(
  dataDir: string,
  configDir: string,
  extraEnv: Record<string, string> = {},
  extraArgs: string[] = [],
): Promise<RealDaemon> {
  const args = [DAEMON_BIN, 'serve', '--port', '0', '--data-dir', dataDir, ...extraArgs];
  const child = spawn(process.execPath, args, {
    env: daemonEnv(configDir, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in 30 s: ${err}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited (${code ?? signal}) before it listened: ${err}`));
    });
  });
  // A daemon on a shared database that found keys there makes no default key: no key to read.
  const config = JSON.parse(await readFile(join(configDir, 'config.json'), 'utf8').catch(() => '{}')) as {
    local?: { api_key: string };
  };
  const wait = async () => {
    await exited;
  };
  return {
    child,
    url,
    apiKey: config.local?.api_key ?? '',
    dataDir,
    stderr: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await wait();
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await wait();
    },
  };
}

/** A JSON call to the daemon; the body parsed when it is JSON. */
export async function call(
  d: Pick<RealDaemon, 'url' | 'apiKey'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; bytes: number }> {
  const response = await fetch(`${d.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${d.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  let parsed: unknown = null;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(buffer.toString('utf8'));
    } catch {
      parsed = buffer.toString('utf8');
    }
  }
  return { status: response.status, body: parsed, bytes: buffer.length };
}

/** Uploads PDF bytes (multipart). */
export async function uploadPdf(
  d: Pick<RealDaemon, 'url' | 'apiKey'>,
  bytes: Uint8Array,
  filename: string,
  password?: string | null,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), filename);
  if (password) form.append('password', password);
  const response = await fetch(`${d.url}/v1/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.apiKey}` },
    body: form,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}
