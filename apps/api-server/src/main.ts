#!/usr/bin/env node
// Entry point of the api-server: start from the environment, serve until SIGTERM or SIGINT,
// then stop cleanly (exit 0). A start-up failure is one message on stderr and exit 1.
import { runService } from '@junction/service-kit';
import { SERVICE_NAME, startApiServer } from './api-server.js';

await runService({
  name: SERVICE_NAME,
  start: () => startApiServer(process.env),
  unfinished: 'runs',
});
