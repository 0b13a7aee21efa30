// The CLI's configuration holds API keys: it is private (file 0600, folder 0700; an open one is
// closed with one warning), and autostart never replaces the key saved in it unasked — without a
// terminal it refuses naming the remedy, on a terminal it asks (driven here through a real
// pseudo-terminal with script(1)). No daemon runs in this file: nothing may start one.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { confirmFreshStart } from '../../cli/fresh-start.ts';
import { runConfigRemove } from '../../cli/commands/config.ts';
import { openLocalConfig } from '../../src/local-config.ts';
import { DOCFIX, ROOT, runNode } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'docfix-local-config-'));
test.after(() => {
  // Should a broken guard have let a daemon start, it is stopped here, not left running.
  for (const name of readdirSync(work)) {
    const pidFile = join(work, name, 'daemon.pid');
    if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
  }
  rmSync(work, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

/** A TCP port nothing listens on (taken from the kernel, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
const port = await freePort();

/** A configuration whose local daemon's data folder is `dataDir`, with a saved key. */
function savedKey(name: string, dataDir: string) {
  const configDir = join(work, `config-${name}`);
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const local = {
    // Nothing answers there, so an autostart would be attempted.
    url: `http://127.0.0.1:${port}`,
    api_key: `dfx_saved_${name}`,
    key_id: 'key_saved',
    tenant_id: 'default',
    data_dir: dataDir,
  };
  const file = join(configDir, 'config.json');
  writeFileSync(file, JSON.stringify({ local }), { mode: 0o600 });
  const env = { DOCFIX_CONFIG_DIR: configDir, DOCFIX_URL: '', DOCFIX_API_KEY: '', DOCFIX_DATA_DIR: '' };
  return { configDir, file, local, env, text: () => readFileSync(file, 'utf8') };
}

const never = async (): Promise<boolean> => {
  throw new Error('asked, but nothing was to be asked');
};

test('a new configuration is written 0600 in a folder 0700', () => {
  const dir = join(work, 'new', 'docfix');
  openLocalConfig({ DOCFIX_CONFIG_DIR: dir }).set('profile', 'prod');
  assert.is(mode(dir), 0o700);
  assert.is(mode(join(dir, 'config.json')), 0o600);
});

test('an existing configuration open to others is made private, with one warning on stderr', async () => {
  const dir = join(work, 'open');
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const file = join(dir, 'config.json');
  const content = JSON.stringify({ profiles: { prod: { url: 'https://x.example', api_key: 'dfx_secret' } } });
  writeFileSync(file, content);
  chmodSync(file, 0o644);
  // `config list` opens the configuration several times: the warning is given once.
  const first = await runNode(DOCFIX, ['config', 'list'], { DOCFIX_CONFIG_DIR: dir });
  assert.is(first.code, 0, first.stderr);
  const warnings = first.stderr.split('\n').filter((line) => /warning:/.test(line));
  assert.is(warnings.length, 1, first.stderr);
  assert.match(warnings[0], /readable by other users/);
  assert.match(warnings[0], /config\.json \(was 0644, now 0600\)/);
  assert.match(warnings[0], /\(was 0755, now 0700\)/);
  assert.is(mode(file), 0o600);
  assert.is(mode(dir), 0o700);
  assert.is(readFileSync(file, 'utf8'), content, 'the content is untouched');
  const again = await runNode(DOCFIX, ['config', 'list'], { DOCFIX_CONFIG_DIR: dir });
  assert.is(again.code, 0);
  assert.not.match(again.stderr, /warning/);
});

test('the data folder of the saved key is gone: no terminal → exit 3 naming the remedy, nothing changed', async () => {
  const gone = join(work, 'gone-1');
  const saved = savedKey('gone-1', gone);
  const before = saved.text();
  const res = await runNode(DOCFIX, ['ls'], saved.env);
  assert.is(res.code, 3, res.stderr);
  assert.match(res.stderr, new RegExp(`data folder ${gone} is gone`));
  assert.match(res.stderr, /replacing the saved key/);
  assert.match(res.stderr, /docfix config rm local/);
  assert.not.match(res.stderr, /Starting the local docfix daemon/);
  assert.is(saved.text(), before, 'the saved key is unchanged');
  assert.not.ok(existsSync(gone), 'no data folder was made');
});

test('autostart onto a new folder (DOCFIX_DATA_DIR) would replace the key saved for another: refused', async () => {
  const kept = join(work, 'kept-data');
  mkdirSync(join(kept, 'keys'), { recursive: true });
  const saved = savedKey('elsewhere', kept);
  const fresh = join(work, 'fresh-data');
  const env = { ...saved.env, DOCFIX_DATA_DIR: fresh };
  const refused = await confirmFreshStart('http://127.0.0.1:1', { env, interactive: false, ask: never }).then(
    () => '',
    (error: Error) => error.message,
  );
  assert.match(refused, new RegExp(`would start on ${fresh}, a new data folder, not on ${kept}`));
  // Where the saved key's folder holds data, autostart goes on without a question.
  await confirmFreshStart('http://127.0.0.1:1', { env: saved.env, interactive: false, ask: never });
  // On a database the keys are not in the folder: nothing to protect here.
  await confirmFreshStart('http://127.0.0.1:1', {
    env: { ...env, DOCFIX_DATABASE_URL: 'postgres://x/y' },
    interactive: false,
    ask: never,
  });
});

test('on a terminal it asks: yes lets autostart go on, no refuses; `config rm local` starts afresh', async () => {
  const saved = savedKey('ask', join(work, 'gone-2'));
  const asked: string[] = [];
  const answer = (yes: boolean) => async (question: string) => (asked.push(question), yes);
  await confirmFreshStart('http://127.0.0.1:1', { env: saved.env, interactive: true, ask: answer(true) });
  assert.equal(asked, ['Start afresh with a new account and key?']);
  const declined = await confirmFreshStart('http://127.0.0.1:1', {
    env: saved.env,
    interactive: true,
    ask: answer(false),
  }).then(
    () => '',
    (error: Error) => error.message,
  );
  assert.match(declined, /nothing was started; .*docfix config rm local/);
  assert.ok(saved.text().includes(saved.local.api_key), 'asking changes nothing');

  const before = process.env.DOCFIX_CONFIG_DIR;
  process.env.DOCFIX_CONFIG_DIR = saved.configDir;
  try {
    await runConfigRemove({
      globals: { json: false, verbose: false, color: false, autostart: true },
      name: 'local',
    });
  } finally {
    process.env.DOCFIX_CONFIG_DIR = before;
  }
  assert.is(JSON.parse(saved.text()).local, undefined);
  await confirmFreshStart('http://127.0.0.1:1', { env: saved.env, interactive: true, ask: never });
});

test('through a real terminal: the question is asked, "n" leaves the saved key and starts nothing', async () => {
  const gone = join(work, 'gone-tty');
  const saved = savedKey('tty', gone);
  const before = saved.text();
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', DOCFIX_CONFIG_DIR: saved.configDir };
  for (const name of ['DOCFIX_URL', 'DOCFIX_API_KEY', 'DOCFIX_DATA_DIR', 'FORCE_COLOR']) delete env[name];
  // script(1) runs the CLI on a pseudo-terminal; -e passes its exit code on.
  const child = spawn('script', ['-qec', `${process.execPath} ${DOCFIX} ls`, '/dev/null'], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = false;
  const safety = setTimeout(() => child.kill('SIGKILL'), 60_000);
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes('[y/N]')) {
      answered = true;
      child.stdin.write('n\r');
    }
  });
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  clearTimeout(safety);
  assert.ok(answered, `the question was asked:\n${output}`);
  assert.match(output, /data folder .* is gone/);
  assert.is(code, 3, output);
  assert.match(output, /nothing was started/);
  assert.is(saved.text(), before);
  assert.not.ok(existsSync(gone));
});

test.run();
