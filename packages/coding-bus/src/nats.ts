// The bus itself (loads the NATS client): opening it, sending one task, the bus backend.
export { openCodingBus } from './bus.js';
export type { CodingBus, CodingBusOptions } from './bus.js';
export { NatsCodingBackend, SESSIONS_BUCKET, STATE_BUCKET } from './nats-backend.js';
export type { NatsBackendOptions } from './nats-backend.js';
export { sendCodingTask } from './task-client.js';
export type { CodingSubjects, CodingTaskInput, SendTaskOptions } from './task-client.js';
