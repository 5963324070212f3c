// What operators do to schedules from any surface (CLI, REST, MCP): find a schedule's agent or
// workflow, set one (checked like a file's), remove it, list them — and the one view of a
// schedule every surface answers with.
import {
  cronProblem,
  DEFAULT_ENVIRONMENT,
  inputDepthProblem,
  nextFireTime,
} from '@junction/config-templates';
import {
  SCHEDULE_CATCH_UPS,
  SCHEDULE_OVERLAPS,
  type Schedule,
  type ScheduleCatchUp,
  type ScheduleKind,
  type ScheduleOverlap,
  type ScheduleTarget,
  type Store,
} from '@junction/store';
import { ScheduleError } from './errors.js';

/** How a request names what a schedule fires: an agent or a workflow, in an environment. */
export interface ScheduleTargetRef {
  /** `agent` or `workflow`; without it, a name that is both is refused as ambiguous. */
  kind?: ScheduleKind;
  /** An agent's name or a workflow's id. */
  name?: string;
  agent_id?: number;
  /** Environment name; default "default". */
  environment?: string;
}

/** What an operator sets (the surfaces' fields, snake_case as they send them). */
export interface ScheduleSettings {
  cron: string;
  timezone?: string | null;
  enabled?: boolean;
  task?: string | null;
  variables?: Record<string, string>;
  input?: Record<string, unknown> | null;
  catch_up?: ScheduleCatchUp;
  overlap?: ScheduleOverlap;
}

/** The slice of the store an operator's schedule commands use. */
export type ScheduleAdminStore = Pick<Store, 'agents' | 'environments' | 'workflows' | 'schedules'>;

function invalid(field: string, message: string): ScheduleError {
  return new ScheduleError('SCHEDULE_INVALID', `${field}: ${message}`, {
    field,
    problems: [{ field, message }],
  });
}

/** The agent or workflow a request means; SCHEDULE_TARGET_NOT_FOUND / _AMBIGUOUS otherwise. */
export async function findScheduleTarget(
  store: ScheduleAdminStore,
  ref: ScheduleTargetRef,
): Promise<ScheduleTarget> {
  if (ref.agent_id !== undefined) {
    const agent = await store.agents.get(ref.agent_id);
    if (!agent) {
      throw new ScheduleError(
        'SCHEDULE_TARGET_NOT_FOUND',
        `No agent has id ${ref.agent_id}. List agents with \`junction agent list\`.`,
        { agent_id: ref.agent_id },
      );
    }
    return { kind: 'agent', id: agent.id, name: agent.name, environmentId: agent.environmentId };
  }
  const name = ref.name?.trim() ?? '';
  if (name === '') throw invalid('target', 'name the agent or workflow to schedule');
  const envName = ref.environment ?? DEFAULT_ENVIRONMENT;
  const env = await store.environments.getByName(envName);
  if (!env) {
    throw new ScheduleError(
      'SCHEDULE_TARGET_NOT_FOUND',
      `No environment is named "${envName}". List them with \`junction env list\`.`,
      { environment: envName },
    );
  }
  const agent = ref.kind === 'workflow' ? undefined : await store.agents.getByName(env.id, name);
  const workflow =
    ref.kind === 'agent' ? undefined : await store.workflows.getByWorkflowId(env.id, name);
  if (agent && workflow) {
    throw new ScheduleError(
      'SCHEDULE_TARGET_AMBIGUOUS',
      `"${name}" is both an agent and a workflow in environment "${envName}"; say which with kind "agent" or "workflow".`,
      { name, environment: envName },
    );
  }
  if (agent) return { kind: 'agent', id: agent.id, name: agent.name, environmentId: env.id };
  if (workflow) {
    return { kind: 'workflow', id: workflow.id, name: workflow.workflowId, environmentId: env.id };
  }
  const what = ref.kind ?? 'agent or workflow';
  throw new ScheduleError(
    'SCHEDULE_TARGET_NOT_FOUND',
    `No ${what} is named "${name}" in environment "${envName}". List agents with \`junction agent list\` and workflows with \`junction workflow list\`.`,
    { name, environment: envName },
  );
}

/**
 * Sets the schedule of an agent or workflow as an operator (a later sync keeps it; see
 * docs/decisions.md). Its cron and time zone are checked as a file's are.
 */
