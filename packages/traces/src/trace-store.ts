// The slice of the store the trace receiver, exporter and retention use.
import type { Store } from '@junction/store';

/** The spans table, and nothing else of the store: traces never read or write a run. */
export type TraceStore = Pick<Store, 'spans'>;
