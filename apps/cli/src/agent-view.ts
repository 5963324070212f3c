// The agent as every surface shows it comes from agent-core; the CLI prints the same shape.
export { agentView } from '@junction/agent-core/agents';
export type { AgentView } from '@junction/agent-core/agents';
