// The answers of the workflow, workflow run and approval routes, published under
// components/schemas of the OpenAPI document (beside schemas.ts's) when the router serves them.
import { APPROVAL_STATUSES, WORKFLOW_RUN_STATUSES, WORKFLOW_STEP_STATUSES } from '@junction/store';
import { z } from 'zod';

const id = z.int().min(1);
const count = z.int().min(0);
const timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');
const json = z.unknown();

/** Paging of the workflow lists: no total (the store counts none), whether a next page exists. */
const workflowPage = {
  limit: z.int().min(1).describe('The page size used'),
  offset: count.describe('Records skipped'),
  has_more: z.boolean().describe('True when a next page exists (offset + limit)'),
};

export const workflowSchema = z
  .object({
    id,
    workflow_id: z.string().describe('The id in the workflow file (start runs with it)'),
    name: z.string(),
    environment: z.string().nullable().describe('Environment name'),
    enabled: z.boolean().describe('False when its file is gone or failed to sync'),
    description: z.string().describe("The definition's description, or empty"),
    version: z.string().nullable().describe("The definition's version, or null"),
    path: z.string().nullable().describe('The workflow file on the server'),
    states: count.describe('Number of top-level states'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .describe('A workflow');

export const workflowListSchema = z
  .object({ workflows: z.array(workflowSchema), ...workflowPage })
  .describe('A page of workflows, by environment id then workflow id');

export const workflowDetailSchema = z
  .object({
    workflow: z.object({
      ...workflowSchema.shape,
      definition: z
        .record(z.string(), json)
        .describe('The definition as synced (secret-looking keys redacted)'),
    }),
  })
  .describe('A workflow with its definition');

export const workflowRunSchema = z
  .object({
    id,
    workflow_id: z.string().describe('The id of the workflow in its file'),
    workflow_name: z.string(),
    status: z.enum(WORKFLOW_RUN_STATUSES),
    input: json.describe('The input the run started with (secret-looking keys redacted)'),
    output: json.describe('The output of its last state once completed, else null'),
    error: z.string().nullable(),
    current_step: z.string().nullable().describe('The state it is at or waits in'),
    source: z.string().nullable().describe('What started it: api (this API), cli, mcp, …'),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  })
  .describe('A workflow run');

export const workflowStepSchema = z
  .object({
    id,
    name: z.string().describe('The state id'),
    path: z.string().describe('Where in the definition, e.g. fetch#1 or checks.0.scan#1'),
    attempt: z.int().min(1),
    type: z.string().describe('inject, agent, switch, transform, parallel, foreach, …'),
    status: z.enum(WORKFLOW_STEP_STATUSES),
    output: json,
    error: z.string().nullable(),
    run_id: z.int().nullable().describe('The agent run an agent step started'),
    approval_id: z.string().nullable().describe('The approval a human_approval step waits on'),
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
  })
  .describe('One attempt of a step of a workflow run');

export const approvalSchema = z
  .object({
    approval_id: z.string(),
    workflow_run_id: id,
    step_name: z.string(),
    message: z.string(),
    approvers: z
      .array(z.string())
      .describe('Who may decide (send one as approver); empty: anyone with a key'),
    status: z.enum(APPROVAL_STATUSES),
    timeout_seconds: z.int().nullable(),
    decided_by: z.string().nullable(),
    comment: z.string().nullable().describe('The comment of an approval or reason of a rejection'),
    created_at: timestamp,
    decided_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    view_url: z.string().describe('Signed link on the webhook port: the approval'),
    approve_url: z.string().describe('Signed link on the webhook port: POST to approve'),
    reject_url: z.string().describe('Signed link on the webhook port: POST to reject'),
  })
  .describe('A human approval a workflow run waits on, with its signed links');

export const workflowRunAnswerSchema = z
  .object({ workflow_run: workflowRunSchema })
  .describe('A workflow run');

export const workflowRunDetailSchema = z
  .object({
    workflow_run: workflowRunSchema,
    steps: z.array(workflowStepSchema).describe('Step attempts in the order they began'),
    approvals: z.array(approvalSchema).describe('Approvals of the run, newest first'),
  })
  .describe('A workflow run with its steps and approvals');

export const workflowRunListSchema = z
  .object({ workflow_runs: z.array(workflowRunSchema), ...workflowPage })
  .describe('A page of workflow runs, newest first');

export const approvalListSchema = z
  .object({ approvals: z.array(approvalSchema), ...workflowPage })
  .describe('A page of approvals, newest first');

export const approvalAnswerSchema = z.object({ approval: approvalSchema }).describe('An approval');

export type WorkflowBody = z.infer<typeof workflowSchema>;
export type WorkflowListBody = z.infer<typeof workflowListSchema>;
export type WorkflowDetailBody = z.infer<typeof workflowDetailSchema>;
export type WorkflowRunBody = z.infer<typeof workflowRunSchema>;
export type WorkflowStepBody = z.infer<typeof workflowStepSchema>;
export type ApprovalBody = z.infer<typeof approvalSchema>;
export type WorkflowRunAnswerBody = z.infer<typeof workflowRunAnswerSchema>;
export type WorkflowRunDetailBody = z.infer<typeof workflowRunDetailSchema>;
export type WorkflowRunListBody = z.infer<typeof workflowRunListSchema>;
export type ApprovalListBody = z.infer<typeof approvalListSchema>;
export type ApprovalAnswerBody = z.infer<typeof approvalAnswerSchema>;

/** The workflow components, by name, in the order the document publishes them. */
export const WORKFLOW_COMPONENT_SCHEMAS = {
  Workflow: workflowSchema,
  WorkflowList: workflowListSchema,
  WorkflowDetail: workflowDetailSchema,
  WorkflowRun: workflowRunSchema,
  WorkflowStep: workflowStepSchema,
  WorkflowRunAnswer: workflowRunAnswerSchema,
  WorkflowRunDetail: workflowRunDetailSchema,
  WorkflowRunList: workflowRunListSchema,
  Approval: approvalSchema,
  ApprovalAnswer: approvalAnswerSchema,
  ApprovalList: approvalListSchema,
} as const;
