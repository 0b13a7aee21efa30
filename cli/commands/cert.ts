// Certificates: issue, ls, get (public check by id), pdf (download), key (the pinned signing key),
// and verify — which checks a certificate file offline: no daemon, no network (except --key-url), and
// only with a key the person trusts (given, or pinned earlier by issue/pdf/key; cert-keys.ts).
import type { Command } from 'commander';
import { dispatch, globalOptions, UsageError, type GlobalOptions } from '../context.ts';
import type { KeyChoice } from './cert-keys.ts';
import { passwordSource, type PasswordSource } from '../shared.ts';

// The work of each command, with Ed25519, MuPDF and the engine (--original), is loaded when the
// command runs: `docfix help` must not pay for it.
const run = () => import('./cert-run.ts');

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
export interface CertVerifyOptions extends KeyChoice {
  globals: GlobalOptions;
  file: string;
  document?: string;
  /** The original PDF: also re-derive the proof of the document's corrections (cli/rederive-report.ts). */
  original?: string;
  /** The password of the original and the corrected PDF, for the re-derivation. */
  password?: PasswordSource;
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
      await dispatch('cert issue', options, async (o) => (await run()).runCertIssue(o));
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
        async (o) => (await run()).runCertList(o),
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
        async (o) => (await run()).runCertGet(o),
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
      await dispatch('cert pdf', options, async (o) => (await run()).runCertPdf(o));
    });

  cert
    .command('key')
    .description(
      'Show the certificate signing keys pinned for the configured daemon, with their fingerprints (--refresh pins them again)',
    )
    .option('--refresh', 'fetch the published key(s) now and pin them in place of the earlier pins')
    .addHelpText('after', '\nExamples:\n  $ docfix cert key\n  $ docfix cert key --refresh')
    .action(async (o: { refresh?: boolean }, cmd: Command) => {
      await dispatch(
        'cert key',
        { globals: globalOptions(cmd), refresh: Boolean(o.refresh) } satisfies CertKeyOptions,
        async (o) => (await run()).runCertKey(o),
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
    .option(
      '--key-fingerprint <hex>',
      'trust the key the certificate carries if its SHA-256 is this (64 hex digits; check it with the issuer)',
    )
    .option('--key-url <url>', 'fetch the public key from this address (the only network use)')
    .option('--pin', "with --key-url: pin the keys it answers, for that address's deployment")
    .option('--document <pdf>', 'also check that this corrected PDF is the one certified (by SHA-256)')
    .option(
      '--original <pdf>',
      'with --document: also re-derive the proof of its corrections from this original (no key needed for that part)',
    )
    .option(
      '--password [-]',
      'with --original: the PDFs need a password: prompt for it, or read it from stdin with "-"',
    )
    .option('--password-file <file>', 'with --original: read their password from a file')
    .addHelpText(
      'after',
      `
It never starts or asks a daemon. Without --key, --key-fingerprint or --key-url it trusts a key pinned
earlier: \`docfix cert issue\`, \`cert pdf\` and \`cert key\` pin the key of the deployment they talk to.
With no trusted key it exits 3 and prints the certificate's key fingerprint to check with the issuer.
Exit 6: the certificate does not verify with the key trusted (a wrong --key-fingerprint included).

Examples:
  $ docfix cert verify certificate.pdf --document corrected.pdf
  $ docfix cert verify certificate.pdf --key docfix-key.pem
  $ docfix cert verify certificate.pdf --document corrected.pdf --original original.pdf
  $ docfix cert verify certificate.pdf --key-fingerprint 3f9c…e1 (all 64 hex digits)
  $ docfix cert verify certificate.pdf --key-url https://docfix.example/.well-known/docfix-certificate-key --pin`,
    )
    .action(async (file: string, o: Record<string, string | boolean | undefined>, cmd: Command) => {
      const given = [o.key, o.keyUrl, o.keyFingerprint].filter(Boolean).length;
      if (given > 1) throw new UsageError('give one of --key, --key-fingerprint and --key-url, not several');
      if (o.pin && !o.keyUrl) throw new UsageError('--pin pins what --key-url answers: give --key-url');
      if (o.original && !o.document) throw new UsageError('--original needs --document (the corrected PDF)');
      const password = passwordSource(o.password, o.passwordFile as string | undefined);
      if (password && !o.original) throw new UsageError('--password is for re-deriving with --original');
      let fingerprint: string | null = null;
      if (typeof o.keyFingerprint === 'string') {
        fingerprint = (await import('../../src/certificates/crypto.ts')).parseFingerprint(o.keyFingerprint);
        if (!fingerprint) throw new UsageError('--key-fingerprint is the 64 hex digits of a SHA-256');
      }
      const options: CertVerifyOptions = {
        globals: globalOptions(cmd),
        file,
        ...(typeof o.key === 'string' ? { key: o.key } : {}),
        ...(typeof o.keyUrl === 'string' ? { keyUrl: o.keyUrl } : {}),
        ...(fingerprint ? { keyFingerprint: fingerprint } : {}),
        ...(o.pin ? { pin: true } : {}),
        ...(typeof o.document === 'string' ? { document: o.document } : {}),
        ...(typeof o.original === 'string' ? { original: o.original } : {}),
        ...(password ? { password } : {}),
      };
      await dispatch('cert verify', options, async (o) => (await run()).runCertVerify(o));
    });
}

// ───────────────────────────── API commands ─────────────────────────────
