// The engine's stages keep their direction (eslint.config.js, docs/engine.md "The pipeline"), and no
// module of src/ imports itself through others (scripts/code-shape.ts reads the import graph).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { importCircles, sourceFiles } from '../../../scripts/code-shape.ts';

const root = new URL('../../..', import.meta.url).pathname;
const eslint = new ESLint({ cwd: root });

async function ruleErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const probe = (from: string) => `import type { X } from '${from}';\nexport type Y = X;\n`;

test('a stage imports only the stages below it', async () => {
  // locate/ is the bottom: nothing above it.
  assert.is((await ruleErrors(probe('../tiers/tier.ts'), 'src/corrections/locate/probe.ts')).length, 1);
  assert.is((await ruleErrors(probe('../rewrite/write.ts'), 'src/corrections/locate/probe.ts')).length, 1);
  // The fit rule reads what a tier produced; the proof does not know the tiers.
  assert.is((await ruleErrors(probe('../tiers/tier.ts'), 'src/corrections/fit/probe.ts')).length, 0);
  const proofToTiers = await ruleErrors(probe('../tiers/tier.ts'), 'src/corrections/proof/probe.ts');
  assert.is(proofToTiers.length, 1);
  assert.match(proofToTiers[0], /proof\/ stage may import only locate, rewrite, fit/);
  // Tiers do not import the fit rule or the stages after them.
  assert.is((await ruleErrors(probe('../fit/fit-rule.ts'), 'src/corrections/tiers/probe.ts')).length, 1);
  assert.is((await ruleErrors(probe('../save/declare.ts'), 'src/corrections/proof/probe.ts')).length, 1);
  // Tier 5 saves through the save stage; the save stage knows nothing of scans.
  assert.is((await ruleErrors(probe('../save/declare.ts'), 'src/corrections/scan/probe.ts')).length, 0);
  assert.is((await ruleErrors(probe('../scan/tier5.ts'), 'src/corrections/save/probe.ts')).length, 1);
});

test('no stage imports the pipeline; every stage shares correction.ts and refusals.ts', async () => {
  assert.is((await ruleErrors(probe('../engine.ts'), 'src/corrections/edit/probe.ts')).length, 1);
  assert.is((await ruleErrors(probe('../proposal.ts'), 'src/corrections/fit/probe.ts')).length, 1);
  assert.is((await ruleErrors(probe('../correction.ts'), 'src/corrections/locate/probe.ts')).length, 0);
  assert.is((await ruleErrors(probe('../refusals.ts'), 'src/corrections/locate/probe.ts')).length, 0);
});

test('the rooms rule still holds inside a stage folder', async () => {
  assert.is((await ruleErrors(probe('../../../daemon/app.ts'), 'src/corrections/fit/probe.ts')).length, 1);
});

test('src/corrections/ keeps the direction as it stands', async () => {
  const results = await eslint.lintFiles(['src/corrections']);
  const crossings = results.flatMap((r) =>
    r.messages
      .filter((m) => m.ruleId === 'no-restricted-imports')
      .map((m) => `${r.filePath.slice(root.length)}:${m.line} ${m.message}`),
  );
  assert.equal(crossings, []);
});

test('an import circle is found, through a type import too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docfix-circle-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.ts';\nexport const a = b;\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c.ts';\nexport const b: C = 1;\n");
    writeFileSync(join(dir, 'c.ts'), "import { a } from './a.ts';\nexport type C = typeof a;\n");
    writeFileSync(join(dir, 'd.ts'), "import { a } from './a.ts';\nexport const d = a;\n");
    const circles = importCircles(sourceFiles(dir));
    assert.is(circles.length, 1);
    assert.equal(
      circles[0].map((f) => f.slice(f.lastIndexOf('/') + 1)),
      ['a.ts', 'b.ts', 'c.ts'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the engine's test folders are its stage folders", () => {
  // A test about one stage sits in test/src/corrections/<stage>/ (docs/engine.md, "The pipeline");
  // corpus-wide tests and shared fixtures stay at the root.
  const folders = (dir: string) =>
    readdirSync(`${root}${dir}`, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  const stages = new Set(folders('src/corrections'));
  const tested = folders('test/src/corrections');
  assert.ok(tested.length > 0);
  assert.equal(
    tested.filter((name) => !stages.has(name)),
    [],
  );
});

test('no import circles in src/', () => {
  assert.equal(importCircles(sourceFiles(`${root}src`)), []);
});

test.run();
