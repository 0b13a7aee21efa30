// The certificate commands: argv → options (without a daemon), then the commands against a real
// daemon process on a real correction — issue, ls, get, pdf, key pinning, verify offline (never a
// daemon: only a key given, or pinned by issue/pdf/key), forged certificates, and audit export. The
// last test stops the daemon and verifies with nothing running and nothing started.
import { Command } from 'commander';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { register as registerAuditExport, runAuditExport } from '../../cli/commands/audit-export.ts';
import { register as registerCert } from '../../cli/commands/cert.ts';
import {
  runCertGet,
  runCertIssue,
  runCertKey,
  runCertList,
  runCertPdf,
  runCertVerify,
} from '../../cli/commands/cert-run.ts';
import { addGlobalOptions, CliExit, type GlobalOptions } from '../../cli/context.ts';
import { CORPUS, parsedRun, runNode, DOCFIX, startDaemon, type TestDaemon } from './helpers.ts';
import { makeCertificate, makeKey } from '../src/certificates/make-certificate.ts';
import { keyFingerprint, toBase64Url } from '../../src/certificates/crypto.ts';

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

const parse = (args: string[]) => parsedRun(program, args);

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
  assert.match(await failure(['cert', 'verify', 'c.pdf', '--key', 'a', '--key-url', 'b']), /not several/);
  const fp = 'AB:'.repeat(31) + 'CD';
  r = await parse(['cert', 'verify', 'c.pdf', '--key-fingerprint', fp]);
  assert.is(r.options.keyFingerprint, 'ab'.repeat(31) + 'cd');
  r = await parse(['cert', 'verify', 'c.pdf', '--key-url', 'http://x/k', '--pin']);
  assert.equal([r.options.keyUrl, r.options.pin], ['http://x/k', true]);
  assert.match(await failure(['cert', 'verify', 'c.pdf', '--key-fingerprint', 'abc']), /64 hex digits/);
  assert.match(
    await failure(['cert', 'verify', 'c.pdf', '--key', 'a', '--key-fingerprint', fp]),
    /not several/,
  );
  assert.match(await failure(['cert', 'verify', 'c.pdf', '--key', 'a', '--pin']), /--pin .*--key-url/);
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

  // `cert issue` pinned the issuing daemon's key in the config: verify uses it, with no daemon asked.
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
  const shown = JSON.parse(key.stdout).keys[0];
  assert.is(shown.key_id, cert.key_id);
  assert.is(shown.fingerprint, sha(Buffer.from(shown.public_key, 'base64url')));
  // The daemon and the CLI both wrote the config (the daemon's default key, the pins): owner only.
  assert.is(statSync(join(d.configDir, 'config.json')).mode & 0o777, 0o600);
  assert.is(statSync(d.configDir).mode & 0o777, 0o700);

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

// ───────────────────────── offline: which key is trusted ─────────────────────────

/** A new, empty CLI configuration for the in-process runs (nothing pinned). */
function freshConfig(): string {
  const dir = mkdtempSync(join(d.dir, 'config-'));
  process.env.DOCFIX_CONFIG_DIR = dir;
  return dir;
}

