// What hosts sharing one store tell each other, when they share a message bus (NATS JetStream,
// @junction/run-bus): that work waits, that a run changed or recorded events, that someone asked
// a run to stop. The store stays the truth of every run: a message lost or delivered twice
// only makes a host look sooner or later, never runs a run twice or drops it; without a bus,
// hosts find all of it by polling the store.
import type { RunStatus } from '@junction/store';

/** Work announced between hosts: agent runs queued, workflow runs due. */
export type WorkKind = 'runs' | 'workflows';

/** An announcement taken off the work queue: ack it when a worker took it, nak it to pass it on. */
export interface Announcement {
  ack(): void;
  /** Hands it back for another host (this one has no idle worker after all). */
  nak(): void;
}

/** A run's state as a host tells the others (its events are in the store). */
export interface RunStateMessage {
  runId: number;
  status: RunStatus;
}

export interface RunBus {
  /** True while connected; workers fall back to polling the store at their usual pace when false. */
  connected(): boolean;
  /** Says that work of `kind` waits in the store. Never throws; a lost announcement is found by the sweep. */
  announce(kind: WorkKind): void;
  /**
   * Waits up to `timeoutMs` for one announcement of `kind` (each goes to one host); undefined
   * when none came or the bus is down (after waiting, so a caller's loop never spins).
   */
  next(kind: WorkKind, timeoutMs: number): Promise<Announcement | undefined>;
  /** Run `runId` just wrote events to the store: hosts following it read them now. */
  publishEvents(runId: number): void;
  /** A run was written, claimed or ended. */
  publishState(message: RunStateMessage): void;
  /** Someone asked run `runId` to stop (it is marked in the store already). */
  requestCancel(runId: number): void;
  /** Told whenever run `runId` wrote events; returns the unsubscribe. */
  onEvents(runId: number, listener: () => void): () => void;
  /** State changes of one run, or of every run (`'*'`); returns the unsubscribe. */
  onState(runId: number | '*', listener: (message: RunStateMessage) => void): () => void;
  /** Cancel requests of any run; returns the unsubscribe. */
  onCancel(listener: (runId: number) => void): () => void;
}

/** How long one wait for an announcement lasts before it is asked for again. */
const NEXT_WAIT_MS = 5_000;

/**
 * Takes announcements of one kind off the bus for the idle workers of one process: while one
 * waits, it asks the bus for the next announcement and wakes exactly one idle worker for it
 * (who then claims from the store, the truth); with no idle worker left meanwhile it hands the
 * announcement back for another host. Never asks while every worker here is busy, so a busy
 * host leaves the work to idle ones.
 */
export class AnnouncementTaker {
  readonly #bus: RunBus;
  readonly #kind: WorkKind;
  readonly #workers: { idle(): boolean; wakeOne(): boolean };
  #running = false;
  #kick: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(bus: RunBus, kind: WorkKind, workers: { idle(): boolean; wakeOne(): boolean }) {
    this.#bus = bus;
    this.#kind = kind;
    this.#workers = workers;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    // Never rejects (every await in it is caught); a crash would only stop the asking.
    this.#loop = this.#take().catch(() => undefined);
  }

  /** A worker went idle: ask again if the loop was waiting for one. */
  kick(): void {
    const kick = this.#kick;
    this.#kick = undefined;
    kick?.();
  }

  /** Stops asking; an announcement in hand is handed back. Does not wait for a pending ask. */
  stop(): void {
    this.#running = false;
    this.kick();
  }

  /** Resolves once the loop has ended (a pending ask ends with the bus's connection). */
  get done(): Promise<void> {
    return this.#loop ?? Promise.resolve();
  }

  async #take(): Promise<void> {
    while (this.#running) {
      if (!this.#workers.idle()) {
        await new Promise<void>((resolve) => (this.#kick = resolve));
        continue;
      }
      const announcement = await this.#bus.next(this.#kind, NEXT_WAIT_MS).catch(() => undefined);
      if (!announcement) continue;
      // An ack or nak on a connection closing meanwhile: the announcement is redelivered.
      try {
        if (this.#running && this.#workers.wakeOne()) announcement.ack();
        else announcement.nak();
      } catch {
        // nothing to do
      }
    }
  }
}
