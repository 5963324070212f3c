// The bus itself (loads the NATS client): opening it, sending one task.
export { openCodingBus } from './bus.js';
export type { CodingBus, CodingBusOptions } from './bus.js';
export { sendCodingTask } from './task-client.js';
export type { CodingSubjects, CodingTaskInput, SendTaskOptions } from './task-client.js';
