// The working side of runs: a pool of workers that claim runs from the store, execute them
// with the runner, recover runs of dead workers, and tell the notifier about every end.
// Submitting is separate (submit-run.ts): an app that only accepts runs builds none of this.
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import type { RecoveredRuns, RecoveryPolicy, Run, Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';
import { redactSecrets } from '../models/model-errors.js';
import type { ExecuteOptions } from './agent-runner.js';
import type { RunDispatch, RunEndings, RunReservation } from './dispatch.js';
import { DEFAULT_LEASE_MS, DEFAULT_MAX_ATTEMPTS, recoveryPolicy, RunInterrupted } from './lease.js';
import { AnnouncementTaker, type RunBus } from './run-bus.js';

/** What the workers need of a runner. */
export interface RunExecutor {
  execute(run: Run, options: ExecuteOptions): Promise<Run>;
  /** Asks a run executing here to stop (see AgentRunner.cancel); false when none does. */
  cancel?(runId: number): boolean;
  /** False when the returned end was written by someone else (who reports it). Default true. */
  endedHere?(run: Run): boolean;
}

export interface RunWorkersOptions {
  store: Store;
  runner: RunExecutor;
  logger: Logger;
  /** Runs executed at once by this process. Default 4. */
  concurrency?: number;
  /** How long a claim holds without renewal. Default DEFAULT_LEASE_MS. */
  leaseMs?: number;
  /** How often idle workers look for runs queued by other processes. Default 500 ms. */
  pollMs?: number;
  /**
   * Hosts sharing the store tell each other of queued runs, cancels, states and events over
   * it; idle workers then take announced runs at once and look in the store only every
   * `busPollMs` (for runs nobody announced), or every `pollMs` while it is down.
   */
  bus?: RunBus;
  /** How often idle workers look in the store while the bus is up. Default 5 s. */
  busPollMs?: number;
  /**
   * How often every worker, busy or not, looks for runs abandoned by dead workers (an idle one
   * also looks at each poll). Default 30 s.
   */
  sweepMs?: number;
  /**
   * How often, while runs execute here, the store is asked whether someone (in any process)
   * asked one of them to stop. Default 1000 ms.
   */
  cancelPollMs?: number;
  workerId?: string;
  /** Called after every run this process finishes, whoever submitted it (the notifier). */
  onFinished?: (run: Run) => void | Promise<void>;
  /** Per-run timeout handed to the runner. */
  timeoutMs?: number;
  /** Attempts a run gets before recovery ends it (`runs.max_attempts`). Default 3. */
  maxAttempts?: number;
}

/**
 * Runs recovered from workers that are gone: put back in the queue to be resumed from their
 * journal, or ended (a sub-agent's run, a run out of attempts: see recoveryPolicy).
 */
export interface RecoveryReport {
  requeued: number[];
  failed: number[];
}

/**
 * Tells the other hosts of a run written `queued`: one of their idle workers takes it (the door
 * of a process without idle workers of its own, or without any).
 */
export function announceQueued(bus: RunBus, run: Pick<Run, 'id' | 'status'>): void {
  bus.publishState({ runId: run.id, status: run.status });
  bus.announce('runs');
}

/** True once a run has ended (completed, error, timeout or cancelled). */
export function isFinal(run: Pick<Run, 'status'>): boolean {
  return run.status !== 'queued' && run.status !== 'running';
}

/**
 * This process's pid namespace (on Linux the inode of /proc/self/ns/pid), '' where there is
 * none to read. Containers that share a host's name (host networking) each have their own.
 */
const PID_SPACE = ((): string => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '';
  } catch {
    return '';
  }
})();

/**
 * A worker id that says where it runs: `host:pid:id`, where `id` is random and, where there is
 * one, ends with `.` and the pid namespace (`myhost:4242:ab12cd.4026531836`): a pid means this
 * process only to a process of the same host and namespace.
 */
export function newWorkerId(): string {
  const id = randomBytes(3).toString('hex');
  return `${os.hostname()}:${process.pid}:${PID_SPACE ? `${id}.${PID_SPACE}` : id}`;
}