const pinsIn = (dir: string): unknown => {
  const file = join(dir, 'config.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).certificate_keys : undefined;
};

async function publishedKey(): Promise<{ key_id: string; public_key: string; fingerprint: string }> {
  const published = (await (await fetch(`${d.url}/.well-known/docfix-certificate-key`)).json()) as {
    key_id: string;
    public_key: string;
  };
  return { ...published, fingerprint: sha(Buffer.from(published.public_key, 'base64url')) };
}

test('no key given and none pinned: exit 3 with the fingerprint; --key-fingerprint trusts the right one only', async () => {
  const dir = freshConfig();
  const file = join(d.dir, 'certificate.pdf');
  const genuine = await publishedKey();
  // A dead address as the target: nothing may be asked of any daemon.
  const offline = { ...globals, url: 'http://127.0.0.1:9' };

  const none = await run(() => runCertVerify({ globals: offline, file }));
  assert.is(none.code, 3, none.stderr);
  assert.match(none.stderr, new RegExp(`fingerprint ${genuine.fingerprint}`));
  assert.match(none.stderr, /--key-fingerprint/);
  const noneJson = JSON.parse(none.stdout);
  assert.equal(
    [noneJson.valid, noneJson.key_id, noneJson.key_fingerprint],
    [false, genuine.key_id, genuine.fingerprint],
  );

  const right = await run(() =>
    runCertVerify({ globals: offline, file, keyFingerprint: genuine.fingerprint }),
  );
  assert.is(right.code, 0, right.stderr);
  const rightJson = JSON.parse(right.stdout);
  assert.equal([rightJson.valid, rightJson.key_fingerprint], [true, genuine.fingerprint]);
  assert.match(rightJson.key_source, /^--key-fingerprint /);

  // A fingerprint the person trusts that is not the certificate's key: the certificate fails (6).
  const other = keyFingerprint(makeKey().public_key);
  const wrong = await run(() => runCertVerify({ globals: offline, file, keyFingerprint: other }));
  assert.is(wrong.code, 6);
  assert.match(JSON.parse(wrong.stdout).reason, new RegExp(`only the key with fingerprint ${other}`));
  assert.is(pinsIn(dir), undefined, 'verification pins nothing it was not asked to');

  // --key-url fetches (the only network use) and pins only with --pin.
  const keyUrl = `${d.url}/.well-known/docfix-certificate-key`;
  assert.is((await run(() => runCertVerify({ globals: offline, file, keyUrl }))).code, 0);
  assert.is(pinsIn(dir), undefined);
  assert.is((await run(() => runCertVerify({ globals: offline, file, keyUrl, pin: true }))).code, 0);
  const pinned = await run(() => runCertVerify({ globals: offline, file }));
  assert.is(pinned.code, 0, pinned.stderr);
  assert.is(JSON.parse(pinned.stdout).key_source, `pinned for ${new URL(d.url).origin}`);
});

test('forged certificates fail with exit 6 against the pinned key; an unknown signer is exit 3', async () => {
  freshConfig();
  const genuine = await publishedKey();
  const offline = { ...globals, url: 'http://127.0.0.1:9' };
  const keyUrl = `${d.url}/.well-known/docfix-certificate-key`;
  const file = join(d.dir, 'certificate.pdf');
  assert.is((await run(() => runCertVerify({ globals: offline, file, keyUrl, pin: true }))).code, 0);

  // Bytes changed.
  const flipped = new Uint8Array(readFileSync(file));
  flipped[Math.floor(flipped.length / 2)] ^= 1;
  const flippedFile = join(d.dir, 'forged-bytes.pdf');
  writeFileSync(flippedFile, flipped);
  const changed = await run(() => runCertVerify({ globals: offline, file: flippedFile }));
  assert.is(changed.code, 6);
  assert.is(JSON.parse(changed.stdout).valid, false);

  // Signed by another key that claims the genuine key id and carries the genuine public key.
  const forger = makeKey();
  const claiming = makeCertificate(
    { ...forger, key_id: genuine.key_id },
    { public_key: genuine.public_key, corrected_sha256: sha(corrected) },
  );
  const claimingFile = join(d.dir, 'forged-claiming.pdf');
  writeFileSync(claimingFile, claiming.file);
  const claimed = await run(() => runCertVerify({ globals: offline, file: claimingFile }));
  assert.is(claimed.code, 6);
  const failedChecks = JSON.parse(claimed.stdout).checks.filter((c: { passed: boolean }) => !c.passed);
  assert.ok(failedChecks.some((c: { name: string }) => c.name === 'statement_signature'));
  const byFingerprint = await run(() =>
    runCertVerify({ globals: offline, file: claimingFile, keyFingerprint: genuine.fingerprint }),
  );
  assert.is(byFingerprint.code, 6, 'the genuine fingerprint does not make a forger’s signature good');

  // Signed by the forger's own key, carried honestly: not trusted (3), and the forger's
  // fingerprint is what is printed; against the genuine key given by the person it fails (6).
  const own = makeCertificate(forger, { public_key: toBase64Url(forger.public_key) });
  const ownFile = join(d.dir, 'forged-own.pdf');
  writeFileSync(ownFile, own.file);
  const untrusted = await run(() => runCertVerify({ globals: offline, file: ownFile }));
  assert.is(untrusted.code, 3);
  assert.match(untrusted.stderr, new RegExp(keyFingerprint(forger.public_key)));
  assert.not.match(untrusted.stderr, new RegExp(genuine.fingerprint));
  const keyFile = join(d.dir, 'key.json');
  assert.is((await run(() => runCertVerify({ globals: offline, file: ownFile, key: keyFile }))).code, 6);
  assert.is(
    (await run(() => runCertVerify({ globals: offline, file: ownFile, keyFingerprint: genuine.fingerprint })))
      .code,
    6,
  );
});

/** A TCP port nothing listens on (taken from the kernel, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const answers = (url: string) =>
  fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

test('issue → pdf → stop the daemon → verify: passes with nothing running, nothing started or replaced', async () => {
  // A CLI whose local daemon's data folder is gone, with its key saved: the probe of issue 31.
  const configDir = mkdtempSync(join(d.dir, 'config-'));
  const gone = join(d.dir, 'gone-data');
  const local = {
    url: `http://127.0.0.1:${await freePort()}`,
    api_key: 'dfx_saved_key_of_the_gone_folder',
    key_id: 'key_saved',
    tenant_id: 'default',
    data_dir: gone,
  };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ local }));
  const remote = { DOCFIX_CONFIG_DIR: configDir, DOCFIX_URL: d.url, DOCFIX_API_KEY: d.apiKey };

  const issued = await runNode(DOCFIX, ['cert', 'issue', documentId, '--json'], remote);
  assert.is(issued.code, 0, issued.stderr);
  const cert = JSON.parse(issued.stdout);
  assert.match(issued.stderr, /Pinned the certificate key/);
  const file = join(d.dir, 'offline-certificate.pdf');
  const saved = await runNode(DOCFIX, ['cert', 'pdf', cert.certificate_id, '-o', file], remote);
  assert.is(saved.code, 0, saved.stderr);
  const documentFile = join(d.dir, 'offline-corrected.pdf');
  writeFileSync(documentFile, corrected);
  // Someone else's CLI that only downloads the certificate pins the issuer's key as well.
  const downloaderConfig = mkdtempSync(join(d.dir, 'config-'));
  const downloaded = await runNode(DOCFIX, ['cert', 'pdf', cert.certificate_id, '-o', '-'], {
    ...remote,
    DOCFIX_CONFIG_DIR: downloaderConfig,
  });
  assert.is(downloaded.code, 0, downloaded.stderr);
  assert.match(downloaded.stderr, /Pinned the certificate key/);

  const exited = new Promise((resolve) => d.process.once('exit', resolve));
  d.process.kill('SIGTERM');
  await exited;
  assert.not.ok(await answers(d.url), 'the daemon is stopped');

  // The local daemon is the target (no DOCFIX_URL) and autostart is on: verify must not use it.
  const localEnv = { DOCFIX_CONFIG_DIR: configDir, DOCFIX_URL: '', DOCFIX_API_KEY: '', DOCFIX_DATA_DIR: '' };
  const verified = await runNode(
    DOCFIX,
    ['cert', 'verify', file, '--document', documentFile, '--json'],
    localEnv,
  );
  assert.is(verified.code, 0, verified.stderr);
  const out = JSON.parse(verified.stdout);
  assert.equal([out.valid, out.document.matches, out.key_id], [true, true, cert.key_id]);
  assert.is(out.key_source, `pinned for ${d.url}`);
  assert.not.match(verified.stderr, /Starting/);
  const other = await runNode(DOCFIX, ['cert', 'verify', file, '--json'], {
    ...localEnv,
    DOCFIX_CONFIG_DIR: downloaderConfig,
  });
  assert.is(other.code, 0, other.stderr);
  const config = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  assert.equal(config().local, local, 'the saved key is unchanged');
  assert.not.ok(existsSync(gone), 'no data folder was made');
  assert.not.ok(await answers(local.url), 'no daemon was started');

  // A command that would autostart refuses rather than replace the saved key (no terminal here).
  const listed = await runNode(DOCFIX, ['ls'], localEnv);
  assert.is(listed.code, 3, listed.stderr);
  assert.match(listed.stderr, new RegExp(`data folder ${gone} is gone`));
  assert.match(listed.stderr, /docfix config rm local/);
  assert.equal(config().local, local, 'the saved key is unchanged');
  assert.not.ok(existsSync(gone));
  assert.not.ok(await answers(local.url));
});

test.run();
