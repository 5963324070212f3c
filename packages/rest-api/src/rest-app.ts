import express from 'express';
import type { RestDeps } from './deps.js';
import { createRestRouter } from './rest-router.js';
import type { OperationId } from './route-table.js';

/** What an app serves besides the REST router. */
export interface RestAppOptions {
  /** Runs before everything else (the composition root's Host/Origin check). */
  guard?: express.RequestHandler;
  /** The dashboard's static files, served at /ui without a key (the data it shows needs one). */
  ui?: express.RequestHandler;
  /** Only these operations (the trace viewer serves the trace routes alone). Default: all. */
  operations?: ReadonlySet<OperationId>;
  /** The rate limit (service-kit's), run before the key check; its refusal is answered as any REST error. */
  limit?: express.RequestHandler;
}

/** An express app serving the REST router (its JSON 404 and error handler included), and the dashboard at /ui. */
export function createRestApp(deps: RestDeps, options: RestAppOptions = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.guard) app.use(options.guard);
  if (options.ui) {
    const ui = options.ui;
    app.get('/', (_req, res) => res.redirect(302, '/ui/'));
    app.use('/ui', ui);
  }
  app.use(
    createRestRouter(deps, {
      ...(options.operations ? { operations: options.operations } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    }),
  );
  return app;
}
