// What of a run is a secret beyond the process's own (issue 31): the values of its secret-named
// variables. The task is kept as sent in the run record and given to the model as sent; every
// copy that leaves the record — a trace's `task` attribute, a report to the management
// platform — goes through `exportedTask`, so they all clean it alike.
import { createRedactor, isSecretKey, type Redactor } from '@junction/telemetry';

/**
 * `base` that also cleans the values of the run's secret-named variables: every known value
 * first, longest first (so no secret is left half-replaced), then `base` again for the key
 * shapes it knows (its patterns).
 */
export function withRunSecrets(
  base: Redactor,
  variables: Readonly<Record<string, string>>,
): Redactor {
  const fromVariables = Object.entries(variables)
    .filter(([name]) => isSecretKey(name))
    .map(([, value]) => value);
  if (fromVariables.length === 0) return base;
  const all = createRedactor([...base.secrets, ...fromVariables]);
  return {
    secrets: all.secrets,
    text: (text) => base.text(all.text(text)),
    value: (value) => base.value(all.value(value)),
  };
}

/** The run's task as it may be shown outside its record: `redactor`'s secrets and the run's own replaced by [REDACTED]. */
export function exportedTask(
  run: { task: string; variables: Readonly<Record<string, string>> },
  redactor: Redactor,
): string {
  return withRunSecrets(redactor, run.variables).text(run.task);
}
