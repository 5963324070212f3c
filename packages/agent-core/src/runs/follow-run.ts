// Following a run from any host: its events as they happen and its end, whichever host
// executes it. Events come live over the bus when there is one (as the executing host records
// them), else from the store as they are written (up to a second behind); the store has the
// last word either way, so the followed events are complete when the run ends.
import type { Run, RunEventInput, Store } from '@junction/store';
import type { RunEndings } from './dispatch.js';
import type { RunBus } from './run-bus.js';
import { isFinal } from './run-workers.js';
import { runNotFound } from './submit-run.js';

/** One event of a followed run, in the order the run recorded it. */
export interface FollowedEvent {
  type: string;
  payload: unknown;
  durationMs: number | null;
}

export interface FollowOptions {
  onEvent(event: FollowedEvent): void;
  /** Stops following; the run goes on. Answers the run as it is then. */
  signal?: AbortSignal;
  /** How often the store is read when no bus carries the run's events. Default 250 ms. */
  pollMs?: number;
  /** Start after this event number (`runs inspect` already showed those). Default 0: all. */
  afterSeq?: number;
  /**
   * Keep the process alive while following (a CLI command whose only work is this). Default
   * false: following never holds a process that is otherwise done.
   */
  keepAlive?: boolean;
}

const sameEvent = (a: FollowedEvent, b: FollowedEvent): boolean =>
  a.type === b.type && JSON.stringify(a.payload) === JSON.stringify(b.payload ?? null);

const followed = (e: RunEventInput): FollowedEvent => ({
  type: e.type,
  payload: e.payload ?? null,
  durationMs: e.durationMs ?? null,
});

/** The run's stored events after number `afterSeq`, in order. */
async function storedAfter(
  store: Store,
  runId: number,
  afterSeq: number,
): Promise<FollowedEvent[]> {
  const events: FollowedEvent[] = [];
  for (;;) {
    const page = await store.runEvents.list(runId, {
      afterSeq: afterSeq + events.length,
      limit: 1000,
    });
    for (const e of page)
      events.push({ type: e.type, payload: e.payload, durationMs: e.durationMs });
    if (page.length < 1000) return events;
  }
}

/**
 * Calls `onEvent` for every event of run `runId` in order — those it has, then the new ones as
 * they come — and resolves with the run once it has ended (or when `signal` aborts).
 * RUN_NOT_FOUND for an unknown id.
 */
export async function followRun(
  deps: { store: Store; bus?: RunBus; endings?: RunEndings },
  runId: number,
  options: FollowOptions,
): Promise<Run> {
  const { store, bus } = deps;
  // Subscribed before the first read, so nothing recorded in between is missed.
  const live: FollowedEvent[] = [];
  let catching = true;
  let wake: (() => void) | undefined;
  const nudge = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  // Events are numbered 1, 2, 3… per run, in the order the run records them, so the n-th
  // event printed after `base` is event base + n.
  let base = options.afterSeq ?? 0;
  let printed = 0;
  const emit = (event: FollowedEvent): void => {
    printed += 1;
    options.onEvent(event);
  };
  const unlisten = [
    bus?.onEvents(runId, (events) => {
      if (catching) live.push(...events.map(followed));
      else for (const e of events) emit(followed(e));
    }),
    bus?.onState(runId, (message) => {
      if (isFinal(message)) nudge();
    }),
    deps.endings?.onEnd(runId, nudge),
  ];
  const onAbort = (): void => nudge();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  /** Prints the stored events not printed yet. */
  const fromStore = async (): Promise<void> => {
    for (const e of await storedAfter(store, runId, base + printed)) emit(e);
  };
  try {
    let run = await store.runs.get(runId);
    if (!run) {
      throw runNotFound(runId);
    }
    const stored = await storedAfter(store, runId, base);
    for (const e of stored) emit(e);
    // Live events that arrived while reading may be stored already: they are the stored tail.
    let overlap = Math.min(live.length, stored.length);
    while (overlap > 0) {
      const tail = stored.slice(stored.length - overlap);
      if (tail.every((e, i) => sameEvent(live[i]!, e))) break;
      overlap -= 1;
    }
    catching = false;
    for (const e of live.slice(overlap)) emit(e);
    // Counted from here on: the stored ones read, then whatever came live.
    base += stored.length;
    printed -= stored.length;
    while (!isFinal(run) && !options.signal?.aborted) {
      const carried = bus?.connected() === true;
      await new Promise<void>((resolve) => {
        wake = resolve;
        // With the bus the events come live and the end is told: the store is only a check.
        const timer = setTimeout(nudge, carried ? 1000 : (options.pollMs ?? 250));
        if (!options.keepAlive) timer.unref();
      });
      run = (await store.runs.get(runId)) ?? run;
      if (!carried || isFinal(run)) await fromStore();
    }
    if (isFinal(run)) await fromStore();
    return run;
  } finally {
    for (const off of unlisten) off?.();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
