// What both executables share: the Node.js version check, read from package.json's `engines` (the one
// place the requirement is written), and which code to run. From a clone, Node runs the TypeScript
// sources by type stripping; an installed package (under node_modules, where Node does not strip
// types) or a copy without the sources runs the JavaScript compiled into dist/ at pack time
// (scripts/build.ts), with its source maps so stack traces name the .ts lines.
import { existsSync, readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
/** The package's version (`docfix --version` answers it without loading the CLI). */
export const version = manifest.version;
const [need, major, minor] = /(\d+)\.(\d+)/.exec(manifest.engines.node) ?? ['22.19', '22', '19'];

/** Exits with a clear message when this Node.js is older than package.json's `engines.node`. */
export function checkNode() {
  const [hasMajor, hasMinor] = process.versions.node.split('.').map(Number);
  if (hasMajor < Number(major) || (hasMajor === Number(major) && hasMinor < Number(minor))) {
    process.stderr.write(
      `docfix needs Node.js ${need} or newer (24 LTS recommended); this is Node.js ${process.versions.node}.\n`,
    );
    process.exit(1);
  }
}

/** The module to import for `name` (e.g. "cli/main"): the .ts source in a clone, else dist/NAME.js. */
export function entry(name) {
  const source = new URL(`../${name}.ts`, import.meta.url);
  const installed = fileURLToPath(import.meta.url)
    .split(sep)
    .includes('node_modules');
  if (!installed && existsSync(source)) return source.href;
  process.setSourceMapsEnabled(true);
  return new URL(`../dist/${name}.js`, import.meta.url).href;
}
