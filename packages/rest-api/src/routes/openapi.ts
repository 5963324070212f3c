// GET /api/v1/openapi.json.
import type { Request, Response } from 'express';
import { defineRoute } from '../define-route.js';
import { createOpenApiDocument } from '../openapi-document.js';

/**
 * Serves the OpenAPI document of the router's route table, built once per router when first
 * asked for (building it takes longer than the rest of the router, on every start of a server
 * that may never be asked).
 */
export const getOpenApiDocumentRoute = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/api/v1/openapi.json',
  summary: 'This OpenAPI document',
  description: 'The OpenAPI 3.1 description of this API.',
  tag: 'service',
  auth: true,
  query: {},
  pathParams: [],
  responses: {
    200: { description: 'The document', body: { mediaType: 'application/json' } },
  },
  handle(ctx) {
    let doc: ReturnType<typeof createOpenApiDocument> | undefined;
    return (_req: Request, res: Response): void => {
      doc ??= createOpenApiDocument(ctx.routes, {
        version: ctx.deps.version,
        authRequired: ctx.deps.keys?.required ?? false,
        maxBodyBytes: ctx.deps.maxBodyBytes,
        workflows: ctx.deps.workflows !== undefined,
      });
      res.json(doc);
    };
  },
});

/** The document's routes. */
export const OPENAPI_ROUTES = [getOpenApiDocumentRoute] as const;