export async function setSchedule(
  store: ScheduleAdminStore,
  ref: ScheduleTargetRef,
  settings: ScheduleSettings,
  now: Date = new Date(),
): Promise<Schedule> {
  const problem = cronProblem(settings.cron, settings.timezone ?? undefined);
  if (problem) throw invalid(problem.field, problem.message);
  if (settings.catch_up !== undefined && !SCHEDULE_CATCH_UPS.includes(settings.catch_up)) {
    throw invalid('catch_up', `must be one of ${SCHEDULE_CATCH_UPS.join(', ')}`);
  }
  if (settings.overlap !== undefined && !SCHEDULE_OVERLAPS.includes(settings.overlap)) {
    throw invalid('overlap', `must be one of ${SCHEDULE_OVERLAPS.join(', ')}`);
  }
  // Before anything walks the input: a hostile one must not reach code that recurses.
  const deep = inputDepthProblem(settings.input);
  if (deep !== undefined) throw invalid('input', deep);
  const target = await findScheduleTarget(store, ref);
  if (target.kind === 'agent' && settings.input != null) {
    throw invalid('input', 'is for workflow schedules; an agent schedule takes task and variables');
  }
  if (target.kind === 'workflow' && (settings.task != null || settings.variables !== undefined)) {
    throw invalid('task', 'is for agent schedules; a workflow schedule takes input');
  }
  const enabled = settings.enabled ?? true;
  const timezone = settings.timezone ?? null;
  return store.schedules.set(target, {
    cron: settings.cron.trim(),
    timezone,
    enabled,
    task: settings.task ?? null,
    variables: settings.variables ?? {},
    input: settings.input ?? null,
    ...(settings.catch_up !== undefined ? { catchUp: settings.catch_up } : {}),
    ...(settings.overlap !== undefined ? { overlap: settings.overlap } : {}),
    origin: 'operator',
    nextRunAt: enabled ? nextFireTime(settings.cron.trim(), timezone, now) : null,
  });
}

/** The schedule of an agent or workflow; SCHEDULE_NOT_FOUND when it has none. */
export async function getSchedule(
  store: ScheduleAdminStore,
  ref: ScheduleTargetRef,
): Promise<Schedule> {
  const target = await findScheduleTarget(store, ref);
  const schedule = await store.schedules.getFor(target.kind, target.id);
  if (!schedule) {
    throw new ScheduleError(
      'SCHEDULE_NOT_FOUND',
      `The ${target.kind} "${target.name}" has no schedule. Set one with \`junction schedule set\`.`,
      { kind: target.kind, name: target.name },
    );
  }
  return schedule;
}

/** Removes the schedule of an agent or workflow; answers the removed schedule. */
export async function removeSchedule(
  store: ScheduleAdminStore,
  ref: ScheduleTargetRef,
): Promise<Schedule> {
  const schedule = await getSchedule(store, ref);
  await store.schedules.remove(schedule.id);
  return schedule;
}

/** A schedule as every surface shows it (JSON, snake_case, times in ISO 8601). */
export interface ScheduleView {
  id: number;
  kind: ScheduleKind;
  target: string;
  agent_id: number | null;
  workflow_id: number | null;
  environment_id: number | null;
  cron: string;
  timezone: string | null;
  enabled: boolean;
  task: string | null;
  variables: Record<string, string>;
  input: Record<string, unknown> | null;
  origin: Schedule['origin'];
  catch_up: ScheduleCatchUp;
  overlap: ScheduleOverlap;
  next_run_at: string | null;
  last_run_at: string | null;
  last_outcome: Schedule['lastOutcome'];
  last_error: string | null;
  last_run_id: number | null;
}

export function scheduleView(schedule: Schedule): ScheduleView {
  return {
    id: schedule.id,
    kind: schedule.kind,
    target: schedule.target,
    agent_id: schedule.agentId,
    workflow_id: schedule.workflowId,
    environment_id: schedule.environmentId,
    cron: schedule.cron,
    timezone: schedule.timezone,
    enabled: schedule.enabled,
    task: schedule.task,
    variables: schedule.variables,
    input: schedule.input ?? null,
    origin: schedule.origin,
    catch_up: schedule.catchUp,
    overlap: schedule.overlap,
    next_run_at: schedule.nextRunAt?.toISOString() ?? null,
    last_run_at: schedule.lastRunAt?.toISOString() ?? null,
    last_outcome: schedule.lastOutcome,
    last_error: schedule.lastError,
    last_run_id: schedule.lastRunId,
  };
}
