// How step attempts and values look on one line of the CLI's output. In --json, workflows,
// runs, steps and approvals are the workflows package's views, the same the REST API answers.
import type { WorkflowStep } from '@junction/store';

/** One line for a step attempt as it begins or ends. */
export function stepLine(s: WorkflowStep): string {
  const attempt = s.attempt > 1 ? ` (attempt ${s.attempt})` : '';
  const detail =
    s.error !== null
      ? `  — ${s.error.slice(0, 200)}`
      : s.runId !== null
        ? `  run ${s.runId}`
        : s.approvalId !== null
          ? `  approval ${s.approvalId}`
          : '';
  return `  step ${s.stepName}${attempt}  ${s.type}  ${s.status}${detail}`;
}

/** A JSON value as one short line. */
export function brief(value: unknown, max = 120): string {
  const text =
    value === null || value === undefined
      ? '-'
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
