// The scheduler: fires due schedules of agents and workflows. Any number of processes may run
// one against the same store; only the holder of the `scheduler` lease fires, the others stand
// by and take the lease over when its holder stops renewing it. A fire starts its run through
// the one run door (agents) or the workflow door (workflows) under the idempotency key
// `sched-<schedule>-<time>`, and only then moves the schedule's next time — so a process killed
// between the two fires again on restart and gets the same run back: each fire starts one run.
import type { RunDoor } from '@junction/agent-core/runs';
import { nextFireTime } from '@junction/config-templates';
import type { RunReader, Schedule, Store } from '@junction/store';
import { recordSpanError, withSpan, type Logger, type Tracer } from '@junction/telemetry';

/** Span of one schedule's fire; the run or workflow run it starts nests under it. */
export const SPAN_SCHEDULER_FIRE = 'scheduler.fire';

/** What `/health` says of the scheduler of a process. */
export type SchedulerStatus = 'running' | 'standby' | 'stopped' | 'disabled';

/** Starts a workflow run (the workflow door's `start`), for workflow schedules. */
export type StartWorkflow = (request: {
  workflow_id: string;
  environment_id?: number;
  input?: unknown;
  source: string;
  idempotency_key?: string;
}) => Promise<{ run: { id: number }; replayed: boolean }>;

/** A fire that could not start its run: the `scheduler.error` alert's facts. */
export interface SchedulerError {
  scheduleId: number;
  kind: Schedule['kind'];
  target: string;
  /** The agent it runs (kind agent). */
  agentId: number | null;
  cron: string;
  error: string;
  firedAt: Date;
}

/** How one fire went. */
export interface FireOutcome {
  scheduleId: number;
  /** The time it fired for (its due time; now for a run-now). */
  dueAt: Date;
  outcome: 'started' | 'skipped' | 'missed' | 'failed';
  runId?: number;
  replayed?: boolean;
  error?: string;
}

/**
 * The slice of the store the scheduler uses: it reads runs and never writes one (its runs
 * start through the run door, `runs`).
 */
export type SchedulerStore = Pick<Store, 'schedules' | 'leases' | 'agents' | 'workflowRuns'> & {
  readonly runs: RunReader;
};

export interface SchedulerOptions {
  store: SchedulerStore;
  /** The run door agent schedules start runs through. */
  runs: Pick<RunDoor, 'submit'>;
  /** The workflow door's start, for workflow schedules (without it they fail, saying why). */
  startWorkflow?: StartWorkflow;
  logger: Logger;
  /** Fires are spans (`scheduler.fire`) with the runs they start beneath; without it, none. */
  tracer?: Tracer;
  /** This process's name in the lease. Default: host, pid and a random suffix. */
  owner?: string;
  /** How long the lease holds without a renewal. Default 15 s; renewed every third of it. */
  leaseMs?: number;
  /** Longest sleep between looks at the store. Default 1 s (so a fire is late by ≤ 1 s). */
  pollMs?: number;
  /** A fire later than this counts as missed (downtime) and follows its catch-up policy. Default 60 s. */
  graceMs?: number;
  /** Told of every fire that failed to start a run (the `scheduler.error` alert). */
  onError?: (error: SchedulerError) => void;
  /** Told of every fire (metrics, tests). */
  onFire?: (outcome: FireOutcome) => void;
  now?: () => Date;
}

export const SCHEDULER_LEASE = 'scheduler';

/** The task of an agent's scheduled run when its schedule names none (the reference's words). */
export function defaultScheduledTask(description: string | null | undefined): string {
  return description ? `Scheduled execution: ${description}` : 'Scheduled execution';
}

const ACTIVE_RUN = new Set(['queued', 'running']);
const ACTIVE_WORKFLOW_RUN = new Set(['pending', 'running', 'waiting_approval']);

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Fires due schedules while this process holds the scheduler lease; see the file comment. */
export class Scheduler {
  readonly owner: string;
  readonly #o: Required<Pick<SchedulerOptions, 'leaseMs' | 'pollMs' | 'graceMs'>> &
    SchedulerOptions;
  readonly #now: () => Date;
  #status: SchedulerStatus = 'stopped';
  #timer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  #running = false;
  #wake: (() => void) | undefined;
  #leaseCheckedAt = 0;

  constructor(options: SchedulerOptions) {
    this.#o = { leaseMs: 15_000, pollMs: 1_000, graceMs: 60_000, ...options };
    this.#now = options.now ?? ((): Date => new Date());
    this.owner =
      options.owner ?? `${process.pid}-${Math.random().toString(36).slice(2, 10)}:scheduler`;
  }

