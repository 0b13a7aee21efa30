// Layer 1 (as gh tests its commands): argv → the options object each command runs with, without a
// daemon. Runs are intercepted at `dispatch`; usage errors are checked by their exit code.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { interceptRuns } from '../../cli/context.ts';
import { buildProgram, reportError } from '../../cli/main.ts';

delete process.env.DOCFIX_URL;
delete process.env.DOCFIX_API_KEY;
delete process.env.DOCFIX_PROFILE;
delete process.env.NO_COLOR;

/** Parses argv and answers the command name and options it would run with. */
async function parse(args: string[]): Promise<{ name: string; options: Record<string, unknown> }> {
  let captured: { name: string; options: Record<string, unknown> } | undefined;
  interceptRuns((name, options) => {
    captured = { name, options: options as Record<string, unknown> };
  });
  try {
    await buildProgram().parseAsync(['node', 'docfix', ...args]);
  } finally {
    interceptRuns(undefined);
  }
  if (!captured) throw new Error(`nothing ran for ${args.join(' ')}`);
  return captured;
}

/** The exit code a parse failure maps to (silencing commander's stderr). */
async function exitOf(args: string[]): Promise<number> {
  const err = process.stderr.write.bind(process.stderr);
  const out = process.stdout.write.bind(process.stdout);
  process.stderr.write = (() => true) as typeof process.stderr.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    await parse(args);
    return 0;
  } catch (error) {
    return reportError(error);
  } finally {
    process.stderr.write = err;
    process.stdout.write = out;
  }
}

const G = { json: false, verbose: false, color: true, autostart: true };

test('global options: flags, defaults, environment', async () => {
  let r = await parse(['ls']);
  assert.equal(r.options.globals, G);
  r = await parse(['--json', '--url', 'http://x:1', '--no-color', '--no-autostart', '--verbose', 'ls']);
  assert.equal(r.options.globals, {
    url: 'http://x:1',
    json: true,
    verbose: true,
    color: false,
    autostart: false,
  });
  process.env.DOCFIX_URL = 'http://env:2';
  process.env.DOCFIX_API_KEY = 'k';
  process.env.NO_COLOR = '1';
  try {
    r = await parse(['ls', '--json']);
    assert.equal(r.options.globals, { ...G, url: 'http://env:2', apiKey: 'k', json: true, color: false });
  } finally {
    delete process.env.DOCFIX_URL;
    delete process.env.DOCFIX_API_KEY;
    delete process.env.NO_COLOR;
  }
});

test('documents: upload, ls, show, rm, classify, search, attest', async () => {
  assert.equal(await parse(['upload', 'a.pdf']), { name: 'upload', options: { globals: G, file: 'a.pdf' } });
  assert.equal((await parse(['upload', 'a.pdf', '--password'])).options.password, { kind: 'prompt' });
  assert.equal((await parse(['upload', 'a.pdf', '--password', '-'])).options.password, { kind: 'stdin' });
  assert.equal((await parse(['upload', 'a.pdf', '--password-file', 'p'])).options.password, {
    kind: 'file',
    path: 'p',
  });
  assert.is(await exitOf(['upload', 'a.pdf', '--password', 'hunter2']), 2, 'no password on argv');
  assert.equal((await parse(['ls'])).options, { globals: G, limit: 50 });
  assert.equal((await parse(['list', '-L', '5'])).options, { globals: G, limit: 5 });
  assert.is(await exitOf(['ls', '--limit', '0']), 2);
  assert.is(await exitOf(['ls', '--limit', '201']), 2);
  assert.equal(await parse(['show', 'abc']), { name: 'show', options: { globals: G, document: 'abc' } });
  assert.equal((await parse(['rm', 'abc', '-y'])).options, { globals: G, document: 'abc', yes: true });
  assert.equal((await parse(['classify', 'abc'])).name, 'classify');
  const exact = { ignoreCase: false, word: false };
  assert.equal((await parse(['search', 'abc', 'two words'])).options, {
    globals: G,
    document: 'abc',
    text: 'two words',
    flags: exact,
    limit: 500,
    count: false,
  });
  assert.equal(
    (await parse(['search', 'abc', 'the', '-i', '--word', '--pages', '3-7,10', '-L', '20', '--count']))
      .options,
    {
      globals: G,
      document: 'abc',
      text: 'the',
      flags: { ignoreCase: true, word: true },
      pages: '3-7,10',
      limit: 20,
      count: true,
    },
  );
  assert.equal((await parse(['search', 'abc', 'the', '-p', '4'])).options.pages, '4');
  assert.is(await exitOf(['search', 'abc', 'the', '--pages', '7-3']), 2, 'a range backwards');
  assert.is(await exitOf(['search', 'abc', 'the', '--pages', 'x']), 2);
  assert.is(await exitOf(['search', 'abc', 'the', '--page', '1', '--pages', '2']), 2, 'not both');
  assert.is(await exitOf(['search', 'abc', 'the', '--limit', '501']), 2);
  assert.equal((await parse(['attest', 'abc'])).name, 'attest');
  assert.is(await exitOf(['show']), 2, 'missing argument');
});

