// The longest a run may take, one day: the run door refuses a longer `timeout_seconds`, and a
// workflow file's agent step with a longer `timeout` is a problem when the file is read, not a
// failure of every run that reaches the step.

/** Longest per-run timeout, in seconds. */
export const MAX_RUN_TIMEOUT_SECONDS = 86_400;
