// The workers that advance workflow runs: any number of processes sharing the store poll for
// a due run, take it under a lease (renewed while they advance it), replay it as far as it
// goes (engine.ts) and hand it back — ended, or due again at a time. A worker that dies leaves
// a lease that runs out, and the next poll anywhere takes the run over.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import {
  AnnouncementTaker,
  deadOnThisHost,
  newWorkerId,
  type RunBus,
} from '@junction/agent-core/runs';
import type { Store, WorkflowRun, WorkflowStepChanges } from '@junction/store';
import { isStoreError } from '@junction/store';
import {
  Advance,
  SPAN_WORKFLOW_RUN,
  workflowCounters,
  type AdvanceResult,
  type EngineDeps,
  type EngineStore,
} from './engine.js';
import { storedWorkflowOf } from './definition.js';
import { withSpan, type Logger } from '@junction/telemetry';

/**
 * The parent every advance of a workflow run nests under, stored with the run when it started
 * (see `newTraceParent`): what started it (a schedule's fire), or a random trace of its own.
 * A run stored before runs kept one (trace_parent empty) gets one made of its start time and
 * id, the same on every worker. Either way, nothing more is stored per advance.
 */
export function workflowTraceParent(
  run: Pick<WorkflowRun, 'id' | 'createdAt' | 'traceParent'>,
): string {
  if (run.traceParent) return run.traceParent;
  const id = run.id.toString(16).padStart(16, '0');
  return `00-${run.createdAt.getTime().toString(16).padStart(16, '0')}${id}-${id}-01`;
}

/** Fills `size` random bytes (crypto's randomBytes by default; tests hand in a seeded one). */
export type RandomBytes = (size: number) => Uint8Array;

/**
 * A new W3C traceparent (`00-<32 hex>-<16 hex>-01`) of random ids, for a workflow run started
 * outside any trace: its advances share that trace, whichever worker takes them, and no two runs
 * share one. Ids of all zeros are invalid in W3C Trace Context and are drawn again.
 */
export function newTraceParent(random: RandomBytes = randomBytes): string {
  const hex = (size: number): string => {
    for (;;) {
      const id = Buffer.from(random(size)).toString('hex');
      if (id.length === size * 2 && /[^0]/.test(id)) return id;
    }
  };
  return `00-${hex(16)}-${hex(8)}-01`;
}

/** What the workers read and write: workflow runs (claims, leases, ends) and what advances use. */
export type WorkflowWorkersStore = EngineStore & Pick<Store, 'workflowRuns'>;

export interface WorkflowWorkersOptions extends EngineDeps {
  store: WorkflowWorkersStore;
  workerId?: string;
  /** Runs advanced at once by this process. Default 4. */
  concurrency?: number;
  /** How often an idle worker looks for a due run. Default 500 ms. */
  pollMs?: number;
  /** How long a run is held without a renewal before another worker may take it. Default 60 s. */
  leaseMs?: number;
  /** Told of every run that ended (for the workflow.failed alert and waiters). */
  onFinished?: (run: WorkflowRun) => void;
  /**
   * Hosts sharing the store announce runs that became due over it: an idle worker of any host
   * takes one at once. The poll stays (runs also fall due by time: timers, timeouts).
   */
  bus?: RunBus;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** An idle worker reserved for a run being written in this process (see `reserve`). */
export interface WorkflowReservation {
  claim: { workerId: string; leaseMs: number };
  /** Hands the written run (held by `claim`) to the worker. */
  take(run: WorkflowRun): void;
  /** Gives the worker back when no run was written. */
  release(): void;
}

/** Advances workflow runs; see the file comment. */
export class WorkflowWorkers {
  readonly workerId: string;
  readonly #o: Required<Pick<WorkflowWorkersOptions, 'concurrency' | 'pollMs' | 'leaseMs'>> &
    WorkflowWorkersOptions;
  readonly #inFlight = new Map<number, AbortController>();
  readonly #waiters = new Map<number, Set<(run: WorkflowRun) => void>>();
  #loops: Promise<void>[] = [];
  #running = false;
  #wake: Array<(run?: WorkflowRun) => void> = [];
  /** Renews the leases of the runs in flight (see start). */
  #renewer: NodeJS.Timeout | undefined;
  /**
   * Whether the store may hold a due run nobody handed to this process: true at start, after a
   * poll interval, after due() and after a run was handed back to wait. A run handed over
   * directly (reserve) ends without a look in the store afterwards: that look was a write.
   */
  #backlog = true;
  /** Takes due runs announced on the bus for idle workers here. */
  #taker: AnnouncementTaker | undefined;
  /** When start or an idle poll last looked for dead workers of this host (#pollDeadPeers). */
  #lastPeerCheck = 0;

