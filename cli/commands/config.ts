// `docfix config …`: profiles for remote deployments (url, api key file) and which one is in use.
// A key is never printed: `list` and `show` say only where it comes from.
import type { Command } from 'commander';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { configDir, openLocalConfig, type ProfileConfig } from '../../src/local-config.ts';
import {
  c,
  dispatch,
  globalOptions,
  info,
  print,
  printJson,
  resolveTarget,
  success,
  table,
  UsageError,
  type GlobalOptions,
} from '../context.ts';
import { readStdin } from '../shared.ts';

export interface ConfigSetOptions {
  globals: GlobalOptions;
  name: string;
  url: string;
  apiKeyFile?: string;
  /** Read the key from stdin (`--api-key-stdin`) and store it in the config file (0600). */
  apiKeyStdin: boolean;
  use: boolean;
}
export interface ConfigNameOptions {
  globals: GlobalOptions;
  name?: string;
}

function keySource(p: ProfileConfig): string {
  if (p.api_key_file) return `file ${p.api_key_file}`;
  if (p.api_key) return 'stored in config';
  return 'none (DOCFIX_API_KEY)';
}

export function register(program: Command): void {
  const config = program
    .command('config')
    .description('Profiles for remote deployments (url, API key file); the key is never printed')
    .addHelpText(
      'after',
      `
Examples:
  $ docfix config set prod https://docfix.example.com --api-key-file ~/.docfix-prod-key --use
  $ docfix config list
  $ docfix config use local        # back to the local daemon
  $ docfix --profile prod ls`,
    );

  config
    .command('set')
    .description('Add or change a profile')
    .argument('<name>', 'profile name')
    .argument('<url>', 'address of the deployment, e.g. https://docfix.example.com')
    .option('--api-key-file <file>', 'file holding the API key (read at each use)')
    .option('--api-key-stdin', 'read the API key from stdin and keep it in the config file')
    .option('--use', 'make it the profile in use')
    .action(async (name: string, url: string, o: Record<string, unknown>, cmd: Command) => {
      const options: ConfigSetOptions = {
        globals: globalOptions(cmd),
        name,
        url,
        apiKeyStdin: Boolean(o.apiKeyStdin),
        use: Boolean(o.use),
        ...(o.apiKeyFile ? { apiKeyFile: resolve(o.apiKeyFile as string) } : {}),
      };
      await dispatch('config set', options, runConfigSet);
    });

  config
    .command('use')
    .description('Use a profile by default ("local" for the local daemon)')
    .argument('<name>', 'profile name, or "local"')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      await dispatch(
        'config use',
        { globals: globalOptions(cmd), name } satisfies ConfigNameOptions,
        runConfigUse,
      );
    });

  config
    .command('rm')
    .description('Remove a profile; "local" forgets the local daemon\'s saved address and API key')
    .argument('<name>', 'profile name, or "local"')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      await dispatch(
        'config rm',
        { globals: globalOptions(cmd), name } satisfies ConfigNameOptions,
        runConfigRemove,
      );
    });

  config
    .command('list')
    .alias('ls')
    .description('List profiles (keys are never printed)')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch(
        'config list',
        { globals: globalOptions(cmd) } satisfies ConfigNameOptions,
        runConfigList,
      );
    });

  config
    .command('show')
    .description('Show where commands go now: address, its source, whether a key is set')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch(
        'config show',
        { globals: globalOptions(cmd) } satisfies ConfigNameOptions,
        runConfigShow,
      );
    });

  config
    .command('path')
    .description('Print the configuration file path')
    .action(async (_o: unknown, cmd: Command) => {
      await dispatch('config path', { globals: globalOptions(cmd) } satisfies ConfigNameOptions, async () => {
        print(openLocalConfig().path);
      });
    });
}

