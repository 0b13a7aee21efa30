// Certificates: issue, ls, get (public check by id), pdf (download), key (the pinned signing key),
// and verify — which checks a certificate file offline, with no daemon and no network (except
// --key-url), against the given key or the key pinned from the configured daemon the first time.
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { EXIT } from '../../src/errors.ts';
import { parsePublicKeys, toBase64Url, type PublicKeyInfo } from '../../src/certificates/crypto.ts';
import { verifyCertificateOffline, type OfflineVerification } from '../../src/certificates/verify-offline.ts';
import type { CertificateStatement } from '../../src/certificates/statement.ts';
import { openLocalConfig, type PinnedCertificateKeys } from '../../src/local-config.ts';
import { mupdf } from '../../src/pdf/mupdf-adapter.ts';
import type { CertificateCheckOut, CertificateOut } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  ConnectionError,
  dispatch,
  failure,
  getClient,
  globalOptions,
  info,
  print,
  printJson,
  resolveTarget,
  success,
  table,
  UsageError,
  warn,
  type GlobalOptions,
} from '../context.ts';
import { resolveDocumentId } from '../shared.ts';

export interface CertIssueOptions {
  globals: GlobalOptions;
  document: string;
  name?: string;
}
export interface CertListOptions {
  globals: GlobalOptions;
  document: string;
}
export interface CertIdOptions {
  globals: GlobalOptions;
  certificate: string;
}
export interface CertPdfOptions extends CertIdOptions {
  output: string;
  force: boolean;
}
export interface CertKeyOptions {
  globals: GlobalOptions;
  refresh: boolean;
}
export interface CertVerifyOptions {
  globals: GlobalOptions;
  file: string;
  key?: string;
  keyUrl?: string;
  document?: string;
}

export function register(program: Command): void {
  const cert = program
    .command('cert')
    .description('Signed verification certificates: issue, list, download, check, verify offline');

  cert
    .command('issue')
    .description('Issue a certificate for a document as it now stands (Business plan)')
    .argument('<document>', 'document id, or a unique prefix of it')
    .option('--name <text>', 'a name printed in the certificate PDF and kept nowhere else (≤ 200 characters)')
    .addHelpText('after', '\nExamples:\n  $ docfix cert issue 3f2a --name "Invoice 2026-114"')
    .action(async (document: string, o: { name?: string }, cmd: Command) => {
      if (o.name !== undefined && [...o.name].length > 200)
        throw new UsageError('--name is at most 200 characters');
      const options: CertIssueOptions = {
        globals: globalOptions(cmd),
        document,
        ...(o.name !== undefined ? { name: o.name } : {}),
      };
      await dispatch('cert issue', options, runCertIssue);
    });

  cert
    .command('ls')
    .alias('list')
    .description("List a document's certificates, newest first")
    .argument('<document>', 'document id, or a unique prefix of it')
    .addHelpText('after', '\nExamples:\n  $ docfix cert ls 3f2a')
    .action(async (document: string, _o: unknown, cmd: Command) => {
      await dispatch(
        'cert ls',
        { globals: globalOptions(cmd), document } satisfies CertListOptions,
        runCertList,
      );
    });

  cert
    .command('get')
    .description('Ask the service about a certificate by id (public; exit 6 unless it is valid)')
    .argument('<certificate>', 'certificate id')
    .addHelpText('after', '\nExamples:\n  $ docfix cert get cert_abc… --json')
    .action(async (certificate: string, _o: unknown, cmd: Command) => {
      await dispatch(
        'cert get',
        { globals: globalOptions(cmd), certificate } satisfies CertIdOptions,
        runCertGet,
      );
    });

  cert
    .command('pdf')
    .description('Download the certificate PDF')
    .argument('<certificate>', 'certificate id')
    .option('-o, --output <file>', 'where to write it (default: docfix-certificate-ID.pdf; "-" for stdout)')
    .option('-f, --force', 'overwrite an existing file')
    .addHelpText('after', '\nExamples:\n  $ docfix cert pdf cert_abc… -o certificate.pdf')
    .action(async (certificate: string, o: { output?: string; force?: boolean }, cmd: Command) => {
      const options: CertPdfOptions = {
        globals: globalOptions(cmd),
        certificate,
        output: o.output ?? `docfix-certificate-${certificate}.pdf`,
        force: Boolean(o.force),
      };
      await dispatch('cert pdf', options, runCertPdf);
    });

  cert
    .command('key')
    .description(
      'Show the certificate signing key pinned for the configured daemon (--refresh fetches and pins it again)',
    )
    .option('--refresh', 'fetch the published key(s) now and pin them')
    .addHelpText('after', '\nExamples:\n  $ docfix cert key\n  $ docfix cert key --refresh')
    .action(async (o: { refresh?: boolean }, cmd: Command) => {
      await dispatch(
        'cert key',
        { globals: globalOptions(cmd), refresh: Boolean(o.refresh) } satisfies CertKeyOptions,
        runCertKey,
      );
    });

  cert
    .command('verify')
    .description('Check a certificate file offline: signature, seal and key (exit 6 if it does not verify)')
    .argument('<file>', 'the certificate PDF')
    .option(
      '--key <key>',
      'the public key: a file (PEM, base64url, hex, or the published JSON) or the key itself',
    )
    .option('--key-url <url>', 'fetch the public key from this address (the only network use)')
    .option('--document <pdf>', 'also check that this corrected PDF is the one certified (by SHA-256)')
    .addHelpText(
      'after',
      `
Without --key or --key-url the key pinned for the configured daemon is used; the first time, it is
fetched from that daemon (GET /.well-known/docfix-certificate-key) and pinned in the CLI's config.

Examples:
  $ docfix cert verify certificate.pdf
  $ docfix cert verify certificate.pdf --key docfix-key.pem --document corrected.pdf
  $ docfix cert verify certificate.pdf --key-url https://docfix.example/.well-known/docfix-certificate-key`,
    )
    .action(async (file: string, o: { key?: string; keyUrl?: string; document?: string }, cmd: Command) => {
      if (o.key && o.keyUrl) throw new UsageError('give --key or --key-url, not both');
      const options: CertVerifyOptions = {
        globals: globalOptions(cmd),
        file,
        ...(o.key ? { key: o.key } : {}),
        ...(o.keyUrl ? { keyUrl: o.keyUrl } : {}),
        ...(o.document ? { document: o.document } : {}),
      };
      await dispatch('cert verify', options, runCertVerify);
    });
}

