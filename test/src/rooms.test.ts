// The import rule between rooms (docs/architecture.md) is enforced by the linter: an import that
// crosses it is an error, and the rule holds over the whole tree.
import { ESLint } from 'eslint';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = new URL('../..', import.meta.url).pathname;
const eslint = new ESLint({ cwd: root });

async function ruleErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('src/ may not import daemon/ or cli/', async () => {
  assert.is(
    (await ruleErrors("import { build } from '../daemon/app.ts';\nvoid build;\n", 'src/probe.ts')).length,
    1,
  );
  assert.is(
    (await ruleErrors("import { x } from '../../cli/main.ts';\nvoid x;\n", 'src/pdf/probe.ts')).length,
    1,
  );
  assert.is(
    (await ruleErrors("import { ERRORS } from './errors.ts';\nvoid ERRORS;\n", 'src/probe.ts')).length,
    0,
  );
});

test('cli/ may not import daemon/; daemon/ may not import cli/', async () => {
  assert.is(
    (await ruleErrors("import { build } from '../daemon/app.ts';\nvoid build;\n", 'cli/probe.ts')).length,
    1,
  );
  assert.is(
    (await ruleErrors("import { x } from '../cli/main.ts';\nvoid x;\n", 'daemon/probe.ts')).length,
    1,
  );
  assert.is(
    (await ruleErrors("import { ROUTES } from '../src/api-routes.ts';\nvoid ROUTES;\n", 'cli/probe.ts'))
      .length,
    0,
  );
});

test.run();
