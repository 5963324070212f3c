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

describe('direct selects (hot reads straight from the driver)', () => {
  it('answer exactly what drizzle reads — types, nulls and order — on files and in memory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-direct-'));
    const file = await openStore({ url: path.join(dir, 'a.db') });
    const memory = await openStore({ url: ':memory:' });
    opened.push(file, memory);
    for (const store of [file, memory]) {
      const dev = await store.environments.create({ name: 'dev' });
      const prod = await store.environments.create({ name: 'prod' });
      await store.agents.create(prod.id, { name: 'zeta', model: 'openai/x', maxSteps: 7 });
      await store.agents.create(dev.id, { name: 'beta', description: 'it\'s "b"' });
      await store.agents.create(dev.id, { name: 'alpha', model: null });
      const { items, total } = await store.agents.listSummaries();
      expect(total).toBe(3);
      const full = await store.agents.list();
      // Same order as the drizzle read (environment, then name), and the same values.
      expect(items.map((a) => a.name)).toEqual(['alpha', 'beta', 'zeta']);
      for (const item of items) {
        const agent = full.find((a) => a.id === item.id)!;
        expect(item).toEqual({
          id: agent.id,
          name: agent.name,
          environmentId: agent.environmentId,
          environmentName: agent.environmentId === dev.id ? 'dev' : 'prod',
          description: agent.description,
          model: agent.model,
          maxSteps: agent.maxSteps,
          updatedAt: agent.updatedAt,
        });
        expect(item.updatedAt).toBeInstanceOf(Date);
      }
      expect(items[2]).toMatchObject({ maxSteps: 7, model: 'openai/x' });
      expect(items[0]).toMatchObject({ maxSteps: null, model: null });
      // Filters and paging through the same statement, called again with other values.
      const page = await store.agents.listSummaries({ environmentId: dev.id, limit: 1, offset: 1 });
      expect(page).toEqual({ items: [expect.objectContaining({ name: 'beta' })], total: 2 });
      // A write is seen by the next direct read.
      await store.agents.create(prod.id, { name: 'eta' });
      expect((await store.agents.listSummaries({ environmentName: 'prod' })).total).toBe(2);
    }
  });

  it('fail as a StoreError naming the operation once the store is closed', async () => {
    const store = await openStore({ url: ':memory:' });
    await store.close();
    await expect(store.agents.listSummaries()).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});