// ───────────────────────────── API commands ─────────────────────────────

function certRow(cert: CertificateOut): string[] {
  return [
    cert.certificate_id,
    cert.issued_at.replace('T', ' ').slice(0, 19),
    String(cert.corrections),
    cert.key_id,
    cert.pdf_available === false ? c.dim('deleted') : 'yes',
  ];
}

export async function runCertIssue(o: CertIssueOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const cert = await client.call('issueCertificate', {
    params: { document_id: id },
    body: o.name !== undefined ? { name: o.name } : {},
  });
  if (o.globals.json) return printJson(cert);
  success(
    `Certificate issued for ${cert.corrections} correction${cert.corrections === 1 ? '' : 's'} (key ${cert.key_id})`,
  );
  info(`  corrected sha256  ${cert.corrected_sha256}`);
  info(`  file sha256       ${cert.certificate_sha256}`);
  info(`  download: docfix cert pdf ${cert.certificate_id}`);
  print(cert.certificate_id);
}

export async function runCertList(o: CertListOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const certs = await client.call('listCertificates', { params: { document_id: id } });
  if (o.globals.json) return printJson(certs);
  if (certs.length === 0) return info(`No certificates. Issue one with: docfix cert issue ${id}`);
  table(certs.map(certRow), ['ID', 'ISSUED', 'CORRECTIONS', 'KEY', 'PDF']);
}

export async function runCertGet(o: CertIdOptions): Promise<void> {
  const client = await getClient(o.globals);
  const check = await client.call('checkCertificate', { params: { certificate_id: o.certificate } });
  if (o.globals.json) printJson(check);
  else printCheck(check);
  if (check.status !== 'valid') throw new CliExit(EXIT.verification);
}

