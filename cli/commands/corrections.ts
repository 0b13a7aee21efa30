// The corrected document: verify, corrections, undo, redo, manifest, export (and download).
import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { EXIT } from '../../src/errors.ts';
import type { UndoOut } from '../../src/schemas.ts';
import {
  c,
  CliExit,
  dispatch,
  failure,
  getClient,
  globalOptions,
  info,
  onInterrupt,
  print,
  removeOwnTemporaries,
  printJson,
  success,
  table,
  UsageError,
  withSpinner,
  warn,
  type GlobalOptions,
} from '../context.ts';
import { CORRECTION_HEADERS, correctionRow, verificationLines } from '../render.ts';
import { runVerifyFiles, type VerifyFilesOptions } from '../rederive-report.ts';
import { passwordSource, resolveDocumentId } from '../shared.ts';

export interface DocOptions {
  globals: GlobalOptions;
  document: string;
}
export interface ExportOptions extends DocOptions {
  output?: string;
}
export interface VerifyOptions extends DocOptions {
  /** Write a picture of the changed pixels (cli/diff-picture.ts) here. */
  diffPng?: string;
}

const docArg = ['<document>', 'document id, or a unique prefix of it'] as const;

export function register(program: Command): void {
  const simple = (
    name: string,
    description: string,
    run: (o: DocOptions) => Promise<void>,
    examples: string,
  ): Command =>
    program
      .command(name)
      .description(description)
      .argument(...docArg)
      .addHelpText('after', `\nExamples:\n${examples}`)
      .action(async (document: string, _o: unknown, cmd: Command) => {
        await dispatch(name, { globals: globalOptions(cmd), document } satisfies DocOptions, run);
      });

  program
    .command('verify')
    .description(
      'Show the verification of a document on the service, or re-derive the proof of ORIGINAL.pdf CORRECTED.pdf offline (exit 6 if it does not verify)',
    )
    .argument(
      '<document>',
      'document id (or a unique prefix of it); or the original PDF, with the corrected PDF next',
    )
    .argument(
      '[corrected]',
      'the corrected PDF: re-derive its proof from the two files alone (no daemon, no key)',
    )
    .option(
      '--diff-png <file>',
      'also write a picture of the latest correction: changed pixels in red over the page, the declared box in blue',
    )
    .option(
      '--password [-]',
      'with two PDFs: they need a password: prompt for it, or read it from stdin with "-"',
    )
    .option('--password-file <file>', 'with two PDFs: read their password from a file')
    .addHelpText(
      'after',
      `
With a document id, the verification the service stored for the document as it now stands. The
picture is made from the page previews (low resolution) of the revision before and after the
latest correction; pixels changed outside the declared box show in magenta. With several changed
pages, FILE-pN.png for each. The verification itself compares every pixel at 300 dpi.

With two PDF files, nothing is asked of a service: the manifest embedded in CORRECTED.pdf says what
each correction changed, and every claim is checked again from the two files: the objects compared
token for token, every page rendered by MuPDF and by PDFium at 300 dpi with no pixel changed outside
the declared boxes, and the text layer reading each new text in its box. Exit 0 only when all hold;
6 when one does not, and when CORRECTED.pdf carries no docfix manifest (every change undeclared).

Examples:
  $ docfix verify 3f2a
  $ docfix verify 3f2a --diff-png change.png
  $ docfix verify invoice.pdf invoice-fixed.pdf
  $ docfix verify invoice.pdf invoice-fixed.pdf --json > proof.json`,
    )
    .action(
      async (
        document: string,
        corrected: string | undefined,
        o: { diffPng?: string; password?: string | boolean; passwordFile?: string },
        cmd: Command,
      ) => {
        const password = passwordSource(o.password, o.passwordFile);
        if (corrected !== undefined) {
          if (o.diffPng) throw new UsageError('--diff-png is for a document on the service, not two files');
          const options: VerifyFilesOptions = {
            globals: globalOptions(cmd),
            original: document,
            corrected,
            ...(password ? { password } : {}),
          };
          await dispatch('verify files', options, runVerifyFiles);
          return;
        }
        if (password)
          throw new UsageError('--password is for two PDF files (docfix verify ORIGINAL CORRECTED)');
        const options: VerifyOptions = {
          globals: globalOptions(cmd),
          document,
          ...(o.diffPng ? { diffPng: o.diffPng } : {}),
        };
        await dispatch('verify', options, runVerify);
      },
    );
  simple(
    'corrections',
    'List the corrections standing, oldest first',
    runCorrections,
    '  $ docfix corrections 3f2a',
  );
  simple(
    'undo',
    'Step back the most recent correction (nothing is deleted)',
    runUndo,
    '  $ docfix undo 3f2a',
  );
  simple('redo', 'Restore the most recently undone correction', runRedo, '  $ docfix redo 3f2a');
  simple(
    'manifest',
    'Print the provenance manifest embedded in the corrected file (JSON, byte for byte)',
    runManifest,
    '  $ docfix manifest 3f2a > manifest.json',
  );

  program
    .command('export')
    .description('Release the corrected document through the export gate; with -o, download it')
    .argument(...docArg)
    .option('-o, --output <file>', 'write the corrected PDF here (never a partial file)')
    .addHelpText(
      'after',
      `
Exits 6 when the gate will not release the document (not verified, changed since, failed).

Examples:
  $ docfix export 3f2a
  $ docfix export 3f2a -o corrected.pdf`,
    )
    .action(async (document: string, o: { output?: string }, cmd: Command) => {
      const options: ExportOptions = {
        globals: globalOptions(cmd),
        document,
        ...(o.output ? { output: o.output } : {}),
      };
      await dispatch('export', options, runExport);
    });
}

