// The workflow door of a CLI command that neither executes runs nor serves: the workspace's
// store and the public address approval links point at. `workflow run --wait` composes the
// whole service instead (service.ts), since it advances runs.
import type { Approval, Store } from '@junction/store';
import type { WorkflowDoor } from '@junction/workflows';
import type { CliContext } from './context.js';

/** Runs `fn` with a workflow door on the workspace's store, closing the store after. */
export async function withWorkflowDoor<T>(
  fn: (door: WorkflowDoor, store: Store, ctx: CliContext) => Promise<T>,
): Promise<T> {
  const { createContext } = await import('./context.js');
  const { createWorkflowDoor } = await import('@junction/workflows');
  const { cancelRun } = await import('@junction/agent-core/runs');
  const { approvalBaseUrl } = await import('@junction/service-kit/settings');
  const ctx = await createContext();
  try {
    const store = await ctx.store();
    const door = createWorkflowDoor({
      store,
      // webhook.public_url, else the webhook port of a running serve, else webhook.port.
      publicUrl: () => approvalBaseUrl(ctx.config, { configHome: ctx.paths.configHome }),
      // A cancelled workflow run's agent runs are cancelled through the run door's rule.
      cancelRun: (runId, options) => cancelRun({ store }, runId, options),
    });
    return await fn(door, store, ctx);
  } finally {
    await ctx.close();
  }
}

/**
 * `workflow approve|reject`: decides an approval from the terminal (source `cli`), and says
 * what the decision makes its run do.
 */
export function decideFromCli(
  id: string,
  decision: 'approved' | 'rejected',
  flags: { approver?: string | undefined; note?: string | undefined },
): Promise<{ approval: Approval; outcome: string }> {
  return withWorkflowDoor(async (door) => {
    const { decisionOutcome } = await import('@junction/workflows');
    const approval = await door.decide(id, {
      decision,
      ...(flags.approver !== undefined ? { approver: flags.approver } : {}),
      ...(flags.note !== undefined ? { comment: flags.note } : {}),
      source: 'cli',
    });
    const run = await door.get(approval.workflowRunId).catch(() => undefined);
    return { approval, outcome: decisionOutcome(approval, run) };
  });
}
