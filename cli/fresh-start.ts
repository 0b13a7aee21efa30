// Autostart never replaces a saved API key unasked. A daemon started on a data folder with no keys
// makes a new account and key and saves that key in the CLI's configuration, over the one saved
// before; when the folder that key belonged to is gone (or autostart would use another, new one),
// the person is told and asked (on a terminal), or the command stops and says what to do.
import { existsSync, readdirSync } from 'node:fs';
import { defaultDataDir, openLocalConfig } from '../src/local-config.ts';
import { ConnectionError, warn } from './context.ts';

export interface FreshStartOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether a person can be asked (stdin and stderr are terminals). */
  interactive?: boolean;
  /** Asks a yes/no question (default no). */
  ask?: (question: string) => Promise<boolean>;
}

/** The remedy, named in the refusal: forget the saved key, then autostart makes a new one. */
export const FRESH_START_REMEDY =
  'to start afresh with a new account and key, run: docfix config rm local (it forgets the saved key), ' +
  'then the command again; or set DOCFIX_DATA_DIR to the folder that holds your data';

/**
 * Before autostart: when a saved key would be replaced by a fresh daemon's, asks for permission
 * (a terminal) or throws a ConnectionError (exit 3) naming the remedy. Answers when autostart may go on.
 */
export async function confirmFreshStart(url: string, options: FreshStartOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const local = openLocalConfig(env).get('local');
  // Nothing saved, nothing to lose; on a database the keys are not in the folder at all.
  if (!local?.api_key || env.DOCFIX_DATABASE_URL) return;
  // The folder autostart starts the daemon on (context.ts): where it ran before unless DOCFIX_DATA_DIR.
  const dir = local.data_dir && !env.DOCFIX_DATA_DIR ? local.data_dir : defaultDataDir(env);
  if (!isEmptyFolder(dir)) return;
  const problem =
    dir === local.data_dir
      ? `the local daemon's data folder ${dir} is gone, with the account the saved API key opened`
      : `the local daemon would start on ${dir}, a new data folder, not on ${local.data_dir} where the saved API key belongs`;
  const consequence = 'a daemon started there makes a new account and key, replacing the saved key';
  const interactive = options.interactive ?? Boolean(process.stdin.isTTY && process.stderr.isTTY);
  if (!interactive) {
    throw new ConnectionError(`${problem}: ${consequence}. Nothing was started; ${FRESH_START_REMEDY}`, url);
  }
  warn(`${problem}: ${consequence}.`);
  const ask = options.ask ?? askOnTerminal;
  if (!(await ask('Start afresh with a new account and key?'))) {
    throw new ConnectionError(`nothing was started; ${FRESH_START_REMEDY}`, url);
  }
}

function isEmptyFolder(dir: string): boolean {
  if (!existsSync(dir)) return true;
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false; // not readable: the daemon will say so itself
  }
}

async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