test('propose and apply', async () => {
  const base = {
    globals: G,
    document: 'd1',
    find: 'Jonh',
    replace: 'John',
    match: 0,
    flags: { ignoreCase: false, word: false },
    fontAttempt: 0,
    ocr: false,
  };
  assert.equal(await parse(['propose', 'd1', '--find', 'Jonh', '--replace', 'John']), {
    name: 'propose',
    options: base,
  });
  assert.equal(
    (await parse(['propose', 'd1', '--find', 'Jonh', '--replace', 'John', '-i', '-w'])).options.flags,
    { ignoreCase: true, word: true },
  );
  const r = await parse([
    'apply',
    'd1',
    '--find',
    'Jonh',
    '--replace',
    '',
    '--page',
    '2',
    '--match',
    '1',
    '--font-attempt',
    '3',
    '--ocr',
    '--attestation',
    'att_1',
    '--yes',
    '--max-cost',
    'low',
    '--no-interactive',
  ]);
  assert.equal(r.options, {
    ...base,
    replace: '',
    page: 2,
    match: 1,
    fontAttempt: 3,
    ocr: true,
    attestation: 'att_1',
    yes: true,
    maxCost: 'low',
    interactive: false,
  });
  assert.equal((await parse(['apply', 'd1', '--find', 'a', '--replace', 'b'])).options, {
    ...base,
    find: 'a',
    replace: 'b',
    yes: false,
    maxCost: 'visible',
    interactive: true,
  });
  assert.is(
    (await parse(['propose', 'd1', '--find', 'a', '--replace', 'b', '--ocr', '--lang', 'rus'])).options.lang,
    'rus',
  );
  assert.is(
    await exitOf(['apply', 'd1', '--find', 'a', '--replace', 'b', '--lang', 'rus']),
    2,
    '--lang needs --ocr',
  );
  assert.is(await exitOf(['propose', 'd1', '--find', 'a']), 2, '--replace required');
  assert.is(await exitOf(['propose', 'd1', '--find', 'a', '--replace', 'b', '--page', '-1']), 2);
  assert.is(await exitOf(['apply', 'd1', '--find', 'a', '--replace', 'b', '--max-cost', 'huge']), 2);
});

test('corrections, export, pages', async () => {
  for (const name of ['verify', 'corrections', 'undo', 'redo', 'manifest']) {
    assert.equal(await parse([name, 'd1']), { name, options: { globals: G, document: 'd1' } });
  }
  assert.equal((await parse(['export', 'd1'])).options, { globals: G, document: 'd1' });
  assert.equal((await parse(['export', 'd1', '-o', 'x.pdf'])).options, {
    globals: G,
    document: 'd1',
    output: 'x.pdf',
  });
  assert.equal((await parse(['preview', 'd1', '--page', '1', '-o', 'p.png', '--thumb'])).options, {
    globals: G,
    document: 'd1',
    page: 1,
    thumb: true,
    output: 'p.png',
  });
  assert.equal((await parse(['crop', 'd1', '--box', '1,2.5,30,40.25', '--dpi', '600'])).options, {
    globals: G,
    document: 'd1',
    page: 0,
    box: [1, 2.5, 30, 40.25],
    dpi: 600,
  });
  assert.is(await exitOf(['crop', 'd1', '--box', '1,2,3']), 2);
  assert.is(await exitOf(['crop', 'd1', '--box', '100,200,400,80']), 2, 'x,y,w,h: y1 above y0');
  assert.is(await exitOf(['crop', 'd1', '--box', '100,20,40,80']), 2, 'x1 left of x0');
  assert.is(await exitOf(['crop', 'd1', '--box', '-1,2,3,4']), 2);
  assert.is(await exitOf(['ocr', 'd1', '--box', '10,10,5,20']), 2, 'every --box reads alike');
  assert.is(await exitOf(['crop', 'd1', '--box', '1,2,3,4', '--dpi', '5000']), 2);
  assert.equal(
    (await parse(['ocr', 'd1', '-p', '2', '--find', 'Total', '--turn', '90', '--lang', 'eng'])).options,
    {
      globals: G,
      document: 'd1',
      page: 2,
      find: 'Total',
      turn: 90,
      words: false,
      lang: 'eng',
    },
  );
  assert.equal((await parse(['preflight', 'd1'])).options, { globals: G, document: 'd1', page: 0, turn: 0 });
  assert.is((await parse(['review', 'd1', '--lang', 'rus'])).options.lang, 'rus');
  // The recognition languages: no document; a document or nothing at all is a usage error.
  assert.equal(await parse(['ocr', '--languages']), { name: 'ocr-languages', options: { globals: G } });
  assert.is(await exitOf(['ocr', 'd1', '--languages']), 2);
  assert.is(await exitOf(['ocr']), 2, 'a document or --languages');
});

