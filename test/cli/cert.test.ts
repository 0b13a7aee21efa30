// The certificate commands: argv → options (without a daemon), then the commands against a real
// daemon process on a real correction — issue, ls, get, pdf, key pinning, verify offline (no daemon
// needed once the key is pinned or given), and audit export.
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { register as registerAuditExport, runAuditExport } from '../../cli/commands/audit-export.ts';
import {
  register as registerCert,
  runCertGet,
  runCertIssue,
  runCertKey,
  runCertList,
  runCertPdf,
  runCertVerify,
} from '../../cli/commands/cert.ts';
import { addGlobalOptions, CliExit, interceptRuns, type GlobalOptions } from '../../cli/context.ts';
import { CORPUS, runNode, DOCFIX, startDaemon, type TestDaemon } from './helpers.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function program(): Command {
  const p = addGlobalOptions(new Command('docfix')).exitOverride();
  p.command('audit')
    .description('audit record')
    .action(() => {});
  registerCert(p);
  registerAuditExport(p);
  for (const sub of p.commands) sub.exitOverride();
  return p;
}

async function parse(args: string[]): Promise<{ name: string; options: Record<string, unknown> }> {
  let captured: { name: string; options: Record<string, unknown> } | undefined;
  interceptRuns((name, options) => {
    captured = { name, options: options as Record<string, unknown> };
  });
  try {
    await program().parseAsync(['node', 'docfix', ...args]);
  } finally {
    interceptRuns(undefined);
  }
  if (!captured) throw new Error(`nothing ran for ${args.join(' ')}`);
  return captured;
}

test('argv → options', async () => {
  let r = await parse(['cert', 'verify', 'c.pdf', '--key', 'k.pem', '--document', 'd.pdf']);
  assert.is(r.name, 'cert verify');
  assert.equal(
    { file: r.options.file, key: r.options.key, document: r.options.document },
    { file: 'c.pdf', key: 'k.pem', document: 'd.pdf' },
  );
  r = await parse(['cert', 'verify', 'c.pdf', '--key-url', 'http://x/k']);
  assert.is(r.options.keyUrl, 'http://x/k');
  r = await parse(['cert', 'issue', 'doc_1', '--name', 'Invoice']);
  assert.equal([r.name, r.options.document, r.options.name], ['cert issue', 'doc_1', 'Invoice']);
  r = await parse(['cert', 'pdf', 'cert_1']);
  assert.equal([r.options.output, r.options.force], ['docfix-certificate-cert_1.pdf', false]);
  r = await parse(['audit', 'export', '-o', 'a.ndjson']);
  assert.equal([r.name, r.options.output], ['audit export', 'a.ndjson']);
  r = await parse(['audit', 'export']);
  assert.is(r.options.output, '-');
  const failure = (args: string[]) =>
    parse(args).then(
      () => '',
      (error: Error) => error.message,
    );
  assert.match(await failure(['cert', 'verify', 'c.pdf', '--key', 'a', '--key-url', 'b']), /not both/);
  assert.match(await failure(['cert', 'issue', 'd', '--name', 'x'.repeat(201)]), /at most 200/);
});

/** Runs a command function in-process, capturing stdout/stderr and the exit code. */
async function run(fn: () => Promise<void>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => (
    (stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('latin1')),
    true
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (
    (stderr += String(chunk)),
    true
  )) as typeof process.stderr.write;
  try {
    await fn();
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof CliExit) return { code: error.exitCode, stdout, stderr: stderr + error.message };
    throw error;
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

let d: TestDaemon;
let globals: GlobalOptions;
let documentId = '';
let corrected: Uint8Array;

test.before(async () => {
  d = await startDaemon();
  process.env.DOCFIX_CONFIG_DIR = d.configDir;
  globals = { url: d.url, apiKey: d.apiKey, json: true, verbose: false, color: false, autostart: false };
  const auth = { authorization: `Bearer ${d.apiKey}` };
  const form = new FormData();
  form.set(
    'file',
    new Blob([readFileSync(join(CORPUS, 'latex-minimal.pdf'))], { type: 'application/pdf' }),
    'latex-minimal.pdf',
  );
  const up = (await (
    await fetch(`${d.url}/v1/documents`, { method: 'POST', body: form, headers: auth })
  ).json()) as { document_id: string };
  documentId = up.document_id;
  const post = async (path: string, body: unknown) =>
    (
      await fetch(d.url + path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { ...auth, 'content-type': 'application/json' },
      })
    ).json() as Promise<Record<string, any>>;
  const att = await post('/v1/attestations', { document_id: documentId });
  const request = {
    page_index: 0,
    target: { method: 'text_layer', find: 'nonumy', match_index: 0 },
    replacement: 'nonmuy',
    attestation_id: att.attestation_id,
  };
  const p = await post(`/v1/documents/${documentId}/edits:propose`, request);
  const v = await post(`/v1/documents/${documentId}/edits`, {
    request,
    apply: { proposal_id: p.proposal_id, confirm_token: p.confirm_token },
  });
  assert.ok(v.passed, JSON.stringify(v));
  const dl = await fetch(`${d.url}/v1/documents/${documentId}/export/download`, { headers: auth });
  corrected = new Uint8Array(await dl.arrayBuffer());
});

test.after(async () => {
  delete process.env.DOCFIX_CONFIG_DIR;
  await d?.stop();
});

