// Where the CLI keeps its configuration (conf): the local daemon's address and default key, written
// by the daemon on first start, and named profiles for remote deployments, managed by `docfix config`.
// It lives in src/ because both the daemon (writer of `local`) and the CLI (reader) use it.
// It holds API keys, so it is private: the file 0600 in a folder 0700, and one found open to others
// is closed with a warning.
import type Conf from 'conf';
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

// conf (with ajv and its schema compiler) takes longer to load than Node takes to start: it is
// loaded on the first use, synchronously (require of an ES module, Node >= 22.12), so commands that
// never read the configuration (`docfix help`, `--version`) never pay for it.
const require = createRequire(import.meta.url);

export interface ProfileConfig {
  url: string;
  /** Never printed; prefer api_key_file or DOCFIX_API_KEY for remote deployments. */
  api_key?: string;
  api_key_file?: string;
}

export interface LocalConfigShape {
  /** Written by the local daemon on first start. */
  local?: { url: string; api_key: string; key_id: string; tenant_id: string; data_dir: string };
  profiles?: Record<string, ProfileConfig>;
  profile?: string;
  /** Certificate public keys pinned per daemon address the first time they were fetched. */
  certificate_keys?: Record<string, PinnedCertificateKeys>;
}

export interface PinnedCertificateKeys {
  keys: { key_id: string; public_key: string }[];
  pinned_at: string;
}

/** `$DOCFIX_CONFIG_DIR`, else the platform's config folder (~/.config/docfix on Linux). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DOCFIX_CONFIG_DIR) return env.DOCFIX_CONFIG_DIR;
  if (process.platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'docfix');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'docfix');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'docfix');
}

/** `$DOCFIX_DATA_DIR`, else the platform's data folder (~/.local/share/docfix on Linux). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DOCFIX_DATA_DIR) return env.DOCFIX_DATA_DIR;
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'docfix');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'docfix');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'docfix');
}

export const DEFAULT_PORT = 7341;
export const DEFAULT_HOST = '127.0.0.1';

export const CONFIG_DIR_MODE = 0o700;
export const CONFIG_FILE_MODE = 0o600;

export function openLocalConfig(env: NodeJS.ProcessEnv = process.env): Conf<LocalConfigShape> {
  const dir = configDir(env);
  keepPrivate(dir, join(dir, 'config.json'));
  // conf writes through a temporary file and a rename; with this mode the file is never open to others.
  const { default: ConfClass } = require('conf') as { default: typeof Conf };
  return new ConfClass<LocalConfigShape>({
    cwd: dir,
    configName: 'config',
    projectName: 'docfix',
    configFileMode: CONFIG_FILE_MODE,
  });
}

/** Config files already checked in this process: a warning is given once. */
const checked = new Set<string>();

/**
 * Makes the config folder (0700, created if missing) and file (0600) private. Group or world access
 * found on them is removed, with one warning on stderr: it is printed here because the daemon and
 * the CLI both open the configuration, and whichever finds it open should say so.
 */
export function keepPrivate(dir: string, file: string, warn = warnOnStderr): void {
  if (process.platform === 'win32' || checked.has(file)) return;
  checked.add(file);
  try {
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir, { mode: CONFIG_DIR_MODE });
  } catch (error) {
    // A folder that cannot be made (read-only home) leaves reading possible; a write reports it.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  const fixed: string[] = [];
  for (const [path, mode] of [
    [dir, CONFIG_DIR_MODE],
    [file, CONFIG_FILE_MODE],
  ] as const) {
    const found = statSync(path, { throwIfNoEntry: false });
    if (!found || (found.mode & 0o077) === 0) continue;
    const was = (found.mode & 0o777).toString(8).padStart(4, '0');
    try {
      chmodSync(path, mode);
      fixed.push(`${path} (was ${was}, now ${mode.toString(8).padStart(4, '0')})`);
    } catch (error) {
      warn(
        `${path} is open to other users (mode ${was}) and could not be made private: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  if (fixed.length) {
    warn(
      `the docfix configuration holds API keys and was readable by other users; made it private: ${fixed.join(', ')}`,
    );
  }
}

function warnOnStderr(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

/**
 * The configuration as it is on disk, read without conf (a plain JSON file, no schema or defaults):
 * what a command that only needs to know where to send its request reads, cheaper than loading conf.
 * A missing file is an empty configuration; writes go through openLocalConfig.
 */
export function readLocalConfig(env: NodeJS.ProcessEnv = process.env): LocalConfigShape {
  const dir = configDir(env);
  const path = join(dir, 'config.json');
  keepPrivate(dir, path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    return JSON.parse(text) as LocalConfigShape;
  } catch (error) {
    throw new Error(`the docfix configuration ${path} is not valid JSON: ${(error as Error).message}`);
  }
}
