// agent-core: agents at work. Each concern is a folder with its own entry point:
//   @junction/agent-core/runs    where a run starts (submitRun), workers, the runner
//   @junction/agent-core/agents  which agent a request means; agents made by hand
//   @junction/agent-core/mcp     how a tool server is connected (the MCP client pool)
//   @junction/agent-core/models  which model an agent uses and whether it can run
//   @junction/agent-core/sync    environment sync
// The root holds what every folder shares: the error family.
export {
  AGENT_CORE_ERRORS,
  AGENT_CORE_ERROR_CODES,
  AgentCoreError,
  isAgentCoreError,
} from './errors.js';
export type { AgentCoreErrorCode } from './errors.js';
