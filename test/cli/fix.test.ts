// End to end: `docfix fix` on corpus files (manifest tasks of kind 'same') against a real daemon,
// checking the written PDFs with pdftotext, the report, and the exit codes: 0 verified, 5 refused or
// not found, 2 bad usage, 3 a daemon that dies mid-download (and no partial file left behind).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request as httpRequest, createServer, type Server } from 'node:http';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CORPUS, DOCFIX, ROOT, serves, startDaemon, type TestDaemon } from './helpers.ts';

let d: TestDaemon;
let ready = false;
const LATEX = join(CORPUS, 'latex-minimal.pdf');
const WRITER = join(CORPUS, 'libreoffice-writer.pdf');

test.before(async () => {
  d = await startDaemon();
  ready = await serves(d.url, d.apiKey, 'POST', '/v1/documents/doc_x/edits:propose');
});
test.after(async () => {
  await d?.stop();
});

const text = (pdf: string) => execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

test('same-glyph swaps in two corpus files: written, verified, exit 0', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const out = join(d.dir, 'out-ok');
  const env = { DOCFIX_API_KEY: await d.newKey() }; // a fresh rate-limit allowance
  const r = await d.run(['fix', LATEX, WRITER, '--replace', 'nonumy=nonmuy', '-o', out, '--json'], { env });
  assert.is(r.code, 0, r.stderr + r.stdout);
  const report = JSON.parse(r.stdout);
  assert.is(report.exit_code, 0);
  assert.is(report.summary.written, 2);
  for (const [input, name] of [
    [LATEX, 'latex-minimal.pdf'],
    [WRITER, 'libreoffice-writer.pdf'],
  ]) {
    const file = report.files.find((f: { file: string }) => f.file === input);
    assert.is(file.status, 'written');
    assert.is(file.output, join(out, name));
    assert.is(file.output_sha256, await sha(join(out, name)), 'the report names the bytes written');
    const edit = file.edits[0];
    assert.is(edit.found, 2);
    for (const occ of edit.occurrences) {
      assert.is(occ.status, 'verified');
      assert.is(occ.visibility_cost, 'none');
      assert.is(occ.outside_pixels, 0);
    }
    const words = text(join(out, name));
    assert.match(words, /nonmuy/);
    assert.not.match(words, /nonumy/);
  }
  assert.equal((await readdir(out)).sort(), ['latex-minimal.pdf', 'libreoffice-writer.pdf'], 'no temp files');
});

test('an edits file: one occurrence by page and match', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const out = join(d.dir, 'out-edits');
  const edits = join(d.dir, 'edits.json');
  await writeFile(
    edits,
    JSON.stringify({ version: 1, edits: [{ find: 'dolore', replace: 'dolroe', page: 0, match: 0 }] }),
  );
  const dry = await d.run(['fix', LATEX, '--edits', edits, '-o', out, '--dry-run', '--json']);
  assert.is(dry.code, 0, dry.stderr);
  const planned = JSON.parse(dry.stdout).files[0];
  assert.equal(
    [planned.status, planned.output, planned.edits[0].occurrences[0].status],
    ['dry-run', null, 'proposed'],
  );
  assert.is(await readdir(out).catch(() => null), null, 'a dry run writes nothing');
  const r = await d.run(['fix', LATEX, '--edits', edits, '-o', out]);
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /verified/);
  const words = text(join(out, 'latex-minimal.pdf'));
  assert.match(words, /dolroe/);
  assert.match(words, /dolore/, 'the other occurrences stand');
});

test('a protected PDF with --password-file, beside an unprotected one', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const out = join(d.dir, 'out-pw');
  const pw = join(d.dir, 'pw.txt');
  await writeFile(pw, 'openpassword\n');
  const edits = join(d.dir, 'pw-edits.json');
  await writeFile(edits, JSON.stringify([{ find: 'dolore', replace: 'dolroe', page: 0, match: 0 }]));
  const env = { DOCFIX_API_KEY: await d.newKey() };
  const protectedPdf = join(CORPUS, 'libreoffice-password.pdf');
  const r = await d.run(['fix', protectedPdf, LATEX, '--edits', edits, '--password-file', pw, '-o', out], {
    env,
  });
  assert.is(r.code, 0, r.stderr + r.stdout);
  const words = execFileSync(
    'pdftotext',
    ['-upw', 'openpassword', join(out, 'libreoffice-password.pdf'), '-'],
    {
      encoding: 'utf8',
    },
  );
  assert.match(words, /dolroe/);
  assert.match(
    text(join(out, 'latex-minimal.pdf')),
    /dolroe/,
    'the password is not sent to a file without one',
  );
  const without = await d.run(['fix', protectedPdf, '--edits', edits, '-o', join(d.dir, 'out-nopw')], {
    env,
  });
  assert.is(without.code, 8, 'password_required');
  assert.match(without.stdout, /password/);
});

test("the README's first run works as written: the sample letter corrected, exit 0", async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const line = /^npx docfix (fix .+)$/m.exec(readme)?.[1];
  assert.ok(line, 'the README shows a first `npx docfix fix` run');
  const args = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
  const out = join(d.dir, 'out-readme');
  args[args.indexOf('-o') + 1] = out;
  const r = await d.run(args.map((a) => (a.startsWith('fixtures/') ? join(ROOT, a) : a)));
  assert.is(r.code, 0, r.stderr + r.stdout);
  assert.match(text(join(out, 'letter.pdf')), /Dear Mr John Smith/);
});

