// `docfix cert check FILE`: asks the service about a certificate file by its exact bytes
// (POST /v1/certificates/verify, public). `docfix cert verify` checks offline; this asks the service,
// which also knows `altered` (a file naming a real certificate whose bytes are not those issued).
// Added under `cert` (made by cert.ts) like `audit export` is added under `audit`.
import type { Command } from 'commander';
import { EXIT } from '../../src/errors.ts';
import {
  c,
  CliExit,
  dispatch,
  failure,
  getClient,
  globalOptions,
  print,
  printJson,
  success,
  type GlobalOptions,
} from '../context.ts';
import { checkInputFile } from '../shared.ts';

export interface CertCheckOptions {
  globals: GlobalOptions;
  file: string;
}

export function register(program: Command): void {
  const cert =
    program.commands.find((cmd) => cmd.name() === 'cert') ??
    program.command('cert').description('Signed verification certificates');
  cert
    .command('check')
    .description('Ask the service about a certificate file by its exact bytes (public; exit 6 unless valid)')
    .argument('<file>', 'the certificate PDF')
    .addHelpText(
      'after',
      '\nFor a check without the service, see: docfix cert verify\n\nExamples:\n  $ docfix cert check certificate.pdf\n  $ docfix cert check certificate.pdf --json',
    )
    .action(async (file: string, _o: unknown, cmd: Command) => {
      await dispatch(
        'cert check',
        { globals: globalOptions(cmd), file } satisfies CertCheckOptions,
        runCertCheck,
      );
    });
}

export async function runCertCheck(o: CertCheckOptions): Promise<void> {
  await checkInputFile(o.file);
  const client = await getClient(o.globals);
  const check = await client.call('verifyCertificateFile', {
    multipart: { file: { path: o.file } },
    retry: true,
  });
  if (o.globals.json) printJson(check);
  else {
    if (check.valid) success(`Certificate ${check.certificate_id ?? ''} is valid: ${check.reason}`);
    else failure(`The certificate is ${check.status}: ${check.reason}`);
    const rows: [string, string | null | undefined][] = [
      ['certificate', check.certificate_id],
      ['issued', check.issued_at],
      ['corrected sha256', check.corrected_sha256],
      ['file sha256', check.certificate_sha256],
      ['key', check.key_id],
    ];
    for (const [label, value] of rows) if (value) print(`${c.dim(label.padEnd(17))} ${value}`);
  }
  if (!check.valid) throw new CliExit(EXIT.verification);
}