/** Whether a process with this id runs on this host (one owned by another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when a worker id (`host:pid:id`, see newWorkerId) names a process of this host and pid
 * namespace that no longer exists: what it held (a run, a workflow run) is abandoned now, not when its lease runs out.
 */
export function deadOnThisHost(workerId: string | null): boolean {
  const [host, pid, id = ''] = (workerId ?? '').split(':');
  // Another pid namespace (a container sharing this host's name) cannot be looked into.
  const space = id.split('.')[1] ?? '';
  return (
    host === os.hostname() &&
    space === PID_SPACE &&
    pid !== undefined &&
    /^\d+$/.test(pid) &&
    !processAlive(Number(pid))
  );
}

/**
 * The workers of one process. They claim runs atomically from the store, so several processes
 * can share one store without running a run twice; a run submitted here while a worker is idle
 * is handed to it as it is written (no claim round trip).
 */
export class RunWorkers implements RunDispatch, RunEndings {
  readonly workerId: string;
  readonly #o: Required<
    Pick<
      RunWorkersOptions,
      'concurrency' | 'leaseMs' | 'pollMs' | 'busPollMs' | 'sweepMs' | 'cancelPollMs'
    >
  > &
    RunWorkersOptions;
  readonly #inFlight = new Map<number, AbortController>();
  #loops: Promise<void>[] = [];
  #running = false;
  /** Idle workers; handing one a run (created already claimed for it) skips a claim. */
  #wake: Array<{ wake: (run?: Run) => void; timer: NodeJS.Timeout }> = [];
  #sweeper: NodeJS.Timeout | undefined;
  /** Listeners of onEnd, by run id. */
  readonly #waiters = new Map<number, Set<(run: Run) => void>>();
  /** Runs may be waiting in the store (queued while every worker here was busy, or found by a claim). */
  #backlog = true;
  /** When an idle poll last looked for dead workers of this host. */
  #lastPeerCheck = 0;
  /** Looks for cancel requests while runs execute here. */
  #cancelPoll: NodeJS.Timeout | undefined;
  /** Takes runs announced on the bus for idle workers here. */
  #taker: AnnouncementTaker | undefined;
  /** Stops listening to the bus's cancel requests. */
  #unlisten: (() => void) | undefined;

