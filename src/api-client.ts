// The typed API client: one generic `call(route, input)` over the route table (src/api-routes.ts),
// so a request and its answer have the types the daemon validates against. Errors come back as the
// DocfixError the daemon threw (rebuilt from the body), or as a ConnectionError when the other end is
// not a docfix API at all (network failure, timeout, an HTML page from a proxy).
import { createWriteStream, openAsBlob } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { FormData, Response, request, type Dispatcher } from 'undici';
import { ConnectionError } from './connection-error.ts';
import { DocfixError } from './errors.ts';
import {
  ROUTES,
  fillPath,
  type BodyOf,
  type ParamsOf,
  type QueryOf,
  type ResponseOf,
  type RouteId,
} from './api-routes.ts';

export { ConnectionError };

export interface FileRef {
  /** Path of the file to stream. */
  path: string;
  /** File name sent in the part (default: the path's base name). */
  filename?: string;
  contentType?: string;
}

/** Multipart fields: strings, or files streamed from disk. */
export type MultipartInput = Record<string, string | FileRef>;

export interface Progress {
  sent: number;
  /** Bytes to send, about (the file's size plus the multipart framing). */
  total: number;
}

type Field<K extends string, T> = [T] extends [undefined] ? { [P in K]?: undefined } : { [P in K]: T };

export type CallInput<R extends RouteId> = Field<'params', ParamsOf<R>> & {
  query?: QueryOf<R>;
  body?: BodyOf<R>;
  multipart?: MultipartInput;
  /** Called while a multipart body is sent. */
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
  /** Opt-in: resend on 429/503 after Retry-After, a bounded number of times. */
  retry?: RetryOptions | boolean;
};

/** The input may be left out only when the route has no path parameters. */
export type CallArgs<R extends RouteId> = [ParamsOf<R>] extends [undefined]
  ? [input?: CallInput<R>]
  : [input: CallInput<R>];

export interface ClientOptions {
  /** Base address, e.g. http://127.0.0.1:7341 (a trailing slash is ignored). */
  baseUrl: string;
  apiKey?: string;
  /** Time allowed for the answer's headers and between body chunks (default 300 s). */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** Retry used when a call does not say (default: none). */
  defaultRetry?: RetryOptions;
}

export interface RetryOptions {
  /** Resends after the first attempt (default 3). */
  retries?: number;
  /** Longest wait honoured, seconds (default 30); a longer Retry-After is not waited for. */
  maxWaitS?: number;
  /** Wait when the answer carries no Retry-After, seconds (default 1). */
  defaultWaitS?: number;
  onRetry?: (info: { attempt: number; waitS: number; error: DocfixError }) => void;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

const RETRYABLE = new Set(['busy', 'too_many_requests']);

/** Whether an error is worth resending after a wait (busy, too_many_requests). */
export function isRetryable(error: unknown): error is DocfixError {
  return error instanceof DocfixError && RETRYABLE.has(error.code);
}

/**
 * Runs `fn`, and again after `Retry-After` seconds while it fails with busy/too_many_requests,
 * at most `retries` more times; the last error is thrown as it came.
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const retries = options.retries ?? 3;
  const maxWaitS = options.maxWaitS ?? 30;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isRetryable(error) || attempt >= retries) throw error;
      const after = Number(error.extra.retry_after);
      const waitS = Number.isFinite(after) && after >= 0 ? after : (options.defaultWaitS ?? 1);
      if (waitS > maxWaitS) throw error;
      options.onRetry?.({ attempt: attempt + 1, waitS, error });
      await sleep(waitS * 1000);
    }
  }
}

function parseRetryAfter(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

interface ValidationItem {
  loc?: unknown[];
  msg?: string;
}

/** A 404 from the router rather than a handler: the route itself is not served. */
function routeMissing(context: { method: string; url: string; path: string }): DocfixError {
  return new DocfixError(
    'not_found',
    `the daemon at ${context.url} does not serve ${context.method} ${context.path} (is it an older version?)`,
    { route_missing: true },
  );
}

/** Turns an error answer's body into the DocfixError it stands for (spec Part 7). */
export function errorFromBody(
  status: number,
  data: unknown,
  context: { method: string; url: string; path: string },
): DocfixError {
  const body = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const detail = body.detail;
  if (Array.isArray(detail)) {
    const problems = Array.isArray(body.problems)
      ? body.problems
      : (detail as ValidationItem[]).map((item) => ({
          field: (item.loc ?? []).filter((p) => p !== 'body').join('.'),
          problem: item.msg ?? 'invalid',
        }));
    const message =
      typeof body.message === 'string'
        ? body.message
        : `invalid request: ${(problems as { field: string; problem: string }[]).map((p) => `${p.field} ${p.problem}`).join('; ')}`;
    return new DocfixError('invalid_request', message, { problems });
  }
  if (detail && typeof detail === 'object' && 'error' in detail) {
    const error = DocfixError.fromJSON(detail, `HTTP ${status}`);
    if (error.code === 'not_found' && /^no route\b/i.test(error.message)) return routeMissing(context);
    if (error.code !== 'internal_error' || (detail as Record<string, unknown>).error === 'internal_error')
      return error;
  }
  if (status === 404 && !(detail && typeof detail === 'object')) return routeMissing(context);
  if ('error' in body) {
    const error = DocfixError.fromJSON(body, `HTTP ${status}`);
    if (error.code !== 'internal_error' || body.error === 'internal_error') return error;
  }
  const message =
    typeof body.message === 'string' ? body.message : typeof detail === 'string' ? detail : `HTTP ${status}`;
  return new DocfixError('internal_error', `${context.url} answered ${status}: ${message}`, { status });
}

/** A counting pass-through for upload progress. */
function counter(total: number, onProgress: (p: Progress) => void): Transform {
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      sent += chunk.length;
      onProgress({ sent: Math.min(sent, total), total });
      done(null, chunk);
    },
  });
}

