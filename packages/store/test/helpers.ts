// Shared test helpers: real stores on :memory: and on temp files, never mocks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findSqld, SQLD_MISSING, startSqld } from '@junction/tooling/fixtures/sqld.mjs';
import { openStore, type Store } from '../src/index.js';

/** A fresh temp folder, removed by the returned cleanup. */
export function makeTempDir(): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'junction-store-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export type StoreKind = 'memory' | 'file' | 'remote';

/** Whether a libSQL server (sqld) can be run here; said loudly once when it cannot. */
export const SQLD_AVAILABLE = findSqld() !== undefined;
if (!SQLD_AVAILABLE) {
  process.stderr.write(
    `\n*** SKIPPING the store tests on a libSQL server (sqld): ${SQLD_MISSING} ***\n\n`,
  );
}

/** Every kind of store the repository tests run on: a real sqld server among them when there is one. */
export const STORE_KINDS: StoreKind[] = SQLD_AVAILABLE
  ? ['memory', 'file', 'remote']
  : ['memory', 'file'];

/** Opens a store of the given kind; close() also removes the temp folder. */
export async function openTestStore(
  kind: StoreKind,
  now?: () => Date,
): Promise<{ store: Store; close: () => Promise<void> }> {
  if (kind === 'memory') {
    const store = await openStore({ url: ':memory:', now });
    return { store, close: () => store.close() };
  }
  if (kind === 'remote') {
    // A server of its own (it starts in tens of milliseconds), over Hrana on WebSocket, the
    // recommended URL (ws://, or libsql://…?tls=0); HTTP is covered by the multi-host tests.
    const server = await startSqld();
    const store = await openStore({ url: server.url.replace('http:', 'ws:'), now });
    return {
      store,
      close: async () => {
        await store.close();
        await server.stop();
      },
    };
  }
  const { dir, cleanup } = makeTempDir();
  const store = await openStore({ url: path.join(dir, 'junction.db'), now });
  return {
    store,
    close: async () => {
      await store.close();
      cleanup();
    },
  };
}

/** A clock tests can move by hand. */
export function manualClock(start = Date.UTC(2025, 0, 1, 12, 0, 0)): {
  now: () => Date;
  advance: (ms: number) => void;
} {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}
