// Agents made and changed by hand (agent-admin.ts), deleted (delete.ts), and built from prompt
// files (agent-registry.ts). Which agent a run request means (find-agent.ts) is the run door's.
export { agentView, createAgent, requireAgent, updateAgent } from './agent-admin.js';
export type { AgentView } from './agent-admin.js';
export { deleteAgent, deleteEnvironment } from './delete.js';
export type { DeletedAgent, DeletedEnvironment } from './delete.js';
export { checkSubAgents, registerAgent, resolveTools, storedToolIndex } from './agent-registry.js';
