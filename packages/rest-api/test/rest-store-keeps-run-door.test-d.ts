// Checked by the typecheck (tsconfig.json includes test/), not run by jest: through the store
// the REST API is given a run can be read but not written — every run is queued and cancelled
// through the run door (docs/architecture.md, "One run, end to end").
import type { Store } from '@junction/store';
import type { RestDeps } from '../src/index.js';

type RestStore = RestDeps['store'];

export async function restReadsRuns(store: RestStore): Promise<void> {
  await store.runs.get(1);
  await store.runs.list({ status: 'running' });
  await store.runs.count({ status: 'queued' });
  // @ts-expect-error -- claiming a run is the run door's, not the REST API's
  await store.runs.claim(1, 'worker-1', 1_000);
  // @ts-expect-error -- ending a run is the run door's, not the REST API's
  await store.runs.markCompleted(1);
}

/** A whole store is still accepted where the REST API asks for its slice. */
export function wholeStoreFits(store: Store): RestStore {
  return store;
}
