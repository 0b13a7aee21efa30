// The installed package, as a person gets it: `npm pack` (compiling to dist/ in prepack), then the
// tarball installed globally into a temporary prefix and as a dependency of a temporary project —
// offline-friendly, from the npm cache `npm ci` filled — and run from there: `--version`, `help`, a
// completion script, `daemon serve` (ready line, /healthz), the README's first command for an
// installed package, and `npx docfix --help` in the project. Every folder it uses is private
// (HOME, XDG_*, DOCFIX_*): nothing depends on this machine's configuration.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUNDLED_FACES } from '../../src/fonts/catalog.ts';
import { readyUrl, ROOT } from '../cli/helpers.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
};

let dir = '';
let tarball = '';
let prefix = '';
let installed = '';
let project = '';
let env: NodeJS.ProcessEnv = {};
let daemon: ChildProcess | undefined;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command with the private environment (PATH starts with this Node's folder). */
function run(command: string, args: string[], options: { cwd?: string; input?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? dir,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

function bytesUnder(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  let total = 0;
  for (const name of readdirSync(path)) total += bytesUnder(join(path, name));
  return total;
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-pack-'));
  prefix = join(dir, 'prefix');
  project = join(dir, 'project');
  const home = join(dir, 'home');
  await mkdir(home);
  await mkdir(project);
  const keep = ['PATH', 'LANG', 'TMPDIR', 'npm_config_cache', 'npm_config_registry', 'NODE_EXTRA_CA_CERTS'];
  env = Object.fromEntries(keep.filter((k) => process.env[k]).map((k) => [k, process.env[k]]));
  Object.assign(env, {
    PATH: [dirname(process.execPath), join(prefix, 'bin'), process.env.PATH ?? ''].join(delimiter),
    HOME: home,
    XDG_CONFIG_HOME: join(dir, 'xdg-config'),
    XDG_DATA_HOME: join(dir, 'xdg-data'),
    XDG_STATE_HOME: join(dir, 'xdg-state'),
    DOCFIX_CONFIG_DIR: join(dir, 'docfix-config'),
    DOCFIX_DATA_DIR: join(dir, 'docfix-data'),
    NO_COLOR: '1',
    // The packages come from the cache `npm ci` filled, which lives under the real HOME.
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '', '.npm'),
  });

  const packed = await run('npm', ['pack', '--pack-destination', dir, '--json', '--loglevel=error'], {
    cwd: ROOT,
  });
  assert.is(packed.code, 0, `npm pack failed:\n${packed.stderr}`);
  // npm's JSON report (after anything the prepack build printed).
  const report = /^\[\s*\{\s*"id"/m.exec(packed.stdout);
  assert.ok(report, `npm pack --json printed no report:\n${packed.stdout}`);
  const facts = JSON.parse(packed.stdout.slice(report.index)) as {
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  tarball = join(dir, facts[0].filename);
  assert.ok(existsSync(tarball), 'the tarball exists');
  await writeFile(join(dir, 'files.json'), JSON.stringify(facts[0].files.map((f) => f.path)));

  const global = await run('npm', ['install', '-g', '--prefix', prefix, tarball, ...NPM_FLAGS]);
  assert.is(global.code, 0, `npm install -g failed:\n${global.stderr}`);
  installed = join(prefix, 'lib', 'node_modules', 'docfix');
  const local = await run('npm', ['install', tarball, ...NPM_FLAGS], { cwd: project });
  assert.is(local.code, 0, `npm install (as a dependency) failed:\n${local.stderr}`);

  const own = bytesUnder(installed) - bytesUnder(join(installed, 'node_modules'));
  process.stderr.write(
    `\n  package: tarball ${mib(facts[0].size)}, unpacked ${mib(facts[0].unpackedSize)} in ${facts[0].files.length} files; ` +
      `installed ${mib(bytesUnder(installed))} (docfix itself ${mib(own)}, fonts ${mib(bytesUnder(join(installed, 'fonts')))})\n`,
  );
});

test.after(async () => {
  if (daemon && daemon.exitCode === null) {
    daemon.kill('SIGKILL');
    await new Promise((r) => daemon!.once('exit', r));
  }
  await rm(dir, { recursive: true, force: true });
});

test('the tarball carries what runs: compiled JavaScript with source maps, no TypeScript, no tests', () => {
  const files = JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8')) as string[];
  assert.ok(files.includes('dist/cli/main.js'), 'the compiled CLI');
  assert.ok(files.includes('dist/cli/main.js.map'), 'with its source map');
  assert.ok(files.includes('dist/daemon/engine-worker.js'), 'the engine worker');
  assert.ok(files.includes('bin/docfix.js') && files.includes('bin/entry.js'));
  assert.ok(files.includes('fixtures/sample/letter.pdf'), "the README's sample letter");
  for (const family of readdirSync(join(ROOT, 'fonts'), { withFileTypes: true }).filter((d) =>
    d.isDirectory(),
  ))
    assert.ok(files.includes(`fonts/${family.name}/LICENSE`), `fonts/${family.name} keeps its licence`);
  const unwanted = files.filter(
    (f) =>
      /\.tsx?$/.test(f) ||
      /^(test|bench|scripts|src|daemon|cli)\//.test(f) ||
      /^fixtures\/(?!sample\/)/.test(f),
  );
  assert.equal(unwanted, [], 'no sources, tests, benches or other fixtures');
});

test('fonts/ holds only faces the engine uses (src/fonts/catalog.ts), each family with its licence', () => {
  const used = new Set(BUNDLED_FACES.map((face) => face.file));
  const files = readdirSync(join(ROOT, 'fonts'), { recursive: true, encoding: 'utf8' }).filter((f) =>
    statSync(join(ROOT, 'fonts', f)).isFile(),
  );
  const unused = files.filter(
    (f) => !/(^|\/)(LICENSE|README\.md)$/.test(f) && !used.has(join(ROOT, 'fonts', f)),
  );
  assert.equal(unused, [], 'font files no face of the catalog uses');
});

test('docfix --version and docfix help, from the global install', async () => {
  const docfix = join(prefix, 'bin', 'docfix');
  const version = await run(docfix, ['--version']);
  assert.is(version.code, 0, version.stderr);
  assert.is(version.stdout.trim(), manifest.version);
  const help = await run(docfix, ['help']);
  assert.is(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: docfix /);
  assert.match(help.stdout, /daemon/);
});

test('docfix completion bash prints a script bash accepts', async () => {
  const script = await run(join(prefix, 'bin', 'docfix'), ['completion', 'bash']);
  assert.is(script.code, 0, script.stderr);
  assert.match(script.stdout, /complete .*docfix/);
  const checked = spawnSync('bash', ['-n'], { input: script.stdout, encoding: 'utf8' });
  assert.is(checked.status, 0, `bash -n: ${checked.error ?? checked.stderr}`);
});

test("docfix daemon serve (ready line, /healthz), then the README's first command for an installed package", async () => {
  const docfix = join(prefix, 'bin', 'docfix');
  daemon = spawn(docfix, ['daemon', 'serve', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await readyUrl(daemon, 60_000);
  const health = await fetch(`${url}/healthz`);
  assert.is(health.status, 200);

  // The README's set-up section: the `docfix fix` line of the installed-package way in.
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const line = /^docfix (fix "\$\(npm root -g\)\/.+)$/m.exec(readme)?.[1];
  assert.ok(line, 'the README shows a first `docfix fix` run for an installed package');
  const args = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) =>
    (m[1] ?? m[2]).replace('$(npm root -g)', join(prefix, 'lib', 'node_modules')),
  );
  const work = join(dir, 'work');
  await mkdir(work);
  const fixed = await run(docfix, args, { cwd: work });
  assert.is(fixed.code, 0, fixed.stderr + fixed.stdout);
  assert.match(fixed.stdout, /1 verified/);
  const out = join(work, args[args.indexOf('-o') + 1], 'letter.pdf');
  const text = spawnSync('pdftotext', [out, '-'], { encoding: 'utf8' });
  assert.is(text.status, 0, `pdftotext (poppler-utils): ${text.error ?? text.stderr}`);
  assert.match(text.stdout, /Dear Mr John Smith/);

  const exited = new Promise<number | null>((r) => daemon!.once('exit', (code) => r(code)));
  daemon.kill('SIGTERM');
  assert.is(await exited, 0, 'the daemon stops cleanly on SIGTERM');
});

test('as a dependency of a project: npx docfix --help and npx docfix help print docfix help', async () => {
  assert.ok(existsSync(join(project, 'node_modules', '.bin', 'docfix')), 'npm linked the bin');
  for (const args of [
    ['docfix', '--help'],
    ['docfix', 'help'],
  ]) {
    const r = await run('npx', ['--no-install', ...args], { cwd: project });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: docfix /, `npx ${args.join(' ')}`);
  }
});

test('the Node.js requirement is said once: package.json engines, read by bin/', () => {
  assert.is(manifest.engines.node, '>=22.19');
  const entry = readFileSync(join(installed, 'bin', 'entry.js'), 'utf8');
  assert.match(entry, /manifest\.engines\.node/);
});

test.run();
