// `junction sync`: render an environment's templates, list each server's tools, store agents.
export { syncEnvironment } from './sync-environment.js';
export type { SyncReport } from './sync-environment.js';
export { variablesChangedNote } from './variable-changes.js';
