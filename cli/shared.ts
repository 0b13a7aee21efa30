// Helpers several commands share: document ids by unique prefix, passwords without argv, file checks.
import { open, readFile, stat } from 'node:fs/promises';
import type { ApiClient } from '../src/api-client.ts';
import { DocfixError } from '../src/errors.ts';
import type { DocumentOut } from '../src/schemas.ts';
import { UsageError } from './context.ts';

/** --lang of every command that recognises a page (ocr, preflight, review; propose, apply, fix with OCR). */
export const LANG_HELP =
  "recognition language, as docfix ocr --languages lists it (e.g. eng, rus); default: the page's own";

/**
 * Resolves a document id given in full or by a unique prefix (looked up among the newest 200).
 * An id that matches nothing is passed through, so the daemon answers not_found for it.
 */
export async function resolveDocumentId(client: ApiClient, given: string): Promise<string> {
  if (given.length >= 16) {
    // Most likely a whole id: one request to know.
    try {
      await client.call('getDocument', { params: { document_id: given } });
      return given;
    } catch (error) {
      if (!(error instanceof DocfixError && error.code === 'not_found') || error.extra.route_missing)
        throw error;
    }
  }
  const docs = await client.call('listDocuments', { query: { limit: 200 } });
  if (docs.some((d) => d.document_id === given)) return given;
  const matches = docs.filter((d) => d.document_id.startsWith(given));
  if (matches.length === 1) return matches[0].document_id;
  if (matches.length > 1) {
    const list = matches
      .slice(0, 5)
      .map((d) => d.document_id)
      .join(', ');
    throw new UsageError(`"${given}" matches ${matches.length} documents (${list}…); give more of the id`);
  }
  if (given.length < 8) throw new DocfixError('not_found', `no document id starts with "${given}"`);
  return given;
}

/** A local file's bytes (`what` names it in the message: "certificate", "original"…); a usage error when it cannot be read. */
export async function readInputFile(path: string, what: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${what} ${path}: no such file` : `${what} ${path}: cannot read (${code})`,
    );
  }
}

/** A PDF path to upload: it must exist, be a regular file and be readable. */
export async function checkInputFile(path: string): Promise<{ size: number }> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${code})`);
  }
  if (info.isDirectory()) throw new UsageError(`${path} is a directory, not a PDF file`);
  if (!info.isFile()) throw new UsageError(`${path} is not a regular file`);
  let handle;
  try {
    handle = await open(path, 'r');
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, 1024, 0);
    if (!head.subarray(0, bytesRead).includes('%PDF-')) {
      throw new DocfixError('not_a_pdf', `${path} is not a PDF (no %PDF- header)`);
    }
  } catch (error) {
    if (error instanceof DocfixError) throw error;
    throw new UsageError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? error})`);
  } finally {
    await handle?.close();
  }
  return { size: info.size };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * The plan's upload limit in bytes (GET /v1/usage), or undefined when the service does not say.
 * Checked before sending: a server that answers 413 mid-upload and closes the connection can lose
 * its answer in the race, and there is no point sending 30 MB to hear no.
 */
export async function uploadLimit(client: ApiClient): Promise<number | undefined> {
  try {
    const usage = await client.call('usage');
    // -1: no limit (the local plan).
    return usage.upload_limit_mb && usage.upload_limit_mb > 0
      ? usage.upload_limit_mb * 1024 * 1024
      : undefined;
  } catch (error) {
    if (
      error instanceof DocfixError &&
      (error.extra.route_missing || error.code === 'not_available_to_api_keys')
    ) {
      return undefined;
    }
    throw error;
  }
}

/** Throws file_too_large when a file is over the limit (the server stays the authority). */
export function checkUploadSize(path: string, size: number, limit: number | undefined): void {
  if (limit !== undefined && size > limit) {
    throw new DocfixError(
      'file_too_large',
      `${path} is ${mb(size)}; this plan accepts files up to ${mb(limit)}`,
    );
  }
}

/** Reads all of stdin as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks for a secret on the terminal without echoing it. */
export function promptSecret(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (result: string | Error) => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(value);
        if (ch === '\u0003') return done(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Asks a yes/no question on the terminal (default no). */
export async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** Where a password comes from: never argv by default. */
export type PasswordSource = { kind: 'prompt' } | { kind: 'stdin' } | { kind: 'file'; path: string };

/** commander value of `--password [-]`: alone → prompt (or stdin when not a TTY), `-` → stdin. */
export function passwordSource(
  flag: string | boolean | undefined,
  file?: string,
): PasswordSource | undefined {
  if (file) return { kind: 'file', path: file };
  if (flag === undefined || flag === false) return undefined;
  if (flag === true) return { kind: 'prompt' };
  if (flag === '-') return { kind: 'stdin' };
  throw new UsageError(
    'a password is never taken on the command line: use --password (prompt), --password - (stdin) or --password-file FILE',
  );
}

export async function readPassword(source: PasswordSource | undefined): Promise<string | undefined> {
  if (!source) return undefined;
  if (source.kind === 'file') {
    try {
      return (await readFile(source.path, 'utf8')).replace(/\r?\n$/, '');
    } catch (error) {
      throw new UsageError(
        `cannot read the password file ${source.path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  if (source.kind === 'prompt' && process.stdin.isTTY) return promptSecret('PDF password: ');
  return (await readStdin()).replace(/\r?\n$/, '');
}

export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 12) : id;
}

export function docLine(d: DocumentOut): string[] {
  return [
    d.document_id,
    d.filename_hint || '-',
    `${d.page_count} page${d.page_count === 1 ? '' : 's'}`,
    d.state,
    d.head_revision_id ? 'corrected' : 'original',
    d.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
  ];
}