export class ApiClient {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly #dispatcher: Dispatcher | undefined;
  readonly #userAgent: string;
  readonly #defaultRetry: RetryOptions | undefined;

  constructor(options: ClientOptions) {
    this.#defaultRetry = options.defaultRetry;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.#dispatcher = options.dispatcher;
    this.#userAgent = options.userAgent ?? 'docfix-cli';
  }

  /** Calls a route; JSON answers parsed, media answers as bytes, 204 as undefined. */
  async call<R extends RouteId>(route: R, ...rest: CallArgs<R>): Promise<ResponseOf<R>> {
    const input = (rest[0] ?? {}) as CallInput<R>;
    const retry = this.#retryOf(input.retry);
    if (!retry) return this.#once(route, input);
    return withRetry(() => this.#once(route, input), retry);
  }

  /**
   * Calls a media route and streams the answer to `dest` through a temporary name in the same folder,
   * renamed only once every byte arrived: a failure never leaves a partial file.
   */
  async download<R extends RouteId>(route: R, input: CallInput<R>, dest: string): Promise<{ bytes: number }> {
    const run = async () => {
      const { body } = await this.#send(route, input);
      const temp = `${dest}.part-${process.pid}-${Date.now()}`;
      try {
        await pipeline(body, createWriteStream(temp, { flags: 'wx' }));
        const { size } = await stat(temp);
        await rename(temp, dest);
        return { bytes: size };
      } catch (error) {
        await rm(temp, { force: true });
        throw this.#wrapNetwork(error, route);
      }
    };
    const retry = this.#retryOf(input.retry);
    if (!retry) return run();
    return withRetry(run, retry);
  }

  /** Calls a JSON route and answers its body exactly as sent (e.g. the manifest, byte for byte). */
  async text<R extends RouteId>(route: R, ...rest: CallArgs<R>): Promise<string> {
    const input = (rest[0] ?? {}) as CallInput<R>;
    const run = async () => {
      const { body } = await this.#send(route, input);
      try {
        return await body.text();
      } catch (error) {
        throw this.#wrapNetwork(error, route);
      }
    };
    const retry = this.#retryOf(input.retry);
    return retry ? withRetry(run, retry) : run();
  }

  #retryOf(retry: RetryOptions | boolean | undefined): RetryOptions | undefined {
    if (retry === undefined) return this.#defaultRetry;
    if (retry === false) return undefined;
    return retry === true ? (this.#defaultRetry ?? {}) : retry;
  }

  url(route: RouteId, params?: Record<string, string | number>, query?: Record<string, unknown>): string {
    const def = ROUTES[route];
    const url = new URL(this.baseUrl + fillPath(def.path, params));
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async #once<R extends RouteId>(route: R, input: CallInput<R>): Promise<ResponseOf<R>> {
    const def = ROUTES[route] as (typeof ROUTES)[RouteId];
    const { body, headers, url } = await this.#send(route, input);
    try {
      if ('media' in def && def.media === 'empty') {
        await body.dump();
        return undefined as ResponseOf<R>;
      }
      if ('media' in def && def.media) {
        return new Uint8Array(await body.arrayBuffer()) as ResponseOf<R>;
      }
      const text = await body.text();
      const type = String(headers['content-type'] ?? '');
      if (!type.includes('json')) throw this.#notApi(url, type, 200);
      try {
        return JSON.parse(text) as ResponseOf<R>;
      } catch (error) {
        throw new ConnectionError(`${this.baseUrl} answered with malformed JSON for ${def.path}`, url, {
          cause: error,
        });
      }
    } catch (error) {
      throw this.#wrapNetwork(error, route);
    }
  }

  #notApi(url: string, contentType: string, status: number): ConnectionError {
    const what = contentType ? contentType.split(';')[0] : 'no content type';
    return new ConnectionError(
      `${this.baseUrl} answered with ${what} (HTTP ${status}), not the docfix API; check --url`,
      url,
    );
  }

