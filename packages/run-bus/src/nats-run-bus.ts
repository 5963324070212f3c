// The run bus over NATS: JetStream's work-queue stream JUNCTION_WORK announces queued runs
// (`junction.work.runs`) and due workflow runs (`junction.work.workflows`), each announcement
// taken by one host through a durable pull consumer all hosts share; plain subjects carry what
// every interested host should hear at once: `junction.runs.<id>.state`, `.events`, `.cancel`.
// Nothing here is the truth: a host that hears nothing finds the same work in the store.
import type { Announcement, RunBus, RunStateMessage, WorkKind } from '@junction/agent-core/runs';
import type { Consumer, JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RunEventInput, RunStatus } from '@junction/store';
import { redactUrl, type Logger } from '@junction/telemetry';

/** The work-queue stream every host shares. */
export const WORK_STREAM = 'JUNCTION_WORK';
/** Subject of an announcement of `kind`. */
export const workSubject = (kind: WorkKind): string => `junction.work.${kind}`;
/** Subject of run `runId`'s `what` (`state`, `events`, `cancel`); `*` for every run. */
export const runSubject = (runId: number | '*', what: 'state' | 'events' | 'cancel'): string =>
  `junction.runs.${runId}.${what}`;

/** The NATS client, loaded on open: a process without a bus never loads it. */
const loadNats = async () => {
  const [transport, js] = await Promise.all([
    import('@nats-io/transport-node'),
    import('@nats-io/jetstream'),
  ]);
  return { ...transport, ...js };
};
type Nats = Awaited<ReturnType<typeof loadNats>>;

/** How long an announcement may wait in the stream: past it, the store's sweep finds its run. */
const ANNOUNCEMENT_MAX_AGE_MS = 60 * 60 * 1000;

export interface RunBusOptions {
  /** NATS URL(s), comma-separated (queue.nats.url). */
  url: string;
  logger: Logger;
  /** Client name the server sees. Default `junction`. */
  name?: string;
  /** How long the first connection may take before the process goes on without it. Default 5 s. */
  connectTimeoutMs?: number;
}

type Listener = (data: unknown) => void;

/** The run bus of one process (see the file comment). Use `openRunBus`. */
export class NatsRunBus implements RunBus {
  readonly url: string;
  readonly #o: RunBusOptions;
  #lib: Nats | undefined;
  #nc: NatsConnection | undefined;
  #js: JetStreamClient | undefined;
  /** The stream and consumers exist (made at connect, made again after a failure). */
  #ready: Promise<boolean> | undefined;
  readonly #consumers = new Map<WorkKind, Consumer>();
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #subs = new Map<string, Subscription>();
  #closed = false;
  /** Between a disconnect and the reconnect the client makes. */
  #online = false;
  #retry: NodeJS.Timeout | undefined;
  readonly #encoder = new TextEncoder();

  constructor(options: RunBusOptions) {
    this.#o = options;
    this.url = redactUrl(options.url);
  }

  /** Connects (or keeps trying in the background, saying so once). Never throws. */
  async open(): Promise<void> {
    await this.#connect(true);
  }

