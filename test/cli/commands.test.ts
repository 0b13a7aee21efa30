// Layer 2: options → output and exit code, running `node bin/docfix.js` against a real daemon process
// (one for the file). Routes land progressively: a test of a route the daemon does not serve yet
// checks the "does not serve" error instead.
import { createServer, type Server } from 'node:http';
import { mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exitCodesMarkdown } from '../../cli/exit-codes.ts';
import { CORPUS, DOCFIX, ROOT, runNode, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
const PDF = join(CORPUS, 'latex-minimal.pdf');

const timings: string[] = [];
let started = Date.now();
test.before(async () => {
  d = await startDaemon();
  timings.push(`daemon ${Date.now() - started} ms`);
});
test.before.each(() => {
  started = Date.now();
});
test.after.each((ctx) => {
  timings.push(`${ctx.__test__} ${Date.now() - started} ms`);
});
test.after(async () => {
  if (process.env.DOCFIX_TEST_TIMINGS) console.log(timings.join('\n'));
  await d?.stop();
});

const oneLine = (s: string) => s.trim().split('\n').length === 1;

test('health, plans, usage: --json is one JSON document on stdout, nothing else', async () => {
  for (const args of [['health'], ['plans'], ['usage'], ['audit']]) {
    const r = await d.run(['--json', ...args]);
    assert.is(r.code, 0, `${args} ${r.stderr}`);
    assert.not.throws(() => JSON.parse(r.stdout), `${args}: stdout is JSON`);
  }
  const plans = JSON.parse((await d.run(['plans', '--json'])).stdout);
  assert.ok(
    plans.plans.some((p: { id: string }) => p.id === 'business'),
    'API object unchanged',
  );
  const human = await d.run(['plans']);
  assert.match(human.stdout, /business/);
  assert.not.match(human.stdout + human.stderr, /\x1b\[/, 'no colour off a TTY');
  const usage = await d.run(['usage']);
  assert.match(usage.stdout, /plan:\s+business/);
});

test('audit --verify: the chain recomputes (exit 0)', async () => {
  const r = await d.run(['audit', '--verify', '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.is(JSON.parse(r.stdout).intact, true);
});

test('a wrong key: one line, exit 3', async () => {
  const r = await d.cli(['usage'], { env: { DOCFIX_API_KEY: 'key_nope.nope' } }); // the real executable's exit code
  assert.is(r.code, 3);
  assert.match(r.stderr, /invalid_api_key/);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.is(r.stdout, '');
});

test('nothing listening: one line naming the URL, exit 3', async () => {
  const r = await d.run(['usage'], { env: { DOCFIX_URL: 'http://127.0.0.1:9' } });
  assert.is(r.code, 3);
  assert.match(r.stderr, /cannot reach http:\/\/127\.0\.0\.1:9/);
  assert.ok(oneLine(r.stderr), r.stderr);
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('a remote answering HTML, or timing out: one line, exit 3', async () => {
  const html = await listen((_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><body>Bad gateway</body></html>');
  });
  const slow = await listen(() => {
    /* never answers */
  });
  try {
    let r = await d.run(['usage'], { env: { DOCFIX_URL: html.url } });
    assert.is(r.code, 3);
    assert.match(r.stderr, /text\/html/);
    assert.ok(oneLine(r.stderr), r.stderr);
    r = await d.run(['usage'], { env: { DOCFIX_URL: slow.url, DOCFIX_TIMEOUT: '1' } });
    assert.is(r.code, 3);
    assert.match(r.stderr, /timed out/);
    assert.ok(oneLine(r.stderr), r.stderr);
  } finally {
    html.server.closeAllConnections();
    slow.server.closeAllConnections();
    html.server.close();
    slow.server.close();
  }
});

test('bad input files: missing, a directory, not a PDF', async () => {
  let r = await d.run(['upload', join(d.dir, 'missing.pdf')]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /no such file/);
  r = await d.run(['upload', d.dir]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /is a directory/);
  const text = join(d.dir, 'notes.pdf');
  await writeFile(text, 'hello, not a pdf\n');
  r = await d.run(['upload', text]);
  assert.is(r.code, 8);
  assert.match(r.stderr, /not a PDF/);
  r = await d.run(['upload', PDF, '--password-file', join(d.dir, 'nope.txt')]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /password file/);
  // Over the plan's size (Business: 30 MB): the daemon's answer arrives while the body streams.
  const big = join(d.dir, 'big.pdf');
  await writeFile(big, '%PDF-1.7\n');
  await truncate(big, 31 * 1024 * 1024);
  r = await d.run(['upload', big]);
  assert.is(r.code, 7, r.stderr);
  assert.match(r.stderr, /file_too_large/);
});

test('documents: upload, ls, show by prefix, search, rm', async () => {
  const up = await d.run(['upload', PDF, '--json']);
  assert.is(up.code, 0, up.stderr);
  const doc = JSON.parse(up.stdout);
  assert.is(doc.page_count, 1);
  const id: string = doc.document_id;

  const ls = await d.run(['ls', '--json']);
  assert.ok(JSON.parse(ls.stdout).some((x: { document_id: string }) => x.document_id === id));
  const lsHuman = await d.run(['ls']);
  assert.match(lsHuman.stdout, new RegExp(id));

  const show = await d.run(['show', id.slice(0, 10), '--json']);
  assert.is(show.code, 0, show.stderr);
  assert.is(JSON.parse(show.stdout).document_id, id);

  const search = await d.run(['search', id, 'nonumy', '--json']);
  assert.is(search.code, 0, search.stderr);
  assert.ok(JSON.parse(search.stdout).matches.length >= 1);

  const missing = await d.run(['show', 'doc_doesnotexist000']);
  assert.is(missing.code, 4);

  const rmNoYes = await d.run(['rm', id]);
  assert.is(rmNoYes.code, 2, 'not interactive: --yes required');
  const rm = await d.run(['rm', id, '--yes']);
  assert.is(rm.code, 0, rm.stderr);
  assert.is((await d.run(['show', id])).code, 4);
});

test('corrections workflow: every route of a document through its command', async () => {
  const env = { DOCFIX_API_KEY: await d.newKey() };
  const run = (args: string[]) => d.run(args, { env });
  const id: string = JSON.parse((await run(['upload', PDF, '--json'])).stdout).document_id;
  const json = async (args: string[], code = 0) => {
    const r = await run([...args, '--json']);
    assert.is(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  assert.ok((await json(['attest', id])).attestation_id);
  assert.is((await json(['classify', id]))[0].kind, 'text');
  const edit = ['--find', 'nonumy', '--replace', 'nonmuy'];
  const proposal = await json(['propose', id, ...edit]);
  assert.equal(
    [proposal.tier_name, proposal.visibility_cost, proposal.refusal ?? null],
    ['glyph_reuse', 'none', null],
  );
  const human = await run(['propose', id, ...edit]);
  assert.match(human.stderr, /tier 1 glyph_reuse · visibility cost none/);
  assert.is(human.stdout, '', 'a proposal for people goes to stderr');

  // No font of the document nor any bundled one draws a CJK ideograph: refused with advice.
  const refused = await run(['propose', id, '--find', 'nonumy', '--replace', 'non漢my']);
  assert.is(refused.code, 5);
  assert.match(refused.stderr, /Refused "nonumy" → "non漢my" on page 0: .*can draw "漢"/);
  assert.match(refused.stderr, /try: /);
  // "ü" needs a matched font (tier 4, cost low): over --max-cost none, so nothing is applied.
  const over = await run([
    'apply',
    id,
    '--find',
    'nonumy',
    '--replace',
    'nonümy',
    '--yes',
    '--max-cost',
    'none',
    '--json',
  ]);
  assert.is(over.code, 5);
  assert.is(JSON.parse(over.stdout).verification, null);

  const applied = await json(['apply', id, ...edit, '--yes']);
  assert.is(applied.proposal.tier, 1);
  assert.is(applied.verification.passed, true);
  assert.is((await json(['verify', id])).passed, true);
  const list = await json(['corrections', id]);
  assert.equal([list.length, list[0].text_before, list[0].text_after], [1, 'nonumy', 'nonmuy']);
  assert.ok((await json(['manifest', id])).schema);
  const printed = await run(['manifest', id]);
  const served = await fetch(`${d.url}/v1/documents/${id}/manifest`, {
    headers: { authorization: `Bearer ${d.apiKey}` },
  });
  assert.is(printed.stdout, await served.text(), 'the manifest is printed byte for byte');

  const out = join(d.dir, 'exported.pdf');
  const exported = await json(['export', id, '-o', out]);
  assert.is(exported.output_sha256, applied.verification.output_sha256);
  const { createHash } = await import('node:crypto');
  assert.is(
    createHash('sha256')
      .update(await readFile(out))
      .digest('hex'),
    exported.output_sha256,
  );

  // The certificate file, checked by the service from its bytes (cert check), intact and altered.
  const cert = await json(['cert', 'issue', id]);
  const certPdf = join(d.dir, 'certificate.pdf');
  assert.is((await run(['cert', 'pdf', cert.certificate_id, '-o', certPdf])).code, 0);
  const check = await json(['cert', 'check', certPdf]);
  assert.equal([check.status, check.valid, check.certificate_id], ['valid', true, cert.certificate_id]);
  const bytes = await readFile(certPdf);
  bytes[bytes.length >> 1] ^= 1;
  await writeFile(certPdf, bytes);
  const altered = await run(['cert', 'check', certPdf]);
  assert.is(altered.code, 6, altered.stderr);

  assert.is((await json(['undo', id])).undone.seq, 1);
  assert.is((await json(['redo', id])).undone.seq, 1);
  await json(['undo', id]);
  const nothing = await run(['undo', id]);
  assert.is(nothing.code, 9);
  assert.match(nothing.stderr, /nothing_to_undo/);
  assert.is((await run(['export', id])).code, 9, 'nothing to export');

  const png = join(d.dir, 'page.png');
  assert.is((await run(['preview', id, '-o', png])).code, 0);
  assert.ok((await readFile(png)).subarray(1, 4).equals(Buffer.from('PNG')));
  const crop = join(d.dir, 'crop.png');
  // The box in points, as search prints it (1792,364 to 1952,406 in 300 dpi pixels).
  const c = await run(['crop', id, '--box', '430.08,87.36,468.48,97.44', '--dpi', '600', '-o', crop]);
  assert.is(c.code, 0, c.stderr);
  assert.ok((await readFile(crop)).subarray(1, 4).equals(Buffer.from('PNG')));
  const ocr = await json(['ocr', id, '--find', 'nonumy']);
  assert.ok(ocr.matches.length >= 1);
  const preflight = await json(['preflight', id]);
  assert.ok(preflight.checked > 0);
  const job = await run(['jobs', 'job_nope']);
  assert.is(job.code, 4);
});

test('ocr --languages: each recognition language and where it comes from', async () => {
  const r = await d.run(['ocr', '--languages', '--json']);
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const eng = out.languages.find((l: { code: string }) => l.code === 'eng');
  assert.is(eng.source, 'bundled');
  assert.match(eng.file, /eng\.traineddata\.gz$/);
  assert.ok(out.folders.length > 0);
  const human = await d.run(['ocr', '--languages']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /^LANG\s+SOURCE\s+FILE/m);
  assert.match(human.stdout, /^eng\s+bundled\s+\S+eng\.traineddata\.gz$/m);
  assert.match(human.stderr, /apt-get install tesseract-ocr-LANG/);
  assert.is((await d.run(['ocr'])).code, 2, 'a document or --languages');
});

test('help exit-codes prints the table that docs/exit-codes.md holds', async () => {
  const r = await d.run(['help', 'exit-codes']);
  assert.is(r.code, 0);
  for (const code of ['0', '2', '3', '5', '6']) assert.match(r.stdout, new RegExp(`^\\s+${code}\\s`, 'm'));
  const doc = await readFile(join(ROOT, 'docs/exit-codes.md'), 'utf8');
  assert.ok(
    doc.includes(exitCodesMarkdown()),
    'docs/exit-codes.md is up to date (table from cli/exit-codes.ts)',
  );
});

test('config: profiles, key never printed', async () => {
  const keyFile = join(d.dir, 'prod.key');
  await writeFile(keyFile, 'secret-key-value\n');
  const env = { DOCFIX_URL: '', DOCFIX_API_KEY: '' };
  let r = await d.run(['config', 'set', 'prod', d.url, '--api-key-file', keyFile, '--use'], { env });
  assert.is(r.code, 0, r.stderr);
  r = await d.run(['config', 'list'], { env });
  assert.match(r.stdout, /prod/);
  r = await d.run(['config', 'show', '--json'], { env });
  assert.equal(JSON.parse(r.stdout), { url: d.url, source: 'profile', api_key_set: true });
  for (const args of [
    ['config', 'list', '--json'],
    ['config', 'show'],
  ]) {
    const out = await d.run(args, { env });
    assert.not.match(out.stdout + out.stderr, /secret-key-value/);
  }
  // The profile's key is the file's: a wrong one answers 3.
  r = await d.run(['usage'], { env });
  assert.is(r.code, 3);
  await writeFile(keyFile, `${d.apiKey}\n`);
  r = await d.run(['usage', '--json'], { env });
  assert.is(r.code, 0, r.stderr);
  r = await d.run(['config', 'use', 'local'], { env });
  assert.is(r.code, 0);
  r = await d.run(['config', 'use', 'nope'], { env });
  assert.is(r.code, 2);
});

test('keys and tenants are forwarded to the daemon executable', async () => {
  const r = await d.cli(['keys', 'list', '--data-dir', d.dataDir, '--json']);
  assert.is(r.code, 0, r.stderr);
  assert.ok(JSON.parse(r.stdout).length >= 1);
  assert.not.match(r.stdout, new RegExp(d.apiKey.split('.')[1] ?? 'never'));
  const bad = await d.cli(['tenants', 'set', 'x', '--plan', 'platinum', '--data-dir', d.dataDir]);
  assert.is(bad.code, 2, 'the daemon executable exit code is kept');
});

test('no daemon answering and --no-autostart: exit 3 with what to do', async () => {
  // The local daemon's address is a port just freed here, not the default one: whatever runs on
  // this machine (a daemon on 7341 included), nothing answers there.
  const free = await listen(() => {});
  const port = (free.server.address() as AddressInfo).port;
  await new Promise((r) => free.server.close(r));
  const dir = join(d.dir, 'no-daemon-config');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({ local: { url: `http://127.0.0.1:${port}`, data_dir: join(d.dir, 'no-daemon-data') } }),
  );
  const r = await runNode(DOCFIX, ['--no-autostart', 'usage'], {
    DOCFIX_URL: '',
    DOCFIX_API_KEY: '',
    DOCFIX_CONFIG_DIR: dir,
    DOCFIX_DATA_DIR: join(d.dir, 'no-daemon-data'),
  });
  assert.is(r.code, 3, r.stderr);
  assert.match(r.stderr, /docfix daemon start/);
  assert.ok(r.stderr.includes(`127.0.0.1:${port}`), `names the address tried: ${r.stderr}`);
});

test('autostart: starts the local daemon where the config says, then uses its default key', async () => {
  const free = await listen(() => {});
  const port = (free.server.address() as AddressInfo).port;
  free.server.close();
  const dir = join(d.dir, 'auto');
  const configDir = join(dir, 'config');
  const dataDir = join(dir, 'data');
  await mkdir(configDir, { recursive: true });
  await writeFile(
    join(configDir, 'config.json'),
    JSON.stringify({ local: { url: `http://127.0.0.1:${port}`, data_dir: dataDir } }),
  );
  const env = { DOCFIX_URL: '', DOCFIX_API_KEY: '', DOCFIX_CONFIG_DIR: configDir, DOCFIX_DATA_DIR: '' };
  try {
    const r = await runNode(DOCFIX, ['usage', '--json'], env);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /Starting the local docfix daemon/);
    assert.is(JSON.parse(r.stdout).plan !== undefined, true);
    const again = await runNode(DOCFIX, ['usage', '--json'], env);
    assert.is(again.code, 0);
    assert.not.match(again.stderr, /Starting/, 'the second run finds it running');
  } finally {
    await runNode(DOCFIX, ['daemon', 'stop', '--data-dir', dataDir], env);
  }
});

test('completion prints a script for each shell', async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await (shell === 'bash' ? d.cli : d.run)(['completion', shell]);
    assert.is(r.code, 0);
    assert.match(r.stdout, /docfix/);
  }
});

test.run();