  #wrapNetwork(error: unknown, route: RouteId): unknown {
    if (error instanceof DocfixError || error instanceof ConnectionError) return error;
    if (error instanceof Error && error.name === 'AbortError') return error;
    const code = (error as { code?: string })?.code ?? '';
    const timeout = /TIMEOUT/i.test(code);
    const reason = timeout
      ? `timed out after ${Math.round(this.timeoutMs / 1000)} s`
      : code === 'ECONNREFUSED'
        ? 'connection refused'
        : code === 'ENOTFOUND'
          ? 'host not found'
          : code === 'UND_ERR_SOCKET' || code === 'ECONNRESET'
            ? 'connection closed before the answer was complete'
            : (error as Error)?.message || String(error);
    const before = code === 'ECONNREFUSED' || code === 'ENOTFOUND';
    return new ConnectionError(
      `${before ? 'cannot reach' : 'connection to'} ${this.baseUrl}${before ? '' : ' failed'} (${ROUTES[route].path}): ${reason}`,
      this.baseUrl,
      {
        cause: error,
      },
    );
  }

  async #send<R extends RouteId>(
    route: R,
    input: CallInput<R>,
  ): Promise<{
    body: Dispatcher.ResponseData['body'];
    headers: Dispatcher.ResponseData['headers'];
    url: string;
  }> {
    const def = ROUTES[route] as (typeof ROUTES)[RouteId];
    const url = this.url(
      route,
      input.params as Record<string, string | number> | undefined,
      input.query as Record<string, unknown> | undefined,
    );
    const headers: Record<string, string> = {
      'user-agent': this.#userAgent,
      accept: 'application/json, */*',
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let body: string | Readable | undefined;
    if (input.multipart) {
      const { stream, contentType, total } = await encodeMultipart(input.multipart);
      headers['content-type'] = contentType;
      body = input.onProgress ? stream.pipe(counter(total, input.onProgress)) : stream;
    } else if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    } else if (def.method === 'POST' && 'body' in def) {
      headers['content-type'] = 'application/json';
      body = '{}';
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: def.method,
        headers,
        body,
        signal: input.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        dispatcher: this.#dispatcher,
        // No `reset` (Connection: close) for uploads: a daemon that answers before reading the
        // body (429, 401) would then close the connection while the file is still being sent, and
        // the answer was lost to "write EPIPE". Where the daemon itself closes (413 mid-upload) it
        // says so in its answer, and undici never reuses that socket.
      });
    } catch (error) {
      throw this.#wrapNetwork(error, route);
    }
    const { statusCode, headers: resHeaders } = response;
    if (statusCode >= 200 && statusCode < 300) return { body: response.body, headers: resHeaders, url };

    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw this.#wrapNetwork(error, route);
    }
    const type = String(resHeaders['content-type'] ?? '');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw this.#notApi(url, type, statusCode);
    }
    const error = errorFromBody(statusCode, data, { method: def.method, url: this.baseUrl, path: def.path });
    if (statusCode === 429 || statusCode === 503) {
      const after = parseRetryAfter(resHeaders['retry-after']);
      if (after !== undefined && error.extra.retry_after === undefined) error.extra.retry_after = after;
    }
    throw error;
  }
}

/**
 * Encodes multipart fields with undici's FormData; files are Blobs from `fs.openAsBlob`, read lazily
 * while the body is sent, so a large PDF is never held in memory.
 */
async function encodeMultipart(
  fields: MultipartInput,
): Promise<{ stream: Readable; contentType: string; total: number }> {
  const form = new FormData();
  let total = 0;
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') {
      form.append(name, value);
      total += Buffer.byteLength(value) + 100;
    } else {
      const blob = await openAsBlob(value.path, { type: value.contentType ?? 'application/pdf' });
      form.append(name, blob, value.filename ?? basename(value.path));
      total += blob.size + 200;
    }
  }
  const encoded = new Response(form);
  const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
  if (!encoded.body) throw new Error('multipart body missing');
  return { stream: Readable.fromWeb(encoded.body as WebReadableStream), contentType, total };
}
