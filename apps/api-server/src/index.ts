// Public API of @junction/api-server: start the app in-process (tests, embedding). The
// container entry point is dist/main.js. Every name is exported on purpose.
export { SERVICE_NAME, startApiServer } from './api-server.js';
export type { ApiServer, StartOptions } from './api-server.js';
export { startWorker, WORKER_SERVICE_NAME } from './worker.js';
export type { Worker } from './worker.js';
export { APP_VARIABLES } from './app-settings.js';
// The start-up errors and JUNCTION_DRAIN_SECONDS come from @junction/service-kit, under the
// names this package has always exported.
export {
  SERVICE_ERROR_CODES as API_SERVER_ERROR_CODES,
  ServiceError as ApiServerError,
  DEFAULT_DRAIN_SECONDS,
  MAX_DRAIN_SECONDS,
  drainSecondsOf,
} from '@junction/service-kit';
export type { ServiceErrorCode as ApiServerErrorCode } from '@junction/service-kit';
