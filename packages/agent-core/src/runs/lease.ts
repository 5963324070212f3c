/** How long a worker's claim on a run holds without renewal; renewed every third of it. */
export const DEFAULT_LEASE_MS = 60_000;
