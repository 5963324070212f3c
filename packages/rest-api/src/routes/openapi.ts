// GET /api/v1/openapi.json.
import type { Request, RequestHandler, Response } from 'express';
import { createOpenApiDocument } from '../openapi-document.js';
import type { RouteContext } from '../route-context.js';

/**
 * Serves the OpenAPI document, built once per router when first asked for (building it takes
 * longer than the rest of the router, on every start of a server that may never be asked).
 */
export function getOpenApiDocument(ctx: RouteContext): RequestHandler {
  let doc: ReturnType<typeof createOpenApiDocument> | undefined;
  return (_req: Request, res: Response): void => {
    doc ??= createOpenApiDocument({
      version: ctx.deps.version,
      authRequired: ctx.deps.keys?.required ?? false,
      maxBodyBytes: ctx.deps.maxBodyBytes,
      workflows: ctx.deps.workflows !== undefined,
    });
    res.json(doc);
  };
}
