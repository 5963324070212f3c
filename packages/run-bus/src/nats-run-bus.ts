// The run bus over NATS: JetStream's work-queue stream JUNCTION_WORK_<store> announces queued
// runs (`junction.<store>.work.runs`) and due workflow runs (`….work.workflows`), each
// announcement taken by one host through a durable pull consumer all hosts share; plain subjects
// carry what every interested host should hear at once: `junction.<store>.runs.<id>.state`,
// `.events` (events were written), `.cancel`. `<store>` is the store's own id (settings key
// `store_id`), so hosts of different stores sharing one NATS server never hear each other.
// Nothing here is the truth: a host that hears nothing finds the same work in the store.
import type { Announcement, RunBus, RunStateMessage, WorkKind } from '@junction/agent-core/runs';
import type { Consumer, JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RunStatus } from '@junction/store';
import { redactUrl, type Logger } from '@junction/telemetry';

/** The work-queue stream the hosts of store `storeId` share. */
export const workStream = (storeId: string): string => `JUNCTION_WORK_${storeId}`;
/** Subject of an announcement of `kind` of store `storeId`. */
export const workSubject = (storeId: string, kind: WorkKind): string =>
  `junction.${storeId}.work.${kind}`;
/** Subject of run `runId`'s `what` (`state`, `events`, `cancel`); `*` for every run. */
export const runSubject = (
  storeId: string,
  runId: number | '*',
  what: 'state' | 'events' | 'cancel',
): string => `junction.${storeId}.${runKey(runId, what)}`;

/** A run's subject under the store's prefix (`junction.<store>.` + this). */
const runKey = (runId: number | '*', what: 'state' | 'events' | 'cancel'): string =>
  `runs.${runId}.${what}`;

/** A NATS URL (or comma-separated list) as it may be shown: every user and password masked. */
export function shownNatsUrl(url: string): string {
  return url
    .split(',')
    .map((part) => redactUrl(part.trim().replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1***@')))
    .join(',');
}

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
  /** The id of the store the hosts share (read when the bus opens): subjects and stream carry it. */
  storeId: () => Promise<string>;
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
  /** The store's id, known once open. */
  #storeId = '';
  /** JetStream's stream and consumers are usable (announcements flow). */
  #workReady = false;
  /** The last JetStream failure warned about, so it is said once per change. */
  #warned: string | undefined;
  /** Between a disconnect and the reconnect the client makes. */
  #online = false;
  #retry: NodeJS.Timeout | undefined;
  readonly #encoder = new TextEncoder();

  constructor(options: RunBusOptions) {
    this.#o = options;
    this.url = shownNatsUrl(options.url);
  }

  /** Connects (or keeps trying in the background, saying so once). Throws only when the store cannot give its id. */
  async open(): Promise<void> {
    this.#storeId ||= await this.#o.storeId();
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
      // Closed by the client itself (not by us): connect again from scratch.
      void nc.closed().then(() => {
        if (this.#nc !== nc || this.#closed) return;
        this.#nc = undefined;
        this.#online = false;
        this.#workReady = false;
        this.#retry = setTimeout(() => void this.#connect(false), 2000);
        this.#retry.unref();
      });
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

  /** Connected and announcements flow (JetStream's stream and consumers are there). */
  connected(): boolean {
    return this.#online && this.#workReady && this.#nc !== undefined && !this.#nc.isClosed();
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
        const name = workStream(this.#storeId);
        const stream = {
          name,
          subjects: [`junction.${this.#storeId}.work.>`],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          discard: DiscardPolicy.Old,
          max_age: nanos(ANNOUNCEMENT_MAX_AGE_MS),
          max_msgs: 1_000_000,
        };
        await jsm.streams.add(stream).catch(async (err: Error) => {
          // Made by an earlier version with other limits: brought to these.
          if (!/already in use|exists/i.test(err.message)) throw err;
          await jsm.streams.update(name, stream);
        });
        this.#consumers.clear();
        for (const kind of ['runs', 'workflows'] as const) {
          const consumer = {
            durable_name: kind,
            filter_subject: workSubject(this.#storeId, kind),
            ack_policy: AckPolicy.Explicit,
            ack_wait: nanos(30_000),
            max_deliver: -1,
            max_waiting: 4096,
          };
          await jsm.consumers.add(name, consumer).catch(async (err: Error) => {
            // Made by another version with other settings: brought to these.
            if (!/already exists|exists/i.test(err.message)) throw err;
            await jsm.consumers.update(name, kind, consumer);
          });
          this.#consumers.set(kind, await this.#js!.consumers.get(name, kind));
        }
        if (this.#warned !== undefined) this.#o.logger.info('run bus: JetStream usable again');
        this.#warned = undefined;
        this.#workReady = true;
        return true;
      } catch (err) {
        this.#workReady = false;
        const message = (err as Error).message;
        if (this.#warned !== message) {
          this.#warned = message;
          this.#o.logger.warn(
            `the run bus cannot use JetStream at ${this.url} (${message}); runs are found by polling the store. Start nats-server with JetStream (-js).`,
            { url: this.url },
          );
        }
        // Asked again on a later call, not at once.
        setTimeout(() => (this.#ready = undefined), 5000).unref();
        return false;
      }
    })();
    return this.#ready;
  }

  announce(kind: WorkKind): void {
    this.#publish(workSubject(this.#storeId, kind), '');
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
      this.#workReady = false;
      return wait();
    }
  }

  publishEvents(runId: number): void {
    this.#publish(runSubject(this.#storeId, runId, 'events'), JSON.stringify({ run_id: runId }));
  }

  publishState(message: RunStateMessage): void {
    this.#publish(
      runSubject(this.#storeId, message.runId, 'state'),
      JSON.stringify({ run_id: message.runId, status: message.status }),
    );
  }

  requestCancel(runId: number): void {
    this.#publish(runSubject(this.#storeId, runId, 'cancel'), JSON.stringify({ run_id: runId }));
  }

  onEvents(runId: number, listener: () => void): () => void {
    return this.#listen(runKey(runId, 'events'), () => listener());
  }

  onState(runId: number | '*', listener: (message: RunStateMessage) => void): () => void {
    return this.#listen(runKey(runId, 'state'), (data) => {
      const m = data as { run_id?: unknown; status?: unknown };
      if (typeof m.run_id === 'number' && typeof m.status === 'string') {
        listener({ runId: m.run_id, status: m.status as RunStatus });
      }
    });
  }

  onCancel(listener: (runId: number) => void): () => void {
    return this.#listen(runKey('*', 'cancel'), (data) => {
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

  /**
   * One subscription per subject (`key` under the store's prefix), shared by its listeners,
   * made again on a new connection.
   */
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
    // Before open() the store's id is not known: subscribed on connect.
    if (!nc || nc.isClosed() || this.#subs.has(subject) || !this.#storeId) return;
    this.#subs.set(
      subject,
      nc.subscribe(`junction.${this.#storeId}.${subject}`, {
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
