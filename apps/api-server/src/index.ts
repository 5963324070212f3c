// Public API of @junction/api-server: start the app in-process (tests, embedding). The
// container entry point is dist/main.js. Every name is exported on purpose.
export { SERVICE_NAME, startApiServer } from './api-server.js';
export type { ApiServer, StartOptions } from './api-server.js';
export { API_SERVER_ERROR_CODES, ApiServerError } from './api-server-error.js';
export type { ApiServerErrorCode } from './api-server-error.js';
export {
  APP_VARIABLES,
  DEFAULT_DRAIN_SECONDS,
  MAX_DRAIN_SECONDS,
  drainSecondsOf,
} from './app-settings.js';
