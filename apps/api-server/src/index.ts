// Public API of @junction/api-server: start the app in-process (tests, embedding). The
// container entry points are dist/main.js and dist/worker-main.js. Every name is exported on
// purpose.
export { startApiServer } from './api-server.js';
export type { ApiServer, StartOptions } from './api-server.js';