test('fix', async () => {
  const r = await parse(['fix', 'a.pdf', 'b.pdf', '--replace', 'Jonh=John', '-r', 'a\\=b=c', '-o', 'out']);
  assert.equal(r.options, {
    globals: G,
    files: ['a.pdf', 'b.pdf'],
    replace: [
      { find: 'Jonh', replace: 'John', method: 'text_layer', font_attempt: 0 },
      { find: 'a=b', replace: 'c', method: 'text_layer', font_attempt: 0 },
    ],
    flags: { ignoreCase: false, word: false },
    outDir: 'out',
    maxCost: 'none',
    dryRun: false,
  });
  assert.equal(
    (await parse(['fix', 'a.pdf', '-r', 'x=y', '-o', 'o', '--ignore-case', '--word'])).options.flags,
    { ignoreCase: true, word: true },
  );
  const e = await parse([
    'fix',
    'a.pdf',
    '--edits',
    'e.json',
    '-o',
    'out',
    '--jobs',
    '3',
    '--max-cost',
    'low',
  ]);
  assert.equal(e.options, {
    globals: G,
    files: ['a.pdf'],
    replace: [],
    flags: { ignoreCase: false, word: false },
    editsFile: 'e.json',
    outDir: 'out',
    maxCost: 'low',
    jobs: 3,
    dryRun: false,
  });
  assert.is(await exitOf(['fix', 'a.pdf', '-o', 'out']), 2, 'nothing to do');
  assert.is(await exitOf(['fix', 'a.pdf', '--replace', 'x=y']), 2, '-o required');
  assert.is(await exitOf(['fix', 'a.pdf', '--replace', '=y', '-o', 'o']), 2, 'empty OLD');
  assert.is(await exitOf(['fix', 'a.pdf', '--replace', 'x=y', '--edits', 'e.json', '-o', 'o']), 2, 'both');
  assert.is(await exitOf(['fix', '--replace', 'x=y', '-o', 'o']), 2, 'no files');
  assert.is(
    (await parse(['fix', 'a.pdf', '--edits', 'e.json', '-o', 'o', '--lang', 'rus'])).options.lang,
    'rus',
    '--lang: the recognition language of OCR edits',
  );
  assert.is(await exitOf(['fix', 'a.pdf', '--replace', 'x=y', '-o', 'o', '--jobs', '0']), 2);
});

test('account, audit, jobs, config, completion', async () => {
  for (const name of ['plans', 'usage', 'health', 'openapi']) {
    assert.equal(await parse([name]), { name, options: { globals: G } });
  }
  assert.equal((await parse(['jobs', 'j1', '--wait'])).options, { globals: G, job: 'j1', wait: true });
  assert.equal((await parse(['audit'])).options, { globals: G, verify: false, limit: 100 });
  assert.equal((await parse(['audit', '--verify', '--limit', '7', '--subject', 'd1'])).options, {
    globals: G,
    verify: true,
    limit: 7,
    subject: 'd1',
  });
  assert.is(await exitOf(['audit', '--limit', '501']), 2);
  const set = await parse(['config', 'set', 'prod', 'https://x', '--use']);
  assert.is(set.name, 'config set');
  assert.equal(set.options, { globals: G, name: 'prod', url: 'https://x', apiKeyStdin: false, use: true });
  assert.equal((await parse(['config', 'use', 'prod'])).options, { globals: G, name: 'prod' });
  assert.equal((await parse(['--profile', 'prod', 'config', 'show'])).options, {
    globals: { ...G, profile: 'prod' },
  });
  assert.equal((await parse(['completion', 'zsh'])).options, { globals: G, shell: 'zsh' });
  assert.is(await exitOf(['completion', 'tcsh']), 2);
});

test('help groups every command by resource', () => {
  const ungrouped = buildProgram()
    .commands.filter((cmd) => !cmd.helpGroup())
    .map((cmd) => cmd.name());
  assert.equal(ungrouped, []);
});

test('unknown commands and flags are usage errors (2)', async () => {
  assert.is(await exitOf(['frobnicate']), 2);
  assert.is(await exitOf(['ls', '--frob']), 2);
  assert.is(await exitOf(['--help']), 0);
});

test.run();
