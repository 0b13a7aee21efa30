// `docfix verify ORIGINAL.pdf CORRECTED.pdf` and `cert verify --original`: the proof re-derived from
// the files alone. argv → options without a daemon; bin/docfix.js with no daemon to reach and no
// configuration (nothing may be started or written); then, against a real daemon, a file it
// corrected twice and certified: proven, and refused when tampered or given another original.
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { register as registerCert } from '../../cli/commands/cert.ts';
import { register as registerCorrections } from '../../cli/commands/corrections.ts';
import { addGlobalOptions } from '../../cli/context.ts';
import { openPdf } from '../../src/pdf/mupdf-adapter.ts';
import {
  CORPUS,
  DOCFIX,
  parsedRun,
  ROOT,
  runNode,
  startDaemon,
  type RunResult,
  type TestDaemon,
} from './helpers.ts';

const LETTER = join(ROOT, 'fixtures/sample/letter.pdf');
const work = mkdtempSync(join(tmpdir(), 'docfix-verify-files-'));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function program(): Command {
  const p = addGlobalOptions(new Command('docfix')).exitOverride();
  registerCorrections(p);
  registerCert(p);
  for (const sub of p.commands) sub.exitOverride();
  for (const sub of p.commands.find((c) => c.name() === 'cert')!.commands) sub.exitOverride();
  return p;
}

const parse = (args: string[]) => parsedRun(program, args);

const usage = (args: string[]) =>
  parse(args).then(
    () => '',
    (error: Error) => error.message,
  );

test('argv → options: one argument asks the service, two files re-derive', async () => {
  let r = await parse(['verify', 'doc_1']);
  assert.is(r.name, 'verify');
  assert.is(r.options.document, 'doc_1');
  r = await parse(['verify', 'a.pdf', 'b.pdf']);
  assert.is(r.name, 'verify files');
  assert.equal([r.options.original, r.options.corrected, r.options.password], ['a.pdf', 'b.pdf', undefined]);
  r = await parse(['verify', 'a.pdf', 'b.pdf', '--password-file', 'pw.txt']);
  assert.equal(r.options.password, { kind: 'file', path: 'pw.txt' });
  r = await parse(['verify', 'a.pdf', 'b.pdf', '--password', '-']);
  assert.equal(r.options.password, { kind: 'stdin' });
  assert.match(await usage(['verify', 'a.pdf', 'b.pdf', '--diff-png', 'x.png']), /not two files/);
  assert.match(await usage(['verify', 'doc_1', '--password-file', 'pw.txt']), /two PDF files/);
  r = await parse(['cert', 'verify', 'c.pdf', '--document', 'd.pdf', '--original', 'o.pdf']);
  assert.equal([r.name, r.options.document, r.options.original], ['cert verify', 'd.pdf', 'o.pdf']);
  assert.match(await usage(['cert', 'verify', 'c.pdf', '--original', 'o.pdf']), /needs --document/);
  r = await parse([
    'cert',
    'verify',
    'c.pdf',
    '--document',
    'd.pdf',
    '--original',
    'o.pdf',
    '--password',
    '-',
  ]);
  assert.equal(r.options.password, { kind: 'stdin' });
  assert.match(
    await usage(['cert', 'verify', 'c.pdf', '--document', 'd.pdf', '--password-file', 'pw.txt']),
    /re-deriving with --original/,
  );
});

/** Appends a red square to page 0 in an incremental update (outside every declared box). */
function drawOutside(pdf: Uint8Array): Uint8Array {
  const { doc } = openPdf(pdf, '');
  try {
    const page = doc.findPage(0);
    const contents = page.get('Contents');
    const parts = doc.newArray();
    if (contents.isArray()) for (let i = 0; i < contents.length; i += 1) parts.push(contents.get(i));
    else parts.push(contents);
    parts.push(doc.addStream('q 1 0 0 rg 100 100 20 20 re f Q', {}));
    page.put('Contents', parts);
    return new Uint8Array(doc.saveToBuffer('incremental').asUint8Array());
  } finally {
    doc.destroy();
  }
}

let d: TestDaemon;
let fixedPath = '';
let certificatePath = '';
let keyPath = '';

