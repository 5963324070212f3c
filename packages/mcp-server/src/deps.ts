// What the MCP server is built from. Everything comes in here; nothing is a module singleton.
import type { McpClientPool } from '@junction/agent-core/mcp';
import type { RunDoor } from '@junction/agent-core/runs';
import type { Workspace } from '@junction/config-templates';
import type { RunReader, Store } from '@junction/store';
import type { Scheduler } from '@junction/scheduler';
import type { Logger } from '@junction/telemetry';
import type { WorkflowDoor } from '@junction/workflows';

/** Default wait of a synchronous call_agent: 300 s. */
export const DEFAULT_WAIT_MS = 300_000;
/**
 * How long start_workflow_run with wait=true follows its run: 55 s, so the answer arrives before
 * the 60 s a client of the MCP SDK waits for a request by default.
 */
export const DEFAULT_WORKFLOW_WAIT_MS = 55_000;

/**
 * The slice of the store the MCP server reads and writes (agents, tool servers, schedules, the
 * audit log…). Runs are only read: call_agent and cancel_run go through the run door.
 */
export type McpServerStore = Pick<
  Store,
  | 'environments'
  | 'agents'
  | 'mcpConfigs'
  | 'mcpServers'
  | 'tools'
  | 'runEvents'
  | 'workflows'
  | 'workflowRuns'
  | 'approvals'
  | 'schedules'
  | 'auditLog'
  | 'settings'
> & { readonly runs: RunReader };

export interface McpServerDeps {
  store: McpServerStore;
  workspace: Workspace;
  pool: McpClientPool;
  /** The one door for runs: call_agent submits through it and waits on it. */
  runs: RunDoor;
  /**
   * The one door for workflow runs and approvals. Without it the workflow tools are still
   * listed and answer WORKFLOWS_UNAVAILABLE.
   */
  workflows?: WorkflowDoor;
  /**
   * This process's scheduler, told when set_schedule or remove_schedule changed a schedule so it
   * looks at once; without it the scheduler holding the lease sees the change at its next poll.
   */
  scheduler?: Pick<Scheduler, 'changed'>;
  logger: Logger;
  /** Server version reported in initialize. */
  version: string;
  /** Recorded in the audit log. */
  transport: 'stdio' | 'http';
  /** Variables for sync (discover_tools); default process.env. */
  processEnv?: NodeJS.ProcessEnv;
  /** call_agent waits at most this long when the caller gives no timeout. Default 300 s. */
  defaultWaitMs?: number;
  /** start_workflow_run with wait=true follows its run at most this long. Default 55 s. */
  workflowWaitMs?: number;
}

/** Deps with their defaults filled in. */
export interface ResolvedDeps extends McpServerDeps {
  processEnv: NodeJS.ProcessEnv;
  defaultWaitMs: number;
  workflowWaitMs: number;
}

/** Fills in the defaults. */
export function resolveDeps(deps: McpServerDeps): ResolvedDeps {
  return {
    ...deps,
    processEnv: deps.processEnv ?? process.env,
    defaultWaitMs: deps.defaultWaitMs ?? DEFAULT_WAIT_MS,
    workflowWaitMs: deps.workflowWaitMs ?? DEFAULT_WORKFLOW_WAIT_MS,
  };
}
