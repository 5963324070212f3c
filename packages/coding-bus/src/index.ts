// The coding backend: coding tools for agents whose prompt file says coding.enabled, working
// through a coding assistant over the NATS bus (an embedded nats-server or a configured one)
// or direct HTTP. This entry loads no NATS client; `@junction/coding-bus/nats` holds the bus.
export type {
  CodingBackend,
  CodingBackendKind,
  CodingOutcome,
  CodingProgress,
  CodingWorkspace,
} from './backend.js';
export { startCodingBackends } from './backends.js';
export type { CodingBackends, CodingBackendsOptions } from './backends.js';
export { CODING_TOOL_NAMES, SPAN_CODING_TASK, createCodingTools } from './coding-tools.js';
export type { CodingToolsOptions } from './coding-tools.js';
export { EmbeddedNats, findNatsServer } from './embedded-nats.js';
export type { EmbeddedNatsOptions } from './embedded-nats.js';
export { CODING_BUS_ERRORS, CODING_BUS_ERROR_CODES, CodingBusError } from './errors.js';
export type { CodingBusErrorCode } from './errors.js';
export { codingSettings } from './settings.js';
export type { CodingSettings } from './settings.js';
export { parseResult, parseStreamEvent, RESULT_STATUSES, STREAM_EVENT_TYPES } from './protocol.js';
export type { CodingResult, CodingStreamEvent, CodingTask } from './protocol.js';
