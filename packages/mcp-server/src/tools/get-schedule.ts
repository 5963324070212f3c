import { agentIdArg } from '../arguments.js';
import { requireAgent } from '../lookups.js';
import { scheduleDetails, scheduleGetFields } from '../schedule-views.js';
import { defineTool } from '../tool-kit.js';

export const getScheduleTool = defineTool({
  name: 'get_schedule',
  title: 'Show the schedule of an agent',
  description:
    "Shows an agent's schedule: whether it is enabled, its cron expression, the variables of each run, when it " +
    'last ran and when it runs next; details holds everything else (time zone, task, policies, how the last fire ' +
    'went). An agent without a schedule is answered with enabled false and cron_expression null. ' +
    'list_schedules lists every schedule, of agents and workflows.',
  shape: {
    agent_id: agentIdArg,
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { store } = ctx.deps;
    const agent = await requireAgent(store, args.agent_id);
    const schedule = await store.schedules.getFor('agent', agent.id);
    const redact = (value: unknown): unknown => ctx.redact(value);
    return {
      data: {
        success: true,
        agent: { id: agent.id, name: agent.name },
        schedule: scheduleGetFields(schedule, redact),
        details: schedule ? scheduleDetails(schedule, redact) : null,
        ...(schedule
          ? {}
          : { message: `Agent '${agent.name}' has no schedule. Set one with set_schedule.` }),
      },
    };
  },
});
