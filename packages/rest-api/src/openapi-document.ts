// The OpenAPI 3.1 document, generated from the route table and the zod schemas the handlers
// are typed by (zod's JSON Schema output is draft 2020-12, the dialect of OpenAPI 3.1).
import { z } from 'zod';
import { ERROR_STATUS } from './errors.js';
import { pathIdSchema } from './query-params.js';
import { isServed, type ResponseSpec, type RouteSpec } from './route-spec.js';
import { COMPONENT_SCHEMAS, WORKFLOW_COMPONENTS, type ComponentName } from './schemas.js';

/** A JSON value (the document is plain JSON). */
export type JsonObject = { [key: string]: unknown };

export interface OpenApiOptions {
  version: string;
  /** True when API keys are configured: every route but /health declares the security schemes. */
  authRequired: boolean;
  maxBodyBytes: number;
  /** True when the router serves the workflow routes (it was given `workflows`). Default false. */
  workflows?: boolean;
}

// zod states the safe-integer range on every z.int(); it says nothing a reader needs.
function tidy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tidy);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema as JsonObject)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = tidy(value);
  }
  return out;
}

function componentSchemas(workflows: boolean): JsonObject {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
    if (workflows || !WORKFLOW_COMPONENTS.has(name as ComponentName))
      registry.add(schema, { id: name });
  }
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'output',
  });
  return tidy(schemas) as JsonObject;
}

const openApiPath = (path: string): string => path.replace(/:([a-z_]+)/g, '{$1}');

function content(body: ResponseSpec['body']): JsonObject {
  if (typeof body === 'string') {
    return { 'application/json': { schema: { $ref: `#/components/schemas/${body}` } } };
  }
  return {
    [body.mediaType]: {
      schema: body.mediaType === 'application/json' ? { type: 'object' } : { type: 'string' },
    },
  };
}

function responses(route: RouteSpec, options: OpenApiOptions): JsonObject {
  const out: JsonObject = {};
  const add = (status: number, spec: ResponseSpec, headers?: JsonObject): void => {
    out[String(status)] = {
      description: spec.description,
      ...(headers ? { headers } : {}),
      content: content(spec.body),
    };
  };
  for (const [status, spec] of Object.entries(route.responses)) {
    const headers = spec.location
      ? { Location: { description: spec.location, schema: { type: 'string' } } }
      : undefined;
    add(Number(status), spec, headers);
  }
  if (route.auth && options.authRequired) {
    add(
      401,
      {
        description:
          'API_KEY_MISSING: no key was sent; API_KEY_INVALID: the key is wrong. Carries WWW-Authenticate: Bearer',
        body: 'Error',
      },
      { 'WWW-Authenticate': { schema: { type: 'string' } } },
    );
  }
  add(
    405,
    {
      description: 'METHOD_NOT_ALLOWED: the path exists for other methods (see Allow)',
      body: 'Error',
    },
    { Allow: { schema: { type: 'string' } } },
  );
  // A route's own 503 (its refusals) already names DATABASE_UNAVAILABLE.
  if (route.operationId !== 'getHealth' && route.responses[503] === undefined) {
    add(503, {
      description: 'DATABASE_UNAVAILABLE: the database is busy, closed or unreachable; retry',
      body: 'Error',
    });
  }
  add(500, {
    description: 'INTERNAL_ERROR: a fault of the server; details are in its log',
    body: 'Error',
  });
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

function parameters(route: RouteSpec): JsonObject[] {
  const path = route.pathParams.map((p) => ({
    name: p.name,
    in: 'path',
    required: true,
    description: p.description,
    schema: tidy(z.toJSONSchema(p.schema ?? pathIdSchema, { io: 'input' })),
  }));
  const query = Object.entries(route.query).map(([name, param]) => ({
    name,
    in: 'query',
    required: false,
    description: param.description,
    schema: tidy(z.toJSONSchema(param.schema, { io: 'input' })),
  }));
  return [...path, ...query];
}

function operation(route: RouteSpec, options: OpenApiOptions): JsonObject {
  const op: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
  };
  const params = parameters(route);
  if (params.length > 0) op.parameters = params;
  if (route.body) {
    const { schema, optional } = route.body;
    op.requestBody = {
      required: optional !== true,
      description: `JSON, at most ${options.maxBodyBytes} bytes${optional ? '; may be left out (no body is an empty object)' : ''}`,
      content: {
        'application/json': { schema: tidy(z.toJSONSchema(schema, { io: 'input' })) },
      },
    };
  }
  op.responses = responses(route, options);
  if (!route.auth && options.authRequired) op.security = [];
  return op;
}

