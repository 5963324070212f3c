// `junction sync` for an environment's workflow files: each is read and checked, stored when
// valid, and reported either way. A stored workflow whose file is gone (or no longer valid)
// is disabled, not deleted: its runs keep their history. Files are never written or deleted.
// A workflow's schedule (its cron start state or `schedule:` block) is stored for the scheduler.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '@junction/config-templates';
import { nextFireTime, readYaml, WORKFLOW_FILE_SUFFIXES } from '@junction/config-templates';
import type { Store } from '@junction/store';
import { cronTriggerOf, parseWorkflow, type CronTrigger } from './definition.js';
import { isWorkflowError } from './errors.js';

export interface WorkflowSyncReport {
  file: string;
  /** The workflow's id (or the file's name when it could not be read). */
  workflowId: string;
  status: 'synced' | 'error';
  change: 'added' | 'updated' | 'unchanged' | 'disabled';
  error?: string;
}

export interface SyncWorkflowsResult {
  workflows: WorkflowSyncReport[];
  /** Stored workflows whose file is gone, now disabled. */
  disabled: string[];
  /** Synced workflows that declare a schedule (stored for the scheduler unless a dry run). */
  schedules: number;
}

/** The id a workflow file gets when it names none: its name without the suffix. */
export function fileStem(file: string): string {
  const base = path.basename(file);
  const suffix = WORKFLOW_FILE_SUFFIXES.find((s) => base.endsWith(s));
  return suffix ? base.slice(0, -suffix.length) : base;
}

/** Stores an environment's valid workflow files, and their schedules, reporting every file. */
export async function syncWorkflows(options: {
  workspace: Workspace;
  store: Pick<Store, 'environments' | 'workflows' | 'schedules'>;
  environment: string;
  dryRun?: boolean;
  /** The clock a schedule's next time is counted from. */
  now?: () => Date;
}): Promise<SyncWorkflowsResult> {
  const { workspace, store, environment } = options;
  const dryRun = options.dryRun ?? false;
  const triggers: Array<{ id: number | undefined; workflowId: string; trigger: CronTrigger }> = [];
  const files = await workspace.listWorkflowFiles(environment);
  const env = dryRun
    ? await store.environments.getByName(environment)
    : await store.environments.ensure(environment);
  const stored = env ? await store.workflows.list({ environmentId: env.id }) : [];
  const reports: WorkflowSyncReport[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const stem = fileStem(file);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      reports.push({
        file,
        workflowId: stem,
        status: 'error',
        change: 'unchanged',
        error: `Cannot read ${file}: ${(err as Error).message}`,
      });
      continue;
    }
    try {
      const model = parseWorkflow(text, file, stem);
      if (seen.has(model.id)) {
        reports.push({
          file,
          workflowId: model.id,
          status: 'error',
          change: 'unchanged',
          error: `Workflow id "${model.id}" is used by another file of this environment; give each workflow its own id.`,
        });
        continue;
      }
      seen.add(model.id);
      const read = readYaml(text);
      const definition = (read.ok ? read.value : {}) as Record<string, unknown>;
      const before = stored.find((w) => w.workflowId === model.id);
      const change =
        before === undefined
          ? 'added'
          : JSON.stringify(before.definition) === JSON.stringify(definition) &&
              before.enabled &&
              before.path === file
            ? 'unchanged'
            : 'updated';
      let id = before?.id;
      if (!dryRun && env && change !== 'unchanged') {
        const row = await store.workflows.upsert(env.id, {
          workflowId: model.id,
          name: model.name,
          definition,
          path: file,
          enabled: true,
        });
        id = row.id;
      }
      const trigger = cronTriggerOf(definition);
      if (trigger) triggers.push({ id, workflowId: model.id, trigger });
      reports.push({ file, workflowId: model.id, status: 'synced', change });
    } catch (err) {
      if (!isWorkflowError(err)) throw err;
      reports.push({
        file,
        workflowId: stem,
        status: 'error',
        change: 'unchanged',
        error: err.message,
      });
    }
  }
  // A workflow whose file is gone, or no longer valid, keeps its last definition, disabled.
  const disabled: string[] = [];
  for (const workflow of stored) {
    if (workflow.enabled && !seen.has(workflow.workflowId)) {
      disabled.push(workflow.workflowId);
      if (!dryRun) await store.workflows.setEnabled(workflow.id, false);
    }
  }
  if (!dryRun && env) {
    // A disabled workflow's file schedule goes with it; an operator's stays.
    const at = (options.now ?? (() => new Date()))();
    const scheduled: number[] = [];
    for (const { id, workflowId, trigger } of triggers) {
      if (id === undefined) continue;
      const timezone = trigger.timezone ?? null;
      await store.schedules.set(
        { kind: 'workflow', id, name: workflowId, environmentId: env.id },
        {
          cron: trigger.cron,
          timezone,
          enabled: trigger.enabled,
          input: trigger.input,
          catchUp: trigger.catchUp,
          overlap: trigger.overlap,
          origin: 'file',
          nextRunAt: trigger.enabled ? nextFireTime(trigger.cron, timezone, at) : null,
        },
        { keepOperator: true },
      );
      scheduled.push(id);
    }
    await store.schedules.removeFileSchedulesExcept('workflow', env.id, scheduled);
  }
  return { workflows: reports, disabled, schedules: triggers.length };
}