function printCheck(check: CertificateCheckOut): void {
  if (check.status === 'valid') success(`Certificate ${check.certificate_id} is valid: ${check.reason}`);
  else failure(`Certificate ${check.certificate_id ?? ''} is ${check.status}: ${check.reason}`);
  const rows: [string, string | null | undefined][] = [
    ['issued', check.issued_at],
    ['corrections', check.corrections == null ? null : String(check.corrections)],
    ['original sha256', check.original_sha256],
    ['corrected sha256', check.corrected_sha256],
    ['file sha256', check.certificate_sha256],
    ['key', check.key_id],
  ];
  for (const [label, value] of rows) if (value) print(`${c.dim(label.padEnd(17))} ${value}`);
}

export async function runCertPdf(o: CertPdfOptions): Promise<void> {
  const client = await getClient(o.globals);
  if (o.output === '-') {
    const bytes = await client.call('certificatePdf', { params: { certificate_id: o.certificate } });
    process.stdout.write(bytes);
    return;
  }
  if (!o.force && existsSync(o.output)) throw new UsageError(`${o.output} exists (use --force to overwrite)`);
  const { bytes } = await client.download(
    'certificatePdf',
    { params: { certificate_id: o.certificate } },
    o.output,
  );
  if (o.globals.json) return printJson({ certificate_id: o.certificate, file: o.output, bytes });
  success(`Saved ${o.output} (${bytes} bytes)`);
}

// ───────────────────────────── pinned keys ─────────────────────────────

type PinnedKeys = PinnedCertificateKeys;

/** Pins are kept in the CLI's config under `certificate_keys`, per daemon address. */
function pinStore() {
  const config = openLocalConfig();
  return {
    get(url: string): PinnedKeys | undefined {
      return config.get('certificate_keys')?.[url];
    },
    set(url: string, keys: PublicKeyInfo[]): PinnedKeys {
      const pinned: PinnedKeys = {
        keys: keys.map((k) => ({ key_id: k.key_id, public_key: toBase64Url(k.public_key) })),
        pinned_at: new Date().toISOString(),
      };
      config.set('certificate_keys', { ...(config.get('certificate_keys') ?? {}), [url]: pinned });
      return pinned;
    },
  };
}

function pinnedToKeys(pinned: PinnedKeys): PublicKeyInfo[] {
  return pinned.keys.flatMap((k) => parsePublicKeys(k.public_key));
}

async function fetchDaemonKeys(globals: GlobalOptions): Promise<{ url: string; keys: PublicKeyInfo[] }> {
  const client = await getClient(globals);
  const published = await client.call('certificateKey');
  return { url: client.baseUrl, keys: parsePublicKeys(JSON.stringify(published)) };
}

/** The pinned keys of the configured daemon; fetched and pinned the first time. */
async function pinnedKeys(
  globals: GlobalOptions,
  refresh = false,
): Promise<{ url: string; keys: PublicKeyInfo[]; fresh: boolean }> {
  const store = pinStore();
  const url = resolveTarget(globals).url.replace(/\/+$/, '');
  const pinned = refresh ? undefined : store.get(url);
  if (pinned) return { url, keys: pinnedToKeys(pinned), fresh: false };
  let fetched: { url: string; keys: PublicKeyInfo[] };
  try {
    fetched = await fetchDaemonKeys(globals);
  } catch (error) {
    if (error instanceof ConnectionError) {
      throw new ConnectionError(
        `${error.message}; no certificate key is pinned for ${url} yet (give --key FILE or --key-url URL to verify without it)`,
        error.url,
        { cause: error },
      );
    }
    throw error;
  }
  store.set(fetched.url, fetched.keys);
  if (fetched.url !== url) store.set(url, fetched.keys);
  return { url, keys: fetched.keys, fresh: true };
}

export async function runCertKey(o: CertKeyOptions): Promise<void> {
  const { url, keys, fresh } = await pinnedKeys(o.globals, o.refresh);
  if (o.globals.json) {
    return printJson({
      url,
      keys: keys.map((k) => ({ key_id: k.key_id, public_key: toBase64Url(k.public_key) })),
    });
  }
  if (fresh) success(`Pinned ${keys.length} key${keys.length === 1 ? '' : 's'} of ${url}`);
  table(
    keys.map((k, i) => [k.key_id, toBase64Url(k.public_key), i === 0 ? 'current' : 'earlier']),
    ['KEY ID', 'PUBLIC KEY (base64url)', ''],
  );
}