  constructor(options: WorkflowWorkersOptions) {
    this.#o = { concurrency: 4, pollMs: 500, leaseMs: 60_000, ...options };
    this.workerId = options.workerId ?? `${newWorkerId()}:wf`;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    // One timer renews every run in flight here, every lease/3: a run is renewed at most that
    // long after it was taken (its claim gave it a whole lease) and again as often after.
    clearInterval(this.#renewer);
    this.#renewer = setInterval(() => this.#renewLeases(), Math.max(1000, this.#o.leaseMs / 3));
    this.#renewer.unref();
    if (this.#o.bus) {
      this.#taker = new AnnouncementTaker(this.#o.bus, 'workflows', {
        idle: () => this.#wake.length > 0,
        wakeOne: () => this.#running && this.#wakeOne(),
      });
      this.#taker.start();
    }
    this.#loops = Array.from({ length: this.#o.concurrency }, () => this.#work());
    this.#pollDeadPeers();
  }

  /**
   * Runs held by a worker of this host whose process is gone (a `kill -9`, a crash) are taken
   * over at once, not when their lease runs out: looked for at start and on idle polls, at most
   * once per poll interval.
   */
  #pollDeadPeers(): void {
    const now = Date.now();
    if (now - this.#lastPeerCheck < this.#o.pollMs) return;
    this.#lastPeerCheck = now;
    void this.#releaseDeadOnThisHost().catch((err: unknown) =>
      this.#o.logger.warn('could not look for workflow runs of dead workers', {
        error: messageOf(err),
      }),
    );
  }

  async #releaseDeadOnThisHost(): Promise<void> {
    const { store, logger } = this.#o;
    for (const run of await store.workflowRuns.heldByPrefix(`${os.hostname()}:`)) {
      if (this.#inFlight.has(run.id) || !deadOnThisHost(run.workerId)) continue;
      if (await store.workflowRuns.expireLease(run.id, run.workerId)) {
        logger.warn('workflow run recovered from a dead worker', {
          workflow_run_id: run.id,
          worker_id: run.workerId,
        });
        this.#backlog = true;
        this.#wakeOne();
      }
    }
  }

  /** Renews the lease of every run in flight here; one cancelled or taken over is stopped. */
  #renewLeases(): void {
    const { store, leaseMs } = this.#o;
    for (const [id, controller] of this.#inFlight) {
      void store.workflowRuns.renewLease(id, this.workerId, leaseMs).then(
        (held) => {
          // Only while that run is still in flight: its worker's controller goes on to the
          // worker's next run once it ends.
          if (!held && this.#inFlight.get(id) === controller)
            controller.abort(new Error('the run was cancelled or taken over'));
        },
        () => undefined,
      );
    }
  }

  running(): boolean {
    return this.#running;
  }

  /**
   * An idle worker for a run about to be written here: the run is created already held by
   * this process (`claim`), then handed to that worker (`take`), with no poll in between.
   * Undefined when every worker is busy (the run then waits in the store for a poll).
   */
  reserve(): WorkflowReservation | undefined {
    const idle = this.#running ? this.#wake.shift() : undefined;
    if (idle === undefined) return undefined;
    return {
      claim: { workerId: this.workerId, leaseMs: this.#o.leaseMs },
      take: (run) => idle(run),
      release: () => idle(),
    };
  }

  /**
   * A run became due (started, or an approval decided): wakes an idle worker here at once, or,
   * with none, announces it to the other hosts.
   */
  due(): void {
    if (!(this.#running && this.#wakeOne())) this.#o.bus?.announce('workflows');
  }

  /** Wakes one idle worker to look in the store; false when none is idle. */
  #wakeOne(): boolean {
    this.#backlog = true;
    const wake = this.#wake.shift();
    wake?.();
    return wake !== undefined;
  }

  /** Resolves when the run ends in this process (or at once if it already has). */
  onEnd(runId: number, listener: (run: WorkflowRun) => void): () => void {
    const set = this.#waiters.get(runId) ?? new Set();
    set.add(listener);
    this.#waiters.set(runId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#waiters.delete(runId);
    };
  }

  /** Runs being advanced by this process now. */
  inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Stops taking runs and gives advances in flight `drainMs` to reach a wait; the rest are
   * stopped where they are (a step in flight is resumed by whoever takes the run next).
   */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    this.#running = false;
    this.#taker?.stop();
    this.#taker = undefined;
    for (const wake of this.#wake.splice(0)) wake();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), options.drainMs ?? 10_000);
    });
    const all = Promise.all(this.#loops);
    if ((await Promise.race([all.then(() => 'done' as const), deadline])) === 'timeout') {
      for (const controller of this.#inFlight.values()) controller.abort(new Error('stopping'));
      await all;
    }
    clearTimeout(timer);
    // Unless started again meanwhile.
    if (!this.#running) {
      clearInterval(this.#renewer);
      this.#renewer = undefined;
    }
  }

  async #work(): Promise<void> {
    // Who hears of the last run's end: told once this worker is idle again (or looking), so
    // a caller that starts the next run on hearing it finds an idle worker to hand it to.
    let tell: (() => void) | undefined;
    // What stops this worker's advance (a stop, a lost lease): kept from run to run until it
    // is used (an AbortSignal costs more to make than most steps to run).
    let controller = new AbortController();
    const told = (): void => {
      tell?.();
      tell = undefined;
    };
    while (this.#running) {
      let run: WorkflowRun | undefined;
      if (this.#backlog) {
        told();
        try {
          run = await this.#o.store.workflowRuns.claimNext(this.workerId, this.#o.leaseMs);
        } catch (err) {
          this.#o.logger.error('could not look for a due workflow run', { error: messageOf(err) });
        }
        // Nothing due now; runs made due elsewhere are found by the next poll.
        if (run === undefined) this.#backlog = false;
      }
      if (run === undefined) {
        run = await new Promise<WorkflowRun | undefined>((resolve) => {
          const timer = setTimeout(() => {
            this.#wake = this.#wake.filter((w) => w !== wake);
            this.#backlog = true;
            this.#pollDeadPeers();
            resolve(undefined);
          }, this.#o.pollMs);
          const wake = (handed?: WorkflowRun): void => {
            clearTimeout(timer);
            resolve(handed);
          };
          this.#wake.push(wake);
          this.#taker?.kick();
          told();
        });
        if (run === undefined) continue;
      }
      if (controller.signal.aborted) controller = new AbortController();
      tell = await this.#advance(run, controller);
    }
    told();
  }

  /**
   * Advances one run this worker holds, as far as it goes, and hands it back. Returns how to
   * tell the run's listeners of its end, if it ended (see #work).
   */
  async #advance(run: WorkflowRun, controller: AbortController): Promise<(() => void) | undefined> {
    const { store, logger } = this.#o;
    // Made when a line is written (most advances end in #finish, which logs on its own).
    const log = (): Logger => logger.child({ workflow_run_id: run.id, workflow: run.workflowKey });
    // Its lease is renewed with the others' while it is in flight (see #renewLeases).
    this.#inFlight.set(run.id, controller);
    try {
      if (run.timeoutAt !== null && run.timeoutAt <= (this.#o.now?.() ?? new Date())) {
        return await this.#finish(run, {
          kind: 'finished',
          status: 'timed_out',
          error: 'the workflow run took longer than its timeout',
        });
      }
      const model = storedWorkflowOf(
        run.definition,
        `workflow run ${run.id} (${run.workflowKey})`,
        run.workflowKey,
      );
      // A run taken for the first time has no steps yet: nothing to read.
      const steps = run.advances <= 1 ? [] : await store.workflowSteps.list(run.id);
      const advance = new Advance(this.#o, run, model, steps, controller.signal);
      const tracer = this.#o.tracer;
      const result =
        tracer === undefined
          ? await advance.run()
          : await withSpan(
              tracer,
              SPAN_WORKFLOW_RUN,
              {
                'workflow.run_id': run.id,
                'workflow.id': run.workflowKey,
                'workflow.advance': run.advances,
              },
              (span) => advance.run(span.isRecording()),
              // Every advance of one workflow run (before and after an approval, a timer, a
              // restart) lands in the same trace, whichever worker takes it.
              { parent: workflowTraceParent(run) },
            );
      // The last step records go with the run's end or release.
      const pending = advance.takePendingNow() ?? (await advance.takePending());
      if (result.kind === 'finished') return await this.#finish(run, result, pending);
      let wakeAt = result.wakeAt;
      if (run.timeoutAt !== null && (wakeAt === null || run.timeoutAt < wakeAt))
        wakeAt = run.timeoutAt;
      const held = await store.workflowRuns.release(
        run.id,
        this.workerId,
        {
          status: result.approval ? 'waiting_approval' : 'running',
          wakeAt,
          ...(result.currentStep !== undefined ? { currentStep: result.currentStep } : {}),
        },
        pending,
      );
      // It may be due again at once (a retry without backoff): look before waiting.
      this.#backlog = true;
      if (held) {
        log().info(result.approval ? 'workflow run waiting for approval' : 'workflow run waiting', {
          wake_at: wakeAt?.toISOString() ?? null,
          step: result.currentStep,
        });
      }
      return undefined;
    } catch (err) {
      if (controller.signal.aborted) {
        log().info('workflow run advance stopped', { reason: messageOf(controller.signal.reason) });
        return undefined;
      }
      log().error('workflow run failed unexpectedly', { error: messageOf(err) });
      return await this.#finish(run, {
        kind: 'finished',
        status: 'failed',
        error: messageOf(err),
      }).catch(() => undefined);
    } finally {
      this.#inFlight.delete(run.id);
    }
  }

  /** Writes the run's end; returns how to tell its listeners (undefined if another party ended it). */
  async #finish(
    run: WorkflowRun,
    result: Extract<AdvanceResult, { kind: 'finished' }>,
    steps?: WorkflowStepChanges,
  ): Promise<(() => void) | undefined> {
    const { store, logger } = this.#o;
    try {
      const ended = await store.workflowRuns.finish(
        run.id,
        this.workerId,
        {
          status: result.status,
          ...(result.output !== undefined ? { output: result.output } : {}),
          ...(result.error !== undefined ? { error: result.error } : {}),
          ...(result.currentStep !== undefined ? { currentStep: result.currentStep } : {}),
        },
        steps,
        run,
      );
      const fields = { workflow_run_id: run.id, workflow: run.workflowKey, status: ended.status };
      workflowCounters(this.#o.metrics)?.runs.add(1, {
        workflow: run.workflowKey,
        status: ended.status,
      });
      if (ended.status === 'completed') logger.info('workflow run completed', fields);
      else logger.warn('workflow run ended', { ...fields, error: ended.error });
      return () => {
        // A listener failing is its own problem, not the worker's.
        try {
          this.#o.onFinished?.(ended);
          for (const listener of this.#waiters.get(run.id) ?? []) listener(ended);
        } catch (err) {
          logger.error('a workflow-run-finished listener failed', {
            workflow_run_id: run.id,
            error: messageOf(err),
          });
        }
      };
    } catch (err) {
      // Cancelled (or taken over) meanwhile: whoever did that reports the end.
      if (!isStoreError(err, 'CONFLICT')) throw err;
      return undefined;
    }
  }
}
