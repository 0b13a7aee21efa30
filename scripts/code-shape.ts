// The shape of the code under a folder, read with the TypeScript compiler's parser: the largest
// files, the longest functions, and the import circles (relative imports, `import type` included,
// since a circle of types still ties the modules' meaning together). The engine's issue 34 used it
// for its before/after figures; test/src/import-circles.test.ts holds src/ to no circle.
//
// Usage: node scripts/code-shape.ts [DIR=src] [--functions N=120] [--files N=800]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface FunctionSize {
  file: string;
  name: string;
  lines: number;
}

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts file under `dir` (absolute paths), sorted. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);

/** Relative modules a file imports or re-exports (absolute paths). */
export function importsOf(file: string): string[] {
  const found: string[] = [];
  for (const statement of parse(file).statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.'))
      found.push(resolve(dirname(file), specifier.text));
  }
  return found;
}

/** The name a function goes by: its own, its variable's or property's, or `(anonymous)`. */
function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function, method and arrow function in `files` with its length in lines, longest first. */
export function functionSizes(files: string[]): FunctionSize[] {
  const sizes: FunctionSize[] = [];
  for (const file of files) {
    const source = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        sizes.push({ file: relative(root, file), name: functionName(node, source), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return sizes.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

/**
 * The import circles among `files`: each strongly connected component of the import graph with more
 * than one file (Tarjan's algorithm), as paths relative to the repository, sorted.
 */
export function importCircles(files: string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((to) => known.has(to))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const connect = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(relative(root, member));
    } while (member !== file);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return circles.sort((a, b) => a[0].localeCompare(b[0]));
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: number) => {
    const at = args.indexOf(name);
    return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
  };
  const functionLimit = option('--functions', 120);
  const fileLimit = option('--files', 800);
  const dir = resolve(root, args[0] ?? 'src');
  const files = sourceFiles(dir);
  const lines = files
    .map((f) => ({ file: relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .sort((a, b) => b.lines - a.lines);
  const total = lines.reduce((sum, f) => sum + f.lines, 0);
  console.log(`${relative(root, dir)}: ${files.length} files, ${total} lines`);
  console.log(`files over ${fileLimit} lines:`);
  for (const f of lines.filter((x) => x.lines > fileLimit)) console.log(`  ${f.lines}  ${f.file}`);
  console.log(`functions over ${functionLimit} lines:`);
  for (const f of functionSizes(files).filter((x) => x.lines > functionLimit))
    console.log(`  ${f.lines}  ${f.file}  ${f.name}`);
  const circles = importCircles(files);
  console.log(`import circles: ${circles.length}`);
  for (const c of circles) console.log(`  ${c.join(' ↔ ')}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
