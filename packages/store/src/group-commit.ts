import { runWriteBatch, runWriteItem, type BatchItem, type BatchResult } from './direct-select.js';
import type { StoreContext } from './store-context.js';
import { isStoreError, storeCallUnsent } from './store-error.js';

interface Waiting {
  items: readonly BatchItem[];
  resolve: (results: BatchResult[]) => void;
  reject: (err: unknown) => void;
}

/**
 * Writes asked for in the same turn of the event loop, committed together: one transaction for
 * all of them where each would have paid its own commit (the larger share of a short write).
 * Each write is its statements, in order; each hears its own results. A group the database
 * refused (one write's statement failed, so all rolled back) is written again write by write,
 * so one write's error (a run that is gone) is its own.
 * A lone write runs as it would have without grouping (one statement commits by itself).
 */
export class GroupCommit {
  readonly #ctx: StoreContext;
  readonly #operation: string;
  #waiting: Waiting[] = [];

  constructor(ctx: StoreContext, operation: string) {
    this.#ctx = ctx;
    this.#operation = operation;
  }

  /** Writes `items` with the others of this turn; resolves with their results. */
  add(items: readonly BatchItem[]): Promise<BatchResult[]> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.push({ items, resolve, reject }) === 1) {
        setImmediate(() => void this.#commit());
      }
    });
  }

  async #commit(): Promise<void> {
    const group = this.#waiting;
    this.#waiting = [];
    if (group.length > 1) {
      try {
        const results = await this.#ctx.write(this.#operation, (db) =>
          runWriteBatch(
            db,
            group.flatMap((w) => w.items),
          ),
        );
        let at = 0;
        for (const w of group) {
          w.resolve(results.slice(at, at + w.items.length));
          at += w.items.length;
        }
      } catch (err) {
        // The database refused it (one write's statement, a lock): rolled back, nothing written.
        // Otherwise it may have been applied (an answer lost on the way back): each write's
        // caller, which can look for its rows, is told.
        if (refused(err)) this.#oneByOne(group);
        else for (const w of group) w.reject(err);
      }
      return;
    }
    this.#oneByOne(group);
  }

  #oneByOne(group: readonly Waiting[]): void {
    for (const w of group) {
      this.#ctx
        .write(this.#operation, (db) =>
          w.items.length === 1
            ? runWriteItem(db, w.items[0]!).then((r) => [r])
            : runWriteBatch(db, w.items),
        )
        .then(w.resolve, w.reject);
    }
  }
}

/** True when the database answered a write with an error: its transaction rolled back. */
function refused(err: unknown): boolean {
  return storeCallUnsent(err) || (isStoreError(err) && err.details.sqliteCode !== undefined);
}
