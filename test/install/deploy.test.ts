// The deployment files (docs/deploy.md): the systemd unit passes `systemd-analyze verify`; the
// container definition, which no container engine here can build, is read for what it must hold
// (a non-root user, the data volume, a health check on /healthz, the files `npm pack` needs); the
// settings file names only variables docfix reads; and the image's health check command, run as
// written against a real daemon, says healthy, and unhealthy when nothing answers.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DAEMON_MALLOC_ENV } from '../../src/daemon-environment.ts';
import { DAEMON, ROOT } from '../cli/helpers.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as { bin: Record<string, string>; files: string[] };
const unit = read('deploy/docfix.service');
const envFile = read('deploy/docfix.env');
const containerfile = read('deploy/Containerfile');

/** `Key=value` lines of a unit section (the last one wins, as in systemd). */
function section(text: string, name: string): Map<string, string> {
  const out = new Map<string, string>();
  let inside = false;
  for (const line of text.split('\n')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) inside = header[1] === name;
    else if (inside && /^\w+=/.test(line)) {
      const at = line.indexOf('=');
      out.set(line.slice(0, at), line.slice(at + 1));
    }
  }
  return out;
}

/** Containerfile instructions (continuation lines joined), per stage. */
function stages(text: string): { instruction: string; args: string }[][] {
  const joined = text.replace(/\\\n/g, ' ');
  const out: { instruction: string; args: string }[][] = [];
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    if (m[1] === 'FROM') out.push([]);
    out.at(-1)?.push({ instruction: m[1], args: m[2].trim() });
  }
  return out;
}

