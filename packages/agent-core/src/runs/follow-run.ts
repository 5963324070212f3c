// Following a run from any host: its events as they are written and its end, whichever host
// executes it. The store is read by event number (each event once, in order); the run bus, when
// there is one, says when to read — the executing host tells of every write (about once a
// second while the run goes) and of the run's end — else the store is read every `pollMs`.
import type { Run, RunReader, Store } from '@junction/store';
import type { RunEndings } from './dispatch.js';
import type { RunBus } from './run-bus.js';
import { isFinal } from './run-workers.js';
import { runNotFound } from './submit-run.js';

/** One event of a followed run, in the order the run recorded it. */
export interface FollowedEvent {
  /** Its number in the run (1, 2, 3…). */
  seq: number;
  type: string;
  payload: unknown;
  durationMs: number | null;
}

export interface FollowOptions {
  onEvent(event: FollowedEvent): void;
  /** Stops following; the run goes on. Answers the run as it is then. */
  signal?: AbortSignal;
  /** How often the store is read when no bus tells of writes. Default 250 ms. */
  pollMs?: number;
  /** How often the store is read while a bus tells of writes (a missed message). Default 1 s. */
  toldPollMs?: number;
  /** Start after this event number (`runs inspect` already showed those). Default 0: all. */
  afterSeq?: number;
  /**
   * Keep the process alive while following (a CLI command whose only work is this). Default
   * false: following never holds a process that is otherwise done.
   */
  keepAlive?: boolean;
}

/** While the bus tells of writes, the store is still read this often (a missed message). */
const TOLD_POLL_MS = 1000;

/**
 * Calls `onEvent` for every event of run `runId` after `afterSeq`, in order — those it has,
 * then the new ones as they are written — and resolves with the run once it has ended (or when
 * `signal` aborts). RUN_NOT_FOUND for an unknown id.
 */
export async function followRun(
  deps: {
    store: Pick<Store, 'runEvents'> & { readonly runs: RunReader };
    bus?: RunBus;
    endings?: RunEndings;
  },
  runId: number,
  options: FollowOptions,
): Promise<Run> {
  const { store, bus } = deps;
  let lastSeq = options.afterSeq ?? 0;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const nudge = (): void => {
    clearTimeout(timer);
    const w = wake;
    wake = undefined;
    w?.();
  };
  // Subscribed before the first read, so a write in between is told.
  const unlisten = [
    bus?.onEvents(runId, nudge),
    bus?.onState(runId, nudge),
    deps.endings?.onEnd(runId, nudge),
  ];
  options.signal?.addEventListener('abort', nudge, { once: true });
  /** Prints the stored events after the last one printed. */
  const read = async (): Promise<void> => {
    for (;;) {
      const page = await store.runEvents.list(runId, { afterSeq: lastSeq, limit: 1000 });
      for (const e of page) {
        lastSeq = e.seq;
        options.onEvent({ seq: e.seq, type: e.type, payload: e.payload, durationMs: e.durationMs });
      }
      if (page.length < 1000) return;
    }
  };
  try {
    let run = await store.runs.get(runId);
    if (!run) throw runNotFound(runId);
    await read();
    while (!isFinal(run) && !options.signal?.aborted) {
      const told = bus?.connected() === true;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(
          nudge,
          told ? (options.toldPollMs ?? TOLD_POLL_MS) : (options.pollMs ?? 250),
        );
        if (!options.keepAlive) timer.unref();
      });
      run = (await store.runs.get(runId)) ?? run;
      await read();
    }
    // A run's last events are written with its end: read once more after it.
    if (isFinal(run)) await read();
    return run;
  } finally {
    clearTimeout(timer);
    for (const off of unlisten) off?.();
    options.signal?.removeEventListener('abort', nudge);
  }
}
