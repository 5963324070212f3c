// Checked by the typecheck (tsconfig.json includes test/), not run by jest: through the store
// the workflow package is given an agent run can be read but not written — an agent step starts
// its run through the RunDoor it is handed, and every run is written through the run door
// (docs/architecture.md, "One run, end to end").
import type { Store } from '@junction/store';
import type {
  StartWorkflowDeps,
  WorkflowDoorDeps,
  WorkflowWorkersOptions,
  syncWorkflows,
} from '../src/index.js';

type WorkersStore = WorkflowWorkersOptions['store'];
type DoorStore = WorkflowDoorDeps['store'];
type StartStore = StartWorkflowDeps['store'];
type SyncStore = Parameters<typeof syncWorkflows>[0]['store'];

export async function workersReadRuns(store: WorkersStore): Promise<void> {
  await store.runs.get(1);
  await store.runs.findByIdempotencyKey('workflow:wf-1-step-1');
  // @ts-expect-error -- claiming a run is the run door's, not the workflow workers'
  await store.runs.claim(1, 'worker-1', 1_000);
  // @ts-expect-error -- queueing a run is the run door's: an agent step submits through it
  await store.runs.create({ agentName: 'a', task: 't', source: 'workflow' });
  // @ts-expect-error -- ending a run is the run door's, not the workflow workers'
  await store.runs.markCompleted(1);
}

export async function doorOnlyFindsRunsToCancel(store: DoorStore): Promise<void> {
  await store.runs.activeIdsOfWorkflowRun(1);
  // @ts-expect-error -- cancelling an agent run is the run door's (the door's cancelRun)
  await store.runs.requestCancel(1, 'cancelled');
}

export function startAndSyncSeeNoRuns(start: StartStore, sync: SyncStore): void {
  // @ts-expect-error -- starting a workflow run never touches agent runs
  void start.runs;
  // @ts-expect-error -- syncing workflow files never touches agent runs
  void sync.runs;
}

/** The same writes compile on a whole store: the slices, not a typo, refuse them above. */
export async function theRunDoorsStoreWritesRuns(store: Store): Promise<void> {
  await store.runs.claim(1, 'worker-1', 1_000);
  await store.runs.create({ agentName: 'a', task: 't', source: 'workflow' });
  await store.runs.markCompleted(1);
  await store.runs.requestCancel(1, 'cancelled');
}

/** A whole store is still accepted wherever the slices are asked for. */
export function wholeStoreFits(store: Store): [WorkersStore, DoorStore, StartStore, SyncStore] {
  return [store, store, store, store];
}
