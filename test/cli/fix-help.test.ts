// `docfix fix --help` lists every exit code the run can end with (issue 30, item 10), each with its
// meaning from the exit-code table (cli/exit-codes.ts): any API error's code (a file's error), bad
// usage, a connection failure, refusals, failed verifications and success.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXIT_MEANINGS } from '../../cli/exit-codes.ts';
import { ERRORS, EXIT } from '../../src/errors.ts';
import { runInProcess } from './helpers.ts';

test('fix --help names every exit code fix can return, with the table meaning', async () => {
  const r = await runInProcess(['fix', '--help']);
  assert.is(r.code, 0, r.stderr);
  const possible = new Set<number>([
    ...Object.values(ERRORS).map((e) => e.exit),
    EXIT.ok,
    EXIT.usage,
    EXIT.auth,
    EXIT.error,
    EXIT.refused,
    EXIT.verification,
  ]);
  for (const code of possible) {
    const name = (Object.keys(EXIT) as (keyof typeof EXIT)[]).find((n) => EXIT[n] === code)!;
    const escaped = EXIT_MEANINGS[name].replace(/[.*+?^${}()|[\]\\`]/g, '\\$&');
    assert.match(r.stdout, new RegExp(`^\\s+${code}\\s+${escaped}$`, 'm'), `exit ${code} (${name})`);
  }
  assert.match(r.stdout, /130\/143\s+interrupted/);
});

test.run();
