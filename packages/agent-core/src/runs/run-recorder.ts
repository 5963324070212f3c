import type { FinalEvents, RecordFence, RunEventInput, RunProgress, Store } from '@junction/store';
import { whileStoreAway, type StoreWait } from './store-retry.js';

/**
 * Writes a run's events and counters behind the run instead of in its way. Records are
 * buffered and written together — every `intervalMs` (1 s) while the run goes, at each step
 * boundary of a run that acts (`flush`, `act`: the journal), and when it ends — so a run that
 * calls no tool costs one write, not one per event. A crash loses at most what was recorded
 * since the last boundary: what a resumed attempt does again (see run-journal.ts).
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
  readonly #workerId: string;
  /** A turn that asked for tool calls: written by the fence its calls pass, never before. */
  #held: RunEventInput[] = [];

  /**
   * Every write holds only while `workerId` holds the run: a worker that lost its lease adds
   * nothing to the run's journal. `onWritten` hears of every write of events that succeeded
   * (followers read them then); `wait` is how long a write waits out a store outage before the
   * run fails with it.
   */
  constructor(
    store: Store,
    runId: number,
    options: {
      workerId: string;
      onWritten?: ((runId: number) => void) | undefined;
      intervalMs?: number;
      wait?: StoreWait;
    },
  ) {
    this.#store = store;
    this.#runId = runId;
    this.#workerId = options.workerId;
    this.#onWritten = options.onWritten;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#wait = options.wait;
  }

  /**
   * Buffers events (and the run's latest counters) for writing, in call order. `untilAct`: the
   * events wait for the next fence (`act`) or the run's end — a turn that asked for tool calls
   * is in the journal only once its calls may have left, so a resumed attempt knows which calls
   * may have run.
   */
  record(events: RunEventInput[], progress?: RunProgress, untilAct = false): void {
    if (untilAct) this.#held.push(...events);
    else this.#events.push(...events);
    if (progress) this.#progress = { ...this.#progress, ...progress };
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.#write(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  /**
   * Writes what is buffered (fenced: only while the worker holds the run); false when refused.
   * A step's write (`step`: a fence, or the boundary before the model is asked again) carries the
   * events only — the run's journal — and leaves the counters to the next timed or final write,
   * so a step costs one statement.
   */
  #write(
    fence?: RecordFence,
    step = fence !== undefined,
    withHeld = fence !== undefined,
  ): Promise<boolean> {
    if (step && this.#events.length === 0 && !fence) return this.#tail.then(() => true);
    if (this.#timer && !step) clearTimeout(this.#timer);
    if (!step) this.#timer = undefined;
    const events = withHeld ? [...this.#events, ...this.#held] : this.#events;
    if (withHeld) this.#held = [];
    const progress = step ? undefined : this.#progress;
    this.#events = [];
    if (!step) this.#progress = undefined;
    const claim = fence ?? { workerId: this.#workerId };
    const written = this.#tail.then(async () => {
      if (this.#failure !== undefined) return false;
      if (!fence && events.length === 0 && !progress) return true;
      try {
        let sent = false;
        const write = async (): Promise<boolean> => {
          // Events are appended: a write that failed after it was sent may have been applied,
          // so it is looked for before it is written again (never twice, never lost).
          if (sent && events.length > 0 && (await this.#landed(events))) return true;
          sent = true;
          return this.#store.runEvents.record(this.#runId, events, progress, claim);
        };
        const held = await (this.#wait ? whileStoreAway(write, this.#wait) : write());
        if (held && events.length > 0) this.#onWritten?.(this.#runId);
        return held;
      } catch (err) {
        this.#failure = err;
        return false;
      }
    });
    this.#tail = written.then(() => undefined);
    return written;
  }

  /** Whether `events` are the run's last events: a write of them was applied. */
  async #landed(events: readonly RunEventInput[]): Promise<boolean> {
    const last = await this.#store.runEvents.last(this.#runId, events.length);
    return (
      last.length === events.length &&
      last.every(
        (row, i) =>
          row.type === events[i]?.type &&
          JSON.stringify(row.payload ?? null) === JSON.stringify(events[i]?.payload ?? null) &&
          JSON.stringify(row.journal ?? null) === JSON.stringify(events[i]?.journal ?? null),
      )
    );
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
    const events = [...this.#events, ...this.#held];
    this.#events = [];
    this.#held = [];
    this.#progress = undefined;
    return events.length === 0 ? undefined : { events };
  }

  /**
   * Writes everything buffered; throws the first write error, if any. `withHeld`: also a turn
   * whose calls never passed their fence — for a run that ends here, not one handed over (its
   * next attempt asks that turn again).
   */
  async flush(withHeld = true): Promise<void> {
    await this.#write(undefined, false, withHeld);
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Writes the events buffered, before the model is asked again (the step boundary). */
  async journal(): Promise<void> {
    await this.#write(undefined, true);
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Writes everything buffered before the run acts (a tool call leaves), only while `fence`'s
   * worker holds the run, marking it acted (and pinning what it started with, the first time).
   * False when the worker no longer holds it: then the call must not be made.
   */
  async act(fence: RecordFence): Promise<boolean> {
    const held = await this.#write(fence);
    if (this.#failure !== undefined) throw this.#failure;
    return held;
  }
}
