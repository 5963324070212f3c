// The coding backend's bus: an embedded nats-server (embedded-nats.ts) or a configured one,
// reached the same way (bus.ts).
export { openCodingBus } from './bus.js';
export type { CodingBus, CodingBusOptions } from './bus.js';
export { EmbeddedNats, findNatsServer } from './embedded-nats.js';
export type { EmbeddedNatsOptions } from './embedded-nats.js';
export { CODING_BUS_ERROR_CODES, CodingBusError } from './errors.js';
export type { CodingBusErrorCode } from './errors.js';
export { parseResult, parseStreamEvent, RESULT_STATUSES, STREAM_EVENT_TYPES } from './protocol.js';
export type { CodingResult, CodingStreamEvent, CodingTask } from './protocol.js';
export { sendCodingTask } from './task-client.js';
export type { CodingSubjects, CodingTaskInput, SendTaskOptions } from './task-client.js';
