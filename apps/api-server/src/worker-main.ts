#!/usr/bin/env node
// Entry point of a worker (the api-server image with `node dist/worker-main.js`): start from the
// environment, work runs until SIGTERM or SIGINT, then drain and exit 0. A start-up failure is
// one message on stderr and exit 1.
import { runService } from '@junction/service-kit';
import { startWorker, WORKER_SERVICE_NAME } from './worker.js';

await runService({
  name: WORKER_SERVICE_NAME,
  start: () => startWorker(process.env),
  unfinished: 'runs',
});
