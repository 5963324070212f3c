// Checked by the typecheck (tsconfig.json includes test/), not run by jest: through the store
// the scheduler is given a run can be read but not written — every run is written through the
// run door (docs/architecture.md, "One run, end to end").
import type { Store } from '@junction/store';
import type { SchedulerOptions, setSchedule } from '../src/index.js';

type SchedulerStore = SchedulerOptions['store'];
type ScheduleCommandsStore = Parameters<typeof setSchedule>[0];

export async function schedulerReadsRuns(store: SchedulerStore): Promise<void> {
  await store.runs.get(1);
  await store.runs.list({ status: 'running' });
  // @ts-expect-error -- claiming a run is the run door's, not the scheduler's
  await store.runs.claim(1, 'worker-1', 1_000);
  // @ts-expect-error -- ending a run is the run door's, not the scheduler's
  await store.runs.markCompleted(1);
}

export function scheduleCommandsSeeNoRuns(store: ScheduleCommandsStore): void {
  // @ts-expect-error -- the schedule commands never touch runs
  void store.runs;
}

/** A whole store is still accepted wherever the slices are asked for. */
export function wholeStoreFits(store: Store): [SchedulerStore, ScheduleCommandsStore] {
  return [store, store];
}
