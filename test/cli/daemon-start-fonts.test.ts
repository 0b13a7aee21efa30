// `docfix daemon start --font-dir DIR --no-system-fonts`: the background daemon it starts reads the
// faces of DIR and not fontconfig's, as `docfix fonts --json` (GET /v1/fonts) reports, although the
// environment says otherwise (DOCFIX_FONT_DIRS names another folder, DOCFIX_SYSTEM_FONTS=1): the
// flags reach `serve` and win. Data, configuration and the port are private to the test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCFIX, ownDaemonEnv, runNode } from './helpers.ts';
import { junicodeCopy } from '../src/fonts/junicode-fixture.ts';

let dir = '';
let env: NodeJS.ProcessEnv = {};

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docfix-start-fonts-'));
  env = {
    ...ownDaemonEnv(dir),
    DOCFIX_PORT: '0',
    DOCFIX_SYSTEM_FONTS: '1',
    DOCFIX_FONT_DIRS: join(dir, 'elsewhere'),
  };
});

test.after(async () => {
  await runNode(DOCFIX, ['daemon', 'stop'], env);
  await rm(dir, { recursive: true, force: true });
});

test('daemon start passes --font-dir and --no-system-fonts to the daemon it starts', async () => {
  const fontDir = junicodeCopy(null);
  const started = await runNode(DOCFIX, ['daemon', 'start', '--font-dir', fontDir, '--no-system-fonts'], env);
  assert.is(started.code, 0, started.stderr);
  const url = /started on (\S+)/.exec(started.stdout)?.[1];
  assert.ok(url, started.stdout);
  const listed = await runNode(DOCFIX, ['fonts', '--json'], { ...env, DOCFIX_URL: url });
  assert.is(listed.code, 0, listed.stderr);
  const listing = JSON.parse(listed.stdout) as {
    system_fonts: boolean;
    font_dirs: string[];
    faces: { postscript_name: string; origin: string }[];
  };
  assert.is(listing.system_fonts, false);
  assert.equal(listing.font_dirs, [fontDir]);
  assert.equal(
    listing.faces.filter((f) => f.origin !== 'bundled').map((f) => [f.postscript_name, f.origin]),
    [['JunicodeTwoBeta-Regular', 'font_dirs']],
  );
});

test.run();
