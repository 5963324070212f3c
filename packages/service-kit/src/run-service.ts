// The life of a serving process under a container runtime or a terminal: SIGTERM or SIGINT
// stops it cleanly (exit 0), a second signal exits at once (exit 1), and a failure is one line
// on stderr (exit 1) — operators get the message that says what to do, never a stack trace.

/** What runService starts and, on a signal, stops. */
export interface Stoppable {
  /** Resolves once everything is closed. */
  stop(): Promise<unknown>;
}

/** The parts of `process` runService uses; tests hand in a fake. */
export interface ServiceProcess {
  on(event: 'SIGTERM' | 'SIGINT', listener: () => void): unknown;
  exit(code: number): void;
  stderr: { write(text: string): unknown };
}

export interface RunServiceOptions {
  /** Prefix of every line written to stderr: "junction-api-server". */
  name: string;
  /** Starts the service; a rejection is the one-line failure. */
  start: () => Promise<Stoppable>;
  /** What a second signal does not wait for, for its message: "runs", "requests". */
  unfinished: string;
  /** Default: the real `process`. */
  process?: ServiceProcess;
}

/** Starts the service and stops it on SIGTERM/SIGINT; exits 0 after a clean stop, 1 after any failure. */
export async function runService(options: RunServiceOptions): Promise<void> {
  const { name, start, unfinished } = options;
  const proc = options.process ?? process;
  let service: Stoppable | undefined;
  let signalled = false;

  const fail = (err: unknown): void => {
    const message = err instanceof Error ? err.message : String(err);
    proc.stderr.write(`${name}: ${message}\n`);
    proc.exit(1);
  };
  const stop = (): void => {
    service?.stop().then(() => proc.exit(0), fail);
  };

  // Installed before start-up so a signal that arrives meanwhile still ends in a clean stop.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    proc.on(signal, () => {
      if (signalled) {
        proc.stderr.write(`${name}: ${signal} again; exiting without waiting for ${unfinished}\n`);
        proc.exit(1);
        return;
      }
      signalled = true;
      stop();
    });
  }

  try {
    service = await start();
  } catch (err) {
    fail(err);
    return;
  }
  if (signalled) stop();
}