/** Corrects `find` into `replacement` on page 0 through the API (attestation, proposal, apply). */
async function correct(documentId: string, find: string, replacement: string): Promise<void> {
  const auth = { authorization: `Bearer ${d.apiKey}` };
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(d.url + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { ...auth, 'content-type': 'application/json' },
      })
    ).json()) as Record<string, string | boolean>;
  const att = await post('/v1/attestations', { document_id: documentId });
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find, match_index: 0 },
    replacement,
    attestation_id: att.attestation_id,
  };
  const p = await post(`/v1/documents/${documentId}/edits:propose`, request);
  const v = await post(`/v1/documents/${documentId}/edits`, {
    request,
    apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
  });
  assert.ok(v.passed, JSON.stringify(v));
}

test.before(async () => {
  d = await startDaemon();
  const auth = { authorization: `Bearer ${d.apiKey}` };
  const form = new FormData();
  form.set('file', new Blob([readFileSync(LETTER)], { type: 'application/pdf' }), 'letter.pdf');
  const up = (await (
    await fetch(`${d.url}/v1/documents`, { method: 'POST', body: form, headers: auth })
  ).json()) as { document_id: string };
  await correct(up.document_id, 'Jonh', 'John');
  await correct(up.document_id, '1,200.00', '1,300.00');
  const dl = await fetch(`${d.url}/v1/documents/${up.document_id}/export/download`, { headers: auth });
  fixedPath = join(work, 'letter-fixed.pdf');
  writeFileSync(fixedPath, new Uint8Array(await dl.arrayBuffer()));
  const issued = await d.cli(['cert', 'issue', up.document_id, '--json']);
  assert.is(issued.code, 0, issued.stderr);
  const certificateId = (JSON.parse(issued.stdout) as { certificate_id: string }).certificate_id;
  certificatePath = join(work, 'certificate.pdf');
  const saved = await d.cli(['cert', 'pdf', certificateId, '-o', certificatePath]);
  assert.is(saved.code, 0, saved.stderr);
  keyPath = join(work, 'key.json');
  writeFileSync(keyPath, await (await fetch(`${d.url}/.well-known/docfix-certificate-key`)).text());
});