export async function runConfigSet(o: ConfigSetOptions): Promise<void> {
  try {
    new URL(o.url);
  } catch {
    throw new UsageError(`the URL must be an address like https://host:port, got "${o.url}"`);
  }
  if (o.name === 'local') throw new UsageError('"local" is the local daemon; choose another profile name');
  if (o.apiKeyFile) {
    try {
      await access(o.apiKeyFile);
    } catch {
      throw new UsageError(`cannot read the API key file ${o.apiKeyFile}`);
    }
  }
  const profile: ProfileConfig = { url: o.url };
  if (o.apiKeyFile) profile.api_key_file = o.apiKeyFile;
  if (o.apiKeyStdin) {
    const key = (await readStdin()).trim();
    if (!key) throw new UsageError('no API key on stdin');
    profile.api_key = key;
  }
  const conf = openLocalConfig();
  conf.set('profiles', { ...(conf.get('profiles') ?? {}), [o.name]: profile });
  if (o.use) conf.set('profile', o.name);
  if (o.globals.json) return printJson({ name: o.name, url: o.url, key: keySource(profile), in_use: o.use });
  success(`Profile ${o.name} → ${o.url}${o.use ? ' (in use)' : ''}`);
}

export async function runConfigUse(o: ConfigNameOptions): Promise<void> {
  const conf = openLocalConfig();
  if (o.name === 'local') {
    conf.delete('profile');
    return success('Using the local daemon');
  }
  if (!conf.get('profiles')?.[o.name!])
    throw new UsageError(`no profile named ${o.name} (see: docfix config list)`);
  conf.set('profile', o.name!);
  success(`Using profile ${o.name}`);
}

export async function runConfigRemove(o: ConfigNameOptions): Promise<void> {
  const conf = openLocalConfig();
  if (o.name === 'local') {
    // The way to start afresh once the local daemon's data folder is gone (cli/fresh-start.ts).
    if (!conf.get('local')) return info('No local daemon is saved.');
    conf.delete('local');
    return success(
      "Forgot the local daemon's address and API key: the next command starts one afresh, with a new key if its data folder is new",
    );
  }
  const profiles = { ...(conf.get('profiles') ?? {}) };
  if (!profiles[o.name!]) throw new UsageError(`no profile named ${o.name}`);
  delete profiles[o.name!];
  conf.set('profiles', profiles);
  if (conf.get('profile') === o.name) conf.delete('profile');
  success(`Removed profile ${o.name}`);
}

export async function runConfigList(o: ConfigNameOptions): Promise<void> {
  const conf = openLocalConfig();
  const profiles = conf.get('profiles') ?? {};
  const current = conf.get('profile');
  const local = conf.get('local');
  if (o.globals.json) {
    return printJson({
      profile: current ?? null,
      local: local ? { url: local.url, data_dir: local.data_dir, key: 'stored in config' } : null,
      profiles: Object.fromEntries(
        Object.entries(profiles).map(([n, p]) => [n, { url: p.url, key: keySource(p) }]),
      ),
    });
  }
  const rows = [
    [current ? ' ' : '*', 'local', local?.url ?? '(not started yet)', local ? 'stored in config' : '-'],
    ...Object.entries(profiles).map(([n, p]) => [current === n ? '*' : ' ', n, p.url, keySource(p)]),
  ];
  table(rows, ['', 'PROFILE', 'URL', 'KEY']);
  info(c.dim(`config: ${configDir()}`));
}

export async function runConfigShow(o: ConfigNameOptions): Promise<void> {
  const target = resolveTarget(o.globals);
  const data = { url: target.url, source: target.source, api_key_set: Boolean(target.apiKey) };
  if (o.globals.json) return printJson(data);
  print(`${c.dim('url:'.padEnd(9))}${data.url}`);
  print(`${c.dim('source:'.padEnd(9))}${data.source}`);
  print(`${c.dim('key:'.padEnd(9))}${data.api_key_set ? 'set (not shown)' : 'none'}`);
}