const envValues = new Map(
  envFile
    .split('\n')
    .map((l) => /^(DOCFIX_\w+)=(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => [m[1], m[2]]),
);

test('the systemd unit passes systemd-analyze verify (with ExecStart on this checkout)', async () => {
  const service = section(unit, 'Service');
  assert.is(service.get('Restart'), 'on-failure');
  assert.ok(service.get('User') && service.get('User') !== 'root', 'its own user');
  assert.is(service.get('EnvironmentFile'), '/etc/docfix/docfix.env');
  assert.is(service.get('StateDirectory'), 'docfix', 'systemd makes /var/lib/docfix for the user');
  assert.is(envValues.get('DOCFIX_DATA_DIR'), '/var/lib/docfix', 'the data directory is the state directory');
  const exec = service.get('ExecStart') ?? '';
  assert.match(exec, /^\/usr\/local\/bin\/docfix-daemon serve$/);
  assert.ok(manifest.bin['docfix-daemon'], 'the package installs docfix-daemon');

  const dir = await mkdtemp(join(tmpdir(), 'docfix-unit-'));
  try {
    // verify checks that ExecStart is executable: point it at this checkout's own executable.
    const path = join(dir, 'docfix.service');
    await writeFile(
      path,
      unit.replace('/usr/local/bin/docfix-daemon', join(ROOT, manifest.bin['docfix-daemon'])),
    );
    const r = spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
    assert.not.ok(r.error, `systemd-analyze (Debian package systemd) is needed: ${r.error}`);
    const complaints = r.stderr
      .split('\n')
      .filter((l) => l.includes('docfix.service'))
      .join('\n');
    assert.is(complaints, '', 'no warnings about the unit');
    assert.is(r.status, 0, r.stderr);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the unit and the image start the daemon with the allocator settings docfix launches it with', () => {
  const unitEnv = (/^Environment=(.*)$/m.exec(unit)?.[1] ?? '').split(/\s+/);
  for (const [key, value] of Object.entries(DAEMON_MALLOC_ENV)) {
    assert.ok(unitEnv.includes(`${key}=${value}`), `unit sets ${key}=${value}`);
    assert.match(containerfile, new RegExp(`\\b${key}=${value}\\b`), `image sets ${key}=${value}`);
  }
});

test('the settings file names only variables docfix reads', () => {
  const named = [...envFile.matchAll(/^#?(DOCFIX_\w+)=/gm)].map((m) => m[1]);
  assert.ok(named.length >= 8);
  const sources = ['src', 'daemon', 'cli']
    .flatMap((room) =>
      readdirSync(join(ROOT, room), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => read(join(room, f))),
    )
    .join('\n');
  for (const name of named) assert.ok(sources.includes(name), `${name} is read somewhere`);
});

test('the Containerfile: non-root user, data volume, health check on /healthz, what npm pack needs', () => {
  const all = stages(containerfile);
  assert.is(all.length, 2, 'a build stage and a run stage');
  const [build, run] = all;
  const last = (instruction: string) => run.filter((i) => i.instruction === instruction).at(-1)?.args;

  const user = last('USER') ?? '';
  assert.ok(user && !/^(root|0)(:|$)/.test(user), `runs as a non-root user, not "${user}"`);
  const lastRun = run.map((i) => i.instruction).lastIndexOf('RUN');
  assert.ok(
    run.findIndex((i) => i.instruction === 'USER') > lastRun,
    'USER comes after the last RUN (nothing runs as root at run time)',
  );
  const env = new Map(
    [...(last('ENV') ?? '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]] as [string, string]),
  );
  const dataDir = env.get('DOCFIX_DATA_DIR');
  assert.is(dataDir, '/var/lib/docfix');
  assert.ok((last('VOLUME') ?? '').includes(`"${dataDir}"`), 'the data directory is a volume');
  assert.is(env.get('DOCFIX_HOST'), '0.0.0.0', 'answers outside the container');
  assert.is(last('EXPOSE'), env.get('DOCFIX_PORT'));
  assert.match(last('HEALTHCHECK') ?? '', /\/healthz/);
  assert.match(last('ENTRYPOINT') ?? '', /"docfix-daemon"/);
  assert.match(last('CMD') ?? '', /"serve"/);

  // The build stage copies what `npm pack` (and its prepack build) reads.
  const copied = build
    .filter((i) => i.instruction === 'COPY')
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1))
    .map((p) => p.replace(/\/$/, ''));
  for (const source of copied) assert.ok(existsSync(join(ROOT, source)), `COPY ${source} exists`);
  const tsBuild = JSON.parse(read('tsconfig.build.json')) as { extends: string; include: string[] };
  const needed = [
    'package.json',
    'package-lock.json',
    'tsconfig.build.json',
    tsBuild.extends.replace(/^\.\//, ''),
    'scripts',
    ...tsBuild.include,
    ...manifest.files.map((f) => f.replace(/\/$/, '')).filter((f) => f !== 'dist'),
  ];
  for (const path of needed) assert.ok(copied.includes(path), `the build stage copies ${path}`);
  assert.ok(
    build.some((i) => i.instruction === 'RUN' && /npm pack/.test(i.args)),
    'the build stage packs',
  );
});

test("the image's health check command: healthy against a daemon, unhealthy when nothing answers", async () => {
  const healthcheck = stages(containerfile)[1].find((i) => i.instruction === 'HEALTHCHECK')!.args;
  const exec = JSON.parse(/CMD (\[.*\])$/.exec(healthcheck)![1]) as string[];
  assert.is(exec[0], 'node');
  const dir = await mkdtemp(join(tmpdir(), 'docfix-health-'));
  const env = {
    PATH: process.env.PATH,
    HOME: join(dir, 'home'),
    DOCFIX_CONFIG_DIR: join(dir, 'config'),
    DOCFIX_DATA_DIR: join(dir, 'data'),
  };
  const check = (port: number) =>
    spawnSync(process.execPath, exec.slice(1), {
      env: { ...env, DOCFIX_PORT: String(port) },
      encoding: 'utf8',
    });
  const daemon = spawn(process.execPath, [DAEMON, 'serve', '--port', '0'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let log = '';
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the daemon did not start:\n${log}`)), 30_000);
      const onData = (d: Buffer) => {
        log += d.toString();
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      daemon.stdout.on('data', onData);
      daemon.stderr.on('data', onData);
    });
    const healthy = check(port);
    assert.is(healthy.status, 0, healthy.stderr);
    // A port nobody listens on (bound, then released).
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    assert.is(check(free).status, 1);
  } finally {
    const exited = new Promise((r) => daemon.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
});

test('docs/deploy.md walks through the files, TLS both ways, keys and tenants on the server, profiles', () => {
  const doc = read('docs/deploy.md');
  for (const needle of [
    'deploy/docfix.service',
    'deploy/Containerfile',
    '--tls-cert',
    '--tls-key',
    'NODE_EXTRA_CA_CERTS',
    'proxy_pass',
    '--insecure',
    'docfix keys create --data-dir',
    'docfix keys revoke',
    'docfix tenants set',
    'docfix config set',
  ])
    assert.ok(doc.includes(needle), needle);
});

test.run();
