// Public API of @junction/service-kit: what every Junction process that serves needs. Every
// name is exported on purpose, one by one.
export { SERVICE_ERRORS, SERVICE_ERROR_CODES, ServiceError } from './service-error.js';
export type { ServiceErrorCode } from './service-error.js';
export { envPortHint, listen } from './listen.js';
export type { ListenTarget, Listening, PortHint } from './listen.js';
export { runService } from './run-service.js';
export type { RunServiceOptions, ServiceProcess, Stoppable } from './run-service.js';
export { startWithRollback } from './start-with-rollback.js';
export type { OnRollback } from './start-with-rollback.js';
export {
  DEFAULT_DRAIN_SECONDS,
  MAX_DRAIN_SECONDS,
  SERVICE_VARIABLES,
  drainSecondsOf,
  logFormatOf,
  packageVersion,
} from './env-settings.js';
export { composeService, modelSettingsOf, runSlotsOf } from './composition.js';
export type { ComposeOptions, Composition, Executor } from './composition.js';
export { apiKeysOf, mcpAllowedOf, secretsOf, shortSecretsOf } from './service-settings.js';
export { createKeyCheck, keyDigest, keyMatches, keyRing, presentedKey } from './api-keys.js';
export type { KeyRing } from './api-keys.js';
export { DEFAULT_HEALTH_TIMEOUT_MS, createHealthRoute } from './health-route.js';
export type { HealthRouteDeps, WebhookHealthBody } from './health-route.js';
export { startApp } from './start-app.js';
export type { StartAppOptions } from './start-app.js';
export { hostGuard, isLoopback } from './host-guard.js';
export { findLocalReceiver, RECEIVER_NOTE, traceExportOf, urlOf } from './traces.js';
export { approvalBaseUrl } from './webhook-address.js';
export type { TracesHealth, TracesPart, UiConfig } from './traces.js';
