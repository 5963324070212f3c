import { runRequestFields } from '@junction/agent-core/runs';
import {
  isScheduleError,
  setSchedule,
  type ScheduleError,
  type ScheduleTargetRef,
} from '@junction/scheduler';
import type { Store } from '@junction/store';
import { idArg, workflowInputArg, workflowRefArg } from '../arguments.js';
import { McpServerError } from '../errors.js';
import { requireAgent, requireEnvironment, workflowByRowId, workflowNotFound } from '../lookups.js';
import { scheduleDetails, scheduleSetFields } from '../schedule-views.js';
import { defineTool } from '../tool-kit.js';
import {
  catchUpArg,
  cronScheduleArg,
  enabledArg,
  overlapArg,
  scheduleVariablesArg,
  timezoneArg,
} from './schedule-fields.js';

/** The arguments of this tool that carry a setting under another name than the scheduler's field. */
const ARGUMENT_OF_FIELD: Readonly<Record<string, string>> = {
  cron: 'cron_schedule',
  variables: 'schedule_variables',
};

/**
 * SCHEDULE_INVALID as this tool's argument error: the same check and words, naming the argument
 * the caller sent (`cron_schedule`, not the scheduler's `cron`).
 */
function argumentError(err: ScheduleError): McpServerError {
  const field = typeof err.details.field === 'string' ? err.details.field : '';
  const argument = ARGUMENT_OF_FIELD[field] ?? field;
  const problem = err.message.startsWith(`${field}: `)
    ? err.message.slice(field.length + 2)
    : err.message;
  return new McpServerError(
    'ARGUMENT_INVALID',
    `${argument}: ${problem}`,
    { issues: [{ path: argument, message: problem }] },
    { cause: err },
  );
}

function argumentInvalid(path: string, message: string): McpServerError {
  return new McpServerError('ARGUMENT_INVALID', message, { issues: [{ path, message }] });
}

/** What the schedule runs: an agent by id, or a workflow by its id (in `environment_id`). */
async function targetOf(
  store: Pick<Store, 'agents' | 'environments' | 'workflows'>,
  args: { agent_id?: number; workflow_id?: string | number; environment_id?: number },
): Promise<ScheduleTargetRef> {
  if (args.agent_id !== undefined && args.workflow_id !== undefined) {
    throw argumentInvalid(
      'workflow_id',
      'Give agent_id or workflow_id, not both: a schedule runs one agent or one workflow.',
    );
  }
  if (args.agent_id !== undefined) {
    if (args.environment_id !== undefined) {
      throw argumentInvalid(
        'environment_id',
        'environment_id goes with workflow_id: agent_id names one agent of one environment. Leave out environment_id.',
      );
    }
    await requireAgent(store, args.agent_id);
    return { kind: 'agent', agent_id: args.agent_id };
  }
  if (args.workflow_id === undefined) {
    throw argumentInvalid(
      'agent_id',
      'Give agent_id (from list_agents) or workflow_id (from list_workflows): what the schedule runs.',
    );
  }
  const env =
    args.environment_id !== undefined
      ? await requireEnvironment(store, args.environment_id)
      : undefined;
  const row = await workflowByRowId(store, args.workflow_id, env?.id);
  const environment = row ? (await requireEnvironment(store, row.environmentId)).name : env?.name;
  return {
    kind: 'workflow',
    name: row ? row.workflowId : String(args.workflow_id),
    ...(environment !== undefined ? { environment } : {}),
  };
}

export const setScheduleTool = defineTool({
  name: 'set_schedule',
  title: 'Set a schedule',
  description:
    'Runs an agent (agent_id from list_agents) or a workflow (workflow_id from list_workflows) on cron: ' +
    'creates its schedule, or replaces the one it has (an argument left out takes its default). ' +
    'cron_schedule is 5 fields (minute hour day month weekday), such as "0 9 * * 1-5", or 6 with seconds first. ' +
    'Agents take task and schedule_variables (a JSON object of strings); workflows take input. Each fire starts ' +
    'a run with source cron_scheduler in whichever Junction process holds the scheduler lease. A schedule set ' +
    'here is kept by later syncs until remove_schedule.',
  shape: {
    agent_id: idArg(
      'agent_id',
      'Id of the agent to schedule, a string of digits from list_agents. Give this or workflow_id.',
    ).optional(),
    workflow_id: workflowRefArg(
      'workflow_id',
      'The workflow to schedule, instead of agent_id: its id in the file (workflow_id from list_workflows) or its id.',
    ).optional(),
    environment_id: idArg(
      'environment_id',
      'Environment of workflow_id (default: the "default" environment).',
    ).optional(),
    cron_schedule: cronScheduleArg,
    schedule_variables: scheduleVariablesArg.optional(),
    enabled: enabledArg.optional(),
    timezone: timezoneArg.optional(),
    task: runRequestFields.task
      .optional()
      .describe(
        'Agents: the task of each run. Default: "Scheduled execution: <the agent\'s description>".',
      ),
    input: workflowInputArg
      .optional()
      .describe(
        "Workflows: the input of each run, a JSON object matching the workflow's input_schema (checked when it fires).",
      ),
    catch_up: catchUpArg.optional(),
    overlap: overlapArg.optional(),
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async run(args, ctx) {
    const { store } = ctx.deps;
    const ref = await targetOf(store, args);
    let schedule;
    try {
      schedule = await setSchedule(store, ref, {
        cron: args.cron_schedule,
        ...(args.timezone !== undefined ? { timezone: args.timezone } : {}),
        ...(args.enabled !== undefined ? { enabled: args.enabled } : {}),
        ...(args.task !== undefined ? { task: args.task } : {}),
        ...(args.schedule_variables !== undefined ? { variables: args.schedule_variables } : {}),
        ...(args.input !== undefined ? { input: args.input } : {}),
        ...(args.catch_up !== undefined ? { catch_up: args.catch_up } : {}),
        ...(args.overlap !== undefined ? { overlap: args.overlap } : {}),
      });
    } catch (err) {
      if (isScheduleError(err, 'SCHEDULE_INVALID')) throw argumentError(err);
      if (isScheduleError(err, 'SCHEDULE_TARGET_NOT_FOUND') && args.workflow_id !== undefined) {
        throw workflowNotFound(args.workflow_id, args.environment_id, err);
      }
      throw err;
    }
    ctx.deps.scheduler?.changed();
    const redact = (value: unknown): unknown => ctx.redact(value);
    const who = `${schedule.kind} '${schedule.target}'`;
    return {
      data: {
        success: true,
        message: schedule.enabled
          ? `Schedule set for ${who} and activated in scheduler`
          : `Schedule set for ${who}; it is disabled and does not fire until set again with enabled true`,
        ...(schedule.kind === 'agent'
          ? { agent: { id: schedule.agentId, name: schedule.target } }
          : {
              workflow: {
                id: schedule.workflowId,
                workflow_id: schedule.target,
                environment_id: schedule.environmentId,
              },
            }),
        schedule: scheduleSetFields(schedule, redact),
        details: scheduleDetails(schedule, redact),
      },
    };
  },
});
