// CLI bench (issue 30, item 9): the installed CLI as a person runs it, whole processes. `npm pack`
// (compiling to dist/), the tarball installed into a temporary prefix (as test/install/pack.test.ts
// does), then medians of: `node -e 0` (the floor), `docfix --version`, `docfix help`, and
// `docfix search DOC WORD` against a running daemon of the same install (a document uploaded first).
// The targets: help within 150 ms and at most 2 times `node -e 0`. Nothing here is asserted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE = join(ROOT, 'fixtures/corpus/pdf/tracemonkey-two-column.pdf');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return Math.round((s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) * 10) / 10;
}

/** Wall time of one whole process, ms; throws when it fails. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const r = spawnSync(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function medianOf(runs: number, command: string, args: string[], env: NodeJS.ProcessEnv): number {
  timed(command, args, env); // warm the file cache
  return median(Array.from({ length: runs }, () => timed(command, args, env)));
}

/** npm pack, then npm install -g into `prefix`; answers the installed `bin/` folder. */
function installPacked(dir: string, prefix: string, env: NodeJS.ProcessEnv): string {
  const packed = spawnSync('npm', ['pack', '--pack-destination', dir, '--json', '--loglevel=error'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const report = /^\[\s*\{\s*"id"/m.exec(packed.stdout);
  if (!report) throw new Error(`npm pack printed no report: ${packed.stdout}`);
  const [{ filename }] = JSON.parse(packed.stdout.slice(report.index)) as { filename: string }[];
  const installed = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, join(dir, filename), ...NPM_FLAGS],
    {
      cwd: dir,
      env,
      encoding: 'utf8',
    },
  );
  if (installed.status !== 0) throw new Error(`npm install -g failed: ${installed.stderr}`);
  return join(prefix, 'bin');
}

/** The installed daemon on a free port; resolves with its URL once it prints its ready line. */
function startDaemon(bin: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(join(bin, 'docfix-daemon'), ['serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      log += d.toString();
      const m = /^docfix daemon listening on (\S+)$/m.exec(log);
      if (m) resolve({ child, url: m[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the daemon exited (${code}): ${log}`)));
  });
}

export async function benchCli(options: { runs?: number } = {}): Promise<Record<string, unknown>> {
  const runs = options.runs ?? 11;
  const dir = await mkdtemp(join(tmpdir(), 'docfix-bench-cli-'));
  const prefix = join(dir, 'prefix');
  await mkdir(join(dir, 'home'));
  // Private folders: nothing of this machine's docfix set-up counts.
  const env: NodeJS.ProcessEnv = {
    PATH: [dirname(process.execPath), join(prefix, 'bin'), process.env.PATH ?? ''].join(delimiter),
    HOME: join(dir, 'home'),
    LANG: process.env.LANG ?? 'C.UTF-8',
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_DATA_DIR: join(dir, 'data'),
    DOCFIX_NO_AUTOSTART: '1',
    NO_COLOR: '1',
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '', '.npm'),
  };
  let daemon: ChildProcess | undefined;
  try {
    const bin = installPacked(dir, prefix, env);
    const docfix = join(bin, 'docfix');
    const node_ms = medianOf(runs, process.execPath, ['-e', '0'], env);
    const version_ms = medianOf(runs, docfix, ['--version'], env);
    const help_ms = medianOf(runs, docfix, ['help'], env);

    const started = await startDaemon(bin, env);
    daemon = started.child;
    const upload = spawnSync(docfix, ['upload', SAMPLE, '--json'], { env, encoding: 'utf8' });
    if (upload.status !== 0) throw new Error(`upload failed: ${upload.stderr}`);
    const { document_id } = JSON.parse(upload.stdout) as { document_id: string };
    const search_ms = medianOf(runs, docfix, ['search', document_id, 'trace', '--json'], env);
    return {
      runs,
      node_ms,
      version_ms,
      help_ms,
      /** The target: at most 2. */
      help_over_node: Math.round((help_ms / node_ms) * 100) / 100,
      search_ms,
      search_over_node: Math.round((search_ms / node_ms) * 100) / 100,
    };
  } finally {
    if (daemon && daemon.exitCode === null) {
      const exited = new Promise((r) => daemon!.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await benchCli(), null, 2));
}