export async function runVerify(o: VerifyOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const v = await withSpinner(
    'Verifying',
    client.call('getVerification', { params: { document_id: id }, retry: true }),
  );
  if (o.globals.json) printJson(v);
  else for (const line of verificationLines(v)) info(line);
  if (o.diffPng) {
    const document = await client.call('getDocument', { params: { document_id: id } });
    // pngjs and pixelmatch only for --diff-png, not with the command tree.
    const { writeDiffPictures } = await import('../diff-picture.ts');
    const written = await withSpinner('Drawing', writeDiffPictures(client, document, v, o.diffPng));
    if (written.length === 0) warn('no page changed: no picture written');
    for (const w of written)
      success(
        `Wrote ${w.file}: page ${w.page_index}, ${w.changed_pixels} preview pixel(s) changed` +
          (w.outside_pixels ? `, ${w.outside_pixels} outside the declared box (magenta)` : ''),
      );
  }
  if (!v.passed) throw new CliExit(EXIT.verification);
}

export async function runCorrections(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const list = await client.call('listCorrections', { params: { document_id: id } });
  if (o.globals.json) return printJson(list);
  if (list.length === 0) return info('No corrections standing.');
  table(list.map(correctionRow), CORRECTION_HEADERS);
}

function undoLines(verb: string, r: UndoOut): void {
  const k = r.undone;
  success(
    `${verb} correction ${k.seq} on page ${k.page_index}: "${k.text_before ?? '?'}" → "${k.text_after ?? ''}"`,
  );
  const standing = r.corrections?.length;
  if (standing !== undefined) info(c.dim(`  ${standing} correction(s) standing`));
}

export async function runUndo(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const r = await client.call('undo', { params: { document_id: id }, retry: true });
  if (o.globals.json) return printJson(r);
  undoLines('Undid', r);
}

export async function runRedo(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const r = await client.call('redo', { params: { document_id: id }, retry: true });
  if (o.globals.json) return printJson(r);
  undoLines('Redid', r);
}

export async function runManifest(o: DocOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  // Exactly the bytes embedded in the corrected file (it is JSON already, so --json changes nothing).
  const manifest = await client.text('getManifest', { params: { document_id: id } });
  process.stdout.write(process.stdout.isTTY && !manifest.endsWith('\n') ? `${manifest}\n` : manifest);
}

export async function sha256File(path: string): Promise<string> {
  // node:crypto on first use: the command tree (and `docfix help`) does without it.
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function runExport(o: ExportOptions): Promise<void> {
  const client = await getClient(o.globals);
  const id = await resolveDocumentId(client, o.document);
  const out = await withSpinner(
    'Exporting',
    client.call('exportDocument', { params: { document_id: id }, retry: true }),
  );
  if (o.output) {
    const unhook = onInterrupt(removeOwnTemporaries(dirname(resolve(o.output))));
    try {
      await withSpinner(
        'Downloading',
        client.download('downloadDocument', { params: { document_id: id }, retry: true }, o.output),
      );
    } finally {
      unhook();
    }
    const sha = await sha256File(o.output);
    if (sha !== out.output_sha256) {
      await rm(o.output, { force: true });
      failure(`the downloaded file's SHA-256 ${sha} is not the verified ${out.output_sha256}; removed it`);
      throw new CliExit(EXIT.verification);
    }
  }
  if (o.globals.json) return printJson(out);
  success(`Released revision ${out.revision_id} (verification ${out.verification_id})`);
  if (out.marking_applied) info(`  ${c.yellow('!')} marking applied: ${out.marking_applied}`);
  print(`sha256 ${out.output_sha256}`);
  if (o.output) success(`Wrote ${o.output}`);
  else if (out.bytes_available) info(c.dim(`  download it with: docfix export ${o.document} -o FILE`));
}