test('refusals and text not found: exit 5, advice reported, nothing written', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const out = join(d.dir, 'out-refused');
  const edits = join(d.dir, 'hard.json');
  await writeFile(edits, JSON.stringify([{ find: 'nonumy', replace: 'nonümy', page: 0, match: 0 }]));
  let r = await d.run(['fix', LATEX, '--edits', edits, '-o', out, '--json']);
  assert.is(r.code, 5, r.stderr);
  const report = JSON.parse(r.stdout);
  const occ = report.files[0].edits[0].occurrences[0];
  assert.is(occ.status, 'refused');
  assert.ok(occ.refusal, 'the refusal says what');
  assert.ok(occ.advice?.do?.length, 'and what to do');
  assert.is(report.files[0].output, null);

  r = await d.run(['fix', WRITER, '--replace', 'zzqqxx=abc', '-o', out]);
  assert.is(r.code, 5);
  assert.match(r.stdout, /not found/);
  assert.equal(await readdir(out), [], 'nothing written');
});

test('bad usage: exit 2, nothing uploaded or written', async () => {
  const out = join(d.dir, 'out-usage');
  const notPdf = join(d.dir, 'notes.pdf');
  await writeFile(notPdf, 'plain text');
  const badEdits = join(d.dir, 'bad-edits.json');
  await writeFile(badEdits, '{"edits": [{"find": ""}]}');
  const cases: [string[], number, RegExp][] = [
    [['fix', LATEX, '--replace', 'a=b'], 2, /out-dir/],
    [['fix', LATEX, '-o', out], 2, /nothing to do/],
    [
      ['fix', LATEX, join(d.dir, 'missing.pdf'), '--replace', 'a=b', '-o', out],
      2,
      /missing\.pdf: no such file/,
    ],
    [['fix', d.dir, '--replace', 'a=b', '-o', out], 2, /is a directory/],
    [['fix', LATEX, '--edits', badEdits, '-o', out], 2, /edits\[0\]\.find/],
    [['fix', LATEX, '--edits', join(d.dir, 'none.json'), '-o', out], 2, /no such edits file/],
    [
      ['fix', LATEX, '--replace', 'a=b', '-o', out, '--password-file', join(d.dir, 'nope')],
      2,
      /password file/,
    ],
    [['fix', LATEX, '--replace', 'a=b', '-o', out, '--max-cost', 'huge'], 2, /max-cost/],
    [['fix', notPdf, '--replace', 'a=b', '-o', out], 8, /not a PDF/],
  ];
  const before = (await d.run(['ls', '--json'])).stdout;
  for (const [args, code, message] of cases) {
    const r = await d.run(args);
    assert.is(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.is(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  }
  assert.is((await d.run(['ls', '--json'])).stdout, before, 'nothing uploaded');
  const made = await readdir(out).catch(() => []);
  assert.equal(made, [], 'nothing written');
});

/** A proxy to the daemon that cuts the connection (or stalls) halfway through the download. */
async function dyingProxy(
  target: string,
  mode: 'cut' | 'stall' = 'cut',
): Promise<{ server: Server; url: string }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        if (!req.url?.includes('/export/download')) {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(body.length) });
          res.write(body.subarray(0, body.length >> 1), () => {
            if (mode === 'cut') res.socket?.destroy();
          });
        });
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('a daemon that dies mid-download: one line, exit 3, no partial file', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const proxy = await dyingProxy(d.url);
  const out = join(d.dir, 'out-dies');
  await mkdir(out, { recursive: true });
  try {
    const r = await d.run(['fix', LATEX, '--replace', 'nonumy=nonmuy', '-o', out], {
      env: { DOCFIX_URL: proxy.url },
    });
    assert.is(r.code, 3, r.stderr + r.stdout);
    assert.match(r.stdout, /connection to http\S+ failed .*connection closed/);
    assert.equal(await readdir(out), [], 'no partial or temporary file');
  } finally {
    proxy.server.closeAllConnections();
    proxy.server.close();
  }
});

test('interrupted mid-download (SIGINT): exit 130, the temporary file removed', async () => {
  assert.ok(ready, 'the daemon serves the corrections routes');
  const proxy = await dyingProxy(d.url, 'stall');
  const out = join(d.dir, 'out-interrupted');
  await mkdir(out, { recursive: true });
  try {
    const child = spawn(process.execPath, [DOCFIX, 'fix', LATEX, '--replace', 'nonumy=nonmuy', '-o', out], {
      env: { ...process.env, ...d.env, DOCFIX_URL: proxy.url, DOCFIX_API_KEY: await d.newKey() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const deadline = Date.now() + 30_000;
    while ((await readdir(out)).length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok((await readdir(out)).length > 0, `a temporary file while downloading: ${stderr}`);
    child.kill('SIGINT');
    assert.is(await exited, 130, stderr);
    assert.equal(await readdir(out), [], 'nothing left behind');
  } finally {
    proxy.server.closeAllConnections();
    proxy.server.close();
  }
});

test.run();
