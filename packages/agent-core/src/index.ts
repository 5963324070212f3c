// agent-core: agents at work. Each concern is a folder with its own entry point:
//   @junction/agent-core/runs    where a run starts (submitRun), workers, the runner
//   @junction/agent-core/agents  agents made and changed by hand, and from prompt files
//   @junction/agent-core/mcp     how a tool server is connected (the MCP client pool)
//   @junction/agent-core/models  which model an agent uses and whether it can run
//   @junction/agent-core/sync    environment sync
// The root holds what every folder shares: the error family.
export { AGENT_CORE_ERRORS, AgentCoreError } from './errors.js';
export type { AgentCoreErrorCode } from './errors.js';