  constructor(options: RunWorkersOptions) {
    this.#o = {
      concurrency: 4,
      leaseMs: DEFAULT_LEASE_MS,
      pollMs: 500,
      busPollMs: 5_000,
      sweepMs: 30_000,
      cancelPollMs: 1000,
      ...options,
    };
    this.workerId = options.workerId ?? newWorkerId();
  }

  /** An idle worker, taken out of the idle list (its poll stopped) so it cannot wander off. */
  reserve(): RunReservation | undefined {
    const idle = this.#running ? this.#wake.shift() : undefined;
    if (!idle) return undefined;
    clearTimeout(idle.timer);
    return {
      claim: { workerId: this.workerId, leaseMs: this.#o.leaseMs },
      take: async (run) => {
        if (this.#running) {
          idle.wake(run);
          return run;
        }
        // Stopped while the run was being written: it goes back to the queue for whoever
        // runs next, instead of starting after the drain has begun.
        idle.wake();
        await this.#o.store.runs.requeue(run.id, this.workerId);
        const back = (await this.#o.store.runs.get(run.id)) ?? run;
        if (this.#o.bus && back.status === 'queued') announceQueued(this.#o.bus, back);
        return back;
      },
      release: () => idle.wake(),
    };
  }

  /** Wakes an idle worker here for the run, or, with none, announces it to the other hosts. */
  queued(run: Run): void {
    this.#backlog = true;
    if (this.#running && this.#wake.length > 0) this.#notify();
    else if (this.#o.bus) announceQueued(this.#o.bus, run);
  }

  /**
   * The claim of a caller that executes the run it submits itself (`junction agent run`): given
   * to the door (`submit(request, { claimedBy })`), the run is written claimed by this process's
   * worker id, so no other worker takes it, and the caller then hands it to `execute`.
   */
  callerClaim(): { workerId: string; leaseMs: number } {
    return { workerId: this.workerId, leaseMs: this.#o.leaseMs };
  }

  /** Ends seen here, and (with a bus) ends another host announces, read back from the store. */
  onEnd(runId: number, listener: (run: Run) => void): () => void {
    const set = this.#waiters.get(runId) ?? new Set<(run: Run) => void>();
    this.#waiters.set(runId, set);
    // Told once, and never after the unsubscribe (an end seen here is also heard on the bus).
    let active = true;
    const once = (run: Run): void => {
      if (!active) return;
      active = false;
      listener(run);
    };
    set.add(once);
    const unlisten = this.#o.bus?.onState(runId, (message) => {
      if (!isFinal(message) || !active) return;
      void this.#o.store.runs.get(runId).then(
        (run) => {
          if (run && isFinal(run)) once(run);
        },
        () => undefined,
      );
    });
    return () => {
      active = false;
      unlisten?.();
      set.delete(once);
      if (set.size === 0 && this.#waiters.get(runId) === set) this.#waiters.delete(runId);
    };
  }

  /** Recovers runs abandoned by dead workers, then starts the workers. */
  async start(): Promise<RecoveryReport> {
    const report = await this.recover();
    this.#running = true;
    const { bus } = this.#o;
    if (bus) {
      // Told over the bus; the store's mark decides (a message is only a reason to look).
      this.#unlisten = bus.onCancel((runId) => {
        if (!this.#inFlight.has(runId)) return;
        void this.#o.store.runs.runsToCancel(this.workerId).then(
          (ids) => ids.includes(runId) && this.cancelLocal(runId),
          () => undefined,
        );
      });
      this.#taker = new AnnouncementTaker(bus, 'runs', {
        idle: () => this.#wake.length > 0,
        wakeOne: () => {
          if (!this.#running || this.#wake.length === 0) return false;
          this.#backlog = true;
          this.#notify();
          return true;
        },
      });
      this.#taker.start();
    }
    this.#loops = Array.from({ length: this.#o.concurrency }, () => this.#work());
    this.#sweeper = setInterval(() => void this.recover().catch(() => undefined), this.#o.sweepMs);
    this.#sweeper.unref();
    return report;
  }

  /** True between start() and stop(). */
  running(): boolean {
    return this.#running;
  }

  /**
   * Recovers runs left `running` by a worker that is gone (on this host when its process no
   * longer exists, anywhere when its lease ran out) by the one rule for interrupted runs
   * (recoveryPolicy): back to the queue, to be resumed from its journal.
   */
  async recover(): Promise<RecoveryReport> {
    const recovered = await this.#recoverDeadOnThisHost(await this.#runningRuns());
    await this.#recoverExpired(recovered);
    return this.#reportRecovered(recovered);
  }

  #runningRuns(): Promise<Run[]> {
    return this.#o.store.runs.list({ status: 'running', limit: 10_000 });
  }

  /** Adds the runs whose lease ran out (their worker is gone, on any host) to `recovered`. */
  async #recoverExpired(recovered: RecoveredRuns): Promise<void> {
    const expired = await this.#o.store.runs.recoverExpired(this.#policy());
    recovered.requeued.push(...expired.requeued);
    recovered.failed.push(...expired.failed);
  }

  /** Of `running`, the runs under a worker id of this host whose process no longer exists. */
  async #recoverDeadOnThisHost(running: readonly Run[]): Promise<RecoveredRuns> {
    const { store } = this.#o;
    const recovered: RecoveredRuns = { requeued: [], failed: [] };
    for (const run of running) {
      if (deadOnThisHost(run.workerId) && !this.#inFlight.has(run.id)) {
        // Undefined when someone else finished or recovered it first.
        const outcome = await store.runs.recoverAbandoned(
          run.id,
          run.workerId as string,
          this.#policy(),
        );
        if (outcome) (outcome.requeued ? recovered.requeued : recovered.failed).push(outcome.run);
      }
    }
    return recovered;
  }

  #policy(): RecoveryPolicy {
    return recoveryPolicy(this.#o.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  }

  async #reportRecovered(recovered: RecoveredRuns): Promise<RecoveryReport> {
    for (const run of recovered.requeued) {
      this.#o.logger.warn('run recovered from a dead worker', { run_id: run.id, status: 'queued' });
      this.queued(run);
    }
    for (const run of recovered.failed) {
      this.#o.logger.warn('run recovered from a dead worker', { run_id: run.id, status: 'error' });
      // Its failure is news like any other (the notifier sends agent.failed); a sub-agent
      // run's is its parent's, which is recovered too.
      if (run.parentRunId === null) await this.#finished(run);
    }
    return {
      requeued: recovered.requeued.map((run) => run.id),
      failed: recovered.failed.map((run) => run.id),
    };
  }

  /**
   * On an idle poll: a worker of this host that died (its pid is gone) is seen at once, and one
   * of another host as soon as its lease has run out — not at the next sweep; at most one look
   * per poll interval, whichever idle worker makes it. The expired leases are looked for only
   * when the runs read for the first already show one, so an idle poll writes nothing.
   */
  #pollDeadPeers(): void {
    const now = Date.now();
    if (now - this.#lastPeerCheck < this.#o.pollMs) return;
    this.#lastPeerCheck = now;
    void this.#recoverOnPoll().catch(() => undefined);
  }

  async #recoverOnPoll(): Promise<void> {
    const running = await this.#runningRuns();
    const recovered = await this.#recoverDeadOnThisHost(running);
    const now = Date.now();
    const expired = (run: Run): boolean =>
      run.leaseExpiresAt !== null && run.leaseExpiresAt.getTime() <= now;
    if (running.some(expired)) await this.#recoverExpired(recovered);
    await this.#reportRecovered(recovered);
  }

  /** Runs being executed by this process now. */
  inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Asks a run executing in this process to stop at once (the store already says so; this
   * saves the wait for the next look). False when it does not execute here.
   */
  cancelLocal(runId: number): boolean {
    return this.#o.runner.cancel?.(runId) ?? false;
  }

  /** While runs execute here, looks for the ones someone asked to stop (see cancelPollMs). */
  #watchCancels(): void {
    if (this.#inFlight.size === 0) {
      if (this.#cancelPoll) clearInterval(this.#cancelPoll);
      this.#cancelPoll = undefined;
      return;
    }
    if (this.#cancelPoll || !this.#o.runner.cancel) return;
    this.#cancelPoll = setInterval(() => {
      void this.#o.store.runs.runsToCancel(this.workerId).then(
        (ids) => {
          for (const id of ids) this.cancelLocal(id);
        },
        () => undefined,
      );
    }, this.#o.cancelPollMs);
    this.#cancelPoll.unref();
  }

  /**
   * Stops claiming, lets in-flight runs finish for up to `drainMs`, then interrupts the rest at
   * their next step boundary (a tool call under way returns first): each goes back to the queue,
   * to be resumed from its journal by another worker (`requeued` counts those).
   */
  async stop(options: { drainMs?: number } = {}): Promise<{ requeued: number }> {
    this.#running = false;
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#taker?.stop();
    this.#taker = undefined;
    this.#unlisten?.();
    this.#unlisten = undefined;
    this.#notify(true);
    const drained = Promise.all(this.#loops);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), options.drainMs ?? 10_000);
    });
    let requeued = 0;
    if ((await Promise.race([drained.then(() => 'done' as const), deadline])) === 'timeout') {
      const interrupted = [...this.#inFlight.keys()];
      for (const controller of this.#inFlight.values()) controller.abort(new RunInterrupted());
      await drained;
      for (const id of interrupted) {
        const run = await this.#o.store.runs.get(id).catch(() => undefined);
        if (run?.status === 'queued') {
          requeued += 1;
          // Another host's idle worker takes it at once.
          if (this.#o.bus) announceQueued(this.#o.bus, run);
        }
      }
    }
    clearTimeout(timer);
    return { requeued };
  }

  /** Wakes one idle worker per queued run (all of them when stopping), not the whole herd. */
  #notify(all = false): void {
    const waiting = all ? this.#wake.splice(0) : this.#wake.splice(0, 1);
    for (const w of waiting) {
      clearTimeout(w.timer);
      w.wake();
    }
  }

  /**
   * Waits for a poll interval (longer while the bus announces runs), a nudge, an announced
   * run, or a run handed over by a reservation.
   */
  #idle(): Promise<Run | undefined> {
    const waitMs = this.#o.bus?.connected() ? this.#o.busPollMs : this.#o.pollMs;
    return new Promise<Run | undefined>((resolve) => {
      const entry = {
        wake: (run?: Run): void => resolve(run),
        timer: setTimeout(() => {
          this.#wake = this.#wake.filter((w) => w !== entry);
          resolve(undefined);
        }, waitMs),
      };
      this.#wake.push(entry);
      this.#taker?.kick();
    });
  }

  /** Tells waiters and the owner a run ended; a callback failing is its own problem, not the run's. */
  async #finished(run: Run): Promise<void> {
    this.#o.bus?.publishState({ runId: run.id, status: run.status });
    for (const wake of [...(this.#waiters.get(run.id) ?? [])]) wake(run);
    try {
      await this.#o.onFinished?.(run);
    } catch (err) {
      this.#o.logger.error('the run-finished callback failed', {
        run_id: run.id,
        error: redactSecrets((err as Error).message),
      });
    }
  }

  /**
   * Executes a run claimed by this process to its end, as every worker does: a crash of the
   * runner itself fails the run (never leaves it `running`), and the end is reported to
   * waiters and the notifier. Answers the ended (or re-queued) record.
   */
  async execute(run: Run, options: Omit<ExecuteOptions, 'workerId'> = {}): Promise<Run> {
    const { store, runner, logger, bus } = this.#o;
    const controller = new AbortController();
    this.#inFlight.set(run.id, controller);
    bus?.publishState({ runId: run.id, status: 'running' });
    this.#watchCancels();
    const signal = options.signal
      ? AbortSignal.any([options.signal, controller.signal])
      : controller.signal;
    // The caller's limit, else the one the run was submitted with, else this pool's.
    const timeoutMs = options.timeoutMs ?? run.timeoutMs ?? this.#o.timeoutMs;
    try {
      const finished = await runner.execute(run, {
        ...options,
        workerId: this.workerId,
        signal,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(bus ? { onWritten: (id: number) => bus.publishEvents(id) } : {}),
      });
      if (isFinal(finished) && (runner.endedHere?.(finished) ?? true)) {
        await this.#finished(finished);
      }
      return finished;
    } catch (err) {
      const message = redactSecrets((err as Error).message);
      logger.error('run execution crashed', { run_id: run.id, error: message });
      const failed = await store.runs
        .markFailed(run.id, { error: `internal error: ${message}`, workerId: this.workerId })
        .catch(() => undefined);
      if (failed) await this.#finished(failed);
      return failed ?? (await store.runs.get(run.id).catch(() => undefined)) ?? run;
    } finally {
      this.#inFlight.delete(run.id);
      this.#watchCancels();
    }
  }

  async #work(): Promise<void> {
    const { store, logger } = this.#o;
    let handed: Run | undefined;
    while (this.#running || handed) {
      let run: Run | undefined = handed;
      handed = undefined;
      if (!run && this.#backlog) {
        try {
          run = await store.runs.claimNext(this.workerId, this.#o.leaseMs);
        } catch (err) {
          logger.error('claiming a run failed', { error: (err as Error).message });
        }
        // An empty claim means nothing waits; runs queued by other processes are found by the poll.
        if (!run) this.#backlog = false;
      }
      if (!run) {
        handed = await this.#idle();
        // A poll interval passed (or a nudge came): look in the store again, and for workers
        // of this host that died meanwhile.
        if (!handed) {
          this.#backlog = true;
          if (this.#running) this.#pollDeadPeers();
        }
        continue;
      }
      await this.execute(run);
    }
  }
}