test('issue, ls, get, pdf, key pinning, verify offline, audit export', async () => {
  const issued = await run(() => runCertIssue({ globals, document: documentId, name: 'CLI test' }));
  assert.is(issued.code, 0, issued.stderr);
  const cert = JSON.parse(issued.stdout);
  assert.is(cert.corrected_sha256, sha(corrected));

  const list = await run(() => runCertList({ globals, document: documentId }));
  assert.equal(
    JSON.parse(list.stdout).map((c: { certificate_id: string }) => c.certificate_id),
    [cert.certificate_id],
  );

  const got = await run(() => runCertGet({ globals, certificate: cert.certificate_id }));
  assert.is(got.code, 0);
  assert.is(JSON.parse(got.stdout).status, 'valid');
  const missing = await run(() => runCertGet({ globals, certificate: 'cert_nosuchthing' })).catch((e) => e);
  assert.is((missing as { code?: string }).code, 'not_found');

  const file = join(d.dir, 'certificate.pdf');
  const saved = await run(() =>
    runCertPdf({ globals, certificate: cert.certificate_id, output: file, force: false }),
  );
  assert.is(saved.code, 0, saved.stderr);
  const bytes = new Uint8Array(readFileSync(file));
  assert.is(sha(bytes), cert.certificate_sha256);
  const again = await run(() =>
    runCertPdf({ globals, certificate: cert.certificate_id, output: file, force: false }),
  ).catch((e) => e);
  assert.match(String((again as Error).message), /exists/);

  // First verify without a key: fetches the daemon's key once and pins it in the config.
  const documentFile = join(d.dir, 'corrected.pdf');
  writeFileSync(documentFile, corrected);
  const first = await run(() => runCertVerify({ globals, file, document: documentFile }));
  assert.is(first.code, 0, first.stderr);
  const firstOut = JSON.parse(first.stdout);
  assert.is(firstOut.valid, true);
  assert.is(firstOut.document.matches, true);
  assert.match(firstOut.key_source, /^pinned for /);
  const config = JSON.parse(readFileSync(join(d.configDir, 'config.json'), 'utf8'));
  const pinned = Object.values(config.certificate_keys as Record<string, { keys: { key_id: string }[] }>)[0];
  assert.is(pinned.keys[0].key_id, cert.key_id);

  // Pinned: verification needs no daemon (a dead address proves no network was used).
  const offline = { ...globals, url: 'http://127.0.0.1:9' };
  const cfg = JSON.parse(readFileSync(join(d.configDir, 'config.json'), 'utf8'));
  cfg.certificate_keys['http://127.0.0.1:9'] = pinned;
  writeFileSync(join(d.configDir, 'config.json'), JSON.stringify(cfg));
  const noNet = await run(() => runCertVerify({ globals: offline, file }));
  assert.is(noNet.code, 0, noNet.stderr);

  // A given key file; a flipped byte is refused with exit 6; the wrong document is refused.
  const keyFile = join(d.dir, 'key.json');
  writeFileSync(keyFile, await (await fetch(`${d.url}/.well-known/docfix-certificate-key`)).text());
  assert.is((await run(() => runCertVerify({ globals: offline, file, key: keyFile }))).code, 0);
  const flipped = bytes.slice();
  flipped[Math.floor(flipped.length / 3)] ^= 1;
  const flippedFile = join(d.dir, 'flipped.pdf');
  writeFileSync(flippedFile, flipped);
  const refused = await run(() => runCertVerify({ globals: offline, file: flippedFile, key: keyFile }));
  assert.is(refused.code, 6);
  assert.is(JSON.parse(refused.stdout).valid, false);
  const wrongDoc = await run(() =>
    runCertVerify({ globals: offline, file, key: keyFile, document: join(CORPUS, 'latex-minimal.pdf') }),
  );
  assert.is(wrongDoc.code, 6);
  assert.match(JSON.parse(wrongDoc.stdout).reason, /the original/);

  // Human output names what is certified.
  const human = await run(() => runCertVerify({ globals: { ...offline, json: false }, file, key: keyFile }));
  assert.is(human.code, 0);
  assert.match(human.stdout, /"nonumy" → "nonmuy"/);
  assert.match(human.stderr, /verifies/);

  const key = await run(() => runCertKey({ globals, refresh: false }));
  assert.is(JSON.parse(key.stdout).keys[0].key_id, cert.key_id);

  const auditFile = join(d.dir, 'audit.ndjson');
  const exported = await run(() => runAuditExport({ globals, output: auditFile, force: false }));
  assert.is(exported.code, 0, exported.stderr);
  const lines = readFileSync(auditFile, 'utf8').trimEnd().split('\n');
  const verdict = JSON.parse(lines.at(-1) as string);
  assert.is(verdict.verdict.intact, true);
  assert.ok(lines.slice(0, -1).some((l) => JSON.parse(l).action === 'certificate.issue'));
});

test('through bin/docfix.js: the cert commands are registered and verify offline', async () => {
  const help = await runNode(DOCFIX, ['help', 'cert'], d.env);
  assert.is(help.code, 0, 'cli/main.ts registers `cert`');
  const keyFile = join(d.dir, 'key.json');
  const res = await runNode(
    DOCFIX,
    ['cert', 'verify', join(d.dir, 'certificate.pdf'), '--key', keyFile, '--json'],
    {
      ...d.env,
      DOCFIX_URL: 'http://127.0.0.1:9',
    },
  );
  assert.is(res.code, 0, res.stderr);
  assert.is(JSON.parse(res.stdout).valid, true);
});

test.run();
