// GET /api/v1/openapi.json.
import type { Request, RequestHandler, Response } from 'express';
import { createOpenApiDocument } from '../openapi-document.js';
import type { RouteContext } from '../route-context.js';

/** Serves the OpenAPI document, built once per router. */
export function getOpenApiDocument(ctx: RouteContext): RequestHandler {
  const doc = createOpenApiDocument({
    version: ctx.deps.version,
    authRequired: ctx.deps.keys?.required ?? false,
    maxBodyBytes: ctx.deps.maxBodyBytes,
    workflows: ctx.deps.workflows !== undefined,
  });
  return (_req: Request, res: Response): void => {
    res.json(doc);
  };
}