async function readKeyOption(value: string): Promise<PublicKeyInfo[]> {
  let text = value;
  if (existsSync(value)) {
    try {
      text = await readFile(value, 'utf8');
    } catch (error) {
      throw new UsageError(
        `cannot read the key file ${value}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  try {
    return parsePublicKeys(text);
  } catch (error) {
    throw new UsageError(`--key: ${(error as Error).message}`);
  }
}

async function fetchKeyUrl(url: string): Promise<PublicKeyInfo[]> {
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(15_000),
      headers: { accept: 'application/json, text/plain' },
    });
  } catch (error) {
    throw new CliExit(EXIT.auth, `could not fetch the key from ${url}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new CliExit(EXIT.auth, `${url} answered ${response.status}`);
  try {
    return parsePublicKeys(await response.text());
  } catch (error) {
    throw new CliExit(EXIT.auth, `${url} did not answer with a public key: ${(error as Error).message}`);
  }
}

// ───────────────────────────── verify offline ─────────────────────────────

async function readInput(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${what} ${path}: no such file` : `${what} ${path}: cannot read (${code})`,
    );
  }
}

export async function runCertVerify(o: CertVerifyOptions): Promise<void> {
  const file = await readInput(o.file, 'certificate');
  const document = o.document ? await readInput(o.document, 'document') : undefined;
  let keys: PublicKeyInfo[];
  let keySource: string;
  if (o.key) {
    keys = await readKeyOption(o.key);
    keySource = `--key ${o.key}`;
  } else if (o.keyUrl) {
    keys = await fetchKeyUrl(o.keyUrl);
    keySource = o.keyUrl;
  } else {
    const pinned = await pinnedKeys(o.globals);
    keys = pinned.keys;
    keySource = `pinned for ${pinned.url}`;
    if (pinned.fresh) info(`Pinned the certificate key of ${pinned.url} (first use).`);
  }
  // MuPDF reports repairs of a damaged file on stderr; keep them for --verbose only.
  const engineLog: string[] = [];
  mupdf.setLog((message: string) => engineLog.push(message));
  let result: OfflineVerification;
  try {
    result = verifyCertificateOffline(file, keys, document ? { document } : {});
  } finally {
    mupdf.setLog(null);
  }
  if (o.globals.verbose) for (const line of engineLog) info(c.dim(`mupdf: ${line}`));
  if (o.globals.json) printJson({ ...result, key_source: keySource });
  else printVerification(result, keySource);
  if (!result.valid) throw new CliExit(EXIT.verification);
}

function printVerification(result: OfflineVerification, keySource: string): void {
  const s = result.statement;
  if (result.valid && s) {
    success(`Certificate ${s.certificate_id} verifies (key ${s.key_id}, ${keySource})`);
    printStatement(s);
  } else {
    failure(`The certificate does not verify: ${result.reason}`);
  }
  for (const check of result.checks) {
    info(`  ${check.passed ? c.green('✓') : c.red('X')} ${check.name.padEnd(20)} ${check.detail}`);
  }
  if (!result.valid && s) warn('What the file claims (not verified):');
  if (!result.valid && s) printStatement(s);
}

function printStatement(s: CertificateStatement): void {
  const line = (label: string, value: string) => print(`${c.dim(label.padEnd(17))} ${value}`);
  line('certificate', s.certificate_id);
  line('issued', s.issued_at);
  line('original sha256', s.original_sha256);
  line('corrected sha256', s.corrected_sha256);
  line(
    'verification',
    `${s.verification.verification_id} (${s.verification.renderer}, ${s.verification.dpi} dpi, ${s.verification.passed ? 'passed' : 'did not pass'})`,
  );
  line('audit head', `${s.audit.head_hash} (${s.audit.entries} entries)`);
  line('corrections', String(s.corrections.length));
  for (const k of s.corrections) {
    const box = k.box_render ? ` [${k.box_render.join(',')}]@${k.box_dpi}` : '';
    print(
      `  #${k.seq} page ${k.page_index}${box}: ${JSON.stringify(k.text_before)} → ${JSON.stringify(k.text_after)}`,
    );
    print(
      `      tier ${k.tier} ${k.tier_name}, cost ${k.visibility_cost}, ${k.changed_pixels} px changed, ${k.outside_pixels} outside`,
    );
  }
  print(c.dim(s.scope));
}