  async #connect(first: boolean): Promise<void> {
    if (this.#closed) return;
    try {
      const lib = (this.#lib ??= await loadNats());
      const nc = await lib.connect({
        servers: this.#o.url.split(',').map((s) => s.trim()),
        name: this.#o.name ?? 'junction',
        // A server that restarts is back within seconds: keep trying, and keep subscriptions.
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        timeout: this.#o.connectTimeoutMs ?? 5000,
      });
      if (this.#closed) {
        await nc.close();
        return;
      }
      this.#nc = nc;
      this.#online = true;
      this.#js = lib.jetstream(nc);
      for (const subject of this.#listeners.keys()) this.#subscribe(subject);
      void this.#watch(nc);
      // The stream exists before the first announcement is published (one published to no
      // stream is lost).
      await this.#ensure();
      this.#o.logger.info('run bus connected', { url: this.url });
    } catch (err) {
      if (first) {
        this.#o.logger.warn(
          `the run bus at ${this.url} cannot be reached (${(err as Error).message}); workers look in the store for runs until it can`,
          { url: this.url },
        );
      }
      this.#retry = setTimeout(() => void this.#connect(false), 2000);
      this.#retry.unref();
    }
  }

  /** Reconnects are the client's; a server that comes back without the stream gets it again. */
  async #watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'reconnect') {
        this.#online = true;
        // A server started afresh has no stream: made again before work is asked for.
        this.#ready = undefined;
        void this.#ensure();
        this.#o.logger.info('run bus reconnected', { url: this.url });
      } else if (status.type === 'disconnect') {
        this.#online = false;
        this.#o.logger.warn('run bus disconnected; workers look in the store meanwhile', {
          url: this.url,
        });
      }
    }
  }

  connected(): boolean {
    return this.#online && this.#nc !== undefined && !this.#nc.isClosed();
  }

  /** Makes the stream and the kind's consumer once per connection; false when JetStream refuses. */
  #ensure(): Promise<boolean> {
    this.#ready ??= (async () => {
      const nc = this.#nc;
      const lib = this.#lib;
      if (!nc || !lib) return false;
      const { AckPolicy, DiscardPolicy, RetentionPolicy, StorageType, nanos } = lib;
      try {
        const jsm = await lib.jetstreamManager(nc);
        const stream = {
          name: WORK_STREAM,
          subjects: ['junction.work.>'],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          discard: DiscardPolicy.Old,
          max_age: nanos(ANNOUNCEMENT_MAX_AGE_MS),
          max_msgs: 1_000_000,
        };
        await jsm.streams.add(stream).catch(async (err: Error) => {
          // Made by an earlier version with other limits: brought to these.
          if (!/already in use|exists/i.test(err.message)) throw err;
          await jsm.streams.update(WORK_STREAM, stream);
        });
        this.#consumers.clear();
        for (const kind of ['runs', 'workflows'] as const) {
          await jsm.consumers.add(WORK_STREAM, {
            durable_name: kind,
            filter_subject: workSubject(kind),
            ack_policy: AckPolicy.Explicit,
            ack_wait: nanos(30_000),
            max_deliver: -1,
            max_waiting: 4096,
          });
          this.#consumers.set(kind, await this.#js!.consumers.get(WORK_STREAM, kind));
        }
        return true;
      } catch (err) {
        this.#o.logger.warn(
          `the run bus cannot use JetStream at ${this.url} (${(err as Error).message}); runs are found by polling the store. Start nats-server with JetStream (-js).`,
          { url: this.url },
        );
        // Asked again on a later call, not at once.
        setTimeout(() => (this.#ready = undefined), 5000).unref();
        return false;
      }
    })();
    return this.#ready;
  }

  announce(kind: WorkKind): void {
    this.#publish(workSubject(kind), '');
  }

  async next(kind: WorkKind, timeoutMs: number): Promise<Announcement | undefined> {
    const wait = (): Promise<undefined> =>
      new Promise((resolve) => setTimeout(() => resolve(undefined), timeoutMs).unref());
    if (!this.connected() || !(await this.#ensure())) return wait();
    const consumer = this.#consumers.get(kind);
    if (!consumer) return wait();
    try {
      const message = await consumer.next({ expires: Math.max(1000, timeoutMs) });
      if (!message) return undefined;
      return { ack: () => message.ack(), nak: () => message.nak() };
    } catch {
      // The consumer or stream went away (a server started afresh): made again next time.
      this.#ready = undefined;
      return wait();
    }
  }

  publishEvents(runId: number, events: readonly RunEventInput[]): void {
    this.#publish(
      runSubject(runId, 'events'),
      JSON.stringify(
        events.map((e) => ({
          type: e.type,
          payload: e.payload ?? null,
          duration_ms: e.durationMs ?? null,
        })),
      ),
    );
  }

  publishState(message: RunStateMessage): void {
    this.#publish(
      runSubject(message.runId, 'state'),
      JSON.stringify({ run_id: message.runId, status: message.status }),
    );
  }

  requestCancel(runId: number): void {
    this.#publish(runSubject(runId, 'cancel'), JSON.stringify({ run_id: runId }));
  }

  onEvents(runId: number, listener: (events: RunEventInput[]) => void): () => void {
    return this.#listen(runSubject(runId, 'events'), (data) => {
      if (!Array.isArray(data)) return;
      listener(
        data.map((e: { type: string; payload: unknown; duration_ms: number | null }) => ({
          type: e.type,
          payload: e.payload,
          durationMs: e.duration_ms,
        })),
      );
    });
  }

  onState(runId: number | '*', listener: (message: RunStateMessage) => void): () => void {
    return this.#listen(runSubject(runId, 'state'), (data) => {
      const m = data as { run_id?: unknown; status?: unknown };
      if (typeof m.run_id === 'number' && typeof m.status === 'string') {
        listener({ runId: m.run_id, status: m.status as RunStatus });
      }
    });
  }

  onCancel(listener: (runId: number) => void): () => void {
    return this.#listen(runSubject('*', 'cancel'), (data) => {
      const m = data as { run_id?: unknown };
      if (typeof m.run_id === 'number') listener(m.run_id);
    });
  }

  /** Fire and forget: a message the bus cannot take now is one the store still holds. */
  #publish(subject: string, body: string): void {
    const nc = this.#nc;
    if (!nc || nc.isClosed() || nc.isDraining()) return;
    try {
      nc.publish(subject, this.#encoder.encode(body));
    } catch {
      // Too large or the connection closing: followers read the store instead.
    }
  }

  /** One subscription per subject, shared by its listeners, made again on a new connection. */
  #listen(subject: string, listener: Listener): () => void {
    let set = this.#listeners.get(subject);
    if (!set) {
      set = new Set();
      this.#listeners.set(subject, set);
      this.#subscribe(subject);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size > 0 || this.#listeners.get(subject) !== set) return;
      this.#listeners.delete(subject);
      this.#subs.get(subject)?.unsubscribe();
      this.#subs.delete(subject);
    };
  }

  #subscribe(subject: string): void {
    const nc = this.#nc;
    if (!nc || nc.isClosed() || this.#subs.has(subject)) return;
    this.#subs.set(
      subject,
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return;
          let data: unknown;
          try {
            data = msg.json();
          } catch {
            return;
          }
          for (const listener of [...(this.#listeners.get(subject) ?? [])]) listener(data);
        },
      }),
    );
  }

  /** Stops asking and listening; pending asks end. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const nc = this.#nc;
    this.#nc = undefined;
    this.#subs.clear();
    if (nc && !nc.isClosed()) await nc.close().catch(() => undefined);
  }
}

/** A run bus connected to `options.url` (or trying to, in the background). */
export async function openRunBus(options: RunBusOptions): Promise<NatsRunBus> {
  const bus = new NatsRunBus(options);
  await bus.open();
  return bus;
}
