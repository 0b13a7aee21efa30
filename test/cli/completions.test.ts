// The shell completions know every command and every flag of the command tree, and the files in
// completions/ are what `docfix completion SHELL` prints (regenerate: node scripts/completions.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandTree, completionScript, SHELLS } from '../../cli/completion.ts';
import { buildProgram } from '../../cli/main.ts';
import { ROOT } from './helpers.ts';

const nodes = commandTree(buildProgram());

test('the tree holds every command file and the forwarded daemon commands', () => {
  const paths = nodes.map((n) => n.path.join(' '));
  for (const p of [
    'upload',
    'apply',
    'fix',
    'cert verify',
    'audit export',
    'daemon serve',
    'keys create',
    'config set',
  ]) {
    assert.ok(paths.includes(p), `missing ${p}`);
  }
});

for (const shell of SHELLS) {
  test(`${shell}: every command and flag, and completions/docfix.${shell} is up to date`, () => {
    const script = completionScript(buildProgram(), shell);
    for (const node of nodes) {
      for (const sub of node.subcommands) {
        for (const name of [sub.name, ...sub.aliases])
          assert.ok(script.includes(name), `${shell}: command ${name}`);
      }
      for (const flag of node.flags) {
        const word = shell === 'fish' ? `-l ${flag.long?.replace(/^--/, '')}` : flag.long;
        if (flag.long) assert.ok(script.includes(word!), `${shell}: ${node.path.join(' ')} ${flag.long}`);
      }
    }
    const file = readFileSync(join(ROOT, `completions/docfix.${shell}`), 'utf8');
    assert.is(file, script, `completions/docfix.${shell} is stale: run node scripts/completions.ts`);
  });
}

test('bash: completing words in a real bash', () => {
  const probe = (words: string[]) => {
    const r = spawnSync(
      'bash',
      [
        '-c',
        `source completions/docfix.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _docfix; echo "\${COMPREPLY[@]}"`,
      ],
      { cwd: ROOT, encoding: 'utf8' },
    );
    return r.stdout.trim().split(/\s+/);
  };
  assert.equal(probe(['docfix', 'daemon', 's']).sort(), ['serve', 'start', 'status', 'stop']);
  assert.ok(probe(['docfix', 'fix', 'a.pdf', '--max']).includes('--max-cost'));
  assert.ok(probe(['docfix', 'list', '--li']).includes('--limit'), 'aliases lead to their command');
  assert.ok(probe(['docfix', 'cert', '']).includes('verify'));
});

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

test('zsh: completing words in a real zsh (when installed)', () => {
  if (!has('zsh')) return;
  const probe = (words: string[]) => {
    const script = `
_describe() { print -l -- "\${(@P)4}" | cut -d: -f1; }
_files() { print FILES; }
compdef() { : }
source completions/docfix.zsh
words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _docfix`;
    return spawnSync('zsh', ['-c', script], { cwd: ROOT, encoding: 'utf8' }).stdout.trim().split('\n');
  };
  assert.equal(probe(['docfix', 'daemon', 's']), ['serve', 'migrate', 'start', 'stop', 'status']);
  assert.ok(probe(['docfix', 'list', '--']).includes('--limit'), 'aliases lead to their command');
  assert.ok(probe(['docfix', 'fix', 'a.pdf', '--m']).includes('--max-cost'));
  assert.equal(probe(['docfix', 'show', 'x']), ['FILES']);
});

test('fish: completing words in a real fish (when installed)', () => {
  if (!has('fish')) return;
  const probe = (line: string) =>
    spawnSync('fish', ['-c', `source completions/docfix.fish; complete -C ${JSON.stringify(line)}`], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .stdout.trim()
      .split('\n')
      .map((l) => l.split('\t')[0]);
  assert.equal(probe('docfix daemon s').sort(), ['serve', 'start', 'status', 'stop']);
  assert.ok(probe('docfix list --li').includes('--limit'), 'aliases lead to their command');
  assert.ok(probe('docfix fix a.pdf --max').includes('--max-cost'));
  assert.ok(probe('docfix cert ').includes('verify'));
});

test.run();
