// Public API of @junction/run-bus: the run bus over NATS JetStream (see nats-run-bus.ts).
export { NatsRunBus } from './nats-run-bus.js';
export type { RunBusOptions } from './nats-run-bus.js';
