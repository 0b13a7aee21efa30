// Builds the OpenAPI 3.1 document from the route table: only the routes the daemon actually serves,
// every schema they use (named schemas become components), and each route's error codes with their
// statuses from the one error table.
import { OptionalKind, type TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from './errors.ts';
import { KEY_ROUTE_ERRORS, ROUTES, type RouteDef, type RouteId } from './api-routes.ts';
import { ErrorEnvelope, HTTPValidationError } from './schemas.ts';

type Json = Record<string, unknown>;

/** A plain JSON copy of a schema without `$id`s (validators compile each route on its own). */
export function plainSchema(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === '$id' ? undefined : value))) as Json;
}

/** Replaces every named subschema by a $ref into `components`, collecting the definitions. */
function componentize(schema: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => componentize(item, components));
  if (!schema || typeof schema !== 'object') return schema;
  const source = schema as Json;
  const copy: Json = {};
  for (const [key, value] of Object.entries(source)) {
    if (key !== '$id') copy[key] = componentize(value, components);
  }
  const id = source.$id;
  if (typeof id === 'string') {
    components[id] = copy;
    return { $ref: `#/components/schemas/${id}` };
  }
  return copy;
}

function parameters(
  where: 'path' | 'query',
  schema: TSchema | undefined,
  components: Record<string, Json>,
): Json[] {
  if (!schema) return [];
  const plain = JSON.parse(JSON.stringify(schema)) as {
    properties?: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(plain.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (plain.required ?? []).includes(name),
    schema: componentize(prop, components),
  }));
}

function errorResponses(route: RouteDef): Record<string, Json> {
  const codes = new Set<ErrorCode>(route.errors);
  if (route.auth === 'key') for (const code of KEY_ROUTE_ERRORS) codes.add(code);
  else codes.add('internal_error');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, Json> = {};
  for (const [status, list] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    const validation = status === 422 && list.includes('invalid_request');
    out[String(status)] = {
      description: list.map((code) => `\`${code}\`: ${ERRORS[code].meaning}`).join('; '),
      'x-error-codes': list,
      content: {
        'application/json': {
          schema: validation
            ? {
                oneOf: [
                  { $ref: '#/components/schemas/HTTPValidationError' },
                  { $ref: '#/components/schemas/ErrorEnvelope' },
                ],
              }
            : { $ref: '#/components/schemas/ErrorEnvelope' },
        },
      },
      ...(status === 429 || status === 503
        ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } } }
        : {}),
    };
  }
  return out;
}

function successResponse(route: RouteDef, components: Record<string, Json>): Json {
  if (route.media === 'empty') return { description: 'done; no content' };
  if (route.media) {
    return {
      description: route.summary,
      content: { [route.media]: { schema: { type: 'string', contentMediaType: route.media } } },
    };
  }
  return {
    description: route.summary,
    content: {
      'application/json': { schema: route.response ? componentize(route.response, components) : {} },
    },
  };
}

export function buildOpenApi(served: readonly RouteId[], version: string): Json {
  const components: Record<string, Json> = {};
  componentize(ErrorEnvelope, components);
  componentize(HTTPValidationError, components);
  const paths: Record<string, Json> = {};
  for (const id of served) {
    const route: RouteDef = ROUTES[id];
    const operation: Json = {
      operationId: id,
      summary: route.summary,
      security: route.auth === 'key' ? [{ apiKey: [] }] : [],
      parameters: [
        ...parameters('path', route.params, components),
        ...parameters('query', route.query, components),
      ],
      responses: { [String(route.status)]: successResponse(route, components), ...errorResponses(route) },
    };
    if (route.body) {
      operation.requestBody = {
        required: (route.body as TSchema & { [OptionalKind]?: string })[OptionalKind] !== 'Optional',
        content: { 'application/json': { schema: componentize(route.body, components) } },
      };
    } else if (route.multipart) {
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: route.multipart.filter((f) => f.required).map((f) => f.name),
              properties: Object.fromEntries(
                route.multipart.map((f) => [
                  f.name,
                  f.type === 'file'
                    ? {
                        type: 'string',
                        contentMediaType: 'application/octet-stream',
                        description: f.description,
                      }
                    : { type: 'string', description: f.description },
                ]),
              ),
            },
          },
        },
      };
    }
    paths[route.path] = {
      ...(paths[route.path] as Json | undefined),
      [route.method.toLowerCase()]: operation,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'docfix',
      version,
      description:
        'Corrects text inside PDF files and proves, by pixel comparison, exactly what changed. Errors carry an `error` code; clients read the code, not the status alone.',
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
      },
    },
  };
}
