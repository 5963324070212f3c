import type { Client, InStatement, ResultSet, TransactionMode } from '@libsql/client';
import { StoreError } from './store-error.js';

/**
 * Wraps a libSQL client for drizzle. For local files @libsql/client hands an interactive
 * transaction the current connection and opens a fresh one for later calls, which drops the
 * per-connection PRAGMAs (busy_timeout) and, for `:memory:`, the whole database (the store's
 * own local client refuses them outright: see local-client.ts). So
 * interactive transactions are refused here and batches run as `BEGIN IMMEDIATE`, taking the
 * write lock up front where the busy timeout can wait for it.
 */
export function guardClient(client: Client): Client {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, property) {
      if (property === 'transaction') {
        return (): Promise<never> =>
          Promise.reject(
            new StoreError(
              'STORE_QUERY_FAILED',
              'Interactive transactions are disabled in @junction/store; express the write as a batch.',
            ),
          );
      }
      if (property === 'batch') {
        return (statements: InStatement[], mode: TransactionMode = 'write'): Promise<ResultSet[]> =>
          target.batch(statements, mode);
      }
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      // Bind methods to the real client: it keeps its connection in private fields. Bound once
      // per method: execute() is called for every statement.
      let fn = bound.get(property);
      if (fn === undefined) {
        fn = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(property, fn);
      }
      return fn;
    },
  });
}
