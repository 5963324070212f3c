#!/usr/bin/env node
// Entry point of the webhook-server: start from the environment, serve until SIGTERM or SIGINT,
// then stop cleanly (exit 0). A start-up failure is one message on stderr and exit 1.
import { startWebhookServer, type WebhookServer } from './webhook-server.js';

const NAME = 'junction-webhook-server';

function fail(err: unknown): never {
  // Operators get the message that says what to do, never a stack trace.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${NAME}: ${message}\n`);
  process.exit(1);
}

let server: WebhookServer | undefined;
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
      process.stderr.write(`${NAME}: ${signal} again; exiting without waiting for requests\n`);
      process.exit(1);
    }
    signalled = signal;
    stop();
  });
}

try {
  server = await startWebhookServer(process.env);
} catch (err) {
  fail(err);
}
if (signalled) stop();
