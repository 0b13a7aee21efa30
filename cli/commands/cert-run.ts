// The certificate commands' work (cert.ts holds their flags): issue, ls, get, pdf, key, and the
// offline verify. Loaded when a cert command runs, so `docfix help` does not load Ed25519 or MuPDF.
import { existsSync } from 'node:fs';
import { EXIT } from '../../src/errors.ts';
import { keyFingerprint, toBase64Url } from '../../src/certificates/crypto.ts';
import {
  readKeyClaim,
  verifyCertificateOffline,
  type OfflineVerification,
} from '../../src/certificates/verify-offline.ts';
import type { CertificateStatement } from '../../src/certificates/statement.ts';
import { mupdf } from '../../src/pdf/mupdf-adapter.ts';
import type { CertificateCheckOut, CertificateOut } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  failure,
  getClient,
  info,
  print,
  printJson,
  resolveTarget,
  success,
  table,
  UsageError,
  warn,
} from '../context.ts';
import { printRederivation, rederiveFiles } from '../rederive-report.ts';
import { readInputFile, readPassword, resolveDocumentId } from '../shared.ts';
import {
  chooseTrust,
  fetchDaemonKeys,
  pinIssuerKeys,
  pinKeys,
  pinnedKeysOf,
  type Trust,
} from './cert-keys.ts';
import type {
  CertIdOptions,
  CertIssueOptions,
  CertKeyOptions,
  CertListOptions,
  CertPdfOptions,
  CertVerifyOptions,
} from './cert.ts';

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
  await pinIssuerKeys(client, cert.key_id);
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
    return pinIssuerKeys(client);
  }
  if (!o.force && existsSync(o.output)) throw new UsageError(`${o.output} exists (use --force to overwrite)`);
  const { bytes } = await client.download(
    'certificatePdf',
    { params: { certificate_id: o.certificate } },
    o.output,
  );
  // The file is kept: its issuer's key too, so it verifies later with no daemon.
  await pinIssuerKeys(client);
  if (o.globals.json) return printJson({ certificate_id: o.certificate, file: o.output, bytes });
  success(`Saved ${o.output} (${bytes} bytes)`);
}

// ───────────────────────────── pinned keys ─────────────────────────────

/** The keys pinned for the configured daemon; fetched and pinned when none is, or with --refresh. */
export async function runCertKey(o: CertKeyOptions): Promise<void> {
  let url = resolveTarget(o.globals).url.replace(/\/+$/, '');
  let keys = o.refresh ? [] : pinnedKeysOf(url);
  const fresh = keys.length === 0;
  if (fresh) {
    const client = await getClient(o.globals);
    keys = await fetchDaemonKeys(client);
    // Asked for by name: the deployment's keys as it publishes them now replace the earlier pins.
    pinKeys(client.baseUrl, keys, 'replace');
    if (client.baseUrl.replace(/\/+$/, '') !== url) pinKeys(url, keys, 'replace');
    url = client.baseUrl.replace(/\/+$/, '');
  }
  const rows = keys.map((k) => ({
    key_id: k.key_id,
    public_key: toBase64Url(k.public_key),
    fingerprint: keyFingerprint(k.public_key),
  }));
  if (o.globals.json) return printJson({ url, keys: rows });
  if (fresh) success(`Pinned ${keys.length} key${keys.length === 1 ? '' : 's'} of ${url}`);
  table(
    rows.map((k, i) => [k.key_id, k.fingerprint, i === 0 ? 'current' : 'earlier']),
    ['KEY ID', 'FINGERPRINT (SHA-256 of the key)', ''],
  );
}

// ───────────────────────────── verify offline ─────────────────────────────

export async function runCertVerify(o: CertVerifyOptions): Promise<void> {
  const file = await readInputFile(o.file, 'certificate');
  const document = o.document ? await readInputFile(o.document, 'document') : undefined;
  // MuPDF reports repairs of a damaged file on stderr; keep them for --verbose only.
  const engineLog: string[] = [];
  mupdf.setLog((message: string) => engineLog.push(message));
  let result: OfflineVerification;
  let trust: Trust;
  try {
    const claim = readKeyClaim(file);
    trust = await chooseTrust(o, claim, o.file);
    if (trust.kind === 'none') {
      if (o.globals.json) {
        printJson({
          valid: false,
          reason: trust.reason,
          certificate_id: null,
          key_id: claim.key_id,
          key_fingerprint: claim.fingerprint,
          key_source: null,
        });
      }
      throw new CliExit(EXIT.auth, trust.reason);
    }
    result = verifyCertificateOffline(file, trust.keys, {
      ...(document ? { document } : {}),
      ...(trust.names ? { trustedNames: trust.names } : {}),
    });
  } finally {
    mupdf.setLog(null);
  }
  if (o.globals.verbose) for (const line of engineLog) info(c.dim(`mupdf: ${line}`));
  const used = trust.keys.find((k) => k.key_id === result.key_id);
  const fingerprint = used ? keyFingerprint(used.public_key) : null;
  // After the signature: the proof of the certified document re-derived from the files themselves.
  const rederivation =
    o.original && o.document
      ? await rederiveFiles(o.original, o.document, (await readPassword(o.password)) ?? '')
      : undefined;
  if (o.globals.json)
    printJson({
      ...result,
      key_source: trust.source,
      key_fingerprint: fingerprint,
      ...(rederivation ? { rederivation } : {}),
    });
  else {
    printVerification(result, trust.source);
    if (rederivation) printRederivation(rederivation, o.document!);
  }
  if (!result.valid || (rederivation && !rederivation.passed)) throw new CliExit(EXIT.verification);
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
