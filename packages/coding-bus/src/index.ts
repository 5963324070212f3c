// The coding backend: coding tools for agents whose prompt file says coding.enabled, working
// through a coding assistant over the NATS bus (an embedded nats-server or a configured one)
// or direct HTTP. This entry loads no NATS client; `@junction/coding-bus/nats` holds the bus.
export type {
  CodingBackend,
  CodingBackendKind,
  CodingOutcome,
  CodingWorkspace,
} from './backend.js';
export { startCodingBackends } from './backends.js';
export type { CodingBackends, CodingBackendsOptions } from './backends.js';
export { createCodingTools } from './coding-tools.js';
export type { CodingToolsOptions, CodingToolsStore } from './coding-tools.js';
export { findNatsServer } from './embedded-nats.js';
export { CODING_BUS_ERRORS } from './errors.js';
export type { CodingBusErrorCode } from './errors.js';
export { codingSettings } from './settings.js';
export type { CodingSettings } from './settings.js';
