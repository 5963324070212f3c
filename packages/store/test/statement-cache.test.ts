import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../src/index.js';

const opened: Store[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

describe('reused prepared statements', () => {
  it('give each execution its own arguments and rows, on files and in memory, across databases', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-stmt-'));
    const a = await openStore({ url: path.join(dir, 'a.db') });
    const b = await openStore({ url: path.join(dir, 'b.db') });
    const m = await openStore({ url: ':memory:' });
    opened.push(a, b, m);
    for (const [store, prefix] of [
      [a, 'a'],
      [b, 'b'],
      [m, 'm'],
    ] as const) {
      for (let i = 0; i < 5; i++)
        await store.runs.create({ agentName: `${prefix}${i}`, task: `t${i}`, source: 'cli' });
    }
    // The same SELECT, interleaved across ids and databases, returns the right row every time.
    for (let i = 1; i <= 5; i++) {
      expect((await a.runs.get(i))?.agentName).toBe(`a${i - 1}`);
      expect((await b.runs.get(i))?.agentName).toBe(`b${i - 1}`);
      expect((await m.runs.get(i))?.agentName).toBe(`m${i - 1}`);
    }
    // Writes through a reused statement are seen by the next read through another.
    await a.runs.updateProgress(3, { stepsTaken: 7 });
    expect((await a.runs.get(3))?.stepsTaken).toBe(7);
    expect((await b.runs.get(3))?.stepsTaken).toBe(0);
    // Events numbered inside one INSERT stay consecutive over repeated batches.
    await a.runEvents.record(1, [{ type: 'x' }, { type: 'y' }]);
    await a.runEvents.record(1, [{ type: 'z' }]);
    expect((await a.runEvents.list(1)).map((e) => [e.seq, e.type])).toEqual([
      [1, 'x'],
      [2, 'y'],
      [3, 'z'],
    ]);
  });
});
