import express from 'express';
import type { RestDeps } from './deps.js';
import { createRestRouter } from './rest-router.js';

/** What an app serves besides the REST router. */
export interface RestAppOptions {
  /** Runs before everything else (the composition root's Host/Origin check). */
  guard?: express.RequestHandler;
}

/** An express app serving only the REST router (its JSON 404 and error handler included). */
export function createRestApp(deps: RestDeps, options: RestAppOptions = {}): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.guard) app.use(options.guard);
  app.use(createRestRouter(deps));
  return app;
}
