// Which agent a request means (find-agent.ts), agents made and changed by hand (agent-admin.ts),
// and agents built from prompt files at sync (agent-registry.ts).
export { findAgent } from './find-agent.js';
export type { AgentSelector } from './find-agent.js';
export { agentView, createAgent, requireAgent, updateAgent } from './agent-admin.js';
export type { AgentView } from './agent-admin.js';
export { deleteAgent, deleteEnvironment } from './delete.js';
export type { DeletedAgent, DeletedEnvironment } from './delete.js';
export { checkSubAgents, registerAgent, resolveTools, storedToolIndex } from './agent-registry.js';
