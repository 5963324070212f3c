// What `junction schedule set|show|run-now|remove` share: the agent or workflow a schedule
// belongs to (`<name>`, `--agent`/`--workflow` when the name is both, `--env`), and the store
// they work on.
import { Args, Flags } from '@oclif/core';
import type { ScheduleTargetRef, ScheduleView } from '@junction/scheduler';
import type { Schedule, Store } from '@junction/store';
import type { CliContext } from './context.js';

export const scheduleNameArg = {
  name: Args.string({
    description: 'agent name, or workflow id (say --workflow when it is both)',
    required: true,
  }),
};

export const scheduleTargetFlags = {
  agent: Flags.boolean({
    description: 'the name is an agent (when a workflow has the same id)',
    exclusive: ['workflow'],
  }),
  workflow: Flags.boolean({
    description: 'the name is a workflow id',
    exclusive: ['agent'],
  }),
  env: Flags.string({
    char: 'e',
    description: 'environment of the agent or workflow',
    default: 'default',
  }),
};

/** The agent or workflow the command line names. */
export function scheduleTargetRef(
  name: string,
  flags: { agent?: boolean | undefined; workflow?: boolean | undefined; env: string },
): ScheduleTargetRef {
  const kind = flags.workflow ? 'workflow' : flags.agent ? 'agent' : undefined;
  return { name, environment: flags.env, ...(kind ? { kind } : {}) };
}

/**
 * Runs `fn` on the workspace's store and closes it after. A name that is both an agent and a
 * workflow is refused with this CLI's words for saying which (`--agent` or `--workflow`).
 */
export async function withScheduleStore<T>(
  fn: (store: Store, ctx: CliContext) => Promise<T>,
): Promise<T> {
  const { createContext } = await import('./context.js');
  const { isScheduleError, ScheduleError } = await import('@junction/scheduler');
  const ctx = await createContext();
  try {
    return await fn(await ctx.store(), ctx);
  } catch (err) {
    if (isScheduleError(err, 'SCHEDULE_TARGET_AMBIGUOUS')) {
      const { name, environment } = err.details;
      throw new ScheduleError(
        'SCHEDULE_TARGET_AMBIGUOUS',
        `"${String(name)}" is both an agent and a workflow in environment "${String(environment)}"; add --agent or --workflow to say which.`,
        err.details,
      );
    }
    throw err;
  } finally {
    await ctx.close();
  }
}

/**
 * The one schedule view every surface answers with (@junction/scheduler's scheduleView), with
 * secret-named variables and input and the service's known secrets redacted exactly as the REST
 * and MCP views redact them (agent-core's secretRedactor over service-kit's secretsOf).
 */
export async function scheduleViewOf(schedule: Schedule, ctx: CliContext): Promise<ScheduleView> {
  const { scheduleView } = await import('@junction/scheduler');
  const { secretRedactor } = await import('@junction/agent-core/models');
  const { secretsOf } = await import('@junction/service-kit/settings');
  return secretRedactor(secretsOf(ctx.config)).value(scheduleView(schedule)) as ScheduleView;
}
