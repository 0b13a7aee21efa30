// `npm run bench`: runs every bench module in bench/ (each exports one async function returning its
// figures), prints them, and writes bench/out/report.json. `node bench/run.ts NAME` runs the modules
// whose file name contains NAME and updates only their entries in the report. Medians and ratios
// against native baselines measured in the same run; timing is never asserted by tests.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv[2];
const out = new URL('./out/report.json', import.meta.url);
// A part (`node bench/run.ts load`) updates its own fields and keeps the other parts' last figures.
const report: Record<string, unknown> = {
  ...(only && existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>) : {}),
  date: new Date().toISOString(),
  node: process.version,
};
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .sort()) {
  const name = file.replace(/\.ts$/, '');
  if (only && !name.includes(only)) continue;
  const mod = (await import(`./${file}`)) as Record<string, unknown>;
  const fn = (mod.default ??
    Object.entries(mod).find(([k, v]) => typeof v === 'function' && /^bench/i.test(k))?.[1]) as
    (() => Promise<unknown>) | undefined;
  if (!fn) continue;
  process.stderr.write(`bench ${name} …\n`);
  try {
    const result = await fn();
    report[name] = result;
    console.log(`\n## ${name}\n${typeof result === 'string' ? result : JSON.stringify(result, null, 2)}`);
  } catch (error) {
    report[name] = { error: error instanceof Error ? error.message : String(error) };
    console.log(`\n## ${name}\nfailed: ${String(error)}`);
  }
}
mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2));
