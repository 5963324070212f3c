// Junction's own MCP server: its tools and resources on an SDK McpServer, transport-agnostic.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createAuditor } from './audit.js';
import { resolveDeps, type McpServerDeps } from './deps.js';
import { installTools } from './tool-dispatch.js';
import type { ToolDefinition } from './tool-kit.js';
import { registerResources } from './resources.js';
import { callAgentTool } from './tools/call-agent.js';
import { createAgentTool } from './tools/create-agent.js';
import { discoverToolsTool } from './tools/discover-tools.js';
import { getAgentDetailsTool } from './tools/get-agent-details.js';
import { inspectRunTool } from './tools/inspect-run.js';
import { listAgentsTool } from './tools/list-agents.js';
import { listEnvironmentsTool } from './tools/list-environments.js';
import { listMcpConfigsTool } from './tools/list-mcp-configs.js';
import { listRunsTool } from './tools/list-runs.js';
import { listToolsTool } from './tools/list-tools.js';
import { updateAgentTool } from './tools/update-agent.js';
import { cancelRunTool } from './tools/cancel-run.js';
import { cancelWorkflowRunTool } from './tools/cancel-workflow-run.js';
import { approveWorkflowStepTool, rejectWorkflowStepTool } from './tools/decide-workflow-step.js';
import { getWorkflowRunTool } from './tools/get-workflow-run.js';
import { listWorkflowApprovalsTool } from './tools/list-workflow-approvals.js';
import { listWorkflowRunsTool } from './tools/list-workflow-runs.js';
import { listWorkflowsTool } from './tools/list-workflows.js';
import { startWorkflowRunTool } from './tools/start-workflow-run.js';
import { getScheduleTool } from './tools/get-schedule.js';
import { listSchedulesTool } from './tools/list-schedules.js';
import { removeScheduleTool } from './tools/remove-schedule.js';
import { setScheduleTool } from './tools/set-schedule.js';

/** Every tool, in the order tools/list shows them. */
export const JUNCTION_TOOLS: readonly ToolDefinition[] = [
  callAgentTool,
  createAgentTool,
  updateAgentTool,
  getAgentDetailsTool,
  listAgentsTool,
  discoverToolsTool,
  listToolsTool,
  listEnvironmentsTool,
  listMcpConfigsTool,
  listRunsTool,
  inspectRunTool,
  cancelRunTool,
  listWorkflowsTool,
  startWorkflowRunTool,
  getWorkflowRunTool,
  listWorkflowRunsTool,
  cancelWorkflowRunTool,
  listWorkflowApprovalsTool,
  approveWorkflowStepTool,
  rejectWorkflowStepTool,
  setScheduleTool,
  getScheduleTool,
  removeScheduleTool,
  listSchedulesTool,
];

const INSTRUCTIONS =
  'Junction runs AI agents. Find agents with list_agents (ids are strings of digits), run one with ' +
  'call_agent, follow runs with list_runs and inspect_run, stop one with cancel_run. Agents use MCP tools discovered per environment: ' +
  'list_environments, list_mcp_configs, list_tools, discover_tools. create_agent and update_agent write ' +
  'prompt files. Workflows chain agents and human approvals: find them with list_workflows, start one with ' +
  'start_workflow_run, follow it with get_workflow_run, decide what it waits for with list_workflow_approvals, ' +
  'approve_workflow_step and reject_workflow_step. Schedules run agents and workflows on cron: set_schedule, ' +
  'get_schedule, remove_schedule, list_schedules.';

/** Where a connection comes from, for the audit actor. */
export interface ConnectionInfo {
  /** The HTTP client's address; absent over stdio. */
  remoteAddress?: string;
  /** The signed-in user (OAuth `username`, else `sub`); only with OAuth on. */
  user?: string;
}

/** Builds the server for one connection; createMcpServer is this without connection details. */
export function buildMcpServer(deps: McpServerDeps, connection: ConnectionInfo = {}): McpServer {
  const resolved = resolveDeps(deps);
  const logger = deps.logger.child({ component: 'mcp-server', transport: deps.transport });
  const server = new McpServer(
    { name: 'junction', title: 'Junction', version: deps.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const auditor = createAuditor({
    store: deps.store,
    logger,
    transport: deps.transport,
    processEnv: resolved.processEnv,
  });
  const actor = (): string | null => {
    const client = server.server.getClientVersion();
    const name = client ? `${client.name}/${client.version}` : undefined;
    const address = connection.remoteAddress;
    const from = name && address ? `${name} (${address})` : (name ?? address ?? null);
    if (connection.user === undefined) return from;
    return from === null ? connection.user : `${connection.user} via ${from}`;
  };
  installTools(server, JUNCTION_TOOLS, { deps: resolved, logger, auditor, actor });
  registerResources(server, resolved, auditor);
  return server;
}

/** Junction's MCP server with its tools and resources registered; connect it to a transport. */
export function createMcpServer(deps: McpServerDeps): McpServer {
  return buildMcpServer(deps);
}
