// The one error handler: a DocfixError becomes its status and the spec's body (edge codes at the top
// level, the rest inside `detail`); schema failures become 422 invalid_request with `problems` and the
// HTTPValidationError `detail` array; a full disk becomes 507 insufficient_storage; anything else
// becomes internal_error, logged and never echoed. The framework's own refusals answer in the same
// shape: before routing (handleFrameworkError) and on the socket, before there is a request
// (answerClientError).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { DocfixError, ERRORS } from '../src/errors.ts';
import { insufficientStorage, isStorageFull } from './storage/storage-full.ts';

interface AjvIssue {
  instancePath?: string;
  schemaPath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

function problemsOf(
  issues: AjvIssue[],
  part: string,
): { field: string; problem: string; loc: (string | number)[]; type: string }[] {
  return issues.map((issue) => {
    const path = (issue.instancePath ?? '').split('/').filter(Boolean);
    if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
      path.push(issue.params.missingProperty);
    }
    if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
      path.push(issue.params.additionalProperty);
    }
    const problem =
      issue.keyword === 'required'
        ? 'is required'
        : issue.keyword === 'additionalProperties'
          ? 'is not a known field'
          : (issue.message ?? 'is not valid');
    const loc = [part, ...path.map((p) => (/^\d+$/.test(p) ? Number(p) : p))];
    return { field: [part, ...path].join('.'), problem, loc, type: issue.keyword ?? 'invalid' };
  });
}

export function invalidRequest(
  message: string,
  problems: { field: string; problem: string; loc?: (string | number)[]; type?: string }[],
) {
  return {
    error: 'invalid_request',
    message,
    problems: problems.map(({ field, problem }) => ({ field, problem })),
    detail: problems.map((p) => ({
      loc: p.loc ?? p.field.split('.'),
      msg: p.problem,
      type: p.type ?? 'invalid',
    })),
  };
}

export function sendDocfixError(reply: FastifyReply, error: DocfixError): FastifyReply {
  const facts = ERRORS[error.code];
  const retry = error.extra.retry_after;
  if (typeof retry === 'number') reply.header('Retry-After', String(Math.ceil(retry)));
  if (error.code === 'invalid_request') {
    const problems = (error.extra.problems as { field: string; problem: string }[] | undefined) ?? [];
    return reply.code(facts.status).send(invalidRequest(error.message, problems));
  }
  const body = error.toJSON();
  return reply.code(facts.status).send(facts.where === 'edge' ? body : { detail: body });
}

export function handleError(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof DocfixError) {
    // A service-side failure answers with its code and a message written for the client; what
    // caused it (the exception and its stack) goes to the log only.
    if (error.status >= 500 && error.code !== 'busy') {
      request.log.error({ err: error.cause ?? error, code: error.code }, error.message);
    }
    return sendDocfixError(reply, error);
  }
  if (isStorageFull(error)) {
    request.log.error({ err: error }, 'the disk is full');
    return sendDocfixError(reply, insufficientStorage('this change', error));
  }
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fastifyError.validation) {
    const problems = problemsOf(fastifyError.validation, fastifyError.validationContext ?? 'body');
    const summary = problems.map((p) => `${p.field} ${p.problem}`).join('; ');
    return reply.code(422).send(invalidRequest(`The request is not valid: ${summary}.`, problems));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(422).send(
        invalidRequest('This route takes application/json (or multipart/form-data for uploads).', [
          {
            field: 'content-type',
            problem: `is not accepted: ${request.headers['content-type'] ?? 'none'}`,
          },
        ]),
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply
        .code(422)
        .send(
          invalidRequest('The request body is too large.', [
            { field: 'body', problem: 'is over the size limit' },
          ]),
        );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply
        .code(422)
        .send(
          invalidRequest('The request body is not valid JSON.', [
            { field: 'body', problem: 'is not valid JSON' },
          ]),
        );
    case 'FST_ERR_REQ_FILE_TOO_LARGE':
      return sendDocfixError(reply, new DocfixError('file_too_large'));
  }
  if (fastifyError.statusCode && fastifyError.statusCode < 500) {
    return reply
      .code(422)
      .send(
        invalidRequest(`The request could not be read: ${fastifyError.message}`, [
          { field: 'request', problem: fastifyError.message },
        ]),
      );
  }
  request.log.error({ err: error }, 'internal error');
  return sendDocfixError(
    reply,
    new DocfixError('internal_error', 'Something failed on the service side; nothing changed.'),
  );
}

/** Errors fastify raises before a route runs: a URL it cannot decode, a path parameter too long. */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return reply
        .code(422)
        .send(
          invalidRequest('The URL could not be read: it holds a malformed percent-encoding.', [
            { field: 'url', problem: 'is not a valid URL (malformed percent-encoding)' },
          ]),
        );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Every id is at most 100 characters: a longer one names nothing.
      return sendDocfixError(
        reply,
        new DocfixError('not_found', 'Nothing on this account has that id: ids are at most 100 characters.'),
      );
  }
  return handleError(error, request, reply);
}

/** What the socket's refusals say (Node's `clientError`: the request never became one). */
function clientErrorBody(error: NodeJS.ErrnoException): { message: string; field: string; problem: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        message: 'The request did not arrive in time: its headers stalled.',
        field: 'headers',
        problem: 'did not arrive within the time allowed',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        message: 'The request headers are too large.',
        field: 'headers',
        problem: 'are over the size limit',
      };
    default:
      return {
        message: 'The request could not be read as HTTP.',
        field: 'request',
        problem: `is not valid HTTP (${error.code ?? 'unreadable'})`,
      };
  }
}

/**
 * Node's `clientError` (fastify's clientErrorHandler, `this` the instance): a request that could
 * not be read at all — huge or stalled headers, broken HTTP — answers 422 invalid_request in the
 * service's shape, written on the socket, which is then closed.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { message, field, problem } = clientErrorBody(error);
  const body = JSON.stringify(invalidRequest(message, [{ field, problem }]));
  this.log.debug({ err: error }, 'client error');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // Closed once written: the client may never end its side (a stalled request).
  socket.end(
    `HTTP/1.1 422 Unprocessable Entity\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