test.after(async () => {
  await d?.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * `docfix ARGS` as a child process with no daemon address, no key and a configuration and data
 * folder that do not exist: the CLI could only autostart a daemon there. Afterwards neither exists.
 */
async function offline(args: string[]): Promise<RunResult> {
  const home = mkdtempSync(join(work, 'home-'));
  const env = {
    DOCFIX_CONFIG_DIR: join(home, 'config'),
    DOCFIX_DATA_DIR: join(home, 'data'),
    DOCFIX_URL: '',
    DOCFIX_API_KEY: '',
    DOCFIX_PROFILE: '',
    HOME: home,
  };
  const res = await runNode(DOCFIX, args, env);
  assert.not.ok(existsSync(env.DOCFIX_DATA_DIR), 'no daemon was started (its data folder is not there)');
  assert.not.ok(existsSync(env.DOCFIX_CONFIG_DIR), 'nothing was written to the configuration');
  return res;
}

test('verify ORIGINAL CORRECTED: a file the daemon corrected twice is proven with no daemon', async () => {
  const res = await offline(['verify', LETTER, fixedPath]);
  assert.is(res.code, 0, res.stderr);
  assert.match(
    res.stderr,
    /✓ Proven from the files alone: the 2 corrections in .* changed only what they declare/,
  );
  for (const name of [
    'manifest',
    'original',
    'pages',
    'objects',
    'pixels_mupdf',
    'pixels_pdfium',
    'text_layer',
  ])
    assert.match(res.stderr, new RegExp(`✓ ${name} `), name);
  assert.match(res.stdout, /^PAGE\s+MUPDF CHANGED\s+OUTSIDE\s+PDFIUM CHANGED\s+OUTSIDE/m);
  assert.match(res.stdout, /^0\s+\d+\s+0\s+\d+\s+0\s+[\d,]+\s+-\s+ok$/m);
  assert.match(res.stdout, /#0 page 0 .*"Jonh" → "John"\s+✓ the line reads “Dear Mr John Smith,”/);
  assert.match(res.stdout, /#1 page 0 .*"1,200.00" → "1,300.00"\s+✓/);

  const json = await offline(['verify', LETTER, fixedPath, '--json']);
  assert.is(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout);
  assert.is(r.verdict, 'proven');
  assert.is(r.manifest.original_sha256, sha(readFileSync(LETTER)), 'the daemon records the upload’s hash');
  assert.is(r.checks.length, 7);
  assert.is(r.pages[0].mupdf.counted_outside, 0);
});

test('verify ORIGINAL CORRECTED: tampered, without a manifest, a missing file', async () => {
  const tamperedPath = join(work, 'tampered.pdf');
  writeFileSync(tamperedPath, drawOutside(new Uint8Array(readFileSync(fixedPath))));
  const tampered = await offline(['verify', LETTER, tamperedPath]);
  assert.is(tampered.code, 6);
  assert.match(tampered.stderr, /X Not proven: 2 checks failed/);
  assert.match(
    tampered.stderr,
    /X pixels_mupdf\s+page 0: \d+ pixels changed outside the declared boxes, in 1 region/,
  );
  assert.match(
    tampered.stdout,
    /^page 0 mupdf [\d.]+: \d+ pixel\(s\) changed outside the declared boxes, 1 region\(s\): \[41[67],300[78],(499|500|501),309[123]\]/m,
  );

  const other = await offline([
    'verify',
    join(CORPUS, 'latex-minimal.pdf'),
    join(CORPUS, 'libreoffice-writer.pdf'),
  ]);
  assert.is(other.code, 6);
  assert.match(other.stderr, /X Not a docfix correction: .* carries no manifest/);
  assert.match(other.stdout, /object\(s\) changed that nothing declares/);

  const missing = await offline(['verify', LETTER, join(work, 'nope.pdf')]);
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /corrected .*nope\.pdf: no such file/);
  const notPdf = join(work, 'not.pdf');
  writeFileSync(notPdf, 'hello');
  const bad = await offline(['verify', notPdf, fixedPath]);
  assert.is(bad.code, 8, bad.stderr);
  assert.match(bad.stderr, /The original file: /);
});

test('cert verify --original: the signature and the re-derived proof, both needed', async () => {
  const base = ['cert', 'verify', certificatePath, '--key', keyPath, '--json'];
  const genuine = await offline([...base, '--document', fixedPath, '--original', LETTER]);
  assert.is(genuine.code, 0, genuine.stderr);
  const ok = JSON.parse(genuine.stdout);
  assert.is(ok.valid, true);
  assert.is(ok.rederivation.verdict, 'proven');

  // The certified document, checked against another original: the signature holds, the proof not.
  const wrongOriginal = await offline([
    ...base,
    '--document',
    fixedPath,
    '--original',
    join(CORPUS, 'latex-minimal.pdf'),
  ]);
  assert.is(wrongOriginal.code, 6);
  const wo = JSON.parse(wrongOriginal.stdout);
  assert.is(wo.valid, true);
  assert.is(wo.rederivation.verdict, 'failed');
  assert.ok(wo.rederivation.failures.some((f: string) => f.startsWith('original: ')));

  // A tampered document: neither the certificate nor the re-derivation accepts it.
  const tamperedPath = join(work, 'tampered-cert.pdf');
  writeFileSync(tamperedPath, drawOutside(new Uint8Array(readFileSync(fixedPath))));
  const tampered = await offline([...base, '--document', tamperedPath, '--original', LETTER]);
  assert.is(tampered.code, 6);
  const t = JSON.parse(tampered.stdout);
  assert.is(t.valid, false);
  assert.is(t.rederivation.verdict, 'failed');
  assert.ok(t.rederivation.failures.some((f: string) => f.startsWith('pixels_mupdf: ')));

  const human = await offline([
    'cert',
    'verify',
    certificatePath,
    '--key',
    keyPath,
    '--document',
    fixedPath,
    '--original',
    LETTER,
  ]);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stderr, /verifies/);
  assert.match(human.stderr, /✓ Proven from the files alone/);
});

test.run();
