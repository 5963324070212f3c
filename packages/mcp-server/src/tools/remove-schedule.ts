import { isScheduleError, removeSchedule, ScheduleError } from '@junction/scheduler';
import { agentIdArg } from '../arguments.js';
import { requireAgent } from '../lookups.js';
import { scheduleDetails } from '../schedule-views.js';
import { defineTool } from '../tool-kit.js';

export const removeScheduleTool = defineTool({
  name: 'remove_schedule',
  title: 'Remove the schedule of an agent',
  description:
    "Removes an agent's schedule: it runs on cron no more (a run it already started goes on). An agent without " +
    "a schedule is refused (SCHEDULE_NOT_FOUND). A schedule from the agent's prompt file comes back at the next " +
    'sync while the file still has it; set_schedule with enabled false keeps it off instead.',
  shape: {
    agent_id: agentIdArg,
  },
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(args, ctx) {
    const { store } = ctx.deps;
    const agent = await requireAgent(store, args.agent_id);
    let schedule;
    try {
      schedule = await removeSchedule(store, { agent_id: agent.id });
    } catch (err) {
      if (!isScheduleError(err, 'SCHEDULE_NOT_FOUND')) throw err;
      throw new ScheduleError(
        'SCHEDULE_NOT_FOUND',
        `Agent '${agent.name}' has no schedule; nothing was removed. list_schedules lists every schedule.`,
        { agent_id: agent.id },
      );
    }
    ctx.deps.scheduler?.changed();
    const fromFile =
      schedule.origin === 'file'
        ? ' Its prompt file has this schedule: the next sync sets it again unless the file loses it.'
        : '';
    return {
      data: {
        success: true,
        message: `Schedule removed from agent '${agent.name}' and deactivated in scheduler.${fromFile}`,
        agent: { id: agent.id, name: agent.name },
        details: scheduleDetails(schedule, (value) => ctx.redact(value)),
      },
    };
  },
});
