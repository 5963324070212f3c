import type { FinalEvents, RunEventInput, RunProgress, Store } from '@junction/store';
import { whileStoreAway, type StoreWait } from './store-retry.js';

/**
 * Writes a run's events and counters behind the run instead of in its way. Records are
 * buffered and written together — every `intervalMs` (1 s) while the run goes, and when it ends —
 * so a model turn never waits on the disk and a fast run costs one write, not one per event.
 * The runner awaits `flush()` before it ends the run, so nothing is lost on a normal end; a
 * crash loses at most the last interval, and the run is then failed by recovery anyway.
 */
export class RunRecorder {
  readonly #store: Store;
  readonly #runId: number;
  readonly #intervalMs: number;
  #events: RunEventInput[] = [];
  #progress: RunProgress | undefined;
  #timer: NodeJS.Timeout | undefined;
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  readonly #onWritten: ((runId: number) => void) | undefined;
  readonly #wait: StoreWait | undefined;

  /**
   * `onWritten` hears of every write of events that succeeded (followers read them then);
   * `wait` is how long a write waits out a store outage before the run fails with it.
   */
  constructor(
    store: Store,
    runId: number,
    onWritten?: (runId: number) => void,
    intervalMs = 1000,
    wait?: StoreWait,
  ) {
    this.#store = store;
    this.#runId = runId;
    this.#onWritten = onWritten;
    this.#intervalMs = intervalMs;
    this.#wait = wait;
  }

  /** Buffers events (and the run's latest counters) for writing, in call order. */
  record(events: RunEventInput[], progress?: RunProgress): void {
    this.#events.push(...events);
    if (progress) this.#progress = { ...this.#progress, ...progress };
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.#write(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  #write(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const events = this.#events;
    const progress = this.#progress;
    this.#events = [];
    this.#progress = undefined;
    this.#tail = this.#tail.then(async () => {
      if (this.#failure !== undefined || (events.length === 0 && !progress)) return;
      try {
        const write = (): Promise<void> =>
          this.#store.runEvents.record(this.#runId, events, progress);
        // Events are appended: written again only if the first write never reached the store.
        await (this.#wait ? whileStoreAway(write, { ...this.#wait, onlyUnsent: true }) : write());
        if (events.length > 0) this.#onWritten?.(this.#runId);
      } catch (err) {
        this.#failure = err;
      }
    });
    return this.#tail;
  }

  /**
   * Waits for writes in flight and hands over the buffered events so the caller
   * writes them with the end of the run (one write fewer per run). Buffered counters are
   * dropped: the caller's final write carries the final counters.
   */
  async takeRest(): Promise<FinalEvents | undefined> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tail;
    if (this.#failure !== undefined) throw this.#failure;
    const events = this.#events;
    this.#events = [];
    this.#progress = undefined;
    return events.length === 0 ? undefined : { events };
  }

  /** Writes everything buffered; throws the first write error, if any. */
  async flush(): Promise<void> {
    await this.#write();
    if (this.#failure !== undefined) throw this.#failure;
  }
}