const CODES_422 = Object.entries(ERROR_STATUS)
  .filter(([, status]) => status === 422)
  .map(([code]) => code)
  .join(', ');

const WORKFLOW_LISTS =
  '; the workflow lists name their array (`workflows`, `workflow_runs`, `approvals`) and say `has_more` instead of `total`';

function description(workflows: boolean): string {
  // Each row's codes, and those the workflow routes add when they are served.
  const row = (status: number, base: string, more = ''): string => {
    const codes = [base, workflows ? more : ''].filter((c) => c !== '').join(', ');
    return codes === '' ? '' : `| ${status} | ${codes} |\n`;
  };
  return `The Junction REST API (agents, runs, environments, schedules${workflows ? ', workflows, workflow runs and approvals' : ''}) with /health and /metrics.

Lists answer \`{items, total, limit, offset}\` (limit 1–1000, default 50)${workflows ? WORKFLOW_LISTS : ''}. Every error answers
\`{"error": {"code", "message", "details"?}}\`; \`details.field\` names the parameter or body field at fault.

| status | codes |
|---|---|
${[
  row(
    400,
    'INVALID_PARAMETER, INVALID_BODY, INVALID_JSON, SCHEDULE_INVALID',
    'WORKFLOW_INPUT_INVALID, WORKFLOW_INVALID',
  ),
  row(401, 'API_KEY_MISSING, API_KEY_INVALID (with `WWW-Authenticate: Bearer`)'),
  row(403, '', 'APPROVER_NOT_ALLOWED'),
  row(
    404,
    'ROUTE_NOT_FOUND, AGENT_NOT_FOUND, RUN_NOT_FOUND, ENVIRONMENT_NOT_FOUND, SCHEDULE_NOT_FOUND, SCHEDULE_TARGET_NOT_FOUND',
    'WORKFLOW_NOT_FOUND, WORKFLOW_RUN_NOT_FOUND, APPROVAL_NOT_FOUND',
  ),
  row(405, 'METHOD_NOT_ALLOWED (with `Allow`)'),
  row(
    409,
    'RUN_ENDED, SCHEDULE_TARGET_AMBIGUOUS',
    'WORKFLOW_AMBIGUOUS, WORKFLOW_DISABLED, WORKFLOW_RUN_ENDED, APPROVAL_DECIDED, APPROVAL_WITHDRAWN',
  ),
  row(410, '', 'APPROVAL_EXPIRED'),
  row(413, 'PAYLOAD_TOO_LARGE'),
  row(415, 'UNSUPPORTED_MEDIA_TYPE'),
  row(422, CODES_422),
  row(429, 'RATE_LIMITED (only with `rate_limit` on; with `Retry-After`)'),
  row(500, 'INTERNAL_ERROR'),
  row(503, 'DATABASE_UNAVAILABLE, SCHEDULER_UNAVAILABLE'),
].join('')}
Authentication: when API keys are configured (\`api.keys\` in config.yaml, \`JUNCTION_API_KEY\`), every
route except /health needs \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`.`;
}

/** Builds the OpenAPI 3.1 document of the REST API from its route table (`ROUTES`). */
export function createOpenApiDocument(
  routes: readonly RouteSpec[],
  options: OpenApiOptions,
): JsonObject {
  const workflows = options.workflows ?? false;
  const paths: JsonObject = {};
  for (const route of routes.filter((r) => isServed(r, { workflows }))) {
    const key = openApiPath(route.path);
    const item = (paths[key] ?? {}) as JsonObject;
    item[route.method] = operation(route, options);
    paths[key] = item;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Junction REST API',
      version: options.version,
      description: description(workflows),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/', description: 'This server (default http://127.0.0.1:8585)' }],
    tags: [
      { name: 'agents', description: 'Agents and queueing runs' },
      { name: 'runs', description: 'Run history' },
      { name: 'environments', description: 'Environments' },
      ...(workflows
        ? [
            { name: 'workflows', description: 'Workflows and their runs' },
            { name: 'approvals', description: 'Human approvals of workflow runs' },
          ]
        : []),
      { name: 'schedules', description: 'Schedules of agents and workflows' },
      { name: 'service', description: 'Health, metrics and this document' },
    ],
    ...(options.authRequired ? { security: [{ bearerAuth: [] }, { apiKeyHeader: [] }] } : {}),
    paths,
    components: {
      schemas: componentSchemas(workflows),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A key from api.keys in config.yaml or JUNCTION_API_KEY',
        },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}
