// Public API of @junction/service-kit: what every Junction process that serves needs. Every
// name is exported on purpose, one by one: each is one another package uses, or a type in the
// signature of one.
export { SERVICE_ERRORS, ServiceError } from './service-error.js';
export type { ServiceErrorCode } from './service-error.js';
export { envPortHint, listen } from './listen.js';
export type { ListenTarget, Listening, PortHint } from './listen.js';
export { runService } from './run-service.js';
export type { RunServiceOptions, ServiceProcess, Stoppable } from './run-service.js';
export type { OnRollback } from './start-with-rollback.js';
export { SERVICE_VARIABLES, drainSecondsOf, packageVersion } from './env-settings.js';
export { composeService, modelSettingsOf, runSlotsOf } from './composition.js';
export type { ComposeOptions, Composition, Executor } from './composition.js';
export { secretsOf } from './service-settings.js';
// Named by the README examples of @junction/rest-api and @junction/webhooks (their `keys`).
export { keyRing } from './api-keys.js';
export type { KeyRing } from './api-keys.js';
export { createHealthRoute } from './health-route.js';
export type { HealthRouteDeps } from './health-route.js';
export { startApp } from './start-app.js';
export type { StartAppOptions } from './start-app.js';
export { isLoopback } from './host-guard.js';
export { traceExportOf, urlOf } from './traces.js';
export type { TracesHealth, TracesPart } from './traces.js';