  /** running (holds the lease and fires), standby (another process does), stopped, disabled. */
  status(): SchedulerStatus {
    return this.#status;
  }

  /**
   * Starts looking for due schedules; fires them while this process holds the lease. Resolves
   * once it has asked for the lease the first time (so `status()` says running or standby).
   */
  async start(): Promise<void> {
    if (this.#loop) return;
    this.#status = 'standby';
    this.#running = true;
    let asked!: () => void;
    const first = new Promise<void>((resolve) => (asked = resolve));
    this.#loop = this.#run(asked);
    await first;
  }

  /** Stops firing and gives the lease up at once, so another process takes over without waiting. */
  async stop(): Promise<void> {
    const loop = this.#loop;
    if (!loop) return;
    this.#running = false;
    this.#loop = undefined;
    this.#wake?.();
    await loop;
    const held = this.#status === 'running';
    this.#status = 'stopped';
    if (held) {
      await this.#o.store.leases.release(SCHEDULER_LEASE, this.owner).catch(() => false);
    }
  }

  /** A schedule changed (set, enabled, removed): look again now rather than at the next poll. */
  changed(): void {
    this.#wake?.();
  }

  async #run(asked: () => void): Promise<void> {
    while (this.#running) {
      let sleepMs = this.#o.pollMs;
      try {
        const held = await this.#holdLease();
        asked();
        if (held) sleepMs = await this.tick();
      } catch (err) {
        asked();
        this.#o.logger.error('the scheduler could not look at its schedules', {
          error: messageOf(err),
        });
      }
      if (!this.#running) break;
      await new Promise<void>((resolve) => {
        this.#timer = setTimeout(resolve, Math.max(10, sleepMs));
        this.#timer.unref();
        this.#wake = (): void => {
          clearTimeout(this.#timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** Takes or renews the lease (every third of it); true while this process holds it. */
  async #holdLease(): Promise<boolean> {
    const now = this.#now().getTime();
    if (this.#status === 'running' && now - this.#leaseCheckedAt < this.#o.leaseMs / 3) return true;
    const held = await this.#o.store.leases.acquire(SCHEDULER_LEASE, this.owner, this.#o.leaseMs);
    this.#leaseCheckedAt = now;
    const was = this.#status;
    this.#status = held ? 'running' : 'standby';
    if (held && was !== 'running') {
      this.#o.logger.info('scheduler started firing: this process holds the scheduler lease', {
        owner: this.owner,
      });
    } else if (!held && was === 'running') {
      this.#o.logger.warn('scheduler standing by: another process took the scheduler lease', {
        owner: this.owner,
      });
    }
    return held;
  }