describe('direct reads against drizzle', () => {
  it('decode booleans, JSON, timestamps and nulls exactly as a drizzle read does', async () => {
    const store = await openStore({ url: ':memory:' });
    opened.push(store);
    const env = await store.environments.create({ name: 'dev' });
    const agent = await store.agents.create(env.id, {
      name: 'full',
      model: 'openai/x',
      maxSteps: 3,
      frontMatter: { tools: ['a', 'b'], nested: { n: 1, ok: true } },
      scheduleCron: '*/5 * * * *',
      scheduleEnabled: true,
      scheduleVariables: { CITY: 'Zürich' },
      codingEnabled: true,
    });
    // create answers drizzle's RETURNING row; environments.get is a drizzle read.
    const viaDrizzle = agent;
    expect(await store.agents.get(agent.id)).toEqual(viaDrizzle);
    // The runner's one read of an agent with its environment: one flat direct row, split.
    expect(await store.agents.getWithEnvironment(agent.id)).toEqual({
      agent: viaDrizzle,
      environment: await store.environments.get(env.id),
    });
    expect(await store.agents.getWithEnvironment(999_999)).toBeUndefined();
    expect(await store.agents.getByName(env.id, 'full')).toEqual(viaDrizzle);
    expect(await store.agents.list({ name: 'full' })).toEqual([viaDrizzle]);
    expect(viaDrizzle).toMatchObject({ scheduleEnabled: true, codingEnabled: true });
    // The rows a group insert of runs returns equal what a drizzle read of them gives.
    const created = await Promise.all([
      store.runs.create({ agentId: agent.id, agentName: 'full', task: 'a', source: 'api' }),
      store.runs.create({
        agentName: 'full',
        task: 'b',
        source: 'cli',
        variables: { K: 'v' },
        claimedBy: { workerId: 'w1', leaseMs: 1000 },
      }),
    ]);
    for (const run of created) expect(run).toEqual(await store.runs.get(run.id));
    // A run handed back owns its variables: changing the caller's object changes nothing.
    const variables = { K: 'v' };
    const own = await store.runs.create({ agentName: 'full', task: 'c', source: 'api', variables });
    variables.K = 'changed';
    expect(own.variables).toEqual({ K: 'v' });
    expect(await store.runs.get(own.id)).toEqual(own);
    // Text the driver cannot write as it is (a lone surrogate) comes back as it was stored.
    const odd = await store.runs.create({
      agentName: 'full',
      task: 'half \ud800 a pair',
      source: 'api',
      model: 'm\udfff',
      variables: { K: '\ud800' },
    });
    expect(odd).toEqual(await store.runs.get(odd.id));
    expect(odd.task).toBe('half \ufffd a pair');
    expect(created[1]).toMatchObject({ status: 'running', variables: { K: 'v' } });
    expect(created[1]?.startedAt).toBeInstanceOf(Date);
  });

  it('find the agent a bare name means: the preferred environment first, else the only one', async () => {
    const store = await openStore({ url: ':memory:' });
    opened.push(store);
    const main = await store.environments.create({ name: 'default' });
    const dev = await store.environments.create({ name: 'dev' });
    const prod = await store.environments.create({ name: 'prod' });
    const shared = await store.agents.create(dev.id, { name: 'shared', model: 'openai/dev' });
    const preferred = await store.agents.create(main.id, { name: 'shared', model: 'openai/x' });
    await store.agents.create(prod.id, { name: 'shared' });
    const solo = await store.agents.create(prod.id, { name: 'solo' });
    await store.agents.create(dev.id, { name: 'twice' });
    await store.agents.create(prod.id, { name: 'twice' });
    const ref = (a: typeof solo): object => ({
      id: a.id,
      name: a.name,
      environmentId: a.environmentId,
      model: a.model,
    });
    expect(await store.agents.findByName('shared', 'default')).toEqual({
      agent: ref(preferred),
      count: 3,
    });
    expect(await store.agents.findByName('shared', 'dev')).toEqual({
      agent: ref(shared),
      count: 3,
    });
    expect(await store.agents.findByName('solo', 'default')).toEqual({
      agent: ref(solo),
      count: 1,
    });
    // In two environments, neither preferred: ambiguous, the caller lists them.
    expect(await store.agents.findByName('twice', 'default')).toEqual({
      agent: undefined,
      count: 2,
    });
    expect(await store.agents.findByName('nobody', 'default')).toEqual({
      agent: undefined,
      count: 0,
    });
    // Lookups asked together share a read, yet each caller owns what it gets.
    const [a, b, c] = await Promise.all([
      store.agents.findByName('shared', 'default'),
      store.agents.findByName('shared', 'default'),
      store.agents.findByName('shared', 'dev'),
    ]);
    expect(a).toEqual({ agent: ref(preferred), count: 3 });
    expect(b).toEqual(a);
    expect(b.agent).not.toBe(a.agent);
    expect(c).toEqual({ agent: ref(shared), count: 3 });
    // A lookup asked after a write sees it.
    const added = await store.agents.create(main.id, { name: 'twice' });
    expect(await store.agents.findByName('twice', 'default')).toEqual({
      agent: ref(added),
      count: 3,
    });
  });

  it('refuse a value that is not a finite number instead of reading it as NULL', async () => {
    const store = await openStore({ url: ':memory:' });
    opened.push(store);
    await expect(store.agents.get(Number.NaN)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('closing', () => {
  it('closes once when close() is called twice at the same time; other stores on the file keep working', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'junction-close-'));
    const file = path.join(dir, 'c.db');
    const a = await openStore({ url: file });
    const b = await openStore({ url: file });
    opened.push(b);
    await Promise.all([a.close(), a.close()]);
    expect(await b.environments.list()).toEqual([]);
    expect(await b.agents.list()).toEqual([]);
  });
});
