#!/usr/bin/env node
// Entry point of the api-server: start from the environment, serve until SIGTERM or SIGINT,
// then stop cleanly (exit 0). A start-up failure is one message on stderr and exit 1.
import { startApiServer, type ApiServer } from './api-server.js';

const NAME = 'junction-api-server';

function fail(err: unknown): never {
  // Operators get the message that says what to do, never a stack trace.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(1);
}

let server: ApiServer | undefined;
let signalled: NodeJS.Signals | undefined;

function stop(): void {
  server?.stop().then(
    () => process.exit(0),
    (err: unknown) => fail(err),
  );
}

// Installed before start-up so a signal that arrives meanwhile still ends in a clean stop.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (signalled) {
      process.stderr.write(`${NAME}: ${signal} again; exiting without waiting for runs\n`);
      process.exit(1);
    }
    signalled = signal;
    stop();
  });
}

try {
  server = await startApiServer(process.env);
} catch (err) {
  fail(err);
}
if (signalled) stop();
