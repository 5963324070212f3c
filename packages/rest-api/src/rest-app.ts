import express from 'express';
import type { RestDeps } from './deps.js';
import { createRestRouter } from './rest-router.js';

/** An express app serving only the REST router (its JSON 404 and error handler included). */
export function createRestApp(deps: RestDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(createRestRouter(deps));
  return app;
}