  /**
   * Fires every schedule due now (in this process, lease or not: callers hold it) and answers
   * how long until the next one is due (at most the poll interval).
   */
  async tick(): Promise<number> {
    const { store } = this.#o;
    for (const schedule of await store.schedules.due(this.#now())) {
      await this.fire(schedule);
    }
    // One aggregate read a tick, not every schedule's row.
    const soonest = await store.schedules.soonest();
    const until =
      soonest !== null ? soonest.getTime() - this.#now().getTime() : Number.POSITIVE_INFINITY;
    return Math.min(this.#o.pollMs, Math.max(0, until));
  }

  /**
   * Fires one schedule: missed (downtime past the grace) and `catch_up: skip` → not run;
   * its previous run still going and `overlap: skip` (or one already waiting) → not run;
   * else its run is started. Its next time is counted from now, so downtime never bursts.
   * With `now`, the fire is a `run-now` from an operator: the schedule's times stay.
   */
  async fire(schedule: Schedule, options: { now?: boolean } = {}): Promise<FireOutcome> {
    const { tracer } = this.#o;
    if (tracer === undefined) return this.#fire(schedule, options);
    return withSpan(
      tracer,
      SPAN_SCHEDULER_FIRE,
      {
        'schedule.id': schedule.id,
        'schedule.kind': schedule.kind,
        'schedule.target': schedule.target,
        'schedule.cron': schedule.cron,
        'schedule.run_now': options.now === true,
      },
      async (span) => {
        const outcome = await this.#fire(schedule, options);
        span.setAttribute('schedule.outcome', outcome.outcome);
        if (outcome.runId !== undefined) span.setAttribute('schedule.run_id', outcome.runId);
        if (outcome.outcome === 'failed') {
          recordSpanError(span, new Error(outcome.error ?? 'the fire could not start a run'));
        }
        return outcome;
      },
    );
  }

  async #fire(schedule: Schedule, options: { now?: boolean }): Promise<FireOutcome> {
    const { store, logger } = this.#o;
    const now = this.#now();
    const due = options.now ? now : (schedule.nextRunAt ?? now);
    const log = logger.child({ schedule_id: schedule.id, schedule: schedule.target });
    const next = options.now
      ? schedule.nextRunAt
      : schedule.enabled
        ? nextFireTime(schedule.cron, schedule.timezone, now)
        : null;
    const record = async (
      outcome: FireOutcome['outcome'],
      fields: { runId?: number; error?: string } = {},
    ): Promise<FireOutcome> => {
      const result: FireOutcome = { scheduleId: schedule.id, dueAt: due, outcome, ...fields };
      const moved = await store.schedules.advance(schedule.id, schedule.nextRunAt, {
        nextRunAt: next,
        ...(outcome === 'started' || outcome === 'failed' ? { lastRunAt: now } : {}),
        lastOutcome: outcome,
        lastError: fields.error ?? null,
        ...(fields.runId !== undefined ? { lastRunId: fields.runId } : {}),
      });
      if (!moved) log.info('schedule changed while it fired; its new times stand');
      this.#o.onFire?.(result);
      return result;
    };

    if (!options.now && now.getTime() - due.getTime() > this.#o.graceMs) {
      if (schedule.catchUp === 'skip') {
        log.warn('schedule missed a fire while no scheduler ran; skipped (catch_up: skip)', {
          missed_at: due.toISOString(),
        });
        return record('missed', { error: `missed ${due.toISOString()} (catch_up: skip)` });
      }
      log.info('schedule missed a fire while no scheduler ran; firing it once now', {
        missed_at: due.toISOString(),
      });
    }
    const previous = await this.#previousRunStatus(schedule);
    if (previous !== undefined) {
      const waiting = previous === 'queued' || previous === 'pending';
      if (schedule.overlap === 'skip' || waiting) {
        const why = `its previous run ${schedule.lastRunId} is still ${previous}`;
        log.info(`schedule fire skipped: ${why}`, { overlap: schedule.overlap });
        return record('skipped', { error: why });
      }
    }
    const key = `sched-${schedule.id}-${due.getTime()}`;
    try {
      const started = await this.#start(schedule, key, due);
      log.info(started.replayed ? 'schedule fire found its run' : 'schedule fired', {
        run_id: started.id,
        kind: schedule.kind,
      });
      return await record('started', { runId: started.id });
    } catch (err) {
      const error = messageOf(err);
      log.error('schedule fire could not start a run', { error, kind: schedule.kind });
      this.#o.onError?.({
        scheduleId: schedule.id,
        kind: schedule.kind,
        target: schedule.target,
        agentId: schedule.agentId,
        cron: schedule.cron,
        error,
        firedAt: now,
      });
      return record('failed', { error });
    }
  }

  /** The status of the schedule's last run while it has not ended, else undefined. */
  async #previousRunStatus(schedule: Schedule): Promise<string | undefined> {
    if (schedule.lastRunId === null) return undefined;
    if (schedule.kind === 'agent') {
      const run = await this.#o.store.runs.get(schedule.lastRunId);
      return run && ACTIVE_RUN.has(run.status) ? run.status : undefined;
    }
    const run = await this.#o.store.workflowRuns.get(schedule.lastRunId);
    return run && ACTIVE_WORKFLOW_RUN.has(run.status) ? run.status : undefined;
  }

  async #start(
    schedule: Schedule,
    key: string,
    due: Date,
  ): Promise<{ id: number; replayed: boolean }> {
    if (schedule.kind === 'agent') {
      if (schedule.agentId === null) throw new Error('its agent no longer exists');
      const agent = await this.#o.store.agents.get(schedule.agentId);
      const { run, replayed } = await this.#o.runs.submit(
        {
          agent_id: schedule.agentId,
          task: schedule.task ?? defaultScheduledTask(agent?.description),
          variables: {
            cron_schedule: schedule.cron,
            scheduled_at: due.toISOString(),
            ...schedule.variables,
          },
          source: 'cron_scheduler',
          idempotency_key: key,
        },
        { origin: { scheduleId: schedule.id } },
      );
      return { id: run.id, replayed };
    }
    if (!this.#o.startWorkflow) {
      throw new Error('this process cannot start workflow runs (no workflow door was given)');
    }
    const { run, replayed } = await this.#o.startWorkflow({
      workflow_id: schedule.target,
      ...(schedule.environmentId !== null ? { environment_id: schedule.environmentId } : {}),
      input: schedule.input ?? {},
      source: 'cron_scheduler',
      idempotency_key: key,
    });
    return { id: run.id, replayed };
  }
}
