// Workflows: definitions (definition.ts) in the reference's Serverless Workflow subset, a
// durable engine on the store (engine.ts, workflow-workers.ts) whose agent steps start runs
// through the one run door, the door for workflow runs (start-run.ts), approvals
// (approvals.ts) and sync of an environment's workflow files (sync-workflows.ts).
export { WorkflowError, isWorkflowError, WORKFLOW_ERRORS } from './errors.js';
export type { WorkflowErrorCode } from './errors.js';
export { cronTriggerOf, parseWorkflow, workflowOf } from './definition.js';
export type { WorkflowModel } from './model.js';
export type { EngineDeps, EngineStore } from './engine.js';
export { WorkflowWorkers } from './workflow-workers.js';
export type {
  WorkflowReservation,
  WorkflowWorkersOptions,
  WorkflowWorkersStore,
} from './workflow-workers.js';
export { findWorkflow, startWorkflowRun } from './start-run.js';
export type { StartWorkflowDeps, StartWorkflowRequest, StartWorkflowStore } from './start-run.js';
export {
  approvalRequestedPayload,
  approvalView,
  decisionOutcome,
  requireApproval,
} from './approvals.js';
export type { DecisionInput } from './approvals.js';
export { fileStem, syncWorkflows } from './sync-workflows.js';
export type { SyncWorkflowsResult, WorkflowSyncReport } from './sync-workflows.js';
export { createWorkflowDoor } from './workflow-door.js';
export type { WorkflowDoor, WorkflowDoorDeps, WorkflowDoorStore } from './workflow-door.js';
export { workflowRunView, workflowStepView, workflowView } from './views.js';
export type { ViewOptions } from './views.js';
