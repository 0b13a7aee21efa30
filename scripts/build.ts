// Compiles the TypeScript sources to JavaScript for the installed package (run by `npm pack` through
// the `prepack` script; `postpack` runs it with --clean). Node runs the .ts sources directly from a
// clone, but it does not strip types under node_modules, so the package ships dist/ instead:
//
//   src/, daemon/, cli/  →  dist/src/, dist/daemon/, dist/cli/   (tsconfig.build.json, source maps)
//
// tsc rewrites the `.ts` import specifiers (`rewriteRelativeImportExtensions`). What it cannot see
// are file addresses built from `new URL('…', import.meta.url)`: the package.json, the fonts/, the
// daemon's executable in bin/, the engine worker. Those are rebased here so that each still names
// the same file from dist/ one level deeper: a .ts file of a compiled room becomes its .js in dist/,
// anything else (outside the rooms) keeps pointing at the package root. An address this cannot
// place fails the build rather than the installed program.
//
// Usage: node scripts/build.ts [--clean]
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** The rooms compiled into dist/ (tsconfig.build.json's `include`). */
const ROOMS = ['src', 'daemon', 'cli'];

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name));
}

const inRoom = (path: string) => ROOMS.some((room) => path.startsWith(join(root, room) + sep));

/** The address `spec` of the source file `source`, as seen from its compiled `output`. */
export function rebase(spec: string, source: string, output: string): string {
  const trailing = spec.endsWith('/') ? '/' : '';
  const target = resolve(dirname(source), spec);
  let moved: string;
  if (inRoom(target)) {
    if (!target.endsWith('.ts')) {
      throw new Error(
        `${relative(root, source)}: new URL('${spec}', import.meta.url) names ${relative(root, target)}, ` +
          'which is not compiled into dist/ (keep data files outside src/, daemon/ and cli/)',
      );
    }
    moved = join(dist, relative(root, target)).replace(/\.ts$/, '.js');
  } else {
    moved = target;
  }
  let out = relative(dirname(output), moved).split(sep).join('/');
  if (!out.startsWith('.')) out = out === '' ? '.' : `./${out}`;
  return out + trailing;
}

const URL_OF_FILE = /new URL\((['"])(\.\.?(?:\/[^'"]*)?)\1,\s*import\.meta\.url\)/g;

function rebaseAll(): number {
  let count = 0;
  for (const output of filesUnder(dist, '.js')) {
    const source = join(root, relative(dist, output)).replace(/\.js$/, '.ts');
    const text = readFileSync(output, 'utf8');
    const next = text.replace(URL_OF_FILE, (_all, quote: string, spec: string) => {
      count++;
      return `new URL(${quote}${rebase(spec, source, output)}${quote}, import.meta.url)`;
    });
    // Anything still naming a relative .ts file would fail at run time: say so now.
    const left = /(?:from\s+|import\(\s*|new URL\(\s*)(['"])(\.\.?\/[^'"]*\.ts)\1/.exec(next);
    if (left) throw new Error(`${relative(root, output)} still refers to ${left[2]}`);
    if (next !== text) writeFileSync(output, next);
  }
  return count;
}

function main(): void {
  rmSync(dist, { recursive: true, force: true });
  if (process.argv.includes('--clean')) return;
  const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  // tsc exits 2 when it reported type errors but wrote every file: the build goes on (the type check
  // is `npm run typecheck`'s job, and `npm test` fails on it); anything else wrote nothing usable.
  if (result.status === 2) {
    process.stderr.write(
      'build: tsc reported type errors (above); the JavaScript was written all the same\n',
    );
  } else if (result.status !== 0) {
    rmSync(dist, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${result.status ?? result.signal})`);
  }
  const rebased = rebaseAll();
  const files = filesUnder(dist, '.js').length;
  process.stderr.write(`build: ${files} files in dist/ (${rebased} file addresses rebased)\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
