// What the MCP server is built from. Everything comes in here; nothing is a module singleton.
import type { McpClientPool } from '@junction/agent-core/mcp';
import type { RunDoor } from '@junction/agent-core/runs';
import type { Workspace } from '@junction/config-templates';
import type { Store } from '@junction/store';
import type { Logger } from '@junction/telemetry';

/** Default wait of a synchronous call_agent: 300 s. */
export const DEFAULT_WAIT_MS = 300_000;

export interface McpServerDeps {
  store: Store;
  workspace: Workspace;
  pool: McpClientPool;
  /** The one door for runs: call_agent submits through it and waits on it. */
  runs: RunDoor;
  logger: Logger;
  /** Server version reported in initialize. */
  version: string;
  /** Recorded in the audit log. */
  transport: 'stdio' | 'http';
  /** Variables for sync (discover_tools); default process.env. */
  processEnv?: NodeJS.ProcessEnv;
  /** call_agent waits at most this long when the caller gives no timeout. Default 300 s. */
  defaultWaitMs?: number;
}

/** Deps with their defaults filled in. */
export interface ResolvedDeps extends McpServerDeps {
  processEnv: NodeJS.ProcessEnv;
  defaultWaitMs: number;
}

/** Fills in the defaults. */
export function resolveDeps(deps: McpServerDeps): ResolvedDeps {
  return {
    ...deps,
    processEnv: deps.processEnv ?? process.env,
    defaultWaitMs: deps.defaultWaitMs ?? DEFAULT_WAIT_MS,
  };
}
