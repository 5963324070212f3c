// Public API of @junction/rest-api: what the apps and service-kit build a REST server from.
// Every name is exported on purpose, one by one; the rest (errors, schemas, body types, the
// OpenAPI document) is internal.
export { createRestRouter } from './rest-router.js';
export { createRestApp } from './rest-app.js';
export type { RestAppOptions } from './rest-app.js';
export type { RestDeps, RestStore } from './deps.js';
export { PROBE_OPERATIONS, TRACE_OPERATIONS } from './route-table.js';
export type { OperationId } from './route-table.js';
export type { QueueHealthBody, TracesHealthBody, WorkersHealthBody } from './schemas.js';
